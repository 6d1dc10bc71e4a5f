//! A rank's checkpoints: its files laid out once (their images and
//! requests), then saved into `global_epoch<E>_step<S>/` and loaded back,
//! with what it created kept for the cleanup. The in-training hook
//! (`train::checkpoint::Checkpointer`) and the checkpoint-only workflow
//! both drive it.

use std::collections::HashMap;
use std::ffi::CString;
use std::io;
use std::path::{Path, PathBuf};

use super::container::{image, serialization_id, Image};
use super::content::Content;
use super::io::{ReadPattern, Reader, Tally, Writer};
use super::layout::{rank_state, CheckpointSize, FileKind};
use super::model::Model;
use super::requests::{chunked, requests, Request};
use crate::backend::Backend;
use crate::buffer::{AlignedBuffer, PAGE};
use crate::comm::{Comm, ReduceOp};
use crate::dlio::train::pyfile::Scratch;
use crate::error::{Error, Result};
use crate::latency::LatencyRecorder;
use crate::run::fs::{Created, Fs};

/// How requests are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// `torch.save`'s and `torch.load`'s, through a Python buffer of
    /// `block` bytes (the file system's `st_blksize`), no request above
    /// `max_request` bytes (Linux's cap, or pario's bound).
    Torch { block: u64, max_request: u64 },
    /// O_DIRECT: the file padded to `align` and moved in aligned requests
    /// of `chunk` bytes.
    Direct { align: u64, chunk: u64 },
}

/// What a rank's checkpoints depend on.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub model: Model,
    /// The checkpoint folder as the backend names it.
    pub folder: String,
    pub fsync: bool,
    pub pattern: Pattern,
    /// The part size of an object store's uploads.
    pub part: u64,
}

/// One file of a rank.
struct Planned {
    stem: String,
    kind: FileKind,
    image: Image,
    requests: Vec<Request>,
}

/// The files of a rank, laid out.
fn plan(settings: &Settings, rank: usize, ranks: usize) -> Vec<Planned> {
    let state = rank_state(&settings.model, rank as u64, ranks as u64);
    state
        .files
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let id = serialization_id(crate::random::mix(&[rank as u64, i as u64]));
            let img = image(&f.state, &id);
            let (img, reqs) = match settings.pattern {
                Pattern::Torch { block, max_request } => {
                    let r = requests(&img, block, Some(max_request));
                    (img, r)
                }
                Pattern::Direct { align, chunk } => {
                    let img = img.padded(align);
                    let r = chunked(&img, chunk);
                    (img, r)
                }
            };
            Planned {
                stem: f.stem,
                kind: f.kind,
                image: img,
                requests: reqs,
            }
        })
        .collect()
}

/// The names (without `.pt`) and sizes of `rank`'s files.
pub fn files_of(settings: &Settings, rank: usize, ranks: usize) -> Vec<(String, u64)> {
    plan(settings, rank, ranks)
        .into_iter()
        .map(|p| (p.stem, p.image.size()))
        .collect()
}

/// Bytes of every file of every rank, and their count (for the free space
/// a run needs).
pub fn bytes_per_checkpoint(settings: &Settings, ranks: usize) -> (u64, u64) {
    (0..ranks)
        .flat_map(|r| plan(settings, r, ranks))
        .fold((0, 0), |(b, n), p| (b + p.image.size(), n + 1))
}

/// The checkpoint `global_epoch<E>_step<S>`'s directory.
pub fn checkpoint_dir(folder: &str, epoch: u64, step: u64) -> String {
    format!("{folder}/global_epoch{epoch}_step{step}")
}

fn cpath(path: &str) -> io::Result<CString> {
    CString::new(path).map_err(|_| io::Error::other(format!("a NUL byte in {path}")))
}

/// One rank's checkpoints.
pub struct Checkpoints<'b> {
    backend: &'b dyn Backend,
    rank: usize,
    ranks: usize,
    pub settings: Settings,
    mine: Vec<Planned>,
    /// Other ranks' files this rank reads (a shifted read), by rank.
    theirs: HashMap<usize, Vec<Planned>>,
    /// The whole checkpoint, all ranks together.
    pub size: CheckpointSize,
    pub writer: Writer<'b>,
    pub reader: Reader<'b>,
    pub created: Created,
    /// Leave the checkpoints on storage (training's hook reads it).
    pub keep: bool,
}

impl<'b> Checkpoints<'b> {
    /// Lays out this rank's files; the sizes are summed over the ranks (a
    /// collective, as DLIO's allreduce).
    pub fn new(comm: &dyn Comm, backend: &'b dyn Backend, settings: Settings) -> Result<Self> {
        let (rank, ranks) = (comm.rank(), comm.size());
        let state = rank_state(&settings.model, rank as u64, ranks as u64);
        let mine = plan(&settings, rank, ranks);
        let mut sums = [
            state.counted_model,
            state.counted_optimizer,
            state.tensor_bytes(),
            mine.len() as u64,
        ];
        comm.all_reduce_u64(&mut sums, ReduceOp::Sum)?;
        let mut size = CheckpointSize {
            model_bytes: sums[0],
            optimizer_bytes: sums[1],
            written_tensor_bytes: sums[2],
            files: sums[3],
        };
        if !settings.model.is_transformer() && settings.model.size_bytes > 0 {
            size.model_bytes = settings.model.size_bytes as u64;
        }
        let direct = matches!(settings.pattern, Pattern::Direct { .. });
        let content = Content::new(rank, direct).map_err(|e| Error::task(rank, e))?;
        let block = match settings.pattern {
            Pattern::Torch { block, .. } => block as usize,
            Pattern::Direct { align, .. } => align as usize,
        };
        let mut scratch = Scratch::new();
        let (pattern, max_read) = match settings.pattern {
            Pattern::Torch { block, max_request } => (
                ReadPattern::Torch {
                    block: block as usize,
                },
                max_request,
            ),
            Pattern::Direct { chunk, .. } => (ReadPattern::Direct { chunk }, chunk),
        };
        scratch.max_request = max_read as usize;
        Ok(Checkpoints {
            backend,
            rank,
            ranks,
            mine,
            theirs: HashMap::new(),
            size,
            writer: Writer {
                backend,
                rank,
                content,
                stage: AlignedBuffer::new(block.max(PAGE), PAGE),
                fsync: settings.fsync,
                part: settings.part,
                latency: LatencyRecorder::new(),
                tally: Tally::default(),
            },
            reader: Reader {
                backend,
                rank,
                pattern,
                scratch,
                tally: Tally::default(),
            },
            created: Created::default(),
            keep: false,
            settings,
        })
    }

    pub fn backend(&self) -> &'b dyn Backend {
        self.backend
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Files this rank writes per checkpoint.
    pub fn files(&self) -> usize {
        self.mine.len()
    }

    /// The paths and sizes of `rank`'s files in a checkpoint.
    pub fn paths_of(&mut self, rank: usize, epoch: u64, step: u64) -> Vec<(PathBuf, u64)> {
        let dir = checkpoint_dir(&self.settings.folder, epoch, step);
        self.planned(rank)
            .iter()
            .map(|p| {
                (
                    Path::new(&dir).join(format!("{}.pt", p.stem)),
                    p.image.size(),
                )
            })
            .collect()
    }

    fn planned(&mut self, rank: usize) -> &Vec<Planned> {
        if rank == self.rank {
            return &self.mine;
        }
        let (settings, ranks) = (&self.settings, self.ranks);
        self.theirs
            .entry(rank)
            .or_insert_with(|| plan(settings, rank, ranks))
    }

    /// Makes the folders of `dir` that are missing, recording them.
    pub fn make_dirs(&mut self, dir: &str) -> Result<()> {
        let fs = Fs::new(self.backend, self.rank);
        let mut at = String::new();
        for (i, part) in dir.split('/').enumerate() {
            if i > 0 {
                at.push('/');
            }
            at.push_str(part);
            if part.is_empty() || part == "." || part == ".." {
                continue;
            }
            // Another rank may make it between the look and the mkdir.
            match fs.ensure_dir(Path::new(&at), &mut self.created) {
                Err(_) if fs.exists(Path::new(&at)).unwrap_or(false) => {}
                made => made?,
            }
        }
        Ok(())
    }

    /// Saves this rank's files of `global_epoch<epoch>_step<step>` (its
    /// directory must exist); the seconds its layers' files and its
    /// optimizer's took (DLIO's lines on rank 0).
    pub fn save(&mut self, epoch: u64, step: u64) -> Result<Took> {
        let dir = checkpoint_dir(&self.settings.folder, epoch, step);
        let mut took = Took::default();
        for p in &self.mine {
            let path = format!("{dir}/{}.pt", p.stem);
            let c = cpath(&path)
                .map_err(|e| Error::io(self.rank, "cannot name", Path::new(&path), &e))?;
            self.created.file(PathBuf::from(&path));
            let t = std::time::Instant::now();
            self.writer.save(&c, &p.image, &p.requests).map_err(|e| {
                Error::io(self.rank, "cannot write checkpoint", Path::new(&path), &e)
            })?;
            took.add(p.kind, t.elapsed().as_secs_f64());
        }
        Ok(took)
    }

    /// Loads `source`'s files of `global_epoch<epoch>_step<step>`.
    pub fn load(&mut self, epoch: u64, step: u64, source: usize) -> Result<Took> {
        let dir = checkpoint_dir(&self.settings.folder, epoch, step);
        let rank = self.rank;
        self.planned(source);
        let files = if source == rank {
            &self.mine
        } else {
            &self.theirs[&source]
        };
        let mut took = Took::default();
        for p in files {
            let path = format!("{dir}/{}.pt", p.stem);
            let c =
                cpath(&path).map_err(|e| Error::io(rank, "cannot name", Path::new(&path), &e))?;
            let t = std::time::Instant::now();
            self.reader
                .load(&c, &p.image, p.image.size())
                .map_err(|e| Error::io(rank, "cannot read checkpoint", Path::new(&path), &e))?;
            took.add(p.kind, t.elapsed().as_secs_f64());
        }
        Ok(took)
    }

    /// Removes this rank's files and then the directories it made, if
    /// empty.
    pub fn remove(&mut self) -> Result<()> {
        let fs = Fs::new(self.backend, self.rank);
        let removed = self.created.remove_files(fs);
        self.created.remove_dirs(fs);
        removed
    }

    /// Removes this rank's files only (directories after a barrier).
    pub fn remove_files(&mut self) -> Result<()> {
        self.created.remove_files(Fs::new(self.backend, self.rank))
    }

    pub fn remove_dirs(&mut self) {
        self.created.remove_dirs(Fs::new(self.backend, self.rank));
    }
}

/// Seconds a save or load of a rank spent on its layers' files and on its
/// optimizer's (`None`: it has none).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Took {
    pub layers: Option<f64>,
    pub optimizer: Option<f64>,
}

impl Took {
    fn add(&mut self, kind: FileKind, secs: f64) {
        let slot = match kind {
            FileKind::Layers => &mut self.layers,
            FileKind::Optimizer => &mut self.optimizer,
            FileKind::Model => return,
        };
        *slot = Some(slot.unwrap_or(0.0) + secs);
    }
}
