//! TFRecord files as TensorFlow's `TFRecordWriter` frames them, each record
//! a serialized `tf.train.Example{image: bytes(dim1·dim2), size: int64 =
//! dim}` (DLIO's tf_generator.py): `u64 length, masked CRC-32C of the
//! length, the proto, masked CRC-32C of the proto`; and the index DALI's
//! `tfrecord2idx` writes beside it (`offset length` per record), which
//! pario writes itself.

use std::io;

use super::content::Source;
use super::out::Out;
use crate::dlio::dataset::FileSpec;

/// TensorFlow's CRC mask.
pub fn masked(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint_len(v: u64) -> u64 {
    let mut n = 1;
    let mut v = v >> 7;
    while v > 0 {
        n += 1;
        v >>= 7;
    }
    n
}

/// A length-delimited field's tag and length.
fn field(number: u8, len: u64, out: &mut Vec<u8>) {
    out.push((number << 3) | 2);
    varint(len, out);
}

/// The proto around the image bytes: what goes before them and after
/// (nothing: the image is the last field).
pub fn example(image_len: u64, size: u64) -> (Vec<u8>, Vec<u8>) {
    // image entry: {key: "image", value: Feature{bytes_list{value: [..]}}}
    let bytes_list = 1 + varint_len(image_len) + image_len;
    let feature = 1 + varint_len(bytes_list) + bytes_list;
    let image_entry = 7 + 1 + varint_len(feature) + feature;
    // size entry: {key: "size", value: Feature{int64_list{value: [size]}}}
    let packed = varint_len(size);
    let int64_list = 1 + varint_len(packed) + packed;
    let size_feature = 1 + varint_len(int64_list) + int64_list;
    let size_entry = 6 + 1 + varint_len(size_feature) + size_feature;
    let features =
        1 + varint_len(image_entry) + image_entry + 1 + varint_len(size_entry) + size_entry;
    // TensorFlow writes the map's entries in key order: size, then image.
    let mut head = Vec::with_capacity(48);
    field(1, features, &mut head); // Example.features
    field(1, size_entry, &mut head); // Features.feature (map entry)
    field(1, 4, &mut head);
    head.extend_from_slice(b"size");
    field(2, size_feature, &mut head);
    field(3, int64_list, &mut head); // Feature.int64_list
    field(1, packed, &mut head); // Int64List.value, packed
    varint(size, &mut head);
    field(1, image_entry, &mut head);
    field(1, 5, &mut head);
    head.extend_from_slice(b"image");
    field(2, feature, &mut head);
    field(1, bytes_list, &mut head); // Feature.bytes_list
    field(1, image_len, &mut head); // BytesList.value
    let tail = Vec::new();
    (head, tail)
}

/// Writes `n` records; returns the index file's text.
pub fn write(
    out: &mut dyn Out,
    file: &FileSpec,
    n: u64,
    dim: u64,
    src: &mut Source,
) -> io::Result<String> {
    let image = file.record_bytes();
    let (head, tail) = example(image, dim);
    let proto = head.len() as u64 + image + tail.len() as u64;
    let len = proto.to_le_bytes();
    let mut index = String::new();
    for _ in 0..n {
        let start = out.written();
        out.put(&len)?;
        out.put(&masked(crc32c::crc32c(&len)).to_le_bytes())?;
        out.start_crc32c();
        out.put(&head)?;
        let mut call = src.call(file.index);
        out.fill(&mut call, image)?;
        out.put(&tail)?;
        let crc = masked(out.crc32c());
        out.put(&crc.to_le_bytes())?;
        index.push_str(&format!("{start} {}\n", out.written() - start));
    }
    Ok(index)
}
