//! IOR's data patterns (`-l`/`--dataPacketType`, `-G`), bit-exact, and their
//! verification.
//!
//! A transfer buffer is a run of 64-bit little-endian words; word `i` of a
//! transfer written by task `r` with signature `G` is `(r << 32) | (G + i)`
//! (`G` sign-extended, as C's `int + size_t`). Packet types `o` and `i` also
//! stamp word `512·(k-1)` (once per 4 KiB) with `(u32)(offset·k) | (r << 32)`,
//! `k = 1, 2, …`, where `offset` is the transfer's offset in its file. Type `i`
//! uses one constant word drawn from glibc's `rand_r`; type `r` a stream per
//! transfer. Trailing bytes past the last full word hold their byte index.
//!
//! Writing fills the buffer once per phase and touches only the stamped words
//! per transfer. Verification compares each word against a value computed in
//! registers: no expected-data buffer, no branch per word, one pass.

use serde::Serialize;

mod kernels;
use kernels::Kernels;
pub use kernels::{Kernel, KERNEL_VARIABLE};

const WORD: usize = 8;
/// Words between stamps: one per 4 KiB.
const STAMP_STRIDE: usize = 512;
const GOLDEN_RATIO_PRIME: u64 = 0x9e37_ffff_fffc_0001;

/// `-l` packet types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PacketType {
    /// `t`, the default: rank and signature plus word index.
    Timestamp,
    /// `o`: as `t`, plus an offset stamp every 4 KiB.
    Offset,
    /// `i`: a constant pseudo-random word, plus offset stamps.
    Incompressible,
    /// `r`: a pseudo-random stream per transfer.
    Random,
}

impl PacketType {
    /// Parses IOR's spellings: the first letter decides (`t`, `timestamp`,
    /// `o`, `offset`, `i`, `incompressible`, `r`, `random`).
    pub fn parse(text: &str) -> Result<PacketType, String> {
        let lower = text.trim().to_ascii_lowercase();
        let known = [
            ("timestamp", PacketType::Timestamp),
            ("offset", PacketType::Offset),
            ("incompressible", PacketType::Incompressible),
            ("random", PacketType::Random),
        ];
        for (name, packet) in known {
            if !lower.is_empty() && (lower == name[..1] || lower == name) {
                return Ok(packet);
            }
        }
        Err(format!(
            "'{text}' is not a packet type (use t|timestamp, o|offset, i|incompressible, r|random)"
        ))
    }

    /// The one-letter name IOR prints.
    pub fn letter(self) -> char {
        match self {
            PacketType::Timestamp => 't',
            PacketType::Offset => 'o',
            PacketType::Incompressible => 'i',
            PacketType::Random => 'r',
        }
    }

    fn stamped(self) -> bool {
        matches!(self, PacketType::Offset | PacketType::Incompressible)
    }
}

/// How much of a buffer [`Pattern::fill`] fills between two looks at the
/// stop flag (a multiple of the word).
const FILL_SLICE: usize = 64 << 20;

/// The one-letter name, as the tools' help shows the default.
impl std::fmt::Display for PacketType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// glibc's `rand_r`, which IOR's `i` and `r` patterns are defined by.
pub fn rand_r(seed: &mut u32) -> u32 {
    let mut next = *seed;
    next = next.wrapping_mul(1_103_515_245).wrapping_add(12345);
    let mut result = (next / 65536) % 2048;
    next = next.wrapping_mul(1_103_515_245).wrapping_add(12345);
    result <<= 10;
    result ^= (next / 65536) % 1024;
    next = next.wrapping_mul(1_103_515_245).wrapping_add(12345);
    result <<= 10;
    result ^= (next / 65536) % 1024;
    *seed = next;
    result
}

/// The pattern one task writes (or a reader expects from one writer).
#[derive(Debug, Clone, Copy)]
pub struct Pattern {
    packet: PacketType,
    /// The signature as IOR's C `int`.
    signature: i32,
    /// The writer's rank.
    rank: u64,
    /// `i`'s constant word (drawn from `rand_r` once, not per transfer).
    constant: u64,
}

/// One word that did not match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// Byte position within the transfer.
    pub position: u64,
    pub expected: u64,
    pub actual: u64,
}

/// What verification of one buffer found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Check {
    /// Wrong 64-bit words (a wrong trailing byte counts as a word).
    pub wrong_words: u64,
    /// Bytes inside wrong words.
    pub wrong_bytes: u64,
}

impl Pattern {
    /// `signature` is `-G` (or the broadcast time stamp); IOR keeps it as a C
    /// `int`, so it is truncated to 32 bits here.
    pub fn new(packet: PacketType, signature: i64, rank: usize) -> Pattern {
        let mut pattern = Pattern {
            packet,
            signature: signature as i32,
            rank: rank as u64,
            constant: 0,
        };
        if packet == PacketType::Incompressible {
            pattern.constant = pattern.incompressible_word();
        }
        pattern
    }

    pub fn packet(&self) -> PacketType {
        self.packet
    }

    fn rank_bits(&self) -> u64 {
        self.rank << 32
    }

    /// `(u64)(int) G`: C's conversion of the signature before adding the index.
    fn base(&self) -> u64 {
        self.signature as i64 as u64
    }

    fn incompressible_word(&self) -> u64 {
        let mut seed = (self.signature as i64 + self.rank as i64) as u32;
        let hi = (rand_r(&mut seed) as u64) << 32;
        let lo = rand_r(&mut seed) as u64;
        hi | lo
    }

    /// The first state of an `r` transfer: `rand_r` seeded with
    /// `G + rank + offset`, truncated to C's `unsigned`.
    fn random_seed(&self, offset: u64) -> u64 {
        let mut seed = (self.signature as i64 + self.rank as i64) as u64;
        seed = seed.wrapping_add(offset);
        let mut seed32 = seed as u32;
        rand_r(&mut seed32) as u64
    }

    /// Stamp `k` (1-based) of a transfer at `offset`: C's `(uint32_t) offset * k`
    /// wraps at 32 bits.
    #[inline(always)]
    fn stamp_word(&self, offset: u64, k: u64) -> u64 {
        ((offset as u32).wrapping_mul(k as u32) as u64) | self.rank_bits()
    }

    /// Fills a whole buffer for this writer (once per phase). Type `r` only
    /// gets its trailing bytes: its words are written per transfer.
    ///
    /// A buffer of gigabytes takes seconds to fill: it is filled in slices,
    /// and a stop signal leaves the rest unfilled (the run is ending).
    pub fn fill(&self, buf: &mut [u8]) {
        let words = buf.len() / WORD;
        let (body, tail) = buf.split_at_mut(words * WORD);
        for (n, slice) in body.chunks_mut(FILL_SLICE).enumerate() {
            if n > 0 && crate::signals::requested() {
                return;
            }
            self.fill_words(slice, n * FILL_SLICE / WORD);
        }
        for (j, b) in tail.iter_mut().enumerate() {
            *b = (words * WORD + j) as u8;
        }
    }

    /// Fills whole words, the first being word `first` of the buffer.
    fn fill_words(&self, body: &mut [u8], first: usize) {
        match self.packet {
            PacketType::Timestamp | PacketType::Offset => {
                let (rank_bits, base) = (self.rank_bits(), self.base());
                for (i, chunk) in body.chunks_exact_mut(WORD).enumerate() {
                    let w = rank_bits | base.wrapping_add((first + i) as u64);
                    chunk.copy_from_slice(&w.to_le_bytes());
                }
            }
            PacketType::Incompressible => {
                let w = self.constant.to_le_bytes();
                for chunk in body.chunks_exact_mut(WORD) {
                    chunk.copy_from_slice(&w);
                }
            }
            PacketType::Random => {}
        }
    }

    /// Updates the words that depend on the transfer's file offset; call before
    /// each write of a buffer [`fill`](Self::fill)ed for this writer. A no-op
    /// for `t`; one word per 4 KiB for `o` and `i`; every word for `r` (a
    /// serial generator, as in IOR).
    pub fn stamp(&self, buf: &mut [u8], offset: u64) {
        let words = buf.len() / WORD;
        let body = &mut buf[..words * WORD];
        match self.packet {
            PacketType::Timestamp => {}
            PacketType::Offset | PacketType::Incompressible => {
                for (k, group) in body.chunks_mut(GROUP).enumerate() {
                    let w = self.stamp_word(offset, k as u64 + 1);
                    group[..WORD].copy_from_slice(&w.to_le_bytes());
                }
            }
            PacketType::Random => {
                let mut state = self.random_seed(offset);
                for chunk in body.chunks_exact_mut(WORD) {
                    state = random_next(state);
                    chunk.copy_from_slice(&state.to_le_bytes());
                }
            }
        }
    }

    /// The words of a transfer at `offset`, in order, as IOR's
    /// `verify_memory_pattern` computes them (an endless sequence: take as
    /// many as the transfer has whole words).
    pub fn expected_words(&self, offset: u64) -> impl Iterator<Item = u64> {
        let p = *self;
        let mut state = match p.packet {
            PacketType::Random => p.random_seed(offset),
            _ => 0,
        };
        (0u64..).map(move |i| match p.packet {
            PacketType::Random => {
                state = random_next(state);
                state
            }
            _ if p.packet.stamped() && i % STAMP_STRIDE as u64 == 0 => {
                p.stamp_word(offset, i / STAMP_STRIDE as u64 + 1)
            }
            PacketType::Incompressible => p.constant,
            _ => p.rank_bits() | p.base().wrapping_add(i),
        })
    }

    /// Verifies a buffer read from `offset` and counts what is wrong.
    ///
    /// The common case, a correct buffer, costs one pass: every word is XORed
    /// with its expected value computed in registers and the differences are
    /// ORed together, with no branch per word, so the loops vectorise. Only a
    /// buffer that differs is walked again to count its wrong words.
    pub fn verify(&self, buf: &[u8], offset: u64) -> Check {
        if self.matches(buf, offset) {
            Check::default()
        } else {
            self.count_wrong(buf, offset)
        }
    }

    /// Whether `buf` is exactly what this writer wrote at `offset`.
    pub fn matches(&self, buf: &[u8], offset: u64) -> bool {
        self.matches_with(Kernel::chosen(), buf, offset)
    }

    /// [`matches`](Self::matches) with the loops of `kernel` (the generic
    /// ones if this CPU lacks it), for benchmarks that compare kernels.
    #[inline]
    pub fn matches_with(&self, kernel: Kernel, buf: &[u8], offset: u64) -> bool {
        let words = buf.len() / WORD;
        let (body, tail) = buf.split_at(words * WORD);
        let diff = kernels::diff_with(kernel, self, body, offset);
        diff == 0 && tail_matches(tail, words * WORD)
    }

    /// The ORed differences of the whole words of a transfer, with the word
    /// loops of `k`, in pieces from the last to the first (see [`PIECE`]).
    #[inline(always)]
    fn diff<K: Kernels>(&self, k: K, body: &[u8], offset: u64) -> u64 {
        let mut diff = 0;
        let mut end = body.len();
        while end > 0 {
            let start = (end - 1) / PIECE * PIECE;
            diff |= self.diff_piece(k, body, start..end, offset);
            end = start;
        }
        diff
    }

    /// The ORed differences of `body[words]`, a range that starts on a
    /// [`GROUP`] boundary.
    #[inline(always)]
    fn diff_piece<K: Kernels>(
        &self,
        k: K,
        body: &[u8],
        words: std::ops::Range<usize>,
        offset: u64,
    ) -> u64 {
        let first = (words.start / WORD) as u64;
        let piece = &body[words.clone()];
        match self.packet {
            PacketType::Timestamp => {
                diff_linear(k, piece, self.rank_bits(), self.base().wrapping_add(first))
            }
            PacketType::Offset => self.diff_offset(k, piece, offset, first),
            PacketType::Incompressible => self.diff_incompressible(k, piece, offset, first),
            PacketType::Random => {
                // Each word follows the one before it; the first word of the
                // transfer follows the seed.
                let before = match words.start {
                    0 => self.random_seed(offset),
                    start => word_at(&body[start - WORD..]),
                };
                k.random(piece, before)
            }
        }
    }

    /// `o`: as `t`, with a stamp at the start of every 4 KiB group. `body`
    /// starts at word `first` of the transfer.
    #[inline(always)]
    fn diff_offset<K: Kernels>(&self, k: K, body: &[u8], offset: u64, first: u64) -> u64 {
        let (rank_bits, base) = (self.rank_bits(), self.base());
        self.diff_stamped(
            body,
            offset,
            first,
            |group, stamp, first| {
                // `start`: what word 0 of the group would hold without its
                // stamp. While the low 32 bits of `base + i` do not carry
                // inside the group (see `diff_linear`), word m of the group
                // is `run + m`.
                let start = base.wrapping_add(first);
                if (start as u32 as u64) + STAMP_STRIDE as u64 <= 1 << 32 {
                    let run = rank_bits | start;
                    let head = std::array::from_fn(|l| {
                        if l == 0 {
                            stamp
                        } else {
                            run.wrapping_add(l as u64)
                        }
                    });
                    let (first_chunk, others) = group.split_at(CHUNK);
                    diff_chunk(first_chunk, &head)
                        | k.linear(others, run.wrapping_add(LANES as u64))
                } else {
                    (word_at(group) ^ stamp)
                        | diff_linear(k, &group[WORD..], rank_bits, start.wrapping_add(1))
                }
            },
            |rest, first| diff_linear(k, rest, rank_bits, base.wrapping_add(first)),
        )
    }

    /// `i`: one constant word, with a stamp at the start of every 4 KiB
    /// group. `body` starts at word `first` of the transfer.
    #[inline(always)]
    fn diff_incompressible<K: Kernels>(&self, k: K, body: &[u8], offset: u64, first: u64) -> u64 {
        let constant = self.constant;
        self.diff_stamped(
            body,
            offset,
            first,
            |group, stamp, _| {
                let head = std::array::from_fn(|l| if l == 0 { stamp } else { constant });
                let (first_chunk, others) = group.split_at(CHUNK);
                diff_chunk(first_chunk, &head) | k.constant(others, constant)
            },
            |rest, _| diff_constant_run(k, rest, constant),
        )
    }

    /// ORs the differences of `body` (word `first` of the transfer onwards, a
    /// group boundary) split into 4 KiB groups, each a stamp word and 511
    /// others: `group(whole group, its stamp, index of its first word in the
    /// transfer)` for whole groups; for a last partial group, the stamp here
    /// and `rest(words after the stamp, index of the first)`.
    #[inline(always)]
    fn diff_stamped(
        &self,
        body: &[u8],
        offset: u64,
        first: u64,
        group: impl Fn(&[u8; GROUP], u64, u64) -> u64,
        rest: impl Fn(&[u8], u64) -> u64,
    ) -> u64 {
        debug_assert_eq!(first % STAMP_STRIDE as u64, 0);
        let groups = body.chunks_exact(GROUP);
        let last = groups.remainder();
        let mut diff = 0;
        let mut k = first / STAMP_STRIDE as u64;
        for g in groups {
            // A fixed-size group: the loops inside have known trip counts.
            let g: &[u8; GROUP] = g.try_into().expect("a whole group");
            diff |= group(g, self.stamp_word(offset, k + 1), k * STAMP_STRIDE as u64);
            k += 1;
        }
        if !last.is_empty() {
            diff |= word_at(&last[..WORD]) ^ self.stamp_word(offset, k + 1);
            diff |= rest(&last[WORD..], k * STAMP_STRIDE as u64 + 1);
        }
        diff
    }

    /// The slow path of [`verify`](Self::verify): counts wrong words.
    fn count_wrong(&self, buf: &[u8], offset: u64) -> Check {
        let words = buf.len() / WORD;
        let (body, tail) = buf.split_at(words * WORD);
        let mut wrong = body
            .chunks_exact(WORD)
            .zip(self.expected_words(offset))
            .filter(|(w, e)| word_at(w) != *e)
            .count() as u64;
        let mut wrong_bytes = wrong * WORD as u64;
        if !tail_matches(tail, words * WORD) {
            wrong += 1;
            wrong_bytes += tail.len() as u64;
        }
        Check {
            wrong_words: wrong,
            wrong_bytes,
        }
    }

    /// Lists up to `limit` wrong words (and trailing bytes) of a buffer.
    pub fn mismatches(&self, buf: &[u8], offset: u64, limit: usize) -> Vec<Mismatch> {
        let words = buf.len() / WORD;
        let (body, tail) = buf.split_at(words * WORD);
        let wrong_words = body
            .chunks_exact(WORD)
            .zip(self.expected_words(offset))
            .enumerate()
            .filter(|(_, (w, e))| word_at(w) != *e)
            .map(|(i, (w, e))| Mismatch {
                position: (i * WORD) as u64,
                expected: e,
                actual: word_at(w),
            });
        let wrong_tail = tail
            .iter()
            .enumerate()
            .map(|(j, &b)| (words * WORD + j, b))
            .filter(|&(at, b)| b != at as u8)
            .map(|(at, b)| Mismatch {
                position: at as u64,
                expected: at as u8 as u64,
                actual: b as u64,
            });
        wrong_words.chain(wrong_tail).take(limit).collect()
    }
}

/// Bytes per stamp group (4 KiB).
const GROUP: usize = STAMP_STRIDE * WORD;

/// Verification walks a transfer in pieces of this many bytes (a whole
/// number of groups), the last piece first. Right after a `pread` of a large
/// transfer its end is the part most likely still in L2 and its start the
/// least; starting from the end uses the L2-resident lines before the lines
/// fetched back from L3 evict them. Measured on 1 MiB transfers: 0.92–0.94
/// of the read alone against 0.89–0.90 walking forwards (`read_then_1MiB`).
const PIECE: usize = 16 * GROUP;

/// IOR's `r` generator: `state = (state * GOLDEN_RATIO_PRIME) >> 3`.
#[inline(always)]
fn random_next(state: u64) -> u64 {
    state.wrapping_mul(GOLDEN_RATIO_PRIME) >> 3
}

#[inline(always)]
fn word_at(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..WORD].try_into().expect("8 bytes"))
}

/// Trailing bytes hold their index in the transfer (`start` is the first's).
fn tail_matches(tail: &[u8], start: usize) -> bool {
    tail.iter()
        .enumerate()
        .all(|(j, &b)| b == (start + j) as u8)
}

/// Words per chunk of the verification loops: eight independent lanes (four
/// SSE2 registers) so that the loops vectorise and keep several additions in
/// flight.
const LANES: usize = 8;
const CHUNK: usize = LANES * WORD;

/// ORs `w[j] ^ e` over one chunk, lane by lane.
#[inline(always)]
fn diff_chunk(chunk: &[u8], e: &[u64; LANES]) -> u64 {
    let chunk: &[u8; CHUNK] = chunk.try_into().expect("a whole chunk");
    (0..LANES).fold(0, |acc, l| acc | (word_at(&chunk[l * WORD..]) ^ e[l]))
}

/// ORs the differences of the words of `words` from `first + j`.
#[inline(always)]
fn diff_linear_run<K: Kernels>(k: K, words: &[u8], first: u64) -> u64 {
    let whole = words.len() / CHUNK * CHUNK;
    let (chunks, rest) = words.split_at(whole);
    let mut diff = k.linear(chunks, first);
    let next = first.wrapping_add((whole / WORD) as u64);
    for (j, w) in rest.chunks_exact(WORD).enumerate() {
        diff |= word_at(w) ^ next.wrapping_add(j as u64);
    }
    diff
}

/// ORs the differences of the words of `words` from `constant`.
#[inline(always)]
fn diff_constant_run<K: Kernels>(k: K, words: &[u8], constant: u64) -> u64 {
    let whole = words.len() / CHUNK * CHUNK;
    let (chunks, rest) = words.split_at(whole);
    let mut diff = k.constant(chunks, constant);
    for w in rest.chunks_exact(WORD) {
        diff |= word_at(w) ^ constant;
    }
    diff
}

/// ORs `w[j] ^ (rank_bits | (start + j))` over the words of `words`.
///
/// While the low 32 bits of `start + j` do not carry, `rank_bits | (start + j)`
/// is `(rank_bits | start) + j`: one addition per word. The words are taken
/// in runs that end where the low half wraps (signatures near 2^32, or
/// negative ones), so every run is a plain linear sequence.
#[inline(always)]
fn diff_linear<K: Kernels>(k: K, words: &[u8], rank_bits: u64, start: u64) -> u64 {
    let mut diff = 0;
    let mut rest = words;
    let mut start = start;
    while !rest.is_empty() {
        let room = (1u64 << 32) - (start as u32 as u64);
        let take = ((rest.len() / WORD) as u64).min(room);
        let (run, after) = rest.split_at(take as usize * WORD);
        diff |= diff_linear_run(k, run, rank_bits | start);
        start = start.wrapping_add(take);
        rest = after;
    }
    diff
}

#[cfg(test)]
mod tests;
