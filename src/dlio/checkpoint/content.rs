//! The bytes of a checkpoint's tensors: incompressible, and all taken from
//! one small block in slices of 1 MiB, ior's transfer size, so that what
//! is written stays in the processor's cache as ior's buffer does. A
//! tensor's request is one gathered write (`pwritev`) whose slices all
//! point into the block (slices of up to 2 MiB for requests over 1 GiB:
//! one call up to Linux's largest write); a buffer as large as the largest
//! tensor (hundreds of MiB) cost a page fault per page and a copy from
//! memory instead of cache.
//!
//! Each slice starts at its own shift into the block, so that 4 KiB blocks
//! of the files repeat only after 512 slices of a rank's tensor data: the
//! 4 KiB block at file position `w` of a slice starting at file position
//! `p` is the block's bytes from `shift + w - p`, and `shift - p` differs
//! (modulo 4 KiB) from one slice to the next. Under O_DIRECT the slices
//! start at the block's first byte (aligned) and repeat.

use std::io::IoSlice;
use std::sync::{Arc, Mutex};

use super::requests::MAX_RW_COUNT;
use crate::buffer::{AlignedBuffer, PAGE};
use crate::random::splitmix64;

/// The bytes one slice of the block carries, unless a request needs more
/// than `IOV_MAX` of them.
pub const SLICE: usize = 1 << 20;
/// Buffers one `pwritev` takes on Linux.
const IOV_MAX: u64 = 1024;
/// The largest slice: Linux's largest write in `IOV_MAX` slices (2 MiB),
/// so that every request is one call, as `torch.save`'s write is.
const MOST: usize = (MAX_RW_COUNT.div_ceil(IOV_MAX) as usize).next_multiple_of(PAGE);
/// Shifts move by this much (memory copies stay word-aligned).
const STEP: u64 = 8;
/// Distinct shifts modulo a page.
const SHIFTS: u64 = PAGE as u64 / STEP;

/// The block, made once per process and shared by its tasks (DLIO keeps
/// its random tensors and writes them again at every checkpoint too).
fn block() -> Result<Arc<AlignedBuffer>, String> {
    static SHARED: Mutex<Option<Arc<AlignedBuffer>>> = Mutex::new(None);
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(buf) = shared.as_ref() {
        return Ok(buf.clone());
    }
    let mut buf = AlignedBuffer::try_new((MOST + PAGE) as u64, PAGE)?;
    for (i, word) in buf.as_mut_slice().chunks_mut(8).enumerate() {
        let bytes = splitmix64(i as u64 ^ 0xd110_c4e0).to_le_bytes();
        word.copy_from_slice(&bytes[..word.len()]);
    }
    let buf = Arc::new(buf);
    *shared = Some(buf.clone());
    Ok(buf)
}

/// A task's source of tensor bytes.
pub struct Content {
    block: Arc<AlignedBuffer>,
    /// Slices start at the block's first byte (O_DIRECT's alignment).
    aligned: bool,
    /// Slices handed out so far (and the task's own start): keys the shifts.
    slices: u64,
}

impl Content {
    pub fn new(rank: usize, aligned: bool) -> Result<Content, String> {
        Ok(Content {
            block: block()?,
            aligned,
            slices: splitmix64(rank as u64) % SHIFTS,
        })
    }

    /// The bytes slices are taken from.
    #[cfg(test)]
    pub fn block(&self) -> &[u8] {
        self.block.as_slice()
    }

    /// `len` bytes of tensor data for file position `at`: slices of the
    /// block, [`SLICE`] bytes each (more when `len` needs over `IOV_MAX`
    /// of them), for one gathered write.
    pub fn slices(&mut self, at: u64, len: u64) -> Vec<IoSlice<'_>> {
        let most = len.div_ceil(IOV_MAX).next_multiple_of(PAGE as u64);
        let slice = most.clamp(SLICE as u64, MOST as u64);
        let mut out = Vec::with_capacity(len.div_ceil(slice) as usize);
        let block = self.block.as_slice();
        let mut done = 0;
        while done < len {
            let n = (len - done).min(slice) as usize;
            let shift = match self.aligned {
                true => 0,
                false => ((at + done + STEP * (self.slices % SHIFTS)) % PAGE as u64) as usize,
            };
            self.slices += 1;
            out.push(IoSlice::new(&block[shift..shift + n]));
            done += n as u64;
        }
        out
    }

    /// Copies the same bytes [`Content::slices`] gives into `out` (a
    /// request that gathers headers and tensor data in one buffer).
    pub fn copy_into(&mut self, at: u64, out: &mut [u8]) {
        let mut done = 0;
        for s in self.slices(at, out.len() as u64) {
            out[done..done + s.len()].copy_from_slice(&s);
            done += s.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(slices: &[IoSlice<'_>]) -> Vec<u8> {
        slices.iter().flat_map(|s| s.iter().copied()).collect()
    }

    #[test]
    fn slices_cover_the_length_from_the_block() {
        let mut c = Content::new(0, false).unwrap();
        let s = c.slices(64, 3 * SLICE as u64 + 100);
        let lens: Vec<usize> = s.iter().map(|s| s.len()).collect();
        assert_eq!(lens, [SLICE, SLICE, SLICE, 100]);
        let mut copy = vec![0u8; 3 * SLICE + 100];
        let mut again = Content::new(0, false).unwrap();
        again.copy_into(64, &mut copy);
        assert_eq!(copy, bytes(&s));
        assert!(c.slices(0, 0).is_empty());
        // Linux's largest write in one call: IOV_MAX slices of 2 MiB.
        let s = c.slices(0, MAX_RW_COUNT);
        assert_eq!((s.len(), s[0].len()), (1024, 2 << 20));
    }

    #[test]
    fn no_two_4k_blocks_equal_within_512_mib_and_aligned_under_o_direct() {
        // Every 4 KiB block of 64 slices' worth of a file, written as
        // requests at 64-byte aligned offsets, then a second file.
        let mut c = Content::new(3, false).unwrap();
        let mut file = vec![0u8; 64];
        for _ in 0..32 {
            let s = c.slices(file.len() as u64, SLICE as u64 + 4032);
            file.extend(bytes(&s));
        }
        let mut blocks: Vec<&[u8]> = file.chunks_exact(PAGE).collect();
        let n = blocks.len();
        blocks.sort_unstable();
        blocks.dedup();
        assert_eq!(blocks.len(), n);
        let mut direct = Content::new(3, true).unwrap();
        for s in direct.slices(4096, 2 * SLICE as u64) {
            assert_eq!(s.as_ptr() as usize % PAGE, 0);
            assert_eq!(s.len() % PAGE, 0);
        }
    }
}
