//! Transfer buffers aligned to the page, as O_DIRECT needs, without `unsafe`:
//! an anonymous mapping (page-aligned, and zero pages the system hands out
//! only when touched, as `calloc` does for large sizes), over-allocated by
//! one alignment when that exceeds the page.

use memmap2::MmapMut;

pub const PAGE: usize = 4096;

pub struct AlignedBuffer {
    storage: MmapMut,
    start: usize,
    len: usize,
}

impl AlignedBuffer {
    /// A zeroed buffer of `len` bytes starting on a `align` boundary
    /// (`align` a power of two).
    pub fn new(len: usize, align: usize) -> AlignedBuffer {
        AlignedBuffer::try_new(len as u64, align).expect("a small buffer")
    }

    /// As [`AlignedBuffer::new`], for a size given by the user: memory that
    /// cannot be had is an error, not an abort.
    pub fn try_new(len: u64, align: usize) -> Result<AlignedBuffer, String> {
        debug_assert!(align.is_power_of_two());
        let failed = || format!("cannot allocate a buffer of {len} bytes");
        let len = usize::try_from(len).map_err(|_| failed())?;
        let extra = if align > PAGE { align } else { 0 };
        // A mapping has at least one byte.
        let total = len.checked_add(extra).ok_or_else(failed)?.max(1);
        let storage = MmapMut::map_anon(total).map_err(|_| failed())?;
        let address = storage.as_ptr() as usize;
        let start = (align - address % align) % align;
        Ok(AlignedBuffer {
            storage,
            start,
            len,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_page_aligned() {
        for len in [1, 8, 4096, 47008, 1 << 20] {
            let mut b = AlignedBuffer::new(len, PAGE);
            assert_eq!(b.as_slice().as_ptr() as usize % PAGE, 0);
            assert_eq!(b.len(), len);
            b.as_mut_slice()[len - 1] = 7;
            assert_eq!(b.as_slice()[len - 1], 7);
        }
    }

    #[test]
    fn impossible_buffers_are_errors() {
        let e = AlignedBuffer::try_new(u64::MAX, PAGE).err().unwrap();
        assert_eq!(e, format!("cannot allocate a buffer of {} bytes", u64::MAX));
        assert!(AlignedBuffer::try_new(1 << 62, PAGE).is_err());
    }
}
