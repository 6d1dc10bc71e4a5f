//! The bytes of generated records. A record's bytes are one numpy call,
//! `randint(255, size=..., dtype=uint8)`, in DLIO; pario fills them either
//! with that exact stream (`pario.content=exact`) or with incompressible
//! bytes at memory speed (`fast`, the default): a random block, each 4 KiB
//! of it stamped with a hash of its file, call and position, so that no
//! two 4 KiB blocks of a dataset are equal and nothing compresses. Large
//! runs are written straight from the block, restamped in place
//! ([`Call::direct`]): no copy of the bytes.

use crate::dlio::options::Content;
use crate::dlio::random_state::{Bytes255, RandomState};
use crate::random::splitmix64;

/// The random block `fast` copies from, or writes straight from: the most
/// one direct piece holds.
pub const BASE: usize = 4 << 20;
const STAMP_EVERY: usize = 4096;

/// Where a rank's records come from.
pub enum Source {
    Fast {
        base: Vec<u8>,
        calls: u64,
    },
    /// numpy's global state after the size draws, as on a DLIO rank.
    Exact(Box<RandomState>),
}

impl Source {
    pub fn new(content: Content, state: RandomState) -> Source {
        match content {
            Content::Exact => Source::Exact(Box::new(state)),
            Content::Fast => {
                let mut base = vec![0u8; BASE];
                for (i, word) in base.chunks_exact_mut(8).enumerate() {
                    word.copy_from_slice(&splitmix64(0xd110 ^ i as u64).to_le_bytes());
                }
                Source::Fast { base, calls: 0 }
            }
        }
    }

    /// The next numpy call's bytes. `file` keys the fast stamps.
    pub fn call(&mut self, file: u64) -> Call<'_> {
        match self {
            Source::Exact(state) => Call::Exact(state.randint_u8_255()),
            Source::Fast { base, calls } => {
                *calls += 1;
                Call::Fast {
                    base: base.as_mut_slice(),
                    key: splitmix64(file.wrapping_mul(0x9e37_79b9) ^ *calls),
                    pos: 0,
                }
            }
        }
    }

    /// A copy to compute a checksum with, before the same bytes are drawn
    /// again for the file.
    pub fn snapshot(&self) -> Source {
        match self {
            Source::Exact(state) => Source::Exact(state.clone()),
            Source::Fast { base, calls } => Source::Fast {
                base: base.clone(),
                calls: *calls,
            },
        }
    }
}

/// The bytes of one call, taken in pieces.
pub enum Call<'a> {
    Exact(Bytes255<'a>),
    Fast {
        base: &'a mut [u8],
        key: u64,
        pos: u64,
    },
}

impl Call<'_> {
    /// The next `len` bytes (at most [`BASE`]) without a copy, when the
    /// content allows it (`fast`): the block itself, its 8 bytes at each
    /// 4 KiB boundary of the call set to this call's stamps.
    pub fn direct(&mut self, len: usize) -> Option<&[u8]> {
        match self {
            Call::Exact(_) => None,
            Call::Fast { base, key, pos } => {
                let len = len.min(base.len());
                let out = &mut base[..len];
                set_stamps(out, *key, *pos);
                *pos += len as u64;
                Some(out)
            }
        }
    }

    pub fn fill(&mut self, out: &mut [u8]) {
        match self {
            Call::Exact(bytes) => bytes.fill(out),
            Call::Fast { base, key, pos } => {
                let mut done = 0;
                while done < out.len() {
                    // Each call starts at its own place in the block.
                    let at = ((*key as usize) + *pos as usize + done) % base.len();
                    let take = (base.len() - at).min(out.len() - done);
                    out[done..done + take].copy_from_slice(&base[at..at + take]);
                    done += take;
                }
                stamp(out, *key, *pos);
                *pos += out.len() as u64;
            }
        }
    }
}

/// XORs 8 bytes at each 4 KiB boundary of the call (its position `start`
/// onwards) with a hash of the key and the block.
fn stamp(out: &mut [u8], key: u64, start: u64) {
    each_stamp(out, key, start, |b, m| *b ^= m);
}

/// Sets them to the hash (the block is reused: what was there is another
/// call's stamp).
fn set_stamps(out: &mut [u8], key: u64, start: u64) {
    each_stamp(out, key, start, |b, m| *b = m);
}

fn each_stamp(out: &mut [u8], key: u64, start: u64, apply: impl Fn(&mut u8, u8)) {
    let first = start.div_ceil(STAMP_EVERY as u64) * STAMP_EVERY as u64;
    let mut block = first;
    while block < start + out.len() as u64 {
        let at = (block - start) as usize;
        let end = (at + 8).min(out.len());
        let mark = splitmix64(key ^ block).to_le_bytes();
        for (b, m) in out[at..end].iter_mut().zip(mark) {
            apply(b, m);
        }
        block += STAMP_EVERY as u64;
    }
}
