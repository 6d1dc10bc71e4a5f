//! Bit-exactness of pario's data patterns against a C reference that follows
//! IOR's own code (`tests/reference/ior_pattern.c`, compiled with gcc at test
//! time and linked with the C library's real `rand_r`).
//!
//! For every packet type, several signatures (negative ones and ones past
//! 2^31, which `-G` stores into a C `int`), ranks, offsets (including offsets
//! whose 32-bit products wrap) and odd transfer sizes, the bytes pario writes
//! must equal the bytes IOR writes, and pario's verification must reach the
//! same verdict as IOR's on correct and on damaged buffers.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use pario::pattern::{PacketType, Pattern};
use pario::random::splitmix64;

const PACKETS: [(char, PacketType); 4] = [
    ('t', PacketType::Timestamp),
    ('o', PacketType::Offset),
    ('i', PacketType::Incompressible),
    ('r', PacketType::Random),
];

/// `-G` values as typed on the command line: IOR stores them into an `int`.
const SIGNATURES: [i64; 14] = [
    0,
    1,
    42,
    1_234_567,
    -1,
    -2,
    -1000,
    2_147_483_647,
    -2_147_483_648,
    3_000_000_000,
    4_294_967_295,
    4_294_967_296,
    5_000_000_000,
    -3_000_000_000,
];

const RANKS: [usize; 3] = [0, 5, 65_535];

/// Odd sizes: a tail of 0, 5 and 7 bytes; below, at and past one stamp group.
const SIZES: [usize; 8] = [1, 7, 8, 3901, 4096, 4104, 47008, 47013];

/// One reference case: a buffer filled once, then written at each offset.
#[derive(Clone)]
struct Case {
    letter: char,
    packet: PacketType,
    signature: i64,
    rank: usize,
    bytes: usize,
    offsets: Vec<u64>,
}

impl Case {
    fn line(&self) -> String {
        let offsets: Vec<String> = self.offsets.iter().map(u64::to_string).collect();
        format!(
            "{} {} {} {} {}\n",
            self.letter,
            self.signature,
            self.rank,
            self.bytes,
            offsets.join(" ")
        )
    }

    fn pattern(&self) -> Pattern {
        Pattern::new(self.packet, self.signature, self.rank)
    }

    /// pario's buffers for this case, in the reference's order.
    fn pario_buffers(&self) -> Vec<Vec<u8>> {
        let p = self.pattern();
        let mut buf = vec![0xeeu8; self.bytes];
        p.fill(&mut buf);
        self.offsets
            .iter()
            .map(|&offset| {
                p.stamp(&mut buf, offset);
                buf.clone()
            })
            .collect()
    }
}

/// Offsets for a transfer of `bytes`: 0, an aligned one, and one of: an
/// offset whose low 32 bits multiply past 2^32 within the transfer, one past
/// 2^32, one past 2^40.
fn offsets_for(bytes: usize, salt: u64) -> Vec<u64> {
    let b = bytes as u64;
    let far = match salt % 3 {
        0 => 0xffff_f000 - (0xffff_f000 % b.max(1)),
        1 => (1u64 << 32) + b * 3,
        _ => (1u64 << 40) + 12_345 + salt,
    };
    vec![0, b * (1 + salt % 7), far]
}

fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    let mut salt = 0u64;
    for (letter, packet) in PACKETS {
        for signature in SIGNATURES {
            for rank in RANKS {
                for bytes in SIZES {
                    salt += 1;
                    all.push(Case {
                        letter,
                        packet,
                        signature,
                        rank,
                        bytes,
                        offsets: offsets_for(bytes, salt),
                    });
                }
            }
            // One MiB transfers for a few signatures.
            if [0, -2, 3_000_000_000, 1_234_567].contains(&signature) {
                all.push(Case {
                    letter,
                    packet,
                    signature,
                    rank: 3,
                    bytes: 1 << 20,
                    offsets: vec![7 << 20, (5u64 << 32) + (1 << 20)],
                });
            }
        }
    }
    all
}

/// Compiles the C reference into `dir`; the test needs gcc.
fn build_reference(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/ior_pattern.c");
    let exe = dir.join("ior_pattern");
    let out = Command::new("gcc")
        .args(["-O2", "-fwrapv", "-fno-strict-aliasing", "-o"])
        .arg(&exe)
        .arg(&source)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "this test compiles IOR's pattern code as a C reference and needs gcc \
                 (apt-get install build-essential): cannot run gcc: {e}"
            )
        });
    assert!(
        out.status.success(),
        "gcc failed to build {}:\n{}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn write_cases(path: &Path, cases: &[Case]) {
    let text: String = cases.iter().map(Case::line).collect();
    std::fs::write(path, text).unwrap();
}

/// The reference's buffers for `cases`, concatenated.
fn reference_gen(exe: &Path, cases: &[Case]) -> Vec<u8> {
    let mut child = Command::new(exe)
        .arg("gen")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let text: String = cases.iter().map(Case::line).collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    out.stdout
}

/// The reference's verdicts (true = error) for the buffers in `data`.
fn reference_verify(exe: &Path, dir: &Path, cases: &[Case], data: &[u8]) -> Vec<bool> {
    let case_file = dir.join("verify-cases");
    let data_file = dir.join("verify-data");
    write_cases(&case_file, cases);
    std::fs::write(&data_file, data).unwrap();
    let out = Command::new(exe)
        .arg("verify")
        .arg(&case_file)
        .arg(&data_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l == "1")
        .collect()
}

fn describe(case: &Case, offset: u64) -> String {
    format!(
        "-l {} -G {} rank {} -t {} offset {offset}",
        case.letter, case.signature, case.rank, case.bytes
    )
}

/// The first differing 64-bit word, for a readable failure.
fn first_difference(ours: &[u8], theirs: &[u8]) -> String {
    let at = ours
        .iter()
        .zip(theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    let word = at / 8 * 8;
    let show = |b: &[u8]| {
        b[word..(word + 8).min(b.len())]
            .iter()
            .rev()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
    };
    format!(
        "first difference at byte {at}: pario 0x{}, IOR 0x{}",
        show(ours),
        show(theirs)
    )
}

#[test]
fn pario_writes_exactly_what_ior_writes_and_both_verify_it() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build_reference(dir.path());
    let cases = cases();
    let theirs = reference_gen(&exe, &cases);
    let mut at = 0;
    let mut ours_all = Vec::with_capacity(theirs.len());
    let mut checked = 0;
    for case in &cases {
        let p = case.pattern();
        for (buf, &offset) in case.pario_buffers().iter().zip(&case.offsets) {
            let reference = &theirs[at..at + case.bytes];
            assert!(
                buf[..] == reference[..],
                "{}: {}",
                describe(case, offset),
                first_difference(buf, reference)
            );
            assert_eq!(
                p.verify(buf, offset),
                Default::default(),
                "{}",
                describe(case, offset)
            );
            // The words pario reports as expected are IOR's words too.
            let words = case.bytes / 8;
            let listed: Vec<u8> = p
                .expected_words(offset)
                .take(words)
                .flat_map(u64::to_le_bytes)
                .collect();
            assert!(
                listed[..] == reference[..words * 8],
                "expected words of {}: {}",
                describe(case, offset),
                first_difference(&listed, reference)
            );
            ours_all.extend_from_slice(buf);
            at += case.bytes;
            checked += 1;
        }
    }
    assert_eq!(at, theirs.len());
    // IOR's own check accepts every buffer pario wrote.
    let verdicts = reference_verify(&exe, dir.path(), &cases, &ours_all);
    assert_eq!(verdicts.len(), checked);
    assert!(verdicts.iter().all(|&error| !error), "IOR rejects a buffer");
}

/// Damaged or misattributed buffers: pario finds an error exactly when IOR does.
#[test]
fn pario_and_ior_agree_on_damaged_and_misattributed_buffers() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build_reference(dir.path());
    // One offset per case keeps the bookkeeping simple.
    let base: Vec<Case> = cases()
        .into_iter()
        .filter(|c| c.bytes <= 47013)
        .enumerate()
        .filter(|(n, _)| n % 3 == 0)
        .map(|(n, mut c)| {
            c.offsets = vec![c.offsets[n % c.offsets.len()]];
            c
        })
        .collect();
    let mut data = Vec::new();
    let mut expect_as = Vec::new();
    let mut state = 0x5eed_u64;
    let mut next = |n: u64| {
        state = splitmix64(state);
        state % n.max(1)
    };
    for case in &base {
        let mut buf = case.pario_buffers().pop().unwrap();
        let mut reader = case.clone();
        match next(6) {
            // A flipped bit anywhere, the tail included.
            0 | 1 => {
                let byte = next(case.bytes as u64) as usize;
                buf[byte] ^= 1 << next(8);
            }
            // Read back as if written by another rank, signature or offset.
            2 => reader.rank += 1 + next(3) as usize,
            3 => reader.signature += [1, -1, 1 << 32][next(3) as usize],
            4 => reader.offsets[0] += [8, 4096, case.bytes as u64, 1 << 32][next(4) as usize],
            // Untouched: both must accept it.
            _ => {}
        }
        data.extend_from_slice(&buf);
        expect_as.push(reader);
    }
    let verdicts = reference_verify(&exe, dir.path(), &expect_as, &data);
    assert_eq!(verdicts.len(), expect_as.len());
    let mut at = 0;
    let (mut errors, mut clean) = (0, 0);
    for (reader, ior_error) in expect_as.iter().zip(verdicts) {
        let buf = &data[at..at + reader.bytes];
        at += reader.bytes;
        let offset = reader.offsets[0];
        let check = reader.pattern().verify(buf, offset);
        assert_eq!(
            check.wrong_words > 0,
            ior_error,
            "{}: pario {:?}, IOR error {ior_error}",
            describe(reader, offset),
            check
        );
        // The detailed listing finds a mismatch exactly when the count does.
        let listed = reader.pattern().mismatches(buf, offset, 1);
        assert_eq!(listed.is_empty(), check.wrong_words == 0);
        if ior_error {
            errors += 1;
        } else {
            clean += 1;
        }
    }
    assert!(errors > 100 && clean > 50, "{errors} errors, {clean} clean");
}
