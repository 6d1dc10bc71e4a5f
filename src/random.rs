//! Deterministic pseudo-randomness: the same seed gives the same order on every
//! task and every run, without storing offset tables.

/// SplitMix64: a fast, well-mixed 64-bit hash of a counter.
#[inline]
pub fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Mixes several values into one seed.
pub fn mix(values: &[u64]) -> u64 {
    values
        .iter()
        .fold(0x5eed_u64, |acc, &v| splitmix64(acc ^ splitmix64(v)))
}

/// A keyed bijection of `0..n`: a permutation computed one element at a time in
/// O(1) memory (a 4-round Feistel network over the next power of four, with
/// cycle walking to stay below `n`).
#[derive(Debug, Clone)]
pub struct Permutation {
    n: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    pub fn new(n: u64, seed: u64) -> Permutation {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let mut keys = [0u64; 4];
        for (i, k) in keys.iter_mut().enumerate() {
            *k = splitmix64(seed ^ (0x1234_5678_9abc_def0u64.wrapping_mul(i as u64 + 1)));
        }
        Permutation { n, half_bits, keys }
    }

    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    #[inline]
    fn feistel(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let mut left = x >> self.half_bits;
        let mut right = x & mask;
        for key in self.keys {
            let next = left ^ (splitmix64(right ^ key) & mask);
            left = right;
            right = next;
        }
        (left << self.half_bits) | right
    }

    /// The element at position `i` (`i < n`).
    #[inline]
    pub fn at(&self, i: u64) -> u64 {
        debug_assert!(i < self.n);
        let mut x = self.feistel(i);
        while x >= self.n {
            x = self.feistel(x);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_bijections() {
        for n in [1u64, 2, 3, 7, 64, 100, 1000, 4097] {
            for seed in [0u64, 1, 42] {
                let p = Permutation::new(n, seed);
                let mut seen = vec![false; n as usize];
                for i in 0..n {
                    let x = p.at(i);
                    assert!(x < n);
                    assert!(!seen[x as usize], "n={n} seed={seed} repeats {x}");
                    seen[x as usize] = true;
                }
            }
        }
    }

    #[test]
    fn seeds_change_the_order() {
        let a: Vec<u64> = (0..100).map(|i| Permutation::new(100, 1).at(i)).collect();
        let b: Vec<u64> = (0..100).map(|i| Permutation::new(100, 2).at(i)).collect();
        assert_ne!(a, b);
        let identity: Vec<u64> = (0..100).collect();
        assert_ne!(a, identity);
    }
}
