//! Speed of IOR's data patterns on a 1 MiB transfer already in cache.
//!
//! `verify_1MiB/<type>` is compared with `verify_1MiB/sum`, a plain wrapping
//! sum of the same 1 MiB buffer's 64-bit words: the least work any check that
//! reads every word can do. `fill_1MiB/<type>` is the once-per-phase fill,
//! `stamp_1MiB/<type>` the per-transfer update before a write.
//! `read_then_1MiB/*` reads 1 MiB transfers of a 64 MiB file in /dev/shm (or
//! the temporary directory) with `pread` and then does nothing, sums, or
//! verifies them: the single-task, in-process version of `-r` vs `-r -R`.
//! After criterion's groups, `--bench` runs also print the same comparisons
//! measured interleaved (best of many short rounds, each candidate in turn),
//! which a busy machine disturbs far less than criterion's one-after-another
//! means. Ratios are in `BENCHMARKS.md` ("Data verification").
//!
//! Run: `cargo bench --features bench --bench pattern`.

use std::hint::black_box;

use criterion::{criterion_group, Criterion, Throughput};
use pario::buffer::{AlignedBuffer, PAGE};
use pario::pattern::{Kernel, PacketType, Pattern};

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

/// A page-aligned 1 MiB buffer, as ior's transfer buffers are (a `Vec`'s
/// heap address is 16 bytes past a page, which splits every 64-byte vector
/// load across two cache lines and made the AVX-512 figures wander).
fn aligned() -> AlignedBuffer {
    AlignedBuffer::new(SIZE, PAGE)
}

fn written(packet: PacketType) -> AlignedBuffer {
    let p = pattern(packet);
    let mut buf = aligned();
    p.fill(buf.as_mut_slice());
    p.stamp(buf.as_mut_slice(), OFFSET);
    assert_eq!(p.verify(buf.as_slice(), OFFSET), Default::default());
    buf
}

fn verify(c: &mut Criterion) {
    let mut g = c.benchmark_group("verify_1MiB");
    g.throughput(Throughput::Bytes(SIZE as u64));
    let buf = written(PacketType::Timestamp);
    g.bench_function("sum", |b| b.iter(|| sum(black_box(buf.as_slice()))));
    for (name, packet) in PACKETS {
        let buf = written(packet);
        let p = pattern(packet);
        g.bench_function(name, |b| {
            b.iter(|| p.verify(black_box(buf.as_slice()), black_box(OFFSET)))
        });
    }
    g.finish();
}

fn fill_and_stamp(c: &mut Criterion) {
    let mut g = c.benchmark_group("fill_1MiB");
    g.throughput(Throughput::Bytes(SIZE as u64));
    for (name, packet) in PACKETS {
        let p = pattern(packet);
        let mut buf = aligned();
        g.bench_function(name, |b| b.iter(|| p.fill(black_box(buf.as_mut_slice()))));
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
                p.stamp(black_box(buf.as_mut_slice()), offset)
            })
        });
    }
    g.finish();
}

/// A 64 MiB file of 1 MiB transfers written with [`pattern`]`(t)`, in
/// /dev/shm when there is one; returns it open (and its directory, removed
/// on drop) and the number of transfers.
fn transfers_file() -> (tempfile::TempDir, std::fs::File, u64) {
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
    let f = std::fs::File::create(&path).unwrap();
    let mut buf = vec![0u8; SIZE];
    p.fill(&mut buf);
    for k in 0..count {
        p.stamp(&mut buf, k * SIZE as u64);
        f.write_all_at(&buf, k * SIZE as u64).unwrap();
    }
    drop(f);
    (tmp, std::fs::File::open(&path).unwrap(), count)
}

/// `-r` against `-r -R`, one task, no runner: pread of each 1 MiB transfer of
/// a 64 MiB file (in memory: /dev/shm when there is one), then nothing, a
/// plain sum, or verification.
fn read_then(c: &mut Criterion) {
    use std::os::unix::fs::FileExt;
    let (_tmp, f, count) = transfers_file();
    let p = pattern(PacketType::Timestamp);
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

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    // Not in `cargo test` (test mode): only when benchmarking.
    if std::env::args().any(|a| a == "--bench") {
        interleaved();
    }
}

/// A named thing to time.
type Candidate<'a> = (&'static str, Box<dyn FnMut() + 'a>);

/// Best time of `f` over `rounds` rounds of `reps` calls, the candidates
/// taking turns within each round.
fn best_of(rounds: usize, reps: usize, candidates: &mut [Candidate<'_>]) -> Vec<f64> {
    let mut best = vec![f64::MAX; candidates.len()];
    for _ in 0..rounds {
        for (k, (_, f)) in candidates.iter_mut().enumerate() {
            let start = std::time::Instant::now();
            for _ in 0..reps {
                f();
            }
            best[k] = best[k].min(start.elapsed().as_secs_f64() / reps as f64);
        }
    }
    best
}

fn interleaved() {
    let gib = |s: f64| SIZE as f64 / s / (1u64 << 30) as f64;
    let sum_buf = written(PacketType::Timestamp);
    let bufs: Vec<(PacketType, AlignedBuffer)> =
        PACKETS.iter().map(|&(_, p)| (p, written(p))).collect();
    let mut candidates: Vec<Candidate> = vec![(
        "sum",
        Box::new(|| {
            black_box(sum(black_box(sum_buf.as_slice())));
        }),
    )];
    for ((name, _), (packet, buf)) in PACKETS.iter().zip(&bufs) {
        let p = pattern(*packet);
        candidates.push((
            name,
            Box::new(move || {
                black_box(p.verify(black_box(buf.as_slice()), black_box(OFFSET)));
            }),
        ));
    }
    for ((name, _), (packet, buf)) in PACKETS.iter().zip(&bufs) {
        let p = pattern(*packet);
        for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
            let label: &'static str =
                Box::leak(format!("{name} {}", kernel.name()).into_boxed_str());
            candidates.push((
                label,
                Box::new(move || {
                    black_box(p.matches_with(kernel, black_box(buf.as_slice()), black_box(OFFSET)));
                }),
            ));
        }
    }
    let best = best_of(300, 20, &mut candidates);
    println!("\nverify_1MiB, interleaved, best of 300 rounds of 20 calls (the chosen kernel, then each):");
    for ((name, _), t) in candidates.iter().zip(&best) {
        println!(
            "  {name:<12} {:>7.2} µs {:>7.2} GiB/s  {:.2} of sum",
            t * 1e6,
            gib(*t),
            best[0] / t
        );
    }
    drop(candidates);

    // pread + nothing / sum / verify, the same transfers in turn; best of
    // rounds that each read the whole 64 MiB file.
    use std::os::unix::fs::FileExt;
    let (_tmp, f, count) = transfers_file();
    let p = pattern(PacketType::Timestamp);
    let buf = std::cell::RefCell::new(pario::buffer::AlignedBuffer::new(SIZE, pario::buffer::PAGE));
    let whole = |then: &dyn Fn(&[u8], u64)| {
        let mut b = buf.borrow_mut();
        for k in 0..count {
            let offset = k * SIZE as u64;
            f.read_exact_at(b.as_mut_slice(), offset).unwrap();
            then(b.as_slice(), offset);
        }
    };
    let mut candidates: Vec<Candidate> = vec![
        ("read", Box::new(|| whole(&|_, _| {}))),
        (
            "read+sum",
            Box::new(|| {
                whole(&|b, _| {
                    black_box(sum(b));
                })
            }),
        ),
        (
            "read+verify_t",
            Box::new(|| whole(&|b, o| assert!(p.matches(b, o)))),
        ),
    ];
    for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
        let name = match kernel {
            Kernel::Generic => "+verify generic",
            Kernel::Avx2 => "+verify AVX2",
            Kernel::Avx512 => "+verify AVX-512",
        };
        candidates.push((
            name,
            Box::new(move || whole(&|b, o| assert!(p.matches_with(kernel, b, o)))),
        ));
    }
    let best = best_of(40, 1, &mut candidates);
    println!("\nread_then_1MiB, interleaved, best of 40 passes over 64 MiB:");
    for ((name, _), t) in candidates.iter().zip(&best) {
        let per = t / count as f64;
        println!(
            "  {name:<16} {:>7.2} µs {:>6.2} GiB/s  {:.2} of read",
            per * 1e6,
            gib(per),
            best[0] / t
        );
    }
}
