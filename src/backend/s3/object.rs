//! Open S3 "files": an object written in parts ([`ObjectWriter`]), an
//! object read by ranged GETs ([`ObjectReader`]), and fragments, one object
//! per transfer ([`Fragments`]).

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};

use super::client::Client;
use super::parts::Plan;
use super::pending::{Op, Pending, Transfer};
use super::upload::{self, Sent, SentParts};
use super::Target;
use crate::backend::{Access, File, Queue};

/// Requests in flight for one file: the depth asked for and, once the
/// runner asks for it, the queue.
#[derive(Default)]
pub struct InFlight {
    pub depth: usize,
    pending: Option<Pending>,
}

impl InFlight {
    pub fn new(depth: usize) -> InFlight {
        InFlight {
            depth,
            pending: None,
        }
    }

    /// The queue for transfers of `len` bytes, made by `op` on first use;
    /// `None` at depth 1 (one request at a time, as IOR makes them).
    fn queue(&mut self, len: usize, op: impl FnOnce() -> Op) -> Option<io::Result<&mut dyn Queue>> {
        if self.depth <= 1 {
            return None;
        }
        if self.pending.as_ref().is_none_or(|p| p.buffer_len() < len) {
            self.pending = None;
            match Pending::new(self.depth, len, op()) {
                Ok(p) => self.pending = Some(p),
                Err(e) => return Some(Err(e)),
            }
        }
        self.pending.as_mut().map(|p| Ok(p as &mut dyn Queue))
    }
}

fn wrong_way(access: Access) -> io::Error {
    io::Error::other(match access {
        Access::Write => "an object opened for reading cannot be written",
        Access::Read => "an object opened for writing cannot be read",
    })
}

/// An object being written. Transfers that make up a whole part are sent
/// as they come; smaller ones are gathered in the part's buffer first. A
/// multipart upload this writer started is completed at close from the
/// parts it sent ([`upload::finish`]), or aborted when the writer is
/// dropped without closing (a failure, a signal).
pub struct ObjectWriter {
    client: Arc<Client>,
    target: Target,
    plan: Plan,
    /// The multipart upload; `None`: the object is one PUT.
    upload: Option<String>,
    /// The upload belongs to every task of a shared file: the tasks' closing
    /// rendezvous completes it, not this writer.
    shared: bool,
    partial: HashMap<u64, (Vec<u8>, u64)>,
    /// The parts sent, by this writer or its queue (a shared object's:
    /// read by the tasks' closing rendezvous).
    parts: SentParts,
    done: bool,
    in_flight: InFlight,
}

impl ObjectWriter {
    pub fn new(
        client: Arc<Client>,
        target: Target,
        plan: Plan,
        upload: Option<String>,
        shared: bool,
        parts: SentParts,
        in_flight: InFlight,
    ) -> ObjectWriter {
        ObjectWriter {
            client,
            target,
            plan,
            upload,
            shared,
            partial: HashMap::new(),
            parts,
            done: false,
            in_flight,
        }
    }

    /// Part `index` (0-based): its first byte and its length.
    fn span(&self, index: u64) -> (u64, u64) {
        let start = index * self.plan.part;
        (start, self.plan.part.min(self.plan.size - start))
    }

    fn send(&mut self, index: u64, data: &[u8]) -> io::Result<()> {
        send_part(
            &self.client,
            &self.target,
            self.upload.as_deref(),
            &self.parts,
            index,
            data,
        )
    }

    /// Sends the parts not yet complete, their missing bytes as zeros (a
    /// phase stopped early leaves them), so the object keeps its offsets.
    fn flush(&mut self) -> io::Result<()> {
        let mut left: Vec<u64> = self.partial.keys().copied().collect();
        left.sort_unstable();
        for index in left {
            let (data, _) = self.partial.remove(&index).expect("a partial part");
            self.send(index, &data)?;
        }
        Ok(())
    }
}

/// Sends part `index` (0-based) of an upload, or the whole object.
fn send_part(
    client: &Client,
    target: &Target,
    upload: Option<&str>,
    parts: &Mutex<Vec<Sent>>,
    index: u64,
    data: &[u8],
) -> io::Result<()> {
    let Target { bucket, key } = target;
    match upload {
        None => client.put(bucket, key, data),
        Some(id) => {
            let number = index as u32 + 1;
            let etag = client.upload_part(bucket, key, id, number, data)?;
            let size = data.len() as u64;
            parts
                .lock()
                .expect("no panic holds it")
                .push(Sent { number, etag, size });
            Ok(())
        }
    }
}

impl File for ObjectWriter {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        if offset >= self.plan.size {
            return Err(io::Error::other(format!(
                "offset {offset} is beyond the object's planned {} bytes",
                self.plan.size
            )));
        }
        let index = offset / self.plan.part;
        let (start, len) = self.span(index);
        let within = offset - start;
        let take = (buf.len() as u64).min(len - within) as usize;
        if within == 0 && take as u64 == len {
            self.send(index, &buf[..take])?;
            return Ok(take);
        }
        let (data, filled) = self
            .partial
            .entry(index)
            .or_insert_with(|| (vec![0; len as usize], 0));
        data[within as usize..within as usize + take].copy_from_slice(&buf[..take]);
        *filled += take as u64;
        if *filled >= len {
            let (data, _) = self.partial.remove(&index).expect("a partial part");
            self.send(index, &data)?;
        }
        Ok(take)
    }

    fn read_at(&mut self, _buf: &mut [u8], _offset: u64) -> io::Result<usize> {
        Err(wrong_way(Access::Read))
    }

    /// Transfers that are whole parts go through the queue; smaller ones
    /// are gathered into parts one at a time.
    fn queue(&mut self, len: usize) -> Option<io::Result<&mut dyn Queue>> {
        if len as u64 != self.plan.part {
            return None;
        }
        let (client, target) = (self.client.clone(), self.target.clone());
        let (upload, parts, part) = (self.upload.clone(), self.parts.clone(), self.plan.part);
        self.in_flight.queue(len, move || {
            Arc::new(move |transfer: Transfer<'_>, offset| match transfer {
                Transfer::Write(bytes) => {
                    let index = offset / part;
                    send_part(&client, &target, upload.as_deref(), &parts, index, bytes)
                        .map(|()| bytes.len())
                }
                Transfer::Read(_) => Err(wrong_way(Access::Read)),
            })
        })
    }

    /// Nothing to flush before close: a part is durable once sent, and the
    /// object exists only when its upload completes.
    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn close(mut self: Box<Self>) -> io::Result<()> {
        self.in_flight = InFlight::default();
        self.flush()?;
        if let (Some(id), false) = (&self.upload, self.shared) {
            let sent = std::mem::take(&mut *self.parts.lock().expect("no panic holds it"));
            let parts = upload::merge(vec![(None, sent)]).map_err(io::Error::other)?;
            upload::finish(&self.client, &self.target, id, &parts)?;
        }
        self.done = true;
        Ok(())
    }
}

impl Drop for ObjectWriter {
    fn drop(&mut self) {
        if let (Some(id), false) = (&self.upload, self.done) {
            let _ = self
                .client
                .abort_upload(&self.target.bucket, &self.target.key, id);
        }
    }
}

/// An object read by ranged GETs, any size, any order.
pub struct ObjectReader {
    pub client: Arc<Client>,
    pub target: Target,
    pub in_flight: InFlight,
}

impl File for ObjectReader {
    fn write_at(&mut self, _buf: &[u8], _offset: u64) -> io::Result<usize> {
        Err(wrong_way(Access::Write))
    }

    fn queue(&mut self, len: usize) -> Option<io::Result<&mut dyn Queue>> {
        let (client, target) = (self.client.clone(), self.target.clone());
        self.in_flight.queue(len, move || {
            Arc::new(move |transfer: Transfer<'_>, offset| match transfer {
                Transfer::Read(buf) => client.get(&target.bucket, &target.key, offset, buf),
                Transfer::Write(_) => Err(wrong_way(Access::Write)),
            })
        })
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.client
            .get(&self.target.bucket, &self.target.key, offset, buf)
    }

    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        Ok(())
    }
}

/// An item written whole (mdtest, md-workbench): its bytes gathered, one
/// PUT at close.
pub struct Whole {
    pub client: Arc<Client>,
    pub target: Target,
    pub data: Vec<u8>,
}

impl File for Whole {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        let end = offset as usize + buf.len();
        if self.data.len() < end {
            self.data.resize(end, 0);
        }
        self.data[offset as usize..end].copy_from_slice(buf);
        Ok(buf.len())
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let from = (offset as usize).min(self.data.len());
        let n = buf.len().min(self.data.len() - from);
        buf[..n].copy_from_slice(&self.data[from..from + n]);
        Ok(n)
    }

    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        self.client
            .put(&self.target.bucket, &self.target.key, &self.data)
    }
}

/// IOR's S3-libs3 key of a file path: letters and digits kept (capitals
/// lowered), `/` as `_`, any other byte as two letters, then `b`.
pub fn file_key(path: &str) -> String {
    let mut key = String::with_capacity(path.len() + 8);
    for b in path.bytes() {
        match b {
            b'a'..=b'z' | b'0'..=b'9' => key.push(b as char),
            b'A'..=b'Z' => key.push(b.to_ascii_lowercase() as char),
            b'/' => key.push('_'),
            _ => {
                key.push((b'a' + b / 26) as char);
                key.push((b'a' + b % 26) as char);
            }
        }
    }
    key.push('b');
    key
}

/// How the fragments of a file are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// pario: `KEY~` and the offset in 20 digits, so a listing of the
    /// prefix is in offset order. Not `KEY/`: on servers backed by a file
    /// system (SeaweedFS) that makes KEY a directory, which then keeps an
    /// object of that name from being written.
    Pario,
    /// IOR's S3-libs3: `KEY` at offset 0, `KEY-OFFSET-LENGTH` elsewhere.
    Ior,
    /// IOR's S3-libs3 with a bucket per file: `0` at offset 0,
    /// `OFFSET-LENGTH` elsewhere, whatever the file (the bucket names it).
    IorBucket,
}

impl Naming {
    pub fn key(self, file: &str, offset: u64, len: usize) -> String {
        match self {
            Naming::Pario => format!("{file}~{offset:020}"),
            Naming::Ior if offset == 0 => file.to_string(),
            Naming::Ior => format!("{file}-{offset}-{len}"),
            Naming::IorBucket if offset == 0 => "0".to_string(),
            Naming::IorBucket => format!("{offset}-{len}"),
        }
    }

    /// The prefix every fragment key of `file` starts with.
    pub fn prefix(self, file: &str) -> String {
        match self {
            Naming::Pario => format!("{file}~"),
            Naming::Ior => file.to_string(),
            Naming::IorBucket => String::new(),
        }
    }

    /// Whether `key` is a fragment of `file` (a listing of the prefix may
    /// hold other files' keys under IOR's naming), and where it starts.
    pub fn offset_of(self, file: &str, key: &str) -> Option<u64> {
        if self == Naming::IorBucket {
            return match key.split_once('-') {
                None => (key == "0").then_some(0),
                Some((offset, len)) => len.parse::<u64>().ok().and(offset.parse().ok()),
            };
        }
        let rest = key.strip_prefix(file)?;
        match self {
            Naming::Pario => {
                let digits = rest.strip_prefix('~')?;
                (digits.len() == 20).then(|| digits.parse().ok())?
            }
            Naming::Ior if rest.is_empty() => Some(0),
            Naming::Ior | Naming::IorBucket => {
                let (offset, len) = rest.strip_prefix('-')?.split_once('-')?;
                len.parse::<u64>().ok()?;
                offset.parse().ok()
            }
        }
    }
}

/// A file as one object per transfer.
pub struct Fragments {
    pub client: Arc<Client>,
    pub target: Target,
    pub naming: Naming,
    pub in_flight: InFlight,
}

impl File for Fragments {
    fn queue(&mut self, len: usize) -> Option<io::Result<&mut dyn Queue>> {
        let (client, target, naming) = (self.client.clone(), self.target.clone(), self.naming);
        self.in_flight.queue(len, move || {
            Arc::new(move |transfer: Transfer<'_>, offset| match transfer {
                Transfer::Write(bytes) => {
                    let key = naming.key(&target.key, offset, bytes.len());
                    client
                        .put(&target.bucket, &key, bytes)
                        .map(|()| bytes.len())
                }
                Transfer::Read(buf) => {
                    let key = naming.key(&target.key, offset, buf.len());
                    client.get(&target.bucket, &key, 0, buf)
                }
            })
        })
    }

    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        let key = self.naming.key(&self.target.key, offset, buf.len());
        self.client.put(&self.target.bucket, &key, buf)?;
        Ok(buf.len())
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let key = self.naming.key(&self.target.key, offset, buf.len());
        self.client.get(&self.target.bucket, &key, 0, buf)
    }

    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_as_ior_names_them() {
        assert_eq!(file_key("/tmp/test.00000003"), "_tmp_testbu00000003b");
        assert_eq!(file_key("a-b_C"), "abtbdrcb");
    }

    #[test]
    fn fragment_names_round_trip() {
        let k = Naming::Pario.key("d/f", 4096, 10);
        assert_eq!(k, "d/f~00000000000000004096");
        assert_eq!(Naming::Pario.offset_of("d/f", &k), Some(4096));
        assert_eq!(Naming::Ior.key("f", 0, 10), "f");
        assert_eq!(Naming::Ior.key("f", 47008, 47008), "f-47008-47008");
        assert_eq!(Naming::Ior.offset_of("f", "f-47008-47008"), Some(47008));
        assert_eq!(Naming::Ior.offset_of("f", "fb"), None);
        assert_eq!(Naming::IorBucket.key("0", 0, 10), "0");
        assert_eq!(Naming::IorBucket.key("0", 4096, 10), "4096-10");
        assert_eq!(Naming::IorBucket.offset_of("0", "4096-10"), Some(4096));
        assert_eq!(Naming::IorBucket.offset_of("0", "0"), Some(0));
        assert_eq!(Naming::IorBucket.offset_of("0", "x"), None);
    }
}
