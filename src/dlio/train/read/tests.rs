//! Requests of the per-sample readers on real files.

use super::*;
use crate::backend::posix::Posix;

struct Files {
    _dir: tempfile::TempDir,
    names: Vec<CString>,
}

fn files(contents: &[(&str, Vec<u8>)]) -> Files {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for (name, bytes) in contents {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        if !name.ends_with(".idx") {
            names.push(CString::new(path.to_str().unwrap()).unwrap());
        }
    }
    Files { _dir: dir, names }
}

fn index(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn options(format: SampleFormat) -> ReadOptions {
    ReadOptions {
        format,
        odirect: false,
        block: 4096,
        reopen: true,
    }
}

#[test]
fn indexed_binary_reads_its_indexes_once_and_each_sample_in_one_request() {
    let f = files(&[
        ("a.bin", vec![1; 14100]),
        ("a.bin.off.idx", index(&[0, 5000, 5100])),
        ("a.bin.sz.idx", index(&[5000, 100, 9000])),
    ]);
    let backend = Posix::new(false);
    let mut r = SampleReader::new(&backend, &f.names, options(SampleFormat::IndexedBinary), 0);
    r.scratch.trace = Some(Vec::new());
    r.start([0, 0]).unwrap();
    // Each index file: readinto of 24 bytes through a 4 KiB buffer.
    assert_eq!(
        r.scratch.trace.as_ref().unwrap(),
        &[(0, 4096, 24), (0, 4096, 24)]
    );
    r.scratch.trace = Some(Vec::new());
    for sample in 0..3 {
        r.read(0, sample).unwrap();
    }
    // Above a block: one read of the sample; below: a block from its offset.
    let expected = [(0, 5000, 5000), (5000, 4096, 4096), (5100, 9000, 9000)];
    assert_eq!(r.scratch.trace.unwrap(), expected);
    assert_eq!(r.opens, 2 + 3);
    assert_eq!(r.latency.histogram().len(), 3);
}

#[test]
fn memory_mapped_indexes_are_read_whole_and_samples_touch_nothing() {
    let f = files(&[
        ("m.bin", vec![1; 300]),
        ("m.bin.off.idx", index(&[0, 100, 200])),
        ("m.bin.sz.idx", index(&[100, 100, 100])),
    ]);
    let backend = Posix::new(false);
    let mut r = SampleReader::new(
        &backend,
        &f.names,
        options(SampleFormat::MmapIndexedBinary),
        0,
    );
    r.scratch.trace = Some(Vec::new());
    r.start([0]).unwrap();
    r.read(0, 2).unwrap();
    assert_eq!(r.scratch.trace.unwrap(), [(0, 24, 24), (0, 24, 24)]);
    assert_eq!(r.opens, 3, "two indexes and the mapped data file");
}

#[test]
fn odirect_is_one_aligned_read_of_the_whole_file() {
    // Skipped where the temp dir is on tmpfs, which refuses O_DIRECT.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.npz");
    std::fs::write(&path, vec![3u8; 10_000]).unwrap();
    let names = vec![CString::new(path.to_str().unwrap()).unwrap()];
    let backend = Posix::new(true);
    let opts = ReadOptions {
        odirect: true,
        ..options(SampleFormat::Npz)
    };
    let mut r = SampleReader::new(&backend, &names, opts, 0);
    r.scratch.trace = Some(Vec::new());
    match r.read(0, 0) {
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => return, // no O_DIRECT here
        other => other.unwrap(),
    }
    assert_eq!(r.scratch.trace.unwrap(), [(0, 12288, 10_000)]);
}

#[test]
fn without_reopen_a_file_is_loaded_once_per_reader() {
    let f = files(&[("c.csv", vec![b'1'; 70_000])]);
    let backend = Posix::new(false);
    let opts = ReadOptions {
        reopen: false,
        ..options(SampleFormat::Csv)
    };
    let mut r = SampleReader::new(&backend, &f.names, opts, 0);
    r.read(0, 0).unwrap();
    let (requests, bytes) = (r.scratch.requests, r.scratch.bytes);
    assert_eq!(bytes, 70_000, "every byte once");
    r.read(0, 1).unwrap();
    assert_eq!(
        r.scratch.requests, requests,
        "the second sample is in memory"
    );
    assert_eq!(r.opens, 1);
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let names = vec![CString::new("/nonexistent/dlio/x.npz").unwrap()];
    let backend = Posix::new(false);
    let mut r = SampleReader::new(&backend, &names, options(SampleFormat::Npz), 0);
    let e = r.read(0, 0).unwrap_err().to_string();
    assert!(e.starts_with("/nonexistent/dlio/x.npz: "), "{e}");
}
