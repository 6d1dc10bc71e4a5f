//! DLIO's dataset as its generator lays it out (data_generator.py): the
//! folders, the file names (train first, then valid), and each file's
//! record dimensions from numpy's seeded draws: `seed(10)`, then
//! `2·total` draws of `normal(dim, dstd)` truncated toward zero and at least
//! 1 (all `dim` when `dstd` is 0); file `i` has `d[2i] × d[2i+1]` bytes a
//! record.

use super::config::schema::{Config, Format};
use super::random_state::RandomState;

/// `add_padding(n, digits)`: `n` zero-padded to the width of `of`.
fn padded(n: u64, of: u64) -> String {
    format!("{n:0width$}", width = of.to_string().len())
}

/// One file DLIO generates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSpec {
    /// Its index in generation order (train files, then valid ones).
    pub index: u64,
    /// Its path below the storage root, as DLIO spells it
    /// (`data/unet3d/train/img_0_of_8.npz`).
    pub path: String,
    /// `train` or `valid`.
    pub split: &'static str,
    /// Bytes of one record: `dim1 × dim2`.
    pub dim1: u64,
    pub dim2: u64,
}

impl FileSpec {
    pub fn record_bytes(&self) -> u64 {
        self.dim1 * self.dim2
    }

    /// The file's name without its folder.
    pub fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }
}

/// The dataset of a configuration.
#[derive(Debug, Clone)]
pub struct Dataset {
    pub files: Vec<FileSpec>,
    /// Folders rank 0 creates, parents first (DLIO: the data folder,
    /// `train`, `valid`, and the subfolders when there are more than one).
    pub folders: Vec<String>,
}

/// The folder and name of training or evaluation file `i` of `n`.
fn name(config: &Config, split: &'static str, i: u64, n: u64, subfolders: u64) -> String {
    let d = &config.dataset;
    let file = format!(
        "{}_{}_of_{}.{}",
        d.file_prefix,
        padded(i, n),
        n,
        d.format.name()
    );
    if subfolders > 1 {
        let sub = padded(i % subfolders, subfolders);
        format!("{}/{split}/{sub}/{file}", d.data_folder)
    } else {
        format!("{}/{split}/{file}", d.data_folder)
    }
}

/// The record dimensions of `total` files, and the random state after the
/// draws (DLIO's content continues from it).
pub fn dimensions(config: &Config, total: u64) -> (Vec<u64>, RandomState) {
    let mut rs = RandomState::new(10);
    let dim = config.dimension();
    let dstd = config.dimension_stdev();
    let dims = if dstd > 0.0 {
        (0..2 * total)
            .map(|_| (rs.normal(dim as f64, dstd) as i64).max(1) as u64)
            .collect()
    } else {
        vec![dim; 2 * total as usize]
    };
    (dims, rs)
}

impl Dataset {
    pub fn of(config: &Config) -> Dataset {
        let d = &config.dataset;
        let total = d.num_files_train + d.num_files_eval;
        let (dims, _) = dimensions(config, total);
        let mut files = Vec::with_capacity(total as usize);
        let splits = [
            ("train", d.num_files_train, d.num_subfolders_train),
            ("valid", d.num_files_eval, d.num_subfolders_eval),
        ];
        for (split, n, subfolders) in splits {
            for i in 0..n {
                let index = files.len() as u64;
                files.push(FileSpec {
                    index,
                    path: name(config, split, i, n, subfolders),
                    split,
                    dim1: dims[2 * index as usize],
                    dim2: dims[2 * index as usize + 1],
                });
            }
        }
        let mut folders = vec![
            d.data_folder.clone(),
            format!("{}/train", d.data_folder),
            format!("{}/valid", d.data_folder),
        ];
        for (split, _, subfolders) in splits {
            if subfolders > 1 {
                for s in 0..subfolders {
                    folders.push(format!(
                        "{}/{split}/{}",
                        d.data_folder,
                        padded(s, subfolders)
                    ));
                }
            }
        }
        if d.format == Format::Tfrecord {
            // DLIO's TFRecord generator keeps an index of each file here.
            folders.push(format!("{}/index", d.data_folder));
            folders.push(format!("{}/index/train", d.data_folder));
            folders.push(format!("{}/index/valid", d.data_folder));
        }
        Dataset { files, folders }
    }

    /// The files rank `rank` of `size` writes: `rank, rank + size, ...`.
    pub fn of_rank(&self, rank: usize, size: usize) -> impl Iterator<Item = &FileSpec> {
        self.files.iter().skip(rank).step_by(size.max(1))
    }
}

/// What the format cannot hold of the drawn dimensions, in one line: a
/// JPEG side is at most 65,535 pixels (PIL fails there too, after writing
/// the files before it).
pub fn check_generated(config: &Config) -> Result<(), String> {
    if config.dataset.format != Format::Jpeg {
        return Ok(());
    }
    let d = &config.dataset;
    let (dims, _) = dimensions(config, d.num_files_train + d.num_files_eval);
    match dims.iter().max() {
        Some(&side) if side > u64::from(u16::MAX) => Err(format!(
            "workload.dataset.format=jpeg: an image side of {side} pixels drawn from \
             record_length_bytes; a JPEG side is at most 65535"
        )),
        _ => Ok(()),
    }
}

/// The index file DLIO keeps beside a TFRecord file:
/// `<data_folder>/index/<split>/<name>.idx`.
pub fn tfrecord_index(config: &Config, file: &FileSpec) -> String {
    format!(
        "{}/index/{}/{}.idx",
        config.dataset.data_folder,
        file.split,
        file.name()
    )
}

#[cfg(test)]
mod tests;
