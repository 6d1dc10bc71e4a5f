//! Speed of IOR's data patterns on a 1 MiB transfer already in cache.
//!
//! `verify/<type>` is compared with `sum`, a plain wrapping sum of the same
//! 1 MiB buffer's 64-bit words: the least work any check that reads every
//! word can do. `fill/<type>` is the once-per-phase fill, `stamp/<type>` the
//! per-transfer update before a write. Ratios are in `docs/bench-integrity.md`
//! (`scripts/bench-integrity.sh` computes them from criterion's estimates).
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

criterion_group!(benches, verify, fill_and_stamp);
criterion_main!(benches);
