//! numpy's legacy `RandomState` (what `np.random.seed`, `np.random.normal`,
//! `np.random.randint`, `np.random.shuffle` ... use), bit for bit: DLIO draws
//! its file sizes, its shuffles, its computation times and its file contents
//! from it, so pario draws the same numbers to make the same dataset and the
//! same order.
//!
//! MT19937 seeded by `init_genrand` (numpy's `mt19937_seed`), 53-bit doubles
//! from two outputs, the legacy polar Gaussian with its cached second value,
//! the legacy exponential and gamma, numpy's Poisson (PTRS above 10), the
//! masked bounded draws of `random_interval` (shuffles) and the buffered
//! masked bytes of `randint(255, dtype=uint8)`. The test vectors come from
//! numpy 2.4.6.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER: u32 = 0x8000_0000;
const LOWER: u32 = 0x7fff_ffff;

/// numpy's global (or any) legacy random state.
#[derive(Clone)]
pub struct RandomState {
    key: [u32; N],
    pos: usize,
    /// The polar method's second value, kept for the next Gaussian.
    gauss: Option<f64>,
}

impl std::fmt::Debug for RandomState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RandomState")
            .field("pos", &self.pos)
            .field("gauss", &self.gauss)
            .finish_non_exhaustive()
    }
}

impl RandomState {
    /// `np.random.RandomState(seed)`.
    pub fn new(seed: u32) -> RandomState {
        let mut state = RandomState {
            key: [0; N],
            pos: N,
            gauss: None,
        };
        state.seed(seed);
        state
    }

    /// `np.random.seed(seed)`: also forgets a cached Gaussian.
    pub fn seed(&mut self, seed: u32) {
        let mut s = seed;
        for (pos, k) in self.key.iter_mut().enumerate() {
            *k = s;
            s = 1_812_433_253u32
                .wrapping_mul(s ^ (s >> 30))
                .wrapping_add(pos as u32 + 1);
        }
        self.pos = N;
        self.gauss = None;
    }

    fn generate(&mut self) {
        let key = &mut self.key;
        let twist = |y: u32| (y >> 1) ^ (0u32.wrapping_sub(y & 1) & MATRIX_A);
        for i in 0..N - M {
            let y = (key[i] & UPPER) | (key[i + 1] & LOWER);
            key[i] = key[i + M] ^ twist(y);
        }
        for i in N - M..N - 1 {
            let y = (key[i] & UPPER) | (key[i + 1] & LOWER);
            key[i] = key[i + M - N] ^ twist(y);
        }
        let y = (key[N - 1] & UPPER) | (key[0] & LOWER);
        key[N - 1] = key[M - 1] ^ twist(y);
        self.pos = 0;
    }

    /// The next 32-bit output.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.pos == N {
            self.generate();
        }
        let mut y = self.key[self.pos];
        self.pos += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// Two outputs, the first as the high half (numpy's `mt19937_next64`).
    fn next_u64(&mut self) -> u64 {
        let high = u64::from(self.next_u32());
        (high << 32) | u64::from(self.next_u32())
    }

    /// `random_sample()`: a double in [0, 1) from 53 bits of two outputs.
    pub fn random_sample(&mut self) -> f64 {
        let a = f64::from(self.next_u32() >> 5);
        let b = f64::from(self.next_u32() >> 6);
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }

    /// `standard_normal()`: the legacy polar method, whose second value
    /// serves the next call.
    pub fn gauss(&mut self) -> f64 {
        if let Some(g) = self.gauss.take() {
            return g;
        }
        loop {
            let x1 = 2.0 * self.random_sample() - 1.0;
            let x2 = 2.0 * self.random_sample() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                let f = (-2.0 * r2.ln() / r2).sqrt();
                self.gauss = Some(f * x1);
                return f * x2;
            }
        }
    }

    /// `normal(loc, scale)`.
    pub fn normal(&mut self, loc: f64, scale: f64) -> f64 {
        loc + scale * self.gauss()
    }

    /// `uniform(low, high)`.
    pub fn uniform(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.random_sample()
    }

    fn standard_exponential(&mut self) -> f64 {
        -(1.0 - self.random_sample()).ln()
    }

    /// `exponential(scale)`.
    pub fn exponential(&mut self, scale: f64) -> f64 {
        scale * self.standard_exponential()
    }

    /// `gamma(shape, scale)`: numpy's legacy standard gamma (Marsaglia and
    /// Tsang above 1, Johnk's rejection below).
    pub fn gamma(&mut self, shape: f64, scale: f64) -> f64 {
        scale * self.standard_gamma(shape)
    }

    fn standard_gamma(&mut self, shape: f64) -> f64 {
        if shape == 1.0 {
            return self.standard_exponential();
        }
        if shape == 0.0 {
            return 0.0;
        }
        if shape < 1.0 {
            return self.standard_gamma_small(shape);
        }
        let b = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * b).sqrt();
        loop {
            let (x, mut v) = loop {
                let x = self.gauss();
                let v = 1.0 + c * x;
                if v > 0.0 {
                    break (x, v);
                }
            };
            v = v * v * v;
            let u = self.random_sample();
            if u < 1.0 - 0.0331 * (x * x) * (x * x) {
                return b * v;
            }
            if u.ln() < 0.5 * x * x + b * (1.0 - v + v.ln()) {
                return b * v;
            }
        }
    }

    fn standard_gamma_small(&mut self, shape: f64) -> f64 {
        loop {
            let u = self.random_sample();
            let v = self.standard_exponential();
            if u <= 1.0 - shape {
                let x = u.powf(1.0 / shape);
                if x <= v {
                    return x;
                }
            } else {
                let y = -((1.0 - u) / shape).ln();
                let x = (1.0 - shape + shape * y).powf(1.0 / shape);
                if x <= v + y {
                    return x;
                }
            }
        }
    }

    /// `poisson(lam)`: multiplication of uniforms below 10, Hörmann's PTRS
    /// from 10 on.
    pub fn poisson(&mut self, lam: f64) -> i64 {
        if lam >= 10.0 {
            self.poisson_ptrs(lam)
        } else if lam == 0.0 {
            0
        } else {
            let enlam = (-lam).exp();
            let mut x = 0;
            let mut prod = 1.0;
            loop {
                prod *= self.random_sample();
                if prod > enlam {
                    x += 1;
                } else {
                    return x;
                }
            }
        }
    }

    fn poisson_ptrs(&mut self, lam: f64) -> i64 {
        let slam = lam.sqrt();
        let loglam = lam.ln();
        let b = 0.931 + 2.53 * slam;
        let a = -0.059 + 0.02483 * b;
        let invalpha = 1.1239 + 1.1328 / (b - 3.4);
        let vr = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = self.random_sample() - 0.5;
            let v = self.random_sample();
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lam + 0.43).floor() as i64;
            if us >= 0.07 && v <= vr {
                return k;
            }
            if k < 0 || (us < 0.013 && v > us) {
                continue;
            }
            let left = v.ln() + invalpha.ln() - (a / (us * us) + b).ln();
            if left <= -lam + k as f64 * loglam - loggam(k as f64 + 1.0) {
                return k;
            }
        }
    }

    /// numpy's `random_interval(max)`: a value in `0..=max`, drawn under the
    /// smallest bit mask covering `max` and redrawn above it.
    pub fn interval(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        let mask = u64::MAX >> max.leading_zeros();
        if max <= u64::from(u32::MAX) {
            loop {
                let value = u64::from(self.next_u32()) & mask;
                if value <= max {
                    return value;
                }
            }
        }
        loop {
            let value = self.next_u64() & mask;
            if value <= max {
                return value;
            }
        }
    }

    /// `shuffle(x)`, of a list or a 1-d array: Fisher-Yates from the end.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.interval(i as u64) as usize;
            items.swap(i, j);
        }
    }

    /// `permutation(n)`.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut items: Vec<usize> = (0..n).collect();
        self.shuffle(&mut items);
        items
    }

    /// One call of `randint(255, size=..., dtype=uint8)`, whose values the
    /// caller takes in pieces ([`Bytes255::fill`]) however large the array.
    pub fn randint_u8_255(&mut self) -> Bytes255<'_> {
        Bytes255 {
            state: self,
            word: 0,
            left: 0,
        }
    }
}

/// The values 0..=254 of one `randint(255, dtype=uint8)` call: each output
/// gives four bytes, low first, and a byte of 255 is drawn again. The bytes
/// left of the last output are dropped with the call, as numpy drops them.
pub struct Bytes255<'a> {
    state: &'a mut RandomState,
    word: u32,
    left: u32,
}

impl Bytes255<'_> {
    /// The next `out.len()` values of this call.
    pub fn fill(&mut self, out: &mut [u8]) {
        let mut i = 0;
        // Finish the current output byte by byte.
        while i < out.len() && self.left > 0 {
            if let Some(b) = self.take_buffered() {
                out[i] = b;
                i += 1;
            }
        }
        // Whole outputs without a 255 in them go in four at a time.
        while out.len() - i >= 4 {
            let word = self.state.next_u32();
            if has_ff_byte(word) {
                self.word = word;
                self.left = 4;
                while self.left > 0 && i < out.len() {
                    if let Some(b) = self.take_buffered() {
                        out[i] = b;
                        i += 1;
                    }
                }
            } else {
                out[i..i + 4].copy_from_slice(&word.to_le_bytes());
                i += 4;
            }
        }
        while i < out.len() {
            if self.left == 0 {
                self.word = self.state.next_u32();
                self.left = 4;
            }
            if let Some(b) = self.take_buffered() {
                out[i] = b;
                i += 1;
            }
        }
    }

    /// The next byte of the buffered output, `None` when it is 255.
    fn take_buffered(&mut self) -> Option<u8> {
        let b = self.word as u8;
        self.word >>= 8;
        self.left -= 1;
        (b != 0xff).then_some(b)
    }
}

fn has_ff_byte(word: u32) -> bool {
    // A byte is 0xff exactly when its complement is zero.
    let inverted = !word;
    inverted.wrapping_sub(0x0101_0101) & !inverted & 0x8080_8080 != 0
}

/// numpy's `random_loggam`: log Γ(x) for the Poisson rejection test.
fn loggam(x: f64) -> f64 {
    const A: [f64; 10] = [
        8.333_333_333_333_333e-2,
        -2.777_777_777_777_778e-3,
        7.936_507_936_507_937e-4,
        -5.952_380_952_380_952e-4,
        8.417_508_417_508_418e-4,
        -1.917_526_917_526_918e-3,
        6.410_256_410_256_41e-3,
        -2.955_065_359_477_124e-2,
        1.796_443_723_688_307e-1,
        -1.392_432_216_905_90,
    ];
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    let n = if x < 7.0 { (7.0 - x) as i64 } else { 0 };
    let mut x0 = x + n as f64;
    let x2 = (1.0 / x0) * (1.0 / x0);
    let lg2pi = 1.837_877_066_409_345_3;
    let mut gl0 = A[9];
    for a in A[..9].iter().rev() {
        gl0 *= x2;
        gl0 += a;
    }
    let mut gl = gl0 / x0 + 0.5 * lg2pi + (x0 - 0.5) * x0.ln() - x0;
    if x < 7.0 {
        for _ in 1..=n {
            gl -= (x0 - 1.0).ln();
            x0 -= 1.0;
        }
    }
    gl
}

#[cfg(test)]
mod tests;
