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
        Pattern {
            packet,
            signature: signature as i32,
            rank: rank as u64,
        }
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

    fn random_seed(&self, offset: u64) -> u64 {
        let mut seed = (self.signature as i64 + self.rank as i64) as u64;
        seed = seed.wrapping_add(offset);
        let mut seed32 = seed as u32;
        rand_r(&mut seed32) as u64
    }

    fn stamp_word(&self, offset: u64, k: u64) -> u64 {
        ((offset as u32).wrapping_mul(k as u32) as u64) | self.rank_bits()
    }

    /// Fills a whole buffer for this writer (once per phase).
    pub fn fill(&self, buf: &mut [u8]) {
        let words = buf.len() / WORD;
        let (body, tail) = buf.split_at_mut(words * WORD);
        let rank_bits = self.rank_bits();
        match self.packet {
            PacketType::Timestamp | PacketType::Offset => {
                let base = self.base();
                for (i, chunk) in body.chunks_exact_mut(WORD).enumerate() {
                    let w = rank_bits | base.wrapping_add(i as u64);
                    chunk.copy_from_slice(&w.to_le_bytes());
                }
            }
            PacketType::Incompressible => {
                let w = self.incompressible_word().to_le_bytes();
                for chunk in body.chunks_exact_mut(WORD) {
                    chunk.copy_from_slice(&w);
                }
            }
            PacketType::Random => {}
        }
        for (j, b) in tail.iter_mut().enumerate() {
            *b = (words * WORD + j) as u8;
        }
    }

    /// Updates the words that depend on the transfer's file offset; call before
    /// each write. A no-op for `t`.
    pub fn stamp(&self, buf: &mut [u8], offset: u64) {
        let words = buf.len() / WORD;
        match self.packet {
            PacketType::Timestamp => {}
            PacketType::Offset | PacketType::Incompressible => {
                for (k, i) in (0..words).step_by(STAMP_STRIDE).enumerate() {
                    let w = self.stamp_word(offset, k as u64 + 1);
                    buf[i * WORD..(i + 1) * WORD].copy_from_slice(&w.to_le_bytes());
                }
            }
            PacketType::Random => {
                let mut state = self.random_seed(offset);
                for chunk in buf[..words * WORD].chunks_exact_mut(WORD) {
                    state = state.wrapping_mul(GOLDEN_RATIO_PRIME) >> 3;
                    chunk.copy_from_slice(&state.to_le_bytes());
                }
            }
        }
    }

    /// The word expected at word index `i` of a transfer at `offset`
    /// (reference implementation, used to report mismatches).
    pub fn expected_word(&self, offset: u64, i: usize) -> u64 {
        if self.packet.stamped() && i % STAMP_STRIDE == 0 {
            return self.stamp_word(offset, (i / STAMP_STRIDE) as u64 + 1);
        }
        match self.packet {
            PacketType::Timestamp | PacketType::Offset => {
                self.rank_bits() | self.base().wrapping_add(i as u64)
            }
            PacketType::Incompressible => self.incompressible_word(),
            PacketType::Random => {
                let mut state = self.random_seed(offset);
                for _ in 0..=i {
                    state = state.wrapping_mul(GOLDEN_RATIO_PRIME) >> 3;
                }
                state
            }
        }
    }

    /// Verifies a buffer read from `offset`; counts wrong words without
    /// branching per word.
    pub fn verify(&self, buf: &[u8], offset: u64) -> Check {
        let words = buf.len() / WORD;
        let (body, tail) = buf.split_at(words * WORD);
        let mut wrong = match self.packet {
            PacketType::Timestamp => count_wrong_linear(body, 0, self.rank_bits(), self.base()),
            PacketType::Offset => self.count_wrong_stamped(body, offset, |chunk, first| {
                count_wrong_linear(chunk, first, self.rank_bits(), self.base())
            }),
            PacketType::Incompressible => {
                let constant = self.incompressible_word();
                self.count_wrong_stamped(body, offset, |chunk, _| {
                    count_wrong_constant(chunk, constant)
                })
            }
            PacketType::Random => {
                let mut state = self.random_seed(offset);
                let mut wrong = 0u64;
                for chunk in body.chunks_exact(WORD) {
                    state = state.wrapping_mul(GOLDEN_RATIO_PRIME) >> 3;
                    wrong += (word_at(chunk) != state) as u64;
                }
                wrong
            }
        };
        let mut wrong_bytes = wrong * WORD as u64;
        let tail_wrong = tail
            .iter()
            .enumerate()
            .filter(|(j, b)| **b != (words * WORD + j) as u8)
            .count() as u64;
        if tail_wrong > 0 {
            wrong += 1;
            wrong_bytes += tail.len() as u64;
        }
        Check {
            wrong_words: wrong,
            wrong_bytes,
        }
    }

    /// Splits `body` at the stamped words: checks each stamp, hands the words in
    /// between to `rest(chunk, index of its first word)`.
    fn count_wrong_stamped(
        &self,
        body: &[u8],
        offset: u64,
        rest: impl Fn(&[u8], u64) -> u64,
    ) -> u64 {
        let mut wrong = 0;
        for (k, group) in body.chunks(STAMP_STRIDE * WORD).enumerate() {
            let stamp = self.stamp_word(offset, k as u64 + 1);
            wrong += (word_at(&group[..WORD]) != stamp) as u64;
            wrong += rest(&group[WORD..], (k * STAMP_STRIDE + 1) as u64);
        }
        wrong
    }

    /// Lists up to `limit` wrong words (and trailing bytes) of a buffer.
    pub fn mismatches(&self, buf: &[u8], offset: u64, limit: usize) -> Vec<Mismatch> {
        let words = buf.len() / WORD;
        let mut found = Vec::new();
        for i in 0..words {
            if found.len() >= limit {
                return found;
            }
            let actual = word_at(&buf[i * WORD..]);
            let expected = self.expected_word(offset, i);
            if actual != expected {
                found.push(Mismatch {
                    position: (i * WORD) as u64,
                    expected,
                    actual,
                });
            }
        }
        for (j, &b) in buf.iter().enumerate().skip(words * WORD) {
            if found.len() >= limit {
                break;
            }
            if b != j as u8 {
                found.push(Mismatch {
                    position: j as u64,
                    expected: j as u8 as u64,
                    actual: b as u64,
                });
            }
        }
        found
    }
}

#[inline(always)]
fn word_at(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..WORD].try_into().expect("8 bytes"))
}

/// Counts words `w[j] != rank_bits | (base + first + j)`.
#[inline]
fn count_wrong_linear(chunk: &[u8], first: u64, rank_bits: u64, base: u64) -> u64 {
    let start = base.wrapping_add(first);
    chunk
        .chunks_exact(WORD)
        .enumerate()
        .map(|(j, w)| (word_at(w) != rank_bits | start.wrapping_add(j as u64)) as u64)
        .sum()
}

#[inline]
fn count_wrong_constant(chunk: &[u8], constant: u64) -> u64 {
    chunk
        .chunks_exact(WORD)
        .map(|w| (word_at(w) != constant) as u64)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(buf: &[u8]) -> Vec<u64> {
        buf.chunks_exact(8).map(word_at).collect()
    }

    #[test]
    fn timestamp_words_follow_the_formula() {
        let p = Pattern::new(PacketType::Timestamp, 1000, 3);
        let mut buf = vec![0u8; 64];
        p.fill(&mut buf);
        let w = words(&buf);
        assert_eq!(w[0], (3u64 << 32) | 1000);
        assert_eq!(w[7], (3u64 << 32) | 1007);
        assert_eq!(p.verify(&buf, 0), Check::default());
    }

    #[test]
    fn negative_signature_sign_extends_as_in_c() {
        let p = Pattern::new(PacketType::Timestamp, -2, 1);
        let mut buf = vec![0u8; 32];
        p.fill(&mut buf);
        let w = words(&buf);
        assert_eq!(w[0], u64::MAX - 1);
        assert_eq!(w[1], u64::MAX);
        assert_eq!(w[2], 1u64 << 32);
        assert_eq!(p.verify(&buf, 0).wrong_words, 0);
    }

    #[test]
    fn offset_stamps_every_4k() {
        let p = Pattern::new(PacketType::Offset, 7, 2);
        let mut buf = vec![0u8; 3 * 4096];
        p.fill(&mut buf);
        p.stamp(&mut buf, 1 << 20);
        let w = words(&buf);
        assert_eq!(w[0], ((1u64 << 20) as u32 as u64) | (2 << 32));
        assert_eq!(w[512], ((2u64 << 20) as u32 as u64) | (2 << 32));
        assert_eq!(w[1024], ((3u64 << 20) as u32 as u64) | (2 << 32));
        assert_eq!(w[1], (2 << 32) | 8);
        assert_eq!(p.verify(&buf, 1 << 20), Check::default());
        assert_eq!(p.verify(&buf, 2 << 20).wrong_words, 3);
    }

    #[test]
    fn trailing_bytes_hold_their_index() {
        let p = Pattern::new(PacketType::Timestamp, 5, 0);
        let mut buf = vec![0u8; 3901];
        p.fill(&mut buf);
        assert_eq!(buf[3896], (3896 % 256) as u8);
        assert_eq!(buf[3900], (3900 % 256) as u8);
        assert_eq!(p.verify(&buf, 0), Check::default());
        buf[3900] ^= 1;
        assert_eq!(
            p.verify(&buf, 0),
            Check {
                wrong_words: 1,
                wrong_bytes: 5
            }
        );
    }

    #[test]
    fn rand_r_matches_glibc() {
        // Values from glibc: rand_r with seed 1 gives 476707713, then 1186278907.
        let mut seed = 1u32;
        assert_eq!(rand_r(&mut seed), 476707713);
        assert_eq!(rand_r(&mut seed), 1186278907);
    }

    #[test]
    fn every_type_round_trips_and_detects_a_flip() {
        for packet in [
            PacketType::Timestamp,
            PacketType::Offset,
            PacketType::Incompressible,
            PacketType::Random,
        ] {
            let p = Pattern::new(packet, 123456, 5);
            let mut buf = vec![0u8; 47008];
            p.fill(&mut buf);
            p.stamp(&mut buf, 47008 * 3);
            assert_eq!(p.verify(&buf, 47008 * 3), Check::default(), "{packet:?}");
            buf[20000] ^= 0x10;
            assert_eq!(p.verify(&buf, 47008 * 3).wrong_words, 1, "{packet:?}");
            let m = p.mismatches(&buf, 47008 * 3, 10);
            assert_eq!(m.len(), 1);
            assert_eq!(m[0].position, 20000, "the word holding byte 20000");
        }
    }

    #[test]
    fn another_writer_is_detected() {
        let writer = Pattern::new(PacketType::Timestamp, 9, 1);
        let reader_expects = Pattern::new(PacketType::Timestamp, 9, 2);
        let mut buf = vec![0u8; 4096];
        writer.fill(&mut buf);
        assert_eq!(reader_expects.verify(&buf, 0).wrong_words, 512);
    }

    #[test]
    fn packet_type_names() {
        assert_eq!(PacketType::parse("t"), Ok(PacketType::Timestamp));
        assert_eq!(PacketType::parse("offset"), Ok(PacketType::Offset));
        assert_eq!(PacketType::parse("i"), Ok(PacketType::Incompressible));
        assert_eq!(PacketType::parse("r"), Ok(PacketType::Random));
        assert!(PacketType::parse("x").is_err());
        assert!(PacketType::parse("").is_err());
    }
}
