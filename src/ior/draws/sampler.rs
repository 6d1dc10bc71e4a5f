//! The draws of a mixed phase: counter-based streams, and the distributions
//! of `randomDistribution` over a task's `n` units.

use super::{Distribution, Shape};
use crate::random::{splitmix64, Permutation};

/// A stream of pseudo-random numbers: SplitMix64 of a counter started at a
/// key, so a stream is a pure function of its key.
#[derive(Debug, Clone)]
pub struct Stream(u64);

impl Stream {
    pub fn new(key: u64) -> Stream {
        Stream(key)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(1);
        splitmix64(self.0)
    }

    /// Uniform in [0, 1), 53 bits.
    #[inline]
    pub fn fraction(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `0..n` (Lemire's multiply; the bias is below 2^-40 for
    /// the sizes used here).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in 1..=100, as fio's percentage draws.
    #[inline]
    pub fn percent(&mut self) -> u32 {
        self.below(100) as u32 + 1
    }
}

/// Draws units `0..n` from a distribution: a rank from the shape, then the
/// rank's unit through a keyed permutation (hot units are scattered, as in
/// fio) that keeps rank 0 at `shift` (fio's center).
#[derive(Debug, Clone)]
pub struct Sampler {
    n: u64,
    kind: Kind,
    scatter: Permutation,
    /// The permutation's image of rank 0, subtracted so rank 0 lands on `shift`.
    zero: u64,
    shift: u64,
}

#[derive(Debug, Clone)]
enum Kind {
    Uniform,
    Zipf(Zipf),
    Pareto { exponent: f64 },
    Normal { spread: u64 },
}

impl Sampler {
    pub fn new(d: &Distribution, n: u64, key: u64) -> Sampler {
        let n = n.max(1);
        let kind = match d.shape {
            Shape::Uniform => Kind::Uniform,
            Shape::Zipf(theta) => Kind::Zipf(Zipf::new(n, theta)),
            Shape::Pareto(h) => Kind::Pareto {
                exponent: h.ln() / (1.0 - h).ln(),
            },
            Shape::Normal(pct) => Kind::Normal {
                spread: ((n as f64 * pct / 100.0).ceil() as u64).min(n / 2),
            },
        };
        let shift = match (d.shape, d.center) {
            (Shape::Normal(_), Some(c)) => {
                ((n as f64 * (c - 0.5)) as i64).rem_euclid(n as i64) as u64
            }
            (Shape::Normal(_), None) => 0,
            (_, Some(c)) => (n as f64 * c) as u64 % n,
            (_, None) => splitmix64(key ^ 0xce17e2) % n,
        };
        let scatter = Permutation::new(n, key);
        Sampler {
            n,
            kind,
            zero: scatter.at(0),
            scatter,
            shift,
        }
    }

    /// The unit of rank `rank` (0 = the most likely for zipf and pareto).
    pub fn unit_of_rank(&self, rank: u64) -> u64 {
        match self.kind {
            Kind::Uniform => rank,
            _ => (self.scatter.at(rank) + self.n - self.zero + self.shift) % self.n,
        }
    }

    /// A rank, 0-based.
    pub fn rank(&self, s: &mut Stream) -> u64 {
        let n = self.n;
        match &self.kind {
            Kind::Uniform => s.below(n),
            Kind::Zipf(z) => z.sample(s) - 1,
            Kind::Pareto { exponent } => {
                (((n - 1) as f64 * s.fraction().powf(*exponent)) as u64).min(n - 1)
            }
            Kind::Normal { spread } => {
                // fio's bell: the mean, rounded up, of 12 uniform draws.
                let sum: u64 = (0..12).map(|_| s.below(n)).sum();
                let bell = sum.div_ceil(12).min(n - 1);
                match spread {
                    0 => bell,
                    w => (bell + n + s.below(*w) - w / 2) % n,
                }
            }
        }
    }

    #[inline]
    pub fn unit(&self, s: &mut Stream) -> u64 {
        let rank = self.rank(s);
        self.unit_of_rank(rank)
    }
}

/// Zipf over 1..=n with exponent θ > 0, drawn exactly by rejection-inversion
/// (Hörmann and Derflinger 1996), in constant time and memory.
#[derive(Debug, Clone)]
pub struct Zipf {
    n: f64,
    theta: f64,
    h_x1: f64,
    h_n: f64,
    s: f64,
}

impl Zipf {
    pub fn new(n: u64, theta: f64) -> Zipf {
        let mut z = Zipf {
            n: n as f64,
            theta,
            h_x1: 0.0,
            h_n: 0.0,
            s: 0.0,
        };
        z.h_x1 = z.h_integral(1.5) - 1.0;
        z.h_n = z.h_integral(n as f64 + 0.5);
        z.s = 2.0 - z.h_integral_inverse(z.h_integral(2.5) - z.h(2.0));
        z
    }

    /// A rank in 1..=n.
    pub fn sample(&self, rng: &mut Stream) -> u64 {
        loop {
            let u = self.h_n + rng.fraction() * (self.h_x1 - self.h_n);
            let x = self.h_integral_inverse(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.s || u >= self.h_integral(k + 0.5) - self.h(k) {
                return k as u64;
            }
        }
    }

    fn h(&self, x: f64) -> f64 {
        (-self.theta * x.ln()).exp()
    }

    fn h_integral(&self, x: f64) -> f64 {
        let log_x = x.ln();
        helper2((1.0 - self.theta) * log_x) * log_x
    }

    fn h_integral_inverse(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.theta)).max(-1.0);
        (helper1(t) * x).exp()
    }
}

/// ln(1+x)/x, exact near 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// (e^x − 1)/x, exact near 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}
