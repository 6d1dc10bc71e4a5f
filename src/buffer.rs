//! Transfer buffers aligned to the page, as O_DIRECT needs, without `unsafe`:
//! the buffer over-allocates by one alignment and starts at the first aligned
//! byte.

pub const PAGE: usize = 4096;

pub struct AlignedBuffer {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuffer {
    /// A zeroed buffer of `len` bytes starting on a `align` boundary
    /// (`align` a power of two).
    pub fn new(len: usize, align: usize) -> AlignedBuffer {
        debug_assert!(align.is_power_of_two());
        let storage = vec![0u8; len + align];
        let address = storage.as_ptr() as usize;
        let start = (align - address % align) % align;
        AlignedBuffer {
            storage,
            start,
            len,
        }
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
}
