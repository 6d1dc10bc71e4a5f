//! The access model: which offsets each task touches, in which order.
//!
//! Shared file: segment `s`, task `k`, transfer `j` lives at
//! `s·N·b + k·b + j·t`; the file is `N·b·s` bytes. File per process: task `k`
//! owns its file and transfer `j` of segment `s` is at `s·b + j·t`.
//!
//! `-z` shuffles: with `-F`, each task visits its own transfers in a keyed
//! random order; with a shared file, one keyed permutation of all the file's
//! transfers is dealt out in equal shares, so every transfer is accessed by
//! exactly one task, exactly once (IOR deals with `rand() % N`, which leaves
//! tasks unequal and, with a seed, can leave holes). `-z -z` draws random
//! transfer-aligned offsets, which may repeat. Offsets are computed on the fly:
//! no offset table, whatever the size.

use std::ops::ControlFlow;

use super::params::Ordering;
use crate::random::{mix, splitmix64, Permutation};

/// An iterator over a task's transfer offsets (see [`Layout::offsets_in`]):
/// a few additions per step for sequential access, no tables.
#[derive(Debug, Clone)]
pub struct Offsets {
    state: OffsetState,
    left: u64,
    transfer: u64,
}

#[derive(Debug, Clone)]
enum OffsetState {
    Sequential {
        offset: u64,
        run_left: u64,
        per_block: u64,
        jump: u64,
    },
    Shuffled {
        order: Permutation,
        k: u64,
    },
    Random {
        key: u64,
        range: u64,
        k: u64,
    },
}

impl Iterator for Offsets {
    type Item = u64;

    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        // Sequential access is the common case: a few additions, inlined.
        if let OffsetState::Sequential {
            offset,
            run_left,
            per_block,
            jump,
        } = &mut self.state
        {
            let here = *offset;
            *offset += self.transfer;
            *run_left -= 1;
            if *run_left == 0 {
                *offset += *jump;
                *run_left = *per_block;
            }
            return Some(here);
        }
        Some(self.next_scattered())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.left).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}

impl Offsets {
    /// The next offset of a shuffled or random order.
    #[inline(never)]
    fn next_scattered(&mut self) -> u64 {
        let t = self.transfer;
        match &mut self.state {
            OffsetState::Shuffled { order, k } => {
                let here = order.at(*k) * t;
                *k += 1;
                here
            }
            OffsetState::Random { key, range, k } => {
                let here = (splitmix64(*key ^ k.wrapping_mul(0x9e37_79b9)) % *range) * t;
                *k += 1;
                here
            }
            OffsetState::Sequential { .. } => unreachable!("handled inline"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Layout {
    pub transfer: u64,
    pub block: u64,
    pub segments: u64,
    /// Tasks taking part (`-N`).
    pub tasks: u64,
    pub file_per_proc: bool,
    pub ordering: Ordering,
    /// Seed of `-z` orders (`--random-offset-seed` or broadcast by rank 0).
    pub seed: u64,
    /// `-z -z` on a read phase: the transfers the file actually holds, when
    /// fewer than a full file (IOR draws random offsets within the file's
    /// size, so a file written with fewer segments reads back).
    pub random_range: Option<u64>,
}

impl Layout {
    /// Transfers per block.
    pub fn per_block(&self) -> u64 {
        self.block / self.transfer
    }

    /// Transfers one task makes in a full phase.
    pub fn transfers_per_task(&self) -> u64 {
        self.segments * self.per_block()
    }

    /// Size of one file once fully written.
    pub fn file_size(&self) -> u64 {
        let per_task = self.segments * self.block;
        if self.file_per_proc {
            per_task
        } else {
            per_task * self.tasks
        }
    }

    /// Bytes all tasks move in a full phase.
    pub fn aggregate_size(&self) -> u64 {
        self.segments * self.block * self.tasks
    }

    pub fn transfers_in_file(&self) -> u64 {
        self.file_size() / self.transfer
    }

    /// Visits the offsets that `task` accesses, in order, until `visit` breaks.
    #[inline]
    pub fn for_each_offset<B>(
        &self,
        task: usize,
        visit: impl FnMut(u64) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        self.offsets_in(task, 0, self.transfers_per_task())
            .try_for_each(visit)
    }

    /// The offsets of `task`'s transfers number `from` to `to - 1`, in its
    /// order of access. Stonewalling resumes a phase with it; `to` is capped
    /// at [`Layout::transfers_per_task`].
    pub fn offsets_in(&self, task: usize, from: u64, to: u64) -> Offsets {
        let task = task as u64;
        let t = self.transfer;
        let to = to.min(self.transfers_per_task());
        let left = to.saturating_sub(from);
        let state = match self.ordering {
            Ordering::Sequential => {
                let per_block = self.per_block();
                let stride = if self.file_per_proc {
                    self.block
                } else {
                    self.block * self.tasks
                };
                let first = if self.file_per_proc {
                    0
                } else {
                    task * self.block
                };
                let (segment, j) = (from / per_block, from % per_block);
                OffsetState::Sequential {
                    offset: first + segment * stride + j * t,
                    run_left: per_block - j,
                    per_block,
                    jump: stride - per_block * t,
                }
            }
            Ordering::Shuffled => {
                let count = self.transfers_per_task();
                let (order, first) = if self.file_per_proc {
                    (Permutation::new(count, mix(&[self.seed, task])), 0)
                } else {
                    (
                        Permutation::new(self.transfers_in_file(), mix(&[self.seed])),
                        task * count,
                    )
                };
                OffsetState::Shuffled {
                    order,
                    k: first + from,
                }
            }
            Ordering::Random => OffsetState::Random {
                key: mix(&[self.seed, task]),
                range: self.random_range.unwrap_or(self.transfers_in_file()),
                k: from,
            },
        };
        Offsets {
            state,
            left,
            transfer: t,
        }
    }

    /// Where `task`'s data lies in its file, as (offset, length) ranges, and
    /// the bytes they hold. At most `max_ranges` ranges: segments beyond that
    /// are sampled evenly (the byte count stays the whole). With `-z` on a
    /// shared file a task's transfers are spread over the whole file, so its
    /// share is taken as one equal slice of it.
    pub fn task_ranges(&self, task: usize, max_ranges: u64) -> (Vec<(u64, u64)>, u64) {
        let task = task as u64;
        let per_task = self.segments * self.block;
        if self.file_per_proc {
            return (vec![(0, per_task)], per_task);
        }
        if self.ordering != Ordering::Sequential {
            return (vec![(task * per_task, per_task)], per_task);
        }
        let stride = self.block * self.tasks;
        let picked = self.segments.min(max_ranges.max(1));
        let ranges = (0..picked)
            .map(|i| i * self.segments / picked)
            .map(|segment| (segment * stride + task * self.block, self.block))
            .collect();
        (ranges, per_task)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Layout {
        /// All offsets of a task, in order.
        fn offsets(&self, task: usize) -> Vec<u64> {
            self.offsets_in(task, 0, self.transfers_per_task())
                .collect()
        }
    }

    fn layout(t: u64, b: u64, s: u64, n: u64, fpp: bool, ordering: Ordering) -> Layout {
        Layout {
            transfer: t,
            block: b,
            segments: s,
            tasks: n,
            file_per_proc: fpp,
            ordering,
            seed: 7,
            random_range: None,
        }
    }

    #[test]
    fn shared_file_sequential_offsets() {
        let l = layout(4, 8, 2, 3, false, Ordering::Sequential);
        assert_eq!(l.offsets(0), [0, 4, 24, 28]);
        assert_eq!(l.offsets(1), [8, 12, 32, 36]);
        assert_eq!(l.offsets(2), [16, 20, 40, 44]);
        assert_eq!(l.file_size(), 48);
        assert_eq!(l.aggregate_size(), 48);
    }

    #[test]
    fn file_per_process_sequential_offsets() {
        let l = layout(4, 8, 2, 3, true, Ordering::Sequential);
        for task in 0..3 {
            assert_eq!(l.offsets(task), [0, 4, 8, 12]);
        }
        assert_eq!(l.file_size(), 16);
        assert_eq!(l.aggregate_size(), 48);
    }

    #[test]
    fn ior_hard_shape() {
        let l = layout(47008, 47008, 3, 2, false, Ordering::Sequential);
        assert_eq!(l.offsets(0), [0, 94016, 188032]);
        assert_eq!(l.offsets(1), [47008, 141024, 235040]);
        assert_eq!(l.file_size(), 282048);
    }

    #[test]
    fn shuffled_shared_file_covers_each_transfer_once() {
        let l = layout(4, 16, 3, 4, false, Ordering::Shuffled);
        let mut all: Vec<u64> = (0..4).flat_map(|k| l.offsets(k)).collect();
        for k in 0..4 {
            assert_eq!(l.offsets(k).len(), 12, "equal shares");
        }
        let sequential: Vec<u64> = (0..4)
            .flat_map(|k| layout(4, 16, 3, 4, false, Ordering::Sequential).offsets(k))
            .collect();
        assert_ne!(all, sequential);
        all.sort_unstable();
        assert_eq!(all, (0..48).map(|i| i * 4).collect::<Vec<_>>());
    }

    #[test]
    fn shuffled_file_per_process_is_a_permutation_per_task() {
        let l = layout(8, 64, 2, 2, true, Ordering::Shuffled);
        let a = l.offsets(0);
        let b = l.offsets(1);
        assert_ne!(a, b, "each task has its own order");
        for mut o in [a, b] {
            o.sort_unstable();
            assert_eq!(o, (0..16).map(|i| i * 8).collect::<Vec<_>>());
        }
    }

    #[test]
    fn random_offsets_stay_in_the_file_and_aligned() {
        let l = layout(8, 64, 4, 3, false, Ordering::Random);
        for k in 0..3 {
            let o = l.offsets(k);
            assert_eq!(o.len(), 32);
            assert!(o.iter().all(|&x| x % 8 == 0 && x < l.file_size()));
        }
        let again = layout(8, 64, 4, 3, false, Ordering::Random);
        assert_eq!(l.offsets(1), again.offsets(1), "same seed, same offsets");
        let bounded = Layout {
            random_range: Some(5),
            ..l.clone()
        };
        assert!(bounded.offsets(2).iter().all(|&x| x < 5 * 8 && x % 8 == 0));
    }

    #[test]
    fn ranges_resume_where_a_phase_stopped() {
        for ordering in [Ordering::Sequential, Ordering::Shuffled, Ordering::Random] {
            for fpp in [false, true] {
                let l = layout(4, 16, 3, 2, fpp, ordering);
                let all = l.offsets(1);
                for cut in 0..=all.len() as u64 {
                    let mut joined = Vec::new();
                    for (from, to) in [(0, cut), (cut, 12)] {
                        joined.extend(l.offsets_in(1, from, to));
                    }
                    assert_eq!(joined, all, "{ordering:?} fpp={fpp} cut={cut}");
                }
                // A stonewall count runs across segments.
                let some: Vec<u64> = l.offsets_in(1, 0, 6).collect();
                assert_eq!(some, all[..6]);
            }
        }
    }

    #[test]
    fn task_ranges_cover_its_blocks() {
        let shared = layout(4, 8, 3, 2, false, Ordering::Sequential);
        assert_eq!(
            shared.task_ranges(1, 100),
            (vec![(8, 8), (24, 8), (40, 8)], 24)
        );
        assert_eq!(
            shared.task_ranges(1, 2),
            (vec![(8, 8), (24, 8)], 24),
            "sampled segments"
        );
        let fpp = layout(4, 8, 3, 2, true, Ordering::Sequential);
        assert_eq!(fpp.task_ranges(1, 100), (vec![(0, 24)], 24));
        let shuffled = layout(4, 8, 3, 2, false, Ordering::Shuffled);
        assert_eq!(shuffled.task_ranges(1, 100), (vec![(24, 24)], 24));
    }

    #[test]
    fn visiting_stops_when_asked() {
        let l = layout(1, 100, 1, 1, true, Ordering::Sequential);
        let mut seen = 0;
        let flow = l.for_each_offset(0, |_| {
            seen += 1;
            if seen == 10 {
                ControlFlow::Break(seen)
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(flow, ControlFlow::Break(10));
    }
}
