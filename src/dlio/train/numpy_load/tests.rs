//! The requests of `np.load`, against strace of numpy 2.4 on CPython
//! 3.11 reading files numpy wrote (4 KiB blocks, tmpfs).

use super::*;
use crate::backend::posix::Posix;
use crate::backend::{Access, Backend, OpenSpec};

/// An npy header of numpy's layout: magic, version 1, padded to 128.
fn npy_header(descr: &str, shape: &str) -> Vec<u8> {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({shape}), }}");
    let mut h = b"\x93NUMPY\x01\x00".to_vec();
    let len = 128 - 10;
    h.extend_from_slice(&(len as u16).to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    h.resize(127, b' ');
    h.push(b'\n');
    h
}

/// A stored zip member as `np.savez` writes it: local header with a zip64
/// extra field, then the npy bytes.
fn member(name: &str, npy: &[u8], out: &mut Vec<u8>) -> u64 {
    let at = out.len() as u64;
    out.extend_from_slice(b"PK\x03\x04\x2d\x00\x00\x00\x00\x00\x00\x00\x21\x00");
    out.extend_from_slice(&[0; 4]); // CRC: nobody checks it here
    out.extend_from_slice(&[0xff; 8]);
    out.extend_from_slice(&(name.len() as u16).to_le_bytes());
    out.extend_from_slice(&20u16.to_le_bytes());
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(&(npy.len() as u64).to_le_bytes());
    out.extend_from_slice(&(npy.len() as u64).to_le_bytes());
    out.extend_from_slice(npy);
    at
}

fn central(name: &str, size: u64, offset: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(b"PK\x01\x02\x2d\x03\x2d\x00\x00\x00\x00\x00\x00\x00\x21\x00");
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(size as u32).to_le_bytes());
    out.extend_from_slice(&(size as u32).to_le_bytes());
    out.extend_from_slice(&(name.len() as u16).to_le_bytes());
    out.extend_from_slice(&[0; 12]);
    out.extend_from_slice(&(offset as u32).to_le_bytes());
    out.extend_from_slice(name.as_bytes());
}

/// `np.savez(f, x=uint8[d1, d2, n], y=[0] * n)`.
fn npz(d1: u64, d2: u64, n: u64) -> Vec<u8> {
    let mut x = npy_header("|u1", &format!("{d1}, {d2}, {n}"));
    x.resize(x.len() + (d1 * d2 * n) as usize, 7);
    let shape = format!("{n},");
    let mut y = npy_header("<i8", &shape);
    y.resize(y.len() + 8 * n as usize, 0);
    let mut out = Vec::new();
    let xat = member("x.npy", &x, &mut out);
    let yat = member("y.npy", &y, &mut out);
    let cd = out.len() as u64;
    central("x.npy", x.len() as u64, xat, &mut out);
    central("y.npy", y.len() as u64, yat, &mut out);
    let cd_size = out.len() as u64 - cd;
    out.extend_from_slice(b"PK\x05\x06\x00\x00\x00\x00\x02\x00\x02\x00");
    out.extend_from_slice(&(cd_size as u32).to_le_bytes());
    out.extend_from_slice(&(cd as u32).to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// `np.save(f, uint8[d1, d2, n])`.
fn npy(d1: u64, d2: u64, n: u64) -> Vec<u8> {
    let mut x = npy_header("|u1", &format!("{d1}, {d2}, {n}"));
    x.resize(x.len() + (d1 * d2 * n) as usize, 7);
    x
}

/// (offset, asked, returned) of each request.
type Requests = &'static [(u64, usize, usize)];

type Load = fn(&mut dyn File, &mut Scratch, u64, usize) -> io::Result<()>;

/// The requests `load` makes on `bytes` written to a file.
fn requests(bytes: &[u8], load: Load) -> Vec<(u64, usize, usize)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, bytes).unwrap();
    let cpath = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    let spec = OpenSpec {
        access: Access::Read,
        create: false,
        reads_too: false,
        file_size: bytes.len() as u64,
        rank: 0,
        sequential: true,
        blocks: None,
        segment: 0,
        transfer: 0,
    };
    let mut file = Posix::new(false).open(&cpath, &spec).unwrap();
    let mut scratch = Scratch::new();
    scratch.trace = Some(Vec::new());
    load(file.as_mut(), &mut scratch, bytes.len() as u64, 4096).unwrap();
    file.close().unwrap();
    scratch.trace.unwrap()
}

#[test]
fn npz_requests_are_numpys() {
    // (offset, asked, returned) from strace, files of np.savez.
    let cases: [((u64, u64, u64), Requests); 4] = [
        (
            (10, 10, 1),
            &[
                (0, 4096, 598),
                (576, 23, 22),
                (598, 1, 0),
                (556, 4096, 42),
                (474, 4096, 124),
                (0, 4096, 598),
            ],
        ),
        (
            (64, 64, 1),
            &[
                (0, 4096, 4096),
                (4572, 23, 22),
                (4594, 1, 0),
                (4552, 4096, 42),
                (4470, 4096, 124),
                (0, 4096, 4096),
                (4096, 4096, 498),
            ],
        ),
        (
            (300, 300, 3),
            &[
                (0, 4096, 4096),
                (270492, 23, 22),
                (270514, 1, 0),
                (270472, 4096, 42),
                (270390, 4096, 124),
                (0, 4096, 4096),
                (4096, 4096, 4096),
                (8192, 253952, 253952),
                (262144, 4096, 4096),
                (266240, 4096, 4096),
            ],
        ),
        (
            (1448, 1448, 1),
            &[
                (0, 4096, 4096),
                (2097180, 23, 22),
                (2097202, 1, 0),
                (2097160, 4096, 42),
                (2097078, 4096, 124),
                (0, 4096, 4096),
                (4096, 4096, 4096),
                (8192, 253952, 253952),
                (262144, 4096, 4096),
                (266240, 258048, 258048),
                (524288, 4096, 4096),
                (528384, 258048, 258048),
                (786432, 4096, 4096),
                (790528, 258048, 258048),
                (1048576, 4096, 4096),
                (1052672, 258048, 258048),
                (1310720, 4096, 4096),
                (1314816, 258048, 258048),
                (1572864, 4096, 4096),
                (1576960, 258048, 258048),
                (1835008, 4096, 4096),
                (1839104, 253952, 253952),
                (2093056, 4096, 4096),
            ],
        ),
    ];
    for ((d1, d2, n), expected) in cases {
        let bytes = npz(d1, d2, n);
        assert_eq!(requests(&bytes, load_npz), expected, "{d1}x{d2}x{n}");
    }
}

#[test]
fn npy_requests_are_numpys() {
    let cases: [((u64, u64, u64), Requests); 4] = [
        (
            (10, 10, 1),
            &[(0, 4096, 228), (0, 128, 128), (0, 4096, 228)],
        ),
        (
            (64, 64, 1),
            &[
                (0, 4096, 4096),
                (0, 128, 128),
                (0, 4096, 4096),
                (4096, 4096, 128),
            ],
        ),
        (
            (300, 300, 3),
            &[
                (0, 4096, 4096),
                (0, 128, 128),
                (0, 4096, 4096),
                (4096, 262144, 262144),
                (266240, 4096, 3888),
            ],
        ),
        (
            (1448, 1448, 1),
            &[
                (0, 4096, 4096),
                (0, 128, 128),
                (0, 4096, 4096),
                (4096, 2088960, 2088960),
                (2093056, 4096, 3776),
            ],
        ),
    ];
    for ((d1, d2, n), expected) in cases {
        assert_eq!(
            requests(&npy(d1, d2, n), load_npy),
            expected,
            "{d1}x{d2}x{n}"
        );
    }
}

#[test]
fn every_byte_of_the_array_is_read() {
    let bytes = npz(1000, 1000, 1);
    let reqs = requests(&bytes, load_npz);
    let read: usize = reqs.iter().map(|r| r.2).sum();
    assert!(read as u64 >= 1000 * 1000, "{read}");
}

#[test]
fn headers_parse_and_bad_files_are_errors() {
    assert_eq!(
        npy_shape(b"{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4, 2), }").unwrap(),
        (24, 1)
    );
    assert_eq!(
        npy_shape(b"{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }").unwrap(),
        (5, 8)
    );
    assert_eq!(
        npy_shape(b"{'descr': '<f4', 'fortran_order': False, 'shape': (), }").unwrap(),
        (1, 4)
    );
    assert!(npy_shape(b"{'shape': (3,)}").is_err());
    assert!(npy_shape(b"{'descr': '|u1', 'shape': (x,)}").is_err());
    let not_zip = npy(4, 4, 1);
    let err = std::panic::catch_unwind(|| requests(&not_zip, load_npz));
    assert!(err.is_err(), "an npy file is no npz");
}
