//! The file `torch.save` writes: a stored (uncompressed) zip made by
//! PyTorch's `PyTorchStreamWriter` over miniz, byte for byte, as the
//! sequence of `write` calls it makes on the Python file.
//!
//! Records, each under `archive/`: `data.pkl`, `.format_version` (`1`),
//! `.storage_alignment` (`64`), `byteorder` (`little`), `data/0`, ... (one
//! per tensor), `version` (`3\n`), `.data/serialization_id` (40 digits).
//! A record is a local header (30 bytes), its name, a zip64 extra field
//! when its size or offset reaches 4 GiB, an `FB` extra field padding its
//! data to a multiple of 64 bytes, the data, and a data descriptor (16
//! bytes, 24 with zip64). The central directory, a zip64 end record, its
//! locator and the end record close the file. CRCs are 0, as
//! `torch.serialization.set_crc32_options(False)` writes them; `torch.load`
//! does not check them.

use std::rc::Rc;

use super::pickle::{pickle, Pickled};
use super::state::{Dict, Tensor};

/// Data of a record starts at a multiple of this (`kFieldAlignment`).
const ALIGNMENT: u64 = 64;
const U32_MAX: u64 = 0xffff_ffff;
const LOCAL_HEADER: u64 = 30;

/// One `write` call of `torch.save` on the Python file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// Bytes of the image's header blob: `len` bytes from `at`.
    Bytes { at: usize, len: usize },
    /// A tensor's data: incompressible bytes of any content.
    Tensor { len: u64 },
}

impl Piece {
    pub fn len(&self) -> u64 {
        match *self {
            Piece::Bytes { len, .. } => len as u64,
            Piece::Tensor { len } => len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A checkpoint file as `torch.save` writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Every byte that is not tensor data, in order.
    pub blob: Vec<u8>,
    /// The write calls, in order; together they are the file.
    pub pieces: Vec<Piece>,
    pub storages: Vec<Tensor>,
    /// Each record, in file order.
    pub records: Vec<Record>,
    /// The central directory's offset and length.
    pub central: (u64, u64),
    /// The zip64 end record's offset.
    pub end64: u64,
}

/// Where a record lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Its name without `archive/`.
    pub name: String,
    /// The local header's offset.
    pub header: u64,
    /// The data's offset.
    pub data: u64,
    pub size: u64,
}

impl Image {
    /// The file's size.
    pub fn size(&self) -> u64 {
        self.pieces.iter().map(Piece::len).sum()
    }

    /// The same file padded with zeros to a multiple of `align` bytes
    /// (O_DIRECT writes whole blocks; readers find the end record within
    /// the last 64 KiB, so the zeros after it do no harm).
    pub fn padded(&self, align: u64) -> Image {
        let size = self.size();
        let pad = (align - size % align) % align;
        let mut out = self.clone();
        if pad > 0 {
            out.pieces.push(Piece::Bytes {
                at: out.blob.len(),
                len: pad as usize,
            });
            out.blob.extend(std::iter::repeat_n(0, pad as usize));
        }
        out
    }

    /// The record named `name` (without `archive/`).
    pub fn record(&self, name: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.name == name)
    }

    /// Bytes of tensor data.
    pub fn tensor_bytes(&self) -> u64 {
        self.storages.iter().map(Tensor::bytes).sum()
    }
}

/// The image of `torch.save(state, f)`; `serialization_id` is the 40
/// decimal digits of the last record.
pub fn image(state: &Rc<Dict>, serialization_id: &[u8; 40]) -> Image {
    let Pickled { bytes, storages } = pickle(state);
    let mut w = Writer::default();
    w.record("data.pkl", Content::Bytes(&bytes));
    w.record(".format_version", Content::Bytes(b"1"));
    w.record(".storage_alignment", Content::Bytes(b"64"));
    w.record("byteorder", Content::Bytes(b"little"));
    for (i, t) in storages.iter().enumerate() {
        w.record(&format!("data/{i}"), Content::Tensor(t.bytes()));
    }
    w.record("version", Content::Bytes(b"3\n"));
    w.record(".data/serialization_id", Content::Bytes(serialization_id));
    w.finish();
    let records = w
        .entries
        .iter()
        .map(|e| Record {
            name: e.name["archive/".len()..].to_string(),
            header: e.offset,
            data: e.data,
            size: e.size,
        })
        .collect();
    Image {
        blob: w.blob,
        pieces: w.pieces,
        storages,
        records,
        central: w.central,
        end64: w.end64,
    }
}

/// 40 decimal digits from a number (the id's content does not matter).
pub fn serialization_id(seed: u64) -> [u8; 40] {
    let mut out = [b'0'; 40];
    let mut x = seed;
    for d in out.iter_mut() {
        x = crate::random::splitmix64(x);
        *d = b'0' + (x % 10) as u8;
    }
    out
}

enum Content<'a> {
    Bytes(&'a [u8]),
    Tensor(u64),
}

impl Content<'_> {
    fn len(&self) -> u64 {
        match self {
            Content::Bytes(b) => b.len() as u64,
            Content::Tensor(n) => *n,
        }
    }
}

/// A central directory entry waiting for the end of the file.
struct Entry {
    name: String,
    size: u64,
    offset: u64,
    data: u64,
}

#[derive(Default)]
struct Writer {
    blob: Vec<u8>,
    pieces: Vec<Piece>,
    /// Bytes written so far (`m_archive_size`).
    at: u64,
    entries: Vec<Entry>,
    central: (u64, u64),
    end64: u64,
}

/// miniz's zip64 extra field: the sizes when they reach 4 GiB, the local
/// header's offset when it does. In the local header the compressed size
/// is still 0 (it follows in the data descriptor).
fn zip64_extra(size: u64, offset: u64, local: bool) -> Vec<u8> {
    let mut fields = Vec::new();
    if size >= U32_MAX {
        fields.extend(size.to_le_bytes());
        fields.extend((if local { 0 } else { size }).to_le_bytes());
    }
    if offset >= U32_MAX {
        fields.extend(offset.to_le_bytes());
    }
    if fields.is_empty() {
        return fields;
    }
    let mut extra = vec![1, 0];
    extra.extend((fields.len() as u16).to_le_bytes());
    extra.extend(fields);
    extra
}

/// The general purpose flags: UTF-8 names, and a data descriptor after
/// any data.
fn flags(size: u64) -> u64 {
    if size > 0 {
        0x0808
    } else {
        0x0800
    }
}

/// PyTorch's `getPadding`: an `FB` field whose `Z`s bring the data to the
/// alignment, counting the zip64 field miniz puts first.
fn padding(offset: u64, name_len: u64, size: u64) -> Vec<u8> {
    let start = offset + LOCAL_HEADER + name_len + 4 + zip64_extra(size, offset, true).len() as u64;
    let pad = (ALIGNMENT - start % ALIGNMENT) % ALIGNMENT;
    let mut field = vec![b'F', b'B'];
    field.extend((pad as u16).to_le_bytes());
    field.extend(std::iter::repeat_n(b'Z', pad as usize));
    field
}

fn le16(out: &mut Vec<u8>, v: u64) {
    out.extend((v.min(0xffff) as u16).to_le_bytes());
}

fn le32(out: &mut Vec<u8>, v: u64) {
    out.extend((v.min(U32_MAX) as u32).to_le_bytes());
}

impl Writer {
    fn bytes(&mut self, bytes: &[u8]) {
        self.pieces.push(Piece::Bytes {
            at: self.blob.len(),
            len: bytes.len(),
        });
        self.blob.extend_from_slice(bytes);
        self.at += bytes.len() as u64;
    }

    /// `writeRecord` → `mz_zip_writer_add_mem_ex_v2`, each part one write.
    fn record(&mut self, name: &str, content: Content) {
        let name = format!("archive/{name}");
        let (offset, size) = (self.at, content.len());
        let zip64 = zip64_extra(size, offset, true);
        let pad = padding(offset, name.len() as u64, size);
        let mut header = Vec::with_capacity(LOCAL_HEADER as usize);
        le32(&mut header, 0x0403_4b50);
        le16(&mut header, 0); // version needed: stored
        le16(&mut header, flags(size));
        header.extend([0; 18]); // method, time, date, CRC, sizes
        le16(&mut header, name.len() as u64);
        le16(&mut header, (zip64.len() + pad.len()) as u64);
        self.bytes(&header);
        self.bytes(name.as_bytes());
        if !zip64.is_empty() {
            self.bytes(&zip64);
        }
        self.bytes(&pad);
        let data = self.at;
        match content {
            Content::Bytes(b) => self.bytes(b),
            Content::Tensor(len) => {
                self.pieces.push(Piece::Tensor { len });
                self.at += len;
            }
        }
        if size > 0 {
            let mut descriptor = Vec::with_capacity(24);
            le32(&mut descriptor, 0x0807_4b50);
            le32(&mut descriptor, 0); // CRC
            if zip64.is_empty() {
                le32(&mut descriptor, size);
                le32(&mut descriptor, size);
            } else {
                descriptor.extend(size.to_le_bytes());
                descriptor.extend(size.to_le_bytes());
            }
            self.bytes(&descriptor);
        }
        self.entries.push(Entry {
            name,
            size,
            offset,
            data,
        });
    }

    /// The central directory (one write), the zip64 end record, its
    /// locator and the end record.
    fn finish(&mut self) {
        let mut cd = Vec::new();
        for e in &self.entries {
            let zip64 = zip64_extra(e.size, e.offset, false);
            le32(&mut cd, 0x0201_4b50);
            le16(&mut cd, 0); // version made by
            le16(&mut cd, 0); // version needed
            le16(&mut cd, flags(e.size));
            cd.extend([0; 10]); // method, time, date, CRC
            le32(&mut cd, e.size);
            le32(&mut cd, e.size);
            le16(&mut cd, e.name.len() as u64);
            le16(&mut cd, zip64.len() as u64);
            cd.extend([0; 10]); // comment, disk, attributes
            le32(&mut cd, e.offset);
            cd.extend(e.name.as_bytes());
            cd.extend(zip64);
        }
        let (cd_at, cd_len, n) = (self.at, cd.len() as u64, self.entries.len() as u64);
        self.bytes(&cd);
        self.central = (cd_at, cd_len);
        let end64_at = self.at;
        self.end64 = end64_at;
        let mut end64 = Vec::with_capacity(56);
        le32(&mut end64, 0x0606_4b50);
        end64.extend(44u64.to_le_bytes());
        le16(&mut end64, 0x031e); // made by: Unix, 3.0
        le16(&mut end64, 45); // needed: zip64
        end64.extend([0; 8]); // disks
        for v in [n, n, cd_len, cd_at] {
            end64.extend(v.to_le_bytes());
        }
        self.bytes(&end64);
        let mut locator = Vec::with_capacity(20);
        le32(&mut locator, 0x0706_4b50);
        le32(&mut locator, 0);
        locator.extend(end64_at.to_le_bytes());
        le32(&mut locator, 1);
        self.bytes(&locator);
        let mut end = Vec::with_capacity(22);
        le32(&mut end, 0x0605_4b50);
        end.extend([0; 4]); // disks
        le16(&mut end, n);
        le16(&mut end, n);
        le32(&mut end, cd_len);
        le32(&mut end, cd_at);
        le16(&mut end, 0); // comment
        self.bytes(&end);
    }
}

#[cfg(test)]
mod tests;
