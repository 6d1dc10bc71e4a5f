//! Mixed access (`-O rwmixRead`, `randomDistribution`, `transferSizeSplit`):
//! what each operation of a drawn phase is — a read or a write, where, how
//! large — as fio's `rwmixread`, `random_distribution` and `bssplit` mean them.
//!
//! Every operation stays inside the task's own blocks (the ones its `-t`
//! transfers would touch), so a read always meets data this task wrote, in
//! this phase or before: every read can be verified. Offsets are multiples of
//! `-t`, sizes multiples of `-t`, and the data pattern is laid per `-t` piece,
//! so any read verifies whatever sizes wrote the data.
//!
//! Draws come from counter-based streams keyed by (seed, task, purpose):
//! direction, offset and size have streams of their own (as in fio), and
//! the same seed gives the same operations under threads and under MPI.
//!
//! Differences from fio, on purpose: each operation's direction is an
//! independent draw (fio adds catch-up runs when one direction lags far
//! behind; both converge on the same ratio); hot blocks are scattered by a
//! keyed permutation (fio's multiplicative hash is not one unless the block
//! count is a power of two, which leaves blocks unreachable); zipf is drawn
//! exactly (rejection-inversion) instead of by fio's closed-form
//! approximation; bssplit percentages must be given and add up to 100.

use crate::random::{mix, Permutation};
use crate::units::parse_size;

pub mod block;
pub mod sampler;
#[cfg(test)]
mod tests;

pub use block::{Block, BLOCK_OPS};
pub use sampler::{Sampler, Stream};

/// The mix options of one test (`None`: not given).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mix {
    /// `rwmixRead`: the percentage of the write phase's operations that read.
    pub read_pct: Option<u32>,
    /// `randomDistribution`.
    pub distribution: Option<Distribution>,
    /// `transferSizeSplit`.
    pub split: Option<SizeSplit>,
}

impl Mix {
    /// Whether phases are drawn rather than walked.
    pub fn active(&self) -> bool {
        self.read_pct.is_some() || self.distribution.is_some() || self.split.is_some()
    }

    /// `rwmixRead=P`: 0 to 100.
    pub fn parse_read_pct(value: &str) -> Result<u32, String> {
        match value.trim().parse::<u32>() {
            Ok(p) if p <= 100 => Ok(p),
            _ => Err(format!(
                "rwmixRead={value}: give the percentage of operations that read, 0 to 100"
            )),
        }
    }
}

/// The shape of `randomDistribution`, fio's names and defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// fio's `random`: every block equally likely.
    Uniform,
    /// `zipf:THETA`: block of rank k with probability ∝ k^-θ.
    Zipf(f64),
    /// `pareto:H`: rank = (n−1)·u^(ln h / ln(1−h)).
    Pareto(f64),
    /// `normal:PCT`: a bell over the ranks (mean of 12 uniforms, sd n/12),
    /// widened by a uniform jitter of PCT % of the blocks.
    Normal(f64),
}

/// `randomDistribution=uniform|zipf[:θ[:center]]|pareto[:h[:center]]|normal[:pct[:center]]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Distribution {
    pub shape: Shape,
    /// Where the hottest block sits, as a fraction of the blocks (fio's
    /// center); `None` lets the seed place it.
    pub center: Option<f64>,
}

impl Distribution {
    pub fn parse(value: &str) -> Result<Distribution, String> {
        let bad = |why: &str| format!("randomDistribution={value}: {why}");
        let mut parts = value.trim().split(':');
        let name = parts.next().unwrap_or("").to_ascii_lowercase();
        let number = |s: Option<&str>, default: f64| -> Result<f64, String> {
            match s {
                None => Ok(default),
                Some(s) => s
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| bad(&format!("'{s}' is not a number"))),
            }
        };
        let shape =
            match name.as_str() {
                "uniform" | "random" => Shape::Uniform,
                "zipf" => match number(parts.next(), 1.1)? {
                    t if t > 0.0 => Shape::Zipf(t),
                    _ => return Err(bad("zipf's theta must be positive")),
                },
                "pareto" => match number(parts.next(), 0.2)? {
                    h if h > 0.0 && h < 1.0 => Shape::Pareto(h),
                    _ => return Err(bad("pareto's h must lie strictly between 0 and 1")),
                },
                "normal" => match number(parts.next(), 0.0)? {
                    p if (0.0..100.0).contains(&p) => Shape::Normal(p),
                    _ => return Err(bad("normal's percentage must be at least 0 and below 100")),
                },
                _ => return Err(bad(
                    "give uniform, zipf:THETA, pareto:H or normal:PCT (fio's random_distribution)",
                )),
            };
        let center = match parts.next() {
            None => None,
            Some(_) if shape == Shape::Uniform => {
                return Err(bad("uniform takes no parameters"));
            }
            Some(c) => match number(Some(c), 0.0)? {
                c if (0.0..=1.0).contains(&c) => Some(c),
                _ => return Err(bad("the center must lie between 0 and 1")),
            },
        };
        if parts.next().is_some() {
            return Err(bad("too many ':' fields"));
        }
        Ok(Distribution { shape, center })
    }

    /// As the report shows it (fio's syntax).
    pub fn describe(&self) -> String {
        let shape = match self.shape {
            Shape::Uniform => "uniform".to_string(),
            Shape::Zipf(t) => format!("zipf:{t}"),
            Shape::Pareto(h) => format!("pareto:{h}"),
            Shape::Normal(p) => format!("normal:{p}"),
        };
        match self.center {
            Some(c) => format!("{shape}:{c}"),
            None => shape,
        }
    }
}

/// `transferSizeSplit=4k/50:64k/30:1m/20`: sizes drawn by weight (fio's bssplit).
#[derive(Debug, Clone, PartialEq)]
pub struct SizeSplit {
    /// (size, percentage), in the order given.
    pub entries: Vec<(u64, u32)>,
    /// The size each percentage draw (1 to 100, here 0 to 99) picks.
    by_draw: Vec<u64>,
}

/// fio's limit on bssplit entries.
const MAX_ENTRIES: usize = 64;

impl SizeSplit {
    pub fn parse(value: &str) -> Result<SizeSplit, String> {
        let bad = |why: String| format!("transferSizeSplit={value}: {why}");
        if value.contains(',') {
            return Err(bad(
                "one list serves reads and writes (fio's per-direction lists are not supported)"
                    .into(),
            ));
        }
        let mut entries = Vec::new();
        for item in value.split(':') {
            let (size, pct) = item
                .split_once('/')
                .ok_or_else(|| bad(format!("'{item}' is not SIZE/PERCENT")))?;
            let size = parse_size(size.trim()).map_err(|e| bad(e.to_string()))?;
            let pct = match pct.trim().parse::<u32>() {
                Ok(p) if (1..=100).contains(&p) => p,
                _ => return Err(bad(format!("'{pct}' is not a percentage from 1 to 100"))),
            };
            if size == 0 {
                return Err(bad("a size must be positive".into()));
            }
            if entries.iter().any(|&(s, _)| s == size) {
                return Err(bad(format!("{item}: the size is given twice")));
            }
            entries.push((size, pct));
        }
        if entries.len() > MAX_ENTRIES {
            return Err(bad(format!("at most {MAX_ENTRIES} sizes")));
        }
        let total: u32 = entries.iter().map(|&(_, p)| p).sum();
        if total != 100 {
            return Err(bad(format!("the percentages add up to {total}, not 100")));
        }
        let by_draw = entries
            .iter()
            .flat_map(|&(size, pct)| std::iter::repeat_n(size, pct as usize))
            .collect();
        Ok(SizeSplit { entries, by_draw })
    }

    pub fn largest(&self) -> u64 {
        self.entries.iter().map(|&(s, _)| s).max().unwrap_or(0)
    }

    pub fn smallest(&self) -> u64 {
        self.entries.iter().map(|&(s, _)| s).min().unwrap_or(0)
    }

    /// The size a draw `r` in 1..=100 picks.
    #[inline]
    pub fn size_at(&self, r: u32) -> u64 {
        self.by_draw[r.clamp(1, 100) as usize - 1]
    }

    /// A size that fits in `room` bytes: drawn again while it does not (as
    /// fio does), then the largest that fits, then `grain` (which always fits).
    #[inline]
    fn pick(&self, sizes: &mut Stream, room: u64, grain: u64) -> u64 {
        match self.size_at(sizes.percent()) {
            size if size <= room => size,
            _ => self.pick_again(sizes, room, grain),
        }
    }

    #[cold]
    fn pick_again(&self, sizes: &mut Stream, room: u64, grain: u64) -> u64 {
        for _ in 1..MAX_ENTRIES {
            let size = self.size_at(sizes.percent());
            if size <= room {
                return size;
            }
        }
        self.entries
            .iter()
            .map(|&(s, _)| s)
            .filter(|&s| s <= room)
            .max()
            .unwrap_or(grain)
    }

    pub fn describe(&self) -> String {
        self.entries
            .iter()
            .map(|&(s, p)| format!("{}/{p}", short_size(s)))
            .collect::<Vec<_>>()
            .join(":")
    }
}

/// A size as the option takes it: `4k`, `1m`, or bytes.
pub fn short_size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    match bytes {
        b if b % (KIB * KIB * KIB) == 0 => format!("{}g", b / (KIB * KIB * KIB)),
        b if b % (KIB * KIB) == 0 => format!("{}m", b / (KIB * KIB)),
        b if b % KIB == 0 => format!("{}k", b / KIB),
        b => b.to_string(),
    }
}

/// How the units of a drawn phase are visited.
#[derive(Debug, Clone)]
pub enum Visit {
    /// In order (with a split: one after the other, each as large as drawn).
    Sequential,
    /// `-z`: every unit once, in a keyed order.
    Shuffled,
    /// Drawn with repetition from a distribution (`-z -z` is uniform).
    Drawn(Distribution),
}

/// Where a task's data lies: `segments` blocks of `block` bytes, the first
/// at `first`, one every `stride` bytes; `unit` is `-t`.
#[derive(Debug, Clone, Copy)]
pub struct Region {
    pub first: u64,
    pub stride: u64,
    pub block: u64,
    pub segments: u64,
    pub unit: u64,
}

impl Region {
    pub fn units(&self) -> u64 {
        self.segments * (self.block / self.unit)
    }

    /// The offset of unit `u` and the bytes left in its block from there.
    #[inline]
    fn place(&self, u: u64) -> (u64, u64) {
        let per_block = quotient(self.block, self.unit);
        let segment = quotient(u, per_block);
        let j = u - segment * per_block;
        (
            self.first + segment * self.stride + j * self.unit,
            self.block - j * self.unit,
        )
    }
}

/// `a / b`, by a shift when `b` is a power of two (the usual `-t` and `-b`):
/// a division costs tens of cycles, as much as the rest of an operation.
#[inline]
fn quotient(a: u64, b: u64) -> u64 {
    match b.is_power_of_two() {
        true => a >> b.trailing_zeros(),
        false => a / b,
    }
}

/// A drawn phase for one task: the direction mix, the visit, the sizes.
#[derive(Debug, Clone)]
pub struct MixPlan {
    /// Percentage of operations that read (0: all write, 100: all read).
    pub read_pct: u32,
    pub visit: Visit,
    pub split: Option<SizeSplit>,
    pub region: Region,
    pub seed: u64,
    /// The task whose region this is (keys the streams).
    pub task: u64,
}

/// One operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    pub read: bool,
    pub offset: u64,
    pub size: u64,
}

/// Stream purposes: each kind of draw has its own.
const DIRECTION: u64 = 1;
const OFFSET: u64 = 2;
const SIZE: u64 = 3;
const SCATTER: u64 = 4;

impl MixPlan {
    /// The operations of one pass, in order.
    pub fn ops(&self) -> Ops<'_> {
        let key = |purpose| mix(&[self.seed, self.task, purpose]);
        let units = self.region.units();
        let order = match &self.visit {
            Visit::Sequential => Order::Cursor { unit: 0 },
            Visit::Shuffled => Order::Shuffled {
                perm: Permutation::new(units, key(SCATTER)),
                k: 0,
            },
            Visit::Drawn(d) => Order::Drawn(Sampler::new(d, units, key(SCATTER))),
        };
        Ops {
            plan: self,
            order,
            directions: Stream::new(key(DIRECTION)),
            offsets: Stream::new(key(OFFSET)),
            sizes: Stream::new(key(SIZE)),
            bytes_left: self.region.units() * self.region.unit,
            read_below: block::read_below(self.read_pct),
        }
    }

    /// Operations in one pass (a pass moves the task's whole data once).
    pub fn ops_per_pass(&self) -> u64 {
        match self.split {
            None => self.region.units(),
            Some(_) => {
                // Placed without their directions: only the count matters.
                let mut ops = self.ops();
                std::iter::from_fn(|| ops.place_next()).count() as u64
            }
        }
    }

    /// The bytes of a batch's buffer: a block's operations (see
    /// [`Block`]) while the largest fits, up to 64 of the largest, at most
    /// 1 MiB unless one operation is larger.
    pub fn batch_bytes(&self) -> u64 {
        let largest = self.largest();
        (largest * BLOCK_OPS as u64).min(1 << 20).max(largest)
    }

    /// The largest operation.
    pub fn largest(&self) -> u64 {
        self.split
            .as_ref()
            .map_or(self.region.unit, SizeSplit::largest)
            .max(self.region.unit)
    }
}

#[derive(Debug, Clone)]
enum Order {
    Cursor { unit: u64 },
    Shuffled { perm: Permutation, k: u64 },
    Drawn(Sampler),
}

/// The operations of a pass (see [`MixPlan::ops`]).
#[derive(Debug, Clone)]
pub struct Ops<'a> {
    plan: &'a MixPlan,
    order: Order,
    directions: Stream,
    offsets: Stream,
    sizes: Stream,
    /// A pass ends when the task's bytes are moved.
    bytes_left: u64,
    /// See [`block::read_below`].
    read_below: u64,
}

impl Ops<'_> {
    /// The next operation's offset and size (its direction is drawn apart).
    #[inline(always)]
    fn place_next(&mut self) -> Option<(u64, u64)> {
        if self.bytes_left == 0 {
            return None;
        }
        let p = self.plan;
        let unit = p.region.unit;
        let u = match &mut self.order {
            Order::Cursor { unit } => *unit,
            Order::Shuffled { perm, k } => {
                *k += 1;
                perm.at(*k - 1)
            }
            Order::Drawn(sampler) => sampler.unit(&mut self.offsets),
        };
        let (offset, room) = p.region.place(u);
        let size = match &p.split {
            None => unit,
            Some(split) => split.pick(&mut self.sizes, room.min(self.bytes_left), unit),
        };
        if let Order::Cursor { unit: cursor } = &mut self.order {
            *cursor += quotient(size, unit);
        }
        self.bytes_left -= size;
        Some((offset, size))
    }
}

impl Iterator for Ops<'_> {
    type Item = Op;

    #[inline]
    fn next(&mut self) -> Option<Op> {
        let (offset, size) = self.place_next()?;
        let read = match self.plan.read_pct {
            0 => false,
            100 => true,
            pct => self.directions.percent() <= pct,
        };
        Some(Op { read, offset, size })
    }
}
