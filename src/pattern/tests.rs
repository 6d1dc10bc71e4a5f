use super::*;
use kernels::Kernel;

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

const ALL: [PacketType; 4] = [
    PacketType::Timestamp,
    PacketType::Offset,
    PacketType::Incompressible,
    PacketType::Random,
];

/// The formulas of `docs/data-pattern.md`, written out word by word.
fn by_hand(packet: PacketType, g: i64, rank: u64, offset: u64, bytes: usize) -> Vec<u8> {
    let g32 = g as i32; // -G is stored into a C int
    let words = bytes / 8;
    let mut out = Vec::with_capacity(bytes);
    let mut seed = (g32 as i64 + rank as i64 + offset as i64) as u32;
    let mut state = rand_r(&mut seed) as u64;
    let mut iseed = (g32 as i64 + rank as i64) as u32;
    let constant = ((rand_r(&mut iseed) as u64) << 32) | rand_r(&mut iseed) as u64;
    for i in 0..words as u64 {
        let w = match packet {
            PacketType::Random => {
                state = state.wrapping_mul(0x9e37_ffff_fffc_0001) >> 3;
                state
            }
            _ if i % 512 == 0 && packet != PacketType::Timestamp => {
                let k = (i / 512 + 1) as u32;
                ((offset as u32).wrapping_mul(k) as u64) | (rank << 32)
            }
            PacketType::Incompressible => constant,
            _ => (rank << 32) | (g32 as i64 as u64).wrapping_add(i),
        };
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend((words * 8..bytes).map(|j| j as u8));
    out
}

#[test]
fn generator_matches_the_formulas_by_hand() {
    for packet in ALL {
        for g in [0, 7, 1_234_567, -1, -1000, 3_000_000_000, i32::MIN as i64] {
            for rank in [0u64, 1, 5, 1023] {
                for bytes in [8usize, 3901, 4096, 47008, 47013, 2 * PIECE + 4096 + 13] {
                    let p = Pattern::new(packet, g, rank as usize);
                    let mut buf = vec![0xa5; bytes];
                    p.fill(&mut buf);
                    for offset in [0, bytes as u64 * 9, (1 << 32) - 4096, (3 << 32) + 47008] {
                        p.stamp(&mut buf, offset);
                        let expected = by_hand(packet, g, rank, offset, bytes);
                        assert!(
                            buf == expected,
                            "{packet:?} -G {g} rank {rank} -t {bytes} at {offset}"
                        );
                        assert_eq!(p.verify(&buf, offset), Check::default());
                        let listed: Vec<u64> = p.expected_words(offset).take(bytes / 8).collect();
                        assert_eq!(listed, words(&expected[..bytes / 8 * 8]));
                    }
                }
            }
        }
    }
}

/// `bytes` of `packet`'s pattern stamped for `offset`, checked to match
/// with every kernel before a test corrupts it.
fn stamped(
    packet: PacketType,
    g: i64,
    rank: usize,
    bytes: usize,
    offset: u64,
) -> (Pattern, Vec<u8>) {
    let p = Pattern::new(packet, g, rank);
    let mut buf = vec![0u8; bytes];
    p.fill(&mut buf);
    p.stamp(&mut buf, offset);
    assert!(matches_with_every_kernel(&p, &buf, offset));
    (p, buf)
}

/// `matches` with every build of the word loops this CPU can run (the
/// baseline, and AVX2 and AVX-512 when present), which must agree.
fn matches_with_every_kernel(p: &Pattern, buf: &[u8], offset: u64) -> bool {
    let words = buf.len() / WORD;
    let (body, tail) = buf.split_at(words * WORD);
    let tail_ok = tail_matches(tail, words * WORD);
    let all = kernels::every_diff(p, body, offset);
    let baseline = all[0].1 == 0 && tail_ok;
    for (name, diff) in &all {
        assert_eq!(
            *diff == 0 && tail_ok,
            baseline,
            "{name} and baseline disagree"
        );
    }
    assert_eq!(p.matches(buf, offset), baseline);
    baseline
}

/// Every single wrong word is found, wherever it is: in a stamp, in the
/// first chunk after a stamp, in the lanes, in the scalar rest of a
/// partial group, across a carry of the low 32 bits; and only that word;
/// by every kernel.
#[test]
fn one_wrong_word_is_found_at_every_position() {
    // A whole group + a partial one of 101 words + 3 trailing bytes.
    let bytes = 4096 + 101 * 8 + 3;
    // -G values whose `G + i` carries out of the low 32 bits inside the
    // buffer (in the whole group, in the partial one), and an ordinary one.
    for g in [42, -3, -530] {
        for packet in ALL {
            let offset = 5 * bytes as u64;
            let (p, mut buf) = stamped(packet, g, 3, bytes, offset);
            for word in 0..bytes / 8 {
                // The lowest bit, or the highest (the rank's half).
                let bit = if word % 2 == 0 { 0 } else { 63 };
                buf[word * 8 + bit / 8] ^= 1 << (bit % 8);
                assert!(!matches_with_every_kernel(&p, &buf, offset));
                let check = p.verify(&buf, offset);
                assert_eq!(
                    check,
                    Check {
                        wrong_words: 1,
                        wrong_bytes: 8
                    },
                    "{packet:?} -G {g}: word {word} bit {bit}"
                );
                let m = p.mismatches(&buf, offset, 5);
                assert_eq!(m.len(), 1);
                assert_eq!(m[0].position, word as u64 * 8);
                buf[word * 8 + bit / 8] ^= 1 << (bit % 8);
                assert_eq!(
                    m[0].expected,
                    u64::from_le_bytes(buf[word * 8..word * 8 + 8].try_into().unwrap())
                );
            }
            for j in bytes / 8 * 8..bytes {
                buf[j] ^= 0x80;
                assert_eq!(
                    p.verify(&buf, offset),
                    Check {
                        wrong_words: 1,
                        wrong_bytes: 3
                    }
                );
                let m = p.mismatches(&buf, offset, 5);
                assert_eq!(
                    (m.len(), m[0].position, m[0].expected),
                    (1, j as u64, j as u8 as u64)
                );
                buf[j] ^= 0x80;
            }
            assert!(p.matches(&buf, offset));
        }
    }
}

/// A transfer of several pieces (verified last piece first): a wrong
/// word at either edge of each piece, at a stamp, or across a carry of
/// the low 32 bits is found, by every kernel.
#[test]
fn wrong_words_are_found_in_every_piece() {
    let bytes = 3 * PIECE + GROUP + 101 * 8 + 3;
    let words = bytes / WORD;
    let edges: Vec<usize> = (0..=3)
        .flat_map(|p| [p * PIECE / WORD, p * PIECE / WORD + 1])
        .flat_map(|w| [w.saturating_sub(1), w])
        .chain([words / 2, words - 1])
        .filter(|&w| w < words)
        .collect();
    for g in [42, -3, -(PIECE as i64 / 8) - 5] {
        for packet in ALL {
            let offset = 11 * bytes as u64;
            let (p, mut buf) = stamped(packet, g, 6, bytes, offset);
            for &word in &edges {
                buf[word * WORD + 7] ^= 0x10;
                assert!(
                    !matches_with_every_kernel(&p, &buf, offset),
                    "{packet:?} -G {g}: word {word}"
                );
                assert_eq!(p.verify(&buf, offset).wrong_words, 1);
                buf[word * WORD + 7] ^= 0x10;
            }
            assert!(matches_with_every_kernel(&p, &buf, offset));
        }
    }
}

#[test]
fn counts_are_exact_for_many_wrong_words() {
    for packet in ALL {
        let p = Pattern::new(packet, 99, 1);
        let mut buf = vec![0u8; 47008];
        p.fill(&mut buf);
        p.stamp(&mut buf, 0);
        // Zero words 100..=199 (none of them holds zero by chance).
        buf[800..1600].fill(0);
        assert_eq!(
            p.verify(&buf, 0),
            Check {
                wrong_words: 100,
                wrong_bytes: 800
            },
            "{packet:?}"
        );
        let m = p.mismatches(&buf, 0, 3);
        assert_eq!(
            m.iter().map(|m| m.position).collect::<Vec<_>>(),
            [800, 808, 816]
        );
        assert!(m.iter().all(|m| m.actual == 0));
        // A transfer verified as if read from another offset: for `o`/`i`
        // every stamp differs (12 of them), `r` is another stream, `t`
        // does not depend on the offset.
        p.stamp(&mut buf, 0);
        p.fill(&mut buf);
        p.stamp(&mut buf, 47008);
        let elsewhere = p.verify(&buf, 2 * 47008).wrong_words;
        match packet {
            PacketType::Timestamp => assert_eq!(elsewhere, 0),
            PacketType::Offset | PacketType::Incompressible => assert_eq!(elsewhere, 12),
            PacketType::Random => assert!(elsewhere > 5000, "{elsewhere}"),
        }
    }
}

/// Every kernel this CPU runs computes the very same ORed difference as
/// the generic one (not only zero or not): for every length from nothing to
/// a few vectors past a group (every remainder of the 128-byte AVX2 block
/// and of the 64-byte chunk), on buffers that start off any alignment, with
/// one wrong byte at every position (start, middle, vector edges, the
/// scalar rest) and with none.
#[test]
fn every_kernel_agrees_with_the_generic_one() {
    let kernels = Kernel::ALL.into_iter().filter(|k| k.available());
    assert!(kernels.clone().any(|k| k == Kernel::Generic));
    let lengths = (0..=80).chain([511, 512, 513, 520, 600, 1024 + 17]);
    for packet in ALL {
        for words in lengths.clone() {
            for shift in [0, 1, 3, 7] {
                let offset = 3 * 4096 + 40;
                let mut storage = vec![0u8; shift + words * WORD];
                let p = Pattern::new(packet, -17, 5);
                let body = &mut storage[shift..];
                p.fill(body);
                p.stamp(body, offset);
                let positions = (0..body.len()).step_by(if words > 80 { 7 } else { 1 });
                for at in std::iter::once(None).chain(positions.map(Some)) {
                    if let Some(at) = at {
                        body[at] ^= 0x41;
                    }
                    let all = kernels::every_diff(&p, body, offset);
                    let (_, generic) = all[0];
                    assert_eq!(generic == 0, at.is_none(), "{packet:?} {words} words");
                    for (name, diff) in &all {
                        assert_eq!(
                            *diff, generic,
                            "{name} against generic: {packet:?}, {words} words, shift {shift}, wrong byte {at:?}"
                        );
                    }
                    if let Some(at) = at {
                        body[at] ^= 0x41;
                    }
                }
            }
        }
    }
}

#[test]
fn a_kernel_is_forced_only_if_the_cpu_has_it() {
    let best = Kernel::choose(None);
    assert!(best.available());
    assert_eq!(Kernel::choose(Some("generic")), Kernel::Generic);
    assert_eq!(Kernel::choose(Some("no such kernel")), best);
    for k in [Kernel::Avx2, Kernel::Avx512] {
        let forced = Kernel::choose(Some(k.spelling()));
        assert_eq!(forced, if k.available() { k } else { best });
    }
    assert_eq!(Kernel::choose(Some(" AVX2 ")), Kernel::choose(Some("avx2")));
}
