//! Seeded, bounded fuzzing: a small deterministic generator, inputs made
//! of random bytes and of mutated real samples, and a harness that feeds
//! them to a parser on a thread of its own. A panic fails the test naming
//! the input; so does a parse that never returns. A failure replays from
//! its seed (`PARIO_FUZZ_SEED`); `PARIO_FUZZ_CASES` scales every run.

use std::fmt::Debug;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A whole-number setting from the environment, or `default`.
pub fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A small deterministic generator (xorshift64*), so a failure can be
/// replayed from its seed.
pub struct Rng(u64);

impl Rng {
    /// Seeded from `PARIO_FUZZ_SEED` (1 unless set); never 0, which
    /// xorshift would keep.
    pub fn seeded() -> Rng {
        Rng(setting("PARIO_FUZZ_SEED", 1) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (above 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True once in `n` draws.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Pieces that break parsers of text: separators, escapes, characters of
/// several bytes, control characters, NUL, numbers at and past the limits.
pub const TOKENS: &[&str] = &[
    "",
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "\0",
    "\u{7f}",
    "\u{1b}[31m",
    "é",
    "€",
    "😀",
    "\u{feff}",
    "\u{fffd}",
    "&",
    ";",
    "=",
    "#",
    "[",
    "]",
    ",",
    "\"",
    "'",
    "\\",
    "/",
    "..",
    "%",
    "-",
    "+",
    "0",
    "-1",
    "1e308",
    "NaN",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "9223372036854775808",
    "-9223372036854775809",
    "4294967296",
    "1k",
    "16e",
    "1t",
];

/// Values at the edges of what options take: sizes with every suffix,
/// the limits of the integer types and past them, negative, fractional,
/// empty, not numbers.
pub const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "7",
    "4096",
    "47008",
    "1k",
    "3k",
    "1m",
    "5m",
    "16m",
    "1g",
    "1t",
    "8e",
    "16e",
    "1p",
    "0k",
    "-1m",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "-99999999999999999999",
    "4294967295",
    "4294967296",
    "2147483648",
    "1.5",
    "0.0000001",
    "1e3",
    "1e308",
    "inf",
    "NaN",
    "0x10",
    "k",
    "",
    " ",
    ",",
    "TRUE",
    "FALSE",
    "abc",
    "%d",
    "é",
];

/// A byte: printable ASCII three times in four, else any value (which
/// may make the text no UTF-8).
fn byte(rng: &mut Rng) -> u8 {
    match rng.one_in(4) {
        true => rng.next() as u8,
        false => b' ' + rng.below(95) as u8,
    }
}

/// A random input: bytes from `tokens` and [`TOKENS`] and any byte
/// values, up to `max` pieces.
pub fn random(rng: &mut Rng, tokens: &[impl AsRef<str>], max: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..rng.below(max + 1) {
        match rng.below(3) {
            0 => out.push(byte(rng)),
            1 => out.extend_from_slice(rng.pick(TOKENS).as_bytes()),
            _ => out.extend_from_slice(rng.pick(tokens).as_ref().as_bytes()),
        }
    }
    out
}

/// `sample` changed in one to four places: a byte set to any value, a
/// token put in, a stretch removed, repeated or swapped for a stretch of
/// `other`, the end cut off (at any byte, inside a character too), or a
/// value of a `key=value` line set to one of [`VALUES`].
pub fn mutate(rng: &mut Rng, sample: &[u8], other: &[u8], tokens: &[impl AsRef<str>]) -> Vec<u8> {
    let mut out = sample.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(out.len() + 1);
        let to = at + rng.below(out.len() - at + 1).min(64);
        match rng.below(10) {
            // A `key=value`'s value, to the end of its line, set anew.
            7..=9 if out.contains(&b'=') => {
                let equals: Vec<usize> = (0..out.len()).filter(|&i| out[i] == b'=').collect();
                let from = rng.pick(&equals) + 1;
                let end = out[from..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(out.len(), |n| from + n);
                out.splice(from..end, rng.pick(VALUES).bytes());
            }
            0 if at < out.len() => out[at] = byte(rng),
            1 => {
                let token = match rng.below(2) {
                    0 => rng.pick(TOKENS),
                    _ => rng.pick(tokens).as_ref(),
                };
                out.splice(at..at, token.bytes());
            }
            2 => {
                out.drain(at..to);
            }
            3 => {
                let copy = out[at..to].to_vec();
                out.splice(to..to, copy.iter().copied().cycle().take(copy.len() * 4));
            }
            4 if !other.is_empty() => {
                let from = rng.below(other.len());
                let end = from + rng.below(other.len() - from + 1).min(256);
                out.splice(at..to, other[from..end].iter().copied());
            }
            5 => out.truncate(at),
            _ => {
                out.splice(at..at, random(rng, tokens, 4));
            }
        }
    }
    out
}

/// An input made of `samples` (their texts) and `tokens`: most often a
/// sample mutated, sometimes a sample whole, sometimes random bytes.
pub fn input(rng: &mut Rng, samples: &[&str], tokens: &[impl AsRef<str>]) -> Vec<u8> {
    let sample = rng.pick(samples).as_bytes();
    match rng.below(10) {
        0 => sample.to_vec(),
        1 | 2 => random(rng, tokens, 64),
        _ => {
            let other = rng.pick(samples).as_bytes();
            mutate(rng, sample, other, tokens)
        }
    }
}

/// Feeds `cases` inputs from `make` to `check` on a thread of its own;
/// fails naming the input when `check` panics, or does not return within
/// a minute (a parse that never ends; a case takes milliseconds).
pub fn run<I, M, C>(what: &str, cases: u64, mut make: M, check: C)
where
    I: Debug + Send + 'static,
    M: FnMut(&mut Rng) -> I + Send + 'static,
    C: Fn(&I) + Send + 'static,
{
    let current = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = mpsc::channel();
    let shown = Arc::clone(&current);
    std::thread::spawn(move || {
        let mut rng = Rng::seeded();
        for case in 0..cases {
            let input = make(&mut rng);
            *shown.lock().unwrap() = format!("case {case}: {input:?}");
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&input)));
            if tx.send(outcome.is_ok()).is_err() || outcome.is_err() {
                return;
            }
        }
    });
    for _ in 0..cases {
        let done = rx.recv_timeout(Duration::from_secs(60));
        let input = current.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match done {
            Ok(true) => {}
            Ok(false) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("{what} panicked on {input}")
            }
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what} did not return on {input}"),
        }
    }
}

/// A refusal: one line, saying something. (A carriage return of the
/// input's own may be shown back: a text reader counts no line there.)
pub fn assert_one_line(what: &str, input: &impl Debug, message: &str) {
    assert!(
        !message.trim().is_empty() && !message.contains('\n'),
        "{what} refused {input:?} in other than one line: {message:?}"
    );
}

/// Bytes shown as text with escapes (`b"IOR START\n\xff"`), so that a
/// failing input reads as the file it was.
pub struct Bytes(pub Vec<u8>);

impl Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}
