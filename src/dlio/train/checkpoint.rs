//! Checkpoints during training: the hook the step loop calls, and the one
//! model DLIO saves for a non-transformer workload (unet3d): rank 0 (each
//! rank below the model parallelism, or every rank under ZeRO) writes
//! `<checkpoint_folder>/global_epoch<E>_step<S>/model_states-<rank>.pt`, a
//! `torch.save` of one int8 tensor of `model_size` bytes.
//!
//! Until issue 40 brings `torch.save`'s container, the file has its size
//! and its three writes' sizes (torch 2's 704 bytes of zip headers, the
//! tensor, 873 bytes of trailer; measured with strace) but not its bytes:
//! torch cannot load it. The tensor is written in pieces of 16 MiB, where
//! torch makes one write of it. pario removes what it wrote at the end of
//! the run (DLIO keeps it).

use std::ffi::{CStr, CString};
use std::io;

use crate::backend::{write_fully, Access, Backend, OpenSpec, Retry};
use crate::random::splitmix64;

/// What the step loop asks of a checkpoint mechanism.
pub trait Checkpointer {
    /// GB (2^30 bytes) of one whole checkpoint, all ranks together.
    fn size_gib(&self) -> f64;
    /// Saves this rank's part of `global_epoch{epoch}_step{step}`.
    fn save(&mut self, epoch: usize, step: usize) -> io::Result<()>;
    /// Removes what it saved.
    fn remove_saved(&mut self) -> io::Result<()>;
}

const HEADER: usize = 704;
const TRAILER: usize = 873;
const PIECE: usize = 16 << 20;

/// A non-transformer model, saved whole by the ranks that hold it.
pub struct ModelSave<'b> {
    backend: &'b dyn Backend,
    folder: CString,
    model_size: u64,
    rank: usize,
    writes: bool,
    /// Files then directories made, in order.
    made: Vec<(CString, bool)>,
    buffer: Vec<u8>,
}

impl<'b> ModelSave<'b> {
    /// `writes`: whether this rank holds the model.
    pub fn new(
        backend: &'b dyn Backend,
        folder: CString,
        model_size: u64,
        rank: usize,
        writes: bool,
    ) -> Self {
        ModelSave {
            backend,
            folder,
            model_size,
            rank,
            writes,
            made: Vec::new(),
            buffer: Vec::new(),
        }
    }

    /// `mkdir -p`, remembering what it made.
    fn make_dirs(&mut self, path: &CStr) -> io::Result<()> {
        let bytes = path.to_bytes();
        let ends = bytes
            .iter()
            .enumerate()
            .filter(|(i, b)| **b == b'/' && *i > 0)
            .map(|(i, _)| i)
            .chain([bytes.len()]);
        let ns = self.backend.namespace();
        for end in ends {
            let dir = CString::new(&bytes[..end]).map_err(io::Error::other)?;
            if ns.exists(&dir)? {
                continue;
            }
            match ns.mkdir(&dir) {
                Ok(()) => self.made.push((dir, true)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn fill(&mut self, len: usize, seed: u64) {
        self.buffer.resize(len, 0);
        let mut x = seed;
        for chunk in self.buffer.chunks_mut(8) {
            x = splitmix64(x);
            chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
        }
    }
}

impl Checkpointer for ModelSave<'_> {
    fn size_gib(&self) -> f64 {
        self.model_size as f64 / (1u64 << 30) as f64
    }

    fn save(&mut self, epoch: usize, step: usize) -> io::Result<()> {
        if !self.writes || self.model_size == 0 {
            return Ok(());
        }
        let dir = format!(
            "{}/global_epoch{epoch}_step{step}",
            self.folder.to_string_lossy()
        );
        let dir = CString::new(dir).map_err(io::Error::other)?;
        self.make_dirs(&dir)?;
        let path = CString::new(format!(
            "{}/model_states-{}.pt",
            dir.to_string_lossy(),
            self.rank
        ))
        .map_err(io::Error::other)?;
        let total = HEADER as u64 + self.model_size + TRAILER as u64;
        let spec = OpenSpec {
            access: Access::Write,
            create: true,
            reads_too: false,
            file_size: total,
            rank: self.rank,
            sequential: true,
            blocks: None,
            segment: total,
            transfer: PIECE as u64,
        };
        let mut file = self.backend.open(&path, &spec)?;
        self.made.push((path, false));
        self.fill(
            PIECE.min(self.model_size as usize).max(TRAILER),
            epoch as u64,
        );
        write_fully(
            file.as_mut(),
            &self.buffer[..HEADER.min(self.buffer.len())],
            0,
            Retry::Allowed,
        )?;
        let mut at = 0;
        while at < self.model_size {
            let n = (self.model_size - at).min(PIECE as u64) as usize;
            write_fully(
                file.as_mut(),
                &self.buffer[..n],
                HEADER as u64 + at,
                Retry::Allowed,
            )?;
            at += n as u64;
        }
        write_fully(
            file.as_mut(),
            &self.buffer[..TRAILER],
            HEADER as u64 + at,
            Retry::Allowed,
        )?;
        file.close()
    }

    fn remove_saved(&mut self) -> io::Result<()> {
        let mut first = Ok(());
        while let Some((path, dir)) = self.made.pop() {
            let done = if dir {
                self.backend.namespace().rmdir(&path)
            } else {
                self.backend.remove(&path)
            };
            first = first.and(done);
        }
        first
    }
}

/// No checkpoint (`workflow.checkpoint` off).
pub struct NoCheckpoint;

impl Checkpointer for NoCheckpoint {
    fn size_gib(&self) -> f64 {
        0.0
    }

    fn save(&mut self, _epoch: usize, _step: usize) -> io::Result<()> {
        Ok(())
    }

    fn remove_saved(&mut self) -> io::Result<()> {
        Ok(())
    }
}
