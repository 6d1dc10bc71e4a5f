//! Which samples each rank reads, and in which order, epoch by epoch:
//! DLIO's two samplers (utils/config.py, data_loader/*, reader/tf_reader.py).
//!
//! PyTorch (index sampler): rank `r` owns the global samples
//! `[r·c, min((r+1)·c, T))`, `c = ⌈T/ranks⌉`, `T` = samples per file ×
//! files; sample `i` is sample `i mod spf` of file `⌊i/spf⌋` of the
//! name-sorted list. DLIO's branch reads them in ascending order every
//! epoch; the rules' run (the workload's `sample_shuffle`) permutes the
//! block with numpy seeded `seed + epoch` (or `seed`), as the branch
//! computes and then leaves unused.
//!
//! TensorFlow (iterative sampler, TFRecord): the name-sorted file list,
//! shuffled once with numpy seeded `seed + 1` when `file_shuffle` is set
//! (DLIO's branch shuffles it too, but `tf.data.Dataset.list_files` sorts
//! the names again, so its files stay in name order); with at least as
//! many files as ranks, rank `r` takes files `r, r+ranks, ...`, else every
//! rank reads every file and keeps every `ranks`-th record; every epoch
//! reads the same files in the same order.

use std::ops::Range;

use super::super::random_state::RandomState;

/// The framework's data loader, which decides the sampler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loader {
    PyTorch,
    TensorFlow,
}

/// `file_shuffle` / `sample_shuffle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shuffle {
    Off,
    Seed,
    Random,
}

/// How one dataset (train or eval) is spread over the ranks.
#[derive(Debug, Clone, PartialEq)]
pub struct Sharding {
    pub loader: Loader,
    pub files: usize,
    pub samples_per_file: usize,
    pub batch: usize,
    pub ranks: usize,
    /// Whether the file list is shuffled (TensorFlow only).
    pub file_shuffle: bool,
    pub sample_shuffle: Shuffle,
    pub seed: u32,
    pub seed_change_epoch: bool,
    /// The PyTorch path reads its block in the sampler's shuffled order
    /// (the rules), not ascending (DLIO).
    pub pytorch_shuffles: bool,
    /// TensorFlow's `list_files` sorts the shuffled list back (DLIO).
    pub tf_sorts: bool,
}

impl Sharding {
    /// `T`: samples in the dataset.
    pub fn total(&self) -> u64 {
        (self.files * self.samples_per_file) as u64
    }

    /// Steps of an epoch with every sample read once:
    /// `⌊spf · files / batch / ranks⌋`.
    pub fn max_steps(&self) -> usize {
        (self.total() / (self.batch * self.ranks).max(1) as u64) as usize
    }

    /// The seed DLIO's `reconfigure(epoch)` gives numpy.
    pub fn epoch_seed(&self, epoch: usize) -> u32 {
        if self.seed_change_epoch {
            self.seed.wrapping_add(epoch as u32)
        } else {
            self.seed
        }
    }

    /// The PyTorch block of `rank`: its global sample indices.
    pub fn block(&self, rank: usize) -> Range<u64> {
        let total = self.total();
        let per_rank = total.div_ceil(self.ranks.max(1) as u64);
        let start = (rank as u64 * per_rank).min(total);
        start..((rank as u64 + 1) * per_rank).min(total)
    }

    /// Whether the PyTorch loader of `rank` reads its block shuffled.
    fn shuffles_samples(&self) -> bool {
        self.pytorch_shuffles && self.sample_shuffle != Shuffle::Off
    }

    /// The global samples `rank`'s PyTorch loader reads in `epoch`, in order.
    pub fn torch_order(&self, rank: usize, epoch: usize) -> Vec<u64> {
        let mut order: Vec<u64> = self.block(rank).collect();
        if self.shuffles_samples() {
            RandomState::new(self.epoch_seed(epoch)).shuffle(&mut order);
        }
        order
    }

    /// Where a global sample is: (file index in the sorted list, sample in
    /// the file).
    pub fn locate(&self, sample: u64) -> (usize, usize) {
        let spf = self.samples_per_file.max(1) as u64;
        ((sample / spf) as usize, (sample % spf) as usize)
    }

    /// The files `rank` streams with the TensorFlow loader, in order, and
    /// whether it keeps only every `ranks`-th record of them (fewer files
    /// than ranks).
    pub fn tf_files(&self, rank: usize) -> (Vec<usize>, bool) {
        let mut files: Vec<usize> = (0..self.files).collect();
        if self.file_shuffle && !self.tf_sorts {
            RandomState::new(self.epoch_seed(1)).shuffle(&mut files);
        }
        if self.files >= self.ranks {
            (
                files.into_iter().skip(rank).step_by(self.ranks).collect(),
                false,
            )
        } else {
            (files, true)
        }
    }

    /// The fewest whole batches a PyTorch rank has (the last ranks' blocks
    /// may be short).
    fn fewest_batches(&self) -> usize {
        (0..self.ranks)
            .map(|r| {
                let b = self.block(r);
                ((b.end - b.start) / self.batch.max(1) as u64) as usize
            })
            .min()
            .unwrap_or(0)
    }

    /// Refuses what DLIO cannot run: a rank of the PyTorch loader with
    /// fewer batches than the epoch's steps stops answering the barriers.
    pub fn check(&self, steps: usize, what: &str) -> Result<(), String> {
        if self.loader == Loader::PyTorch && self.fewest_batches() < steps {
            return Err(format!(
                "{what}: the last rank gets {} batches of the {steps} steps an epoch takes \
                 ({} samples over {} ranks in blocks of {}; DLIO would hang): use a sample \
                 count that the ranks share evenly",
                self.fewest_batches(),
                self.total(),
                self.ranks,
                self.total().div_ceil(self.ranks.max(1) as u64)
            ));
        }
        Ok(())
    }
}

/// An epoch's training steps: `max_steps`, or `train.total_training_steps`
/// when positive (a cap each epoch, never above `max_steps`).
pub fn steps(train: &Sharding, total_training_steps: i64) -> Result<usize, String> {
    let max = train.max_steps();
    if total_training_steps > 0 {
        if total_training_steps as u64 > max as u64 {
            return Err(format!(
                "workload.train.total_training_steps: only enough data for {max} steps but \
                 {total_training_steps} wanted"
            ));
        }
        return Ok(total_training_steps as usize);
    }
    if max == 0 {
        return Err(format!(
            "workload.dataset: {} samples make no batch of {} on each of {} ranks",
            train.total(),
            train.batch,
            train.ranks
        ));
    }
    Ok(max)
}

/// Draws a shuffle of `n` items (`shuffle`'s draws depend on the length
/// only).
fn skip_shuffle(rs: &mut RandomState, n: u64) {
    for i in (1..n).rev() {
        rs.interval(i);
    }
}

/// numpy's global stream as DLIO's `reconfigure(epoch)` leaves it for
/// `rank`: the computation times of the epoch are drawn from it. `None`
/// when DLIO does not seed it (no shuffle configured: numpy's seed from the
/// system, which pario cannot reproduce).
pub fn stream_after_reconfigure(
    train: &Sharding,
    eval: &Sharding,
    rank: usize,
    epoch: usize,
) -> Option<RandomState> {
    let seed = train.epoch_seed(epoch);
    let mut rs = RandomState::new(seed);
    let mut seeded = false;
    if train.loader == Loader::TensorFlow && train.file_shuffle {
        skip_shuffle(&mut rs, train.files as u64);
        skip_shuffle(&mut rs, eval.files as u64);
        seeded = true;
    }
    if train.sample_shuffle != Shuffle::Off {
        for set in [train, eval].into_iter().filter(|s| s.files > 0) {
            rs.seed(seed);
            let block = set.block(rank);
            skip_shuffle(&mut rs, block.end - block.start);
        }
        seeded = true;
    }
    seeded.then_some(rs)
}

#[cfg(test)]
mod tests;
