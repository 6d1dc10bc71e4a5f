//! Against files `torch.save` wrote (PyTorch 2.15, CRCs off): the write
//! calls it made on a Python file, and the bytes of whole files with the
//! tensor data and the serialization id masked.

use std::rc::Rc;

use sha2::{Digest, Sha256};

use super::*;
use crate::dlio::checkpoint::model::Dtype;
use crate::dlio::checkpoint::state::{Key, Value};

fn tensor(dtype: Dtype, numel: u64) -> Value {
    Value::Tensor(Tensor { dtype, numel })
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

const ID: [u8; 40] = [b'7'; 40];

/// The id's piece: the data of the last record.
fn is_id(img: &Image, i: usize) -> bool {
    let data_pieces = img.pieces.len() - 4 - 1;
    i == data_pieces - 1
}

#[test]
fn the_write_calls_torch_save_makes() {
    // torch.save({"0": {"0": fp16[64]}, "1": fp32[5000]}, f), literal keys.
    let inner = Rc::new(Dict(vec![(Key::Literal("0"), tensor(Dtype::Fp16, 64))]));
    let state = Rc::new(Dict(vec![
        (Key::Literal("0"), Value::Dict(inner)),
        (Key::Literal("1"), tensor(Dtype::Fp32, 5000)),
    ]));
    let img = image(&state, &ID);
    let lens: Vec<u64> = img.pieces.iter().map(Piece::len).collect();
    let torch = [
        30, 16, 18, 247, 16, 30, 23, 4, 1, 16, 30, 26, 55, 2, 16, 30, 17, 63, 6, 16, 30, 14, 62,
        128, 16, 30, 14, 4, 20000, 16, 30, 15, 35, 2, 16, 30, 30, 50, 40, 16, 523, 56, 20, 22,
    ];
    assert_eq!(lens, torch);
    assert_eq!(img.size(), 21861);
    assert!(is_id(&img, 38));
}

#[test]
fn a_small_file_byte_for_byte() {
    let layer = |sizes: &[i64]| Value::Dict(Rc::new(Dict::indexed(sizes, Dtype::Fp16)));
    let mut items = vec![(Key::Fresh("0".into()), layer(&[1000]))];
    for l in 1..=2 {
        items.push((Key::Fresh(l.to_string()), layer(&[16, 48, 16, 16, 96, 48])));
    }
    items.push((Key::Fresh("3".into()), layer(&[1000])));
    items.push((Key::Fresh("4".into()), layer(&[16])));
    let img = image(&Rc::new(Dict(items)), &ID);
    let mut file = Vec::new();
    for (i, p) in img.pieces.iter().enumerate() {
        match *p {
            Piece::Bytes { len, .. } if is_id(&img, i) => file.extend(vec![0; len]),
            Piece::Bytes { at, len } => file.extend(&img.blob[at..at + len]),
            Piece::Tensor { len } => file.extend(vec![0; len as usize]),
        }
    }
    assert_eq!(file.len(), 9654);
    assert_eq!(
        hex(&Sha256::digest(&file)),
        "732cd80b201fbab1c57c5e1cf1096e72b8b5ef8c98e3282f028b7cb5bbf42927"
    );
}

#[test]
fn zip64_fields_for_a_record_over_4_gib_and_records_past_it() {
    let state = Rc::new(Dict(vec![
        (Key::Literal("0"), tensor(Dtype::Fp32, 3)),
        (Key::Literal("1"), tensor(Dtype::Int8, 5_000_000_000)),
        (Key::Literal("2"), tensor(Dtype::Fp16, 1000)),
    ]));
    let img = image(&state, &ID);
    assert_eq!(img.size(), 5_000_004_193);
    // Bytes before each masked record's data, then its length.
    let mut h = Sha256::new();
    for (i, p) in img.pieces.iter().enumerate() {
        match *p {
            Piece::Bytes { len, .. } if is_id(&img, i) => h.update((len as u64).to_le_bytes()),
            Piece::Bytes { at, len } => h.update(&img.blob[at..at + len]),
            Piece::Tensor { len } => h.update(len.to_le_bytes()),
        }
    }
    assert_eq!(
        hex(&h.finalize()),
        "aea3f3d203230b4d48b6fff55bc2061ebcdcfcacae502daa4e56a1380e6fa922"
    );
}

#[test]
fn an_empty_tensor_has_no_descriptor() {
    let state = Rc::new(Dict(vec![(Key::Literal("a"), tensor(Dtype::Int8, 0))]));
    let img = image(&state, &ID);
    // header, name, padding, (no data), no descriptor; then `version`.
    let data0 = img
        .pieces
        .iter()
        .position(|p| matches!(p, Piece::Tensor { .. }))
        .unwrap();
    assert_eq!(img.pieces[data0 + 1].len(), 30);
}

#[test]
fn ids_are_forty_digits() {
    let id = serialization_id(5);
    assert!(id.iter().all(u8::is_ascii_digit));
    assert_ne!(id, serialization_id(6));
}
