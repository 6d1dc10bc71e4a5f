//! Speed of IOR's data patterns on a 1 MiB transfer already in cache.
//!
//! `verify_1MiB/<type>` is compared with `verify_1MiB/sum`, a plain wrapping
//! sum of the same 1 MiB buffer's 64-bit words: the least work any check that
//! reads every word can do. `fill_1MiB/<type>` is the once-per-phase fill,
//! `stamp_1MiB/<type>` the per-transfer update before a write.
//! `read_then_1MiB/*` reads 1 MiB transfers of a 64 MiB file in /dev/shm (or
//! the temporary directory) with `pread` and then does nothing, sums, or
//! verifies them: the single-task, in-process version of `-r` vs `-r -R`.
//! Ratios are in `docs/bench-integrity.md`.
//!
//! Run: `cargo bench --bench pattern`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pario::pattern::{PacketType, Pattern};

const SIZE: usize = 1 << 20;
const OFFSET: u64 = 37 << 20;
const PACKETS: [(&str, PacketType); 4] = [
    ("t", PacketType::Timestamp),
    ("o", PacketType::Offset),
    ("i", PacketType::Incompressible),
    ("r", PacketType::Random),
];

fn pattern(packet: PacketType) -> Pattern {
    Pattern::new(packet, 1_234_567, 3)
}

/// The baseline: every word read once and added.
fn sum(buf: &[u8]) -> u64 {
    buf.chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
        .fold(0u64, u64::wrapping_add)
}

fn written(packet: PacketType) -> Vec<u8> {
    let p = pattern(packet);
    let mut buf = vec![0u8; SIZE];
    p.fill(&mut buf);
    p.stamp(&mut buf, OFFSET);
    assert_eq!(p.verify(&buf, OFFSET), Default::default());
    buf
}

fn verify(c: &mut Criterion) {
    let mut g = c.benchmark_group("verify_1MiB");
    g.throughput(Throughput::Bytes(SIZE as u64));
    let buf = written(PacketType::Timestamp);
    g.bench_function("sum", |b| b.iter(|| sum(black_box(&buf))));
    for (name, packet) in PACKETS {
        let buf = written(packet);
        let p = pattern(packet);
        g.bench_function(name, |b| {
            b.iter(|| p.verify(black_box(&buf), black_box(OFFSET)))
        });
    }
    g.finish();
}

fn fill_and_stamp(c: &mut Criterion) {
    let mut g = c.benchmark_group("fill_1MiB");
    g.throughput(Throughput::Bytes(SIZE as u64));
    for (name, packet) in PACKETS {
        let p = pattern(packet);
        let mut buf = vec![0u8; SIZE];
        g.bench_function(name, |b| b.iter(|| p.fill(black_box(&mut buf))));
    }
    g.finish();
    let mut g = c.benchmark_group("stamp_1MiB");
    g.throughput(Throughput::Bytes(SIZE as u64));
    for (name, packet) in PACKETS {
        let p = pattern(packet);
        let mut buf = written(packet);
        let mut offset = OFFSET;
        g.bench_function(name, |b| {
            b.iter(|| {
                offset = offset.wrapping_add(SIZE as u64);
                p.stamp(black_box(&mut buf), offset)
            })
        });
    }
    g.finish();
}

/// `-r` against `-r -R`, one task, no runner: pread of each 1 MiB transfer of
/// a 64 MiB file (in memory: /dev/shm when there is one), then nothing, a
/// plain sum, or verification.
fn read_then(c: &mut Criterion) {
    use std::os::unix::fs::FileExt;
    let dir = ["/dev/shm"]
        .iter()
        .map(std::path::PathBuf::from)
        .find(|d| d.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    let tmp = tempfile::tempdir_in(dir).unwrap();
    let path = tmp.path().join("data");
    let p = pattern(PacketType::Timestamp);
    let count = 64u64;
    {
        let f = std::fs::File::create(&path).unwrap();
        let mut buf = vec![0u8; SIZE];
        p.fill(&mut buf);
        for k in 0..count {
            p.stamp(&mut buf, k * SIZE as u64);
            f.write_all_at(&buf, k * SIZE as u64).unwrap();
        }
    }
    let f = std::fs::File::open(&path).unwrap();
    let mut buf = pario::buffer::AlignedBuffer::new(SIZE, pario::buffer::PAGE);
    let mut g = c.benchmark_group("read_then_1MiB");
    g.throughput(Throughput::Bytes(SIZE as u64));
    let mut k = 0u64;
    let mut next = || {
        k = (k + 1) % count;
        k * SIZE as u64
    };
    g.bench_function("read", |b| {
        b.iter(|| {
            let offset = next();
            f.read_exact_at(buf.as_mut_slice(), offset).unwrap();
        })
    });
    g.bench_function("read+sum", |b| {
        b.iter(|| {
            let offset = next();
            f.read_exact_at(buf.as_mut_slice(), offset).unwrap();
            sum(buf.as_slice())
        })
    });
    g.bench_function("read+verify_t", |b| {
        b.iter(|| {
            let offset = next();
            f.read_exact_at(buf.as_mut_slice(), offset).unwrap();
            assert!(p.matches(buf.as_slice(), offset));
        })
    });
    g.finish();
}

criterion_group!(benches, verify, fill_and_stamp, read_then);
criterion_main!(benches);
