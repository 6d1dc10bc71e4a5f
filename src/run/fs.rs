//! File-system operations of a run, through the backend's namespace: each
//! failure names the task, the action and the path, and what a run creates
//! is recorded, so that it removes only what it created.

use std::io;
use std::path::{Path, PathBuf};

use crate::backend::cpath::c_path;
use crate::backend::Backend;
use crate::error::{Error, Result};

/// One task's view of the backend's names.
#[derive(Clone, Copy)]
pub struct Fs<'a> {
    pub backend: &'a dyn Backend,
    pub rank: usize,
}

/// How a directory removal ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    Removed,
    /// Someone put files there: it stays, with what it holds.
    NotEmpty,
}

impl<'a> Fs<'a> {
    pub fn new(backend: &'a dyn Backend, rank: usize) -> Fs<'a> {
        Fs { backend, rank }
    }

    /// A task error about `path`.
    pub fn error(&self, action: &str, path: &Path, e: &io::Error) -> Error {
        Error::io(self.rank, action, path, e)
    }

    pub fn exists(&self, path: &Path) -> Result<bool> {
        c_path(path)
            .and_then(|c| self.backend.namespace().exists(&c))
            .map_err(|e| self.error("cannot check", path, &e))
    }

    /// The size of a file (0 for a backend that stores nothing).
    pub fn size_of(&self, path: &Path) -> Result<u64> {
        c_path(path)
            .and_then(|c| self.backend.namespace().size_of(&c))
            .map(|s| s.unwrap_or(0))
            .map_err(|e| self.error("cannot stat", path, &e))
    }

    /// Makes `dir` unless it exists; whether it was made.
    pub fn make_missing_dir(&self, dir: &Path) -> Result<bool> {
        if self.exists(dir)? {
            return Ok(false);
        }
        c_path(dir)
            .and_then(|c| self.backend.namespace().mkdir(&c))
            .map_err(|e| self.error("cannot create directory", dir, &e))?;
        Ok(true)
    }

    /// Makes `dir` unless it exists; a directory made is recorded.
    pub fn ensure_dir(&self, dir: &Path, created: &mut Created) -> Result<()> {
        if self.make_missing_dir(dir)? {
            created.dirs.push(dir.to_path_buf());
        }
        Ok(())
    }

    /// Removes a file; one already gone is not an error.
    pub fn remove_file(&self, path: &Path) -> Result<()> {
        match c_path(path).and_then(|c| self.backend.remove(&c)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                Err(self.error("cannot remove", path, &e))
            }
            _ => Ok(()),
        }
    }

    /// Removes a directory with `rmdir`, never recursively.
    pub fn remove_dir(&self, dir: &Path) -> Result<Removal> {
        match c_path(dir).and_then(|c| self.backend.namespace().rmdir(&c)) {
            Ok(()) => Ok(Removal::Removed),
            Err(e) if is_not_empty(&e) => Ok(Removal::NotEmpty),
            Err(e) => Err(self.error("cannot remove directory", dir, &e)),
        }
    }
}

/// Whether an error says a directory is not empty.
pub fn is_not_empty(e: &io::Error) -> bool {
    e.raw_os_error() == Some(rustix::io::Errno::NOTEMPTY.raw_os_error())
        || e.raw_os_error() == Some(rustix::io::Errno::EXIST.raw_os_error())
}

/// What one task created in a run: files, and directories (parents first).
#[derive(Debug, Default)]
pub struct Created {
    pub files: Vec<PathBuf>,
    pub dirs: Vec<PathBuf>,
}

impl Created {
    /// Records a file this task created (once).
    pub fn file(&mut self, path: PathBuf) {
        if !self.files.contains(&path) {
            self.files.push(path);
        }
    }

    /// Removes the files (and forgets them); the first failure is the
    /// outcome, and the others are still tried.
    pub fn remove_files(&mut self, fs: Fs<'_>) -> Result<()> {
        let mut outcome = Ok(());
        for path in std::mem::take(&mut self.files) {
            let removed = fs.remove_file(&path);
            if outcome.is_ok() {
                outcome = removed;
            }
        }
        outcome
    }

    /// Removes the directories, children first, each only if it is empty;
    /// quietly (another run's files must survive).
    pub fn remove_dirs(&mut self, fs: Fs<'_>) {
        while let Some(dir) = self.dirs.pop() {
            let _ = fs.remove_dir(&dir);
        }
    }

    /// After a failure: everything, quietly.
    pub fn remove_all(&mut self, fs: Fs<'_>) {
        let _ = self.remove_files(fs);
        self.remove_dirs(fs);
    }
}
