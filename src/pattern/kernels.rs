//! The loops that read every word of a transfer during verification, and
//! the choice, at run time, of the code that runs them best on this CPU.
//!
//! Right after a `pread` the transfer is in L1/L2, and the loop, not memory,
//! sets the speed: a baseline x86-64 build (SSE2) checks 16 bytes per vector
//! operation, AVX2 32 and AVX-512 64, and only AVX-512 has the 64-bit
//! multiply that `r` needs (AVX2 builds it from three 32-bit ones). So on
//! x86-64 there are three kernels: the generic loops, AVX2 intrinsics and
//! the generic loops compiled for AVX-512; verification uses the widest the
//! CPU has, or the one `PARIO_VERIFY_KERNEL` names ([`Kernel::chosen`]). The rest
//! of verification (4 KiB stamp groups, runs of `t`/`o`) costs a few
//! instructions per group and is generic over [`Kernels`].

use std::sync::atomic::{AtomicU8, Ordering};

use super::{random_next, word_at, Pattern, CHUNK, LANES, WORD};

/// A build of the word loops, by the instructions it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// Baseline code (SSE2 on x86-64), any CPU.
    Generic,
    /// AVX2 intrinsics: 32 bytes per vector operation.
    Avx2,
    /// Loops compiled for AVX-512 F and DQ: 64 bytes per operation.
    Avx512,
}

/// The environment variable that forces a kernel (`generic`, `avx2`,
/// `avx512`), for tests and benchmarks; one the CPU lacks is ignored.
pub const KERNEL_VARIABLE: &str = "PARIO_VERIFY_KERNEL";

/// The kernel chosen for this process; 0 until the first use.
static CHOSEN: AtomicU8 = AtomicU8::new(0);

impl Kernel {
    /// Every kernel, the generic one first.
    pub const ALL: [Kernel; 3] = [Kernel::Generic, Kernel::Avx2, Kernel::Avx512];

    /// The name `-v` prints.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Generic => "generic",
            Kernel::Avx2 => "AVX2",
            Kernel::Avx512 => "AVX-512",
        }
    }

    /// The spelling of [`KERNEL_VARIABLE`].
    pub(super) fn spelling(self) -> &'static str {
        match self {
            Kernel::Generic => "generic",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// Whether this CPU can run the kernel.
    pub fn available(self) -> bool {
        match self {
            Kernel::Generic => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => Avx2::detect().is_some(),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => Avx512::detect().is_some(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The kernel that verification uses: the one [`KERNEL_VARIABLE`]
    /// names if the CPU has it, else the widest the CPU has. Decided once.
    pub fn chosen() -> Kernel {
        match CHOSEN.load(Ordering::Relaxed) {
            0 => {
                let forced = std::env::var(KERNEL_VARIABLE).ok();
                let kernel = Kernel::choose(forced.as_deref());
                CHOSEN.store(kernel as u8 + 1, Ordering::Relaxed);
                kernel
            }
            n => Kernel::ALL[n as usize - 1],
        }
    }

    pub(super) fn choose(forced: Option<&str>) -> Kernel {
        let named = Kernel::ALL
            .into_iter()
            .find(|k| forced.is_some_and(|f| f.trim().eq_ignore_ascii_case(k.spelling())));
        match named {
            Some(k) if k.available() => k,
            _ => Kernel::ALL
                .into_iter()
                .rev()
                .find(|k| k.available())
                .unwrap_or(Kernel::Generic),
        }
    }
}

/// The ORed differences of the whole words of a transfer (zero exactly when
/// they all match), with `kernel` if this CPU has it (else the generic loops).
#[inline(always)]
pub(super) fn diff_with(kernel: Kernel, p: &Pattern, body: &[u8], offset: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    match kernel {
        Kernel::Avx512 => {
            if let Some(k) = Avx512::detect() {
                return p.diff(k, body, offset);
            }
        }
        Kernel::Avx2 => {
            if let Some(k) = Avx2::detect() {
                return p.diff(k, body, offset);
            }
        }
        Kernel::Generic => {}
    }
    p.diff(Lanes, body, offset)
}

/// Every way [`diff_with`] can compute it on this CPU, by name (for tests: they
/// must all agree); the generic one first.
#[cfg(test)]
pub(super) fn every_diff(p: &Pattern, body: &[u8], offset: u64) -> Vec<(&'static str, u64)> {
    Kernel::ALL
        .into_iter()
        .filter(|k| k.available())
        .map(|k| (k.name(), diff_with(k, p, body, offset)))
        .collect()
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

/// AVX2, with intrinsics (see [`avx2`]).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Avx2(());

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// These loops if this CPU can run them (std caches the answer).
    #[inline(always)]
    fn detect() -> Option<Avx2> {
        std::arch::is_x86_feature_detected!("avx2").then_some(Avx2(()))
    }
}

#[cfg(target_arch = "x86_64")]
impl Kernels for Avx2 {
    #[inline(always)]
    fn linear(self, chunks: &[u8], first: u64) -> u64 {
        // SAFETY: `self` exists only if `detect` found AVX2.
        unsafe { avx2::linear(chunks, first) }
    }

    #[inline(always)]
    fn constant(self, chunks: &[u8], constant: u64) -> u64 {
        // SAFETY: `self` exists only if `detect` found AVX2.
        unsafe { avx2::constant(chunks, constant) }
    }

    #[inline(always)]
    fn random(self, body: &[u8], seed: u64) -> u64 {
        // SAFETY: `self` exists only if `detect` found AVX2.
        unsafe { avx2::random(body, seed) }
    }
}

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

/// The AVX2 loops, written with intrinsics: four 32-byte accumulators and
/// four vectors of expected words per 128 bytes, so that the loads, XORs,
/// ORs and additions of one iteration are independent.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::super::GOLDEN_RATIO_PRIME;
    use super::{random_next, word_at, CHUNK, WORD};

    /// Bytes per iteration: four vectors.
    const BLOCK: usize = 4 * 32;

    #[target_feature(enable = "avx2")]
    pub(super) fn linear(chunks: &[u8], first: u64) -> u64 {
        diff_stepped(chunks, first, 1)
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn constant(chunks: &[u8], constant: u64) -> u64 {
        diff_stepped(chunks, constant, 0)
    }

    /// The 32 bytes at byte `at` of `bytes`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(bytes: &[u8], at: usize) -> __m256i {
        let vector: &[u8; 32] = bytes[at..at + 32].try_into().expect("32 bytes");
        // SAFETY: `vector` is 32 readable bytes; the load takes any alignment.
        unsafe { _mm256_loadu_si256(vector.as_ptr().cast()) }
    }

    /// The OR of the four 64-bit lanes of `v`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn or_lanes(v: __m256i) -> u64 {
        let half = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let both = _mm_or_si128(half, _mm_unpackhi_epi64(half, half));
        _mm_cvtsi128_si64(both) as u64
    }

    /// ORs `w[j] ^ (first + j·step)` over whole chunks.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn diff_stepped(chunks: &[u8], first: u64, step: u64) -> u64 {
        debug_assert_eq!(chunks.len() % CHUNK, 0);
        let s = step as i64;
        let lanes = _mm256_set_epi64x(3 * s, 2 * s, s, 0);
        let four = _mm256_set1_epi64x(4 * s);
        let mut e0 = _mm256_add_epi64(_mm256_set1_epi64x(first as i64), lanes);
        let mut e1 = _mm256_add_epi64(e0, four);
        let mut e2 = _mm256_add_epi64(e1, four);
        let mut e3 = _mm256_add_epi64(e2, four);
        let sixteen = _mm256_set1_epi64x(16 * s);
        let zero = _mm256_setzero_si256();
        let (mut a0, mut a1, mut a2, mut a3) = (zero, zero, zero, zero);
        let blocks = chunks.chunks_exact(BLOCK);
        let rest = blocks.remainder();
        for b in blocks {
            a0 = _mm256_or_si256(a0, _mm256_xor_si256(load(b, 0), e0));
            a1 = _mm256_or_si256(a1, _mm256_xor_si256(load(b, 32), e1));
            a2 = _mm256_or_si256(a2, _mm256_xor_si256(load(b, 64), e2));
            a3 = _mm256_or_si256(a3, _mm256_xor_si256(load(b, 96), e3));
            e0 = _mm256_add_epi64(e0, sixteen);
            e1 = _mm256_add_epi64(e1, sixteen);
            e2 = _mm256_add_epi64(e2, sixteen);
            e3 = _mm256_add_epi64(e3, sixteen);
        }
        // At most one chunk (two vectors) is left.
        if !rest.is_empty() {
            a0 = _mm256_or_si256(a0, _mm256_xor_si256(load(rest, 0), e0));
            a1 = _mm256_or_si256(a1, _mm256_xor_si256(load(rest, 32), e1));
        }
        or_lanes(_mm256_or_si256(
            _mm256_or_si256(a0, a1),
            _mm256_or_si256(a2, a3),
        ))
    }

    /// `x · GOLDEN_RATIO_PRIME` modulo 2^64 in each lane, from 32-bit
    /// multiplies: `lo·lo + ((hi·lo + lo·hi) << 32)`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn times_golden(x: __m256i) -> __m256i {
        let low = _mm256_set1_epi64x((GOLDEN_RATIO_PRIME & 0xffff_ffff) as i64);
        let high = _mm256_set1_epi64x((GOLDEN_RATIO_PRIME >> 32) as i64);
        let low_low = _mm256_mul_epu32(x, low);
        let cross = _mm256_add_epi64(
            _mm256_mul_epu32(_mm256_srli_epi64::<32>(x), low),
            _mm256_mul_epu32(x, high),
        );
        _mm256_add_epi64(low_low, _mm256_slli_epi64::<32>(cross))
    }

    /// ORs the differences of an `r` transfer as the generic loop does
    /// (word 0 against the seed's successor, every other word against its
    /// predecessor's), four words per vector.
    #[target_feature(enable = "avx2")]
    pub(super) fn random(body: &[u8], seed: u64) -> u64 {
        if body.is_empty() {
            return 0;
        }
        let mut diff = word_at(body) ^ random_next(seed);
        // Words 1.. against words 0..: vectors of four at byte `at` and
        // the predecessors at `at - 8`.
        let words = body.len() / WORD;
        let vectors = (words - 1) / 4;
        let mut acc = _mm256_setzero_si256();
        for v in 0..vectors {
            let at = WORD + v * 32;
            let next = _mm256_srli_epi64::<3>(times_golden(load(body, at - WORD)));
            acc = _mm256_or_si256(acc, _mm256_xor_si256(load(body, at), next));
        }
        diff |= or_lanes(acc);
        for j in 1 + vectors * 4..words {
            diff |= word_at(&body[j * WORD..]) ^ random_next(word_at(&body[(j - 1) * WORD..]));
        }
        diff
    }
}
