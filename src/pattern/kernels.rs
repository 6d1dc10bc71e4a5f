//! The loops that read every word of a transfer during verification, and
//! the choice, at run time, of the code that runs them best on this CPU.
//!
//! Right after a `pread` the transfer is in L1/L2, and the loop, not memory,
//! sets the speed: a baseline x86-64 build (SSE2) checks 16 bytes per vector
//! operation, AVX2 32 and AVX-512 64, and only AVX-512 has the 64-bit
//! multiply that `r` needs. So on x86-64 these loops are compiled three
//! times, and [`diff`] uses the widest the CPU has; the rest of verification
//! (4 KiB stamp groups, runs of `t`/`o`) costs a few instructions per group
//! and is generic over [`Kernels`].

use super::{random_next, word_at, Pattern, CHUNK, LANES, WORD};

/// The ORed differences of the whole words of a transfer (zero exactly when
/// they all match), with the widest vectors this CPU has.
#[inline(always)]
pub(super) fn diff(p: &Pattern, body: &[u8], offset: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(k) = Avx512::detect() {
            return p.diff(k, body, offset);
        }
        if let Some(k) = Avx2::detect() {
            return p.diff(k, body, offset);
        }
    }
    p.diff(Lanes, body, offset)
}

/// Every way [`diff`] can compute it on this CPU, by name (for tests: they
/// must all agree).
#[cfg(test)]
pub(super) fn every_diff(p: &Pattern, body: &[u8], offset: u64) -> Vec<(&'static str, u64)> {
    #[allow(unused_mut)]
    let mut all = vec![("baseline", p.diff(Lanes, body, offset))];
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(k) = Avx2::detect() {
            all.push(("avx2", p.diff(k, body, offset)));
        }
        if let Some(k) = Avx512::detect() {
            all.push(("avx512", p.diff(k, body, offset)));
        }
    }
    all
}

/// The word loops of verification. Each ORs together `actual ^ expected`
/// over its words: zero exactly when all of them match.
pub(super) trait Kernels: Copy {
    /// Words `first, first + 1, …` over whole chunks (`chunks.len()` a
    /// multiple of [`CHUNK`]).
    fn linear(self, chunks: &[u8], first: u64) -> u64;
    /// The same `constant` word over whole chunks.
    fn constant(self, chunks: &[u8], constant: u64) -> u64;
    /// IOR's `r` stream from `seed` (any number of whole words).
    fn random(self, body: &[u8], seed: u64) -> u64;
}

/// The loops for 128-bit registers (SSE2, any x86-64; and other CPUs).
#[derive(Clone, Copy)]
struct Lanes;

impl Kernels for Lanes {
    // Out of line on purpose: inlined where the trip count is known (the 63
    // chunks after a stamp), LLVM vectorises across chunks instead of across
    // lanes, gathering words one by one and spilling (measured: 0.6 of the
    // in-line speed).
    #[inline(never)]
    fn linear(self, chunks: &[u8], first: u64) -> u64 {
        diff_in_lanes(chunks, first, 1)
    }

    #[inline(never)]
    fn constant(self, chunks: &[u8], constant: u64) -> u64 {
        diff_in_lanes(chunks, constant, 0)
    }

    #[inline(never)]
    fn random(self, body: &[u8], seed: u64) -> u64 {
        diff_random(body, seed)
    }
}

/// Declares the loops compiled for some x86-64 target features: a token
/// type that only `detect()` makes, on a CPU that has the features (which
/// is what makes the calls sound), and the loops built for them. With wide
/// registers LLVM does best with a plain fold, which it vectorises and
/// unrolls itself. The loops stay out of line (a `target_feature` function
/// is never inlined into baseline code), which also keeps LLVM from
/// specialising them for the 63 chunks after a stamp (measured slower).
macro_rules! x86_kernels {
    ($(#[$doc:meta])* $token:ident in $module:ident: $features:literal, detect $($feature:tt),+) => {
        $(#[$doc])*
        #[cfg(target_arch = "x86_64")]
        #[derive(Clone, Copy)]
        struct $token(());

        #[cfg(target_arch = "x86_64")]
        impl $token {
            /// These loops if this CPU can run them (std caches the answer:
            /// a load and a test per feature).
            #[inline(always)]
            fn detect() -> Option<$token> {
                ($(std::arch::is_x86_feature_detected!($feature))&&+).then_some($token(()))
            }
        }

        #[cfg(target_arch = "x86_64")]
        impl Kernels for $token {
            #[inline(always)]
            fn linear(self, chunks: &[u8], first: u64) -> u64 {
                // SAFETY: `self` exists only if `detect` found the features.
                unsafe { $module::linear(chunks, first) }
            }

            #[inline(always)]
            fn constant(self, chunks: &[u8], constant: u64) -> u64 {
                // SAFETY: `self` exists only if `detect` found the features.
                unsafe { $module::constant(chunks, constant) }
            }

            #[inline(always)]
            fn random(self, body: &[u8], seed: u64) -> u64 {
                // SAFETY: `self` exists only if `detect` found the features.
                unsafe { $module::random(body, seed) }
            }
        }

        #[cfg(target_arch = "x86_64")]
        mod $module {
            use super::*;

            #[target_feature(enable = $features)]
            pub(super) fn linear(chunks: &[u8], first: u64) -> u64 {
                diff_folded(chunks, first, 1)
            }

            #[target_feature(enable = $features)]
            pub(super) fn constant(chunks: &[u8], constant: u64) -> u64 {
                diff_folded(chunks, constant, 0)
            }

            #[target_feature(enable = $features)]
            pub(super) fn random(body: &[u8], seed: u64) -> u64 {
                diff_random(body, seed)
            }
        }
    };
}

x86_kernels!(
    /// AVX-512 (F, and DQ for the 64-bit multiply of `r`): 64 bytes per
    /// vector operation.
    Avx512 in avx512: "avx512f,avx512dq", detect "avx512f", "avx512dq"
);

x86_kernels!(
    /// AVX2: 32 bytes per vector operation.
    Avx2 in avx2: "avx2", detect "avx2"
);

/// ORs the differences of whole chunks from `first + j·step` for word `j`,
/// as one fold: the form LLVM vectorises best when it has wide registers.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn diff_folded(chunks: &[u8], first: u64, step: u64) -> u64 {
    debug_assert_eq!(chunks.len() % CHUNK, 0);
    chunks
        .chunks_exact(WORD)
        .enumerate()
        .fold(0, |acc, (j, w)| {
            acc | (word_at(w) ^ first.wrapping_add((j as u64).wrapping_mul(step)))
        })
}

/// [`diff_folded`] for SSE2: the words are taken in [`LANES`] independent
/// lanes with one accumulator each, as the vector registers hold them: one
/// load, XOR and OR (and an add for `step != 0`) per lane.
#[inline(always)]
fn diff_in_lanes(chunks: &[u8], first: u64, step: u64) -> u64 {
    debug_assert_eq!(chunks.len() % CHUNK, 0);
    let mut e: [u64; LANES] = std::array::from_fn(|l| first.wrapping_add(l as u64 * step));
    let lane_step = LANES as u64 * step;
    let mut acc = [0u64; LANES];
    for chunk in chunks.chunks_exact(CHUNK) {
        let chunk: &[u8; CHUNK] = chunk.try_into().expect("a whole chunk");
        for l in 0..LANES {
            acc[l] |= word_at(&chunk[l * WORD..]) ^ e[l];
            e[l] = e[l].wrapping_add(lane_step);
        }
    }
    acc.iter().fold(0, |a, b| a | b)
}

/// ORs the differences of an `r` transfer without walking its serial
/// generator: word 0 must follow the seed and every word must follow the
/// word before it, `w[j] == next(w[j - 1])`. By induction that holds exactly
/// when every word is the generator's, and the checks are independent, so
/// they run at the multiplier's throughput instead of its latency.
#[inline(always)]
fn diff_random(body: &[u8], seed: u64) -> u64 {
    if body.is_empty() {
        return 0;
    }
    let first = word_at(body) ^ random_next(seed);
    body.chunks_exact(WORD)
        .zip(body[WORD..].chunks_exact(WORD))
        .fold(first, |acc, (prev, w)| {
            acc | (word_at(w) ^ random_next(word_at(prev)))
        })
}
