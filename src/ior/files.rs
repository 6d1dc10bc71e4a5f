//! Test file names, as IOR forms them, and a test's files on its backend.
//!
//! Shared file: the `-o` name. File per process: `<name>.<rank as %08d>`;
//! with `-u`, inside `<dir of name>/<rank>/`. `-o a@b@c` deals tasks over the
//! names round-robin (file per process). `-m` appends `.<repetition>`.
//!
//! [`TestFiles`] opens, closes and removes a test's files on this task and
//! records what it created, so that only that is removed; only this file
//! changes that record.

use std::path::{Path, PathBuf};

use crate::backend::cpath::c_path;
use crate::backend::{Access, Backend, Choice, File, OpenSpec};
use crate::comm::Comm;
use crate::error::{Error, Result};
use crate::run::fs::{Created, Fs};

#[derive(Debug, Clone)]
pub struct FileNames {
    names: Vec<String>,
    file_per_proc: bool,
    unique_dir: bool,
    multi_file: bool,
}

impl FileNames {
    pub fn new(
        test_file: &str,
        file_per_proc: bool,
        unique_dir: bool,
        multi_file: bool,
    ) -> FileNames {
        FileNames {
            names: test_file.split('@').map(str::to_string).collect(),
            file_per_proc,
            unique_dir: unique_dir && file_per_proc,
            multi_file,
        }
    }

    /// The directory `-u` gives a task, if any.
    pub fn unique_dir(&self, rank: usize) -> Option<PathBuf> {
        if !self.unique_dir {
            return None;
        }
        Some(Self::directory_of(Path::new(&self.names[0])).join(rank.to_string()))
    }

    /// The file that the data of task `rank` lives in, for repetition `rep`.
    pub fn path(&self, rank: usize, rep: u64) -> PathBuf {
        let mut name = if self.file_per_proc {
            self.names[rank % self.names.len()].clone()
        } else {
            self.names[0].clone()
        };
        if let Some(dir) = self.unique_dir(rank) {
            let base = Path::new(&name)
                .file_name()
                .map(|b| b.to_string_lossy().into_owned())
                .unwrap_or_default();
            name = dir.join(base).to_string_lossy().into_owned();
        }
        if self.file_per_proc {
            name.push_str(&format!(".{rank:08}"));
        }
        if self.multi_file {
            name.push_str(&format!(".{rep}"));
        }
        PathBuf::from(name)
    }

    /// The directory holding a test file ("." when the name has none).
    pub fn directory_of(path: &Path) -> PathBuf {
        match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }
}

/// A test's files on this task: the backend they are on, their names, and
/// the files and `-u` directories this task created.
pub(super) struct TestFiles {
    /// The checked backend (DUMMY for `--dryRun`).
    choice: Choice,
    backend: Box<dyn Backend>,
    /// The tasks taking part, for a backend whose tasks open a shared file
    /// together ([`Backend::opens_together`]); `None` on the others.
    together: Option<Box<dyn Comm>>,
    names: FileNames,
    created: Created,
    rank: usize,
}

impl TestFiles {
    pub fn new(
        (choice, backend): (Choice, Box<dyn Backend>),
        together: Option<Box<dyn Comm>>,
        names: FileNames,
        rank: usize,
    ) -> TestFiles {
        TestFiles {
            choice,
            backend,
            together,
            names,
            created: Created::default(),
            rank,
        }
    }

    pub fn choice(&self) -> &Choice {
        &self.choice
    }

    pub fn backend(&self) -> &dyn Backend {
        &*self.backend
    }

    /// The file of task `task`'s data in repetition `rep`.
    pub fn path(&self, task: usize, rep: u64) -> PathBuf {
        self.names.path(task, rep)
    }

    /// This task's view of the backend's names.
    pub fn fs(&self) -> Fs<'_> {
        Fs::new(&*self.backend, self.rank)
    }

    /// Opens `path` as `spec` says (with the tasks taking part, for a
    /// backend whose tasks open a shared file together).
    pub fn open(&self, path: &Path, spec: &OpenSpec) -> Result<Box<dyn File>> {
        let action = match spec.access {
            Access::Write => "cannot open for writing",
            Access::Read => "cannot open for reading",
        };
        c_path(path)
            .and_then(|c| match &self.together {
                Some(comm) => self.backend.open_together(comm.as_ref(), &c, spec),
                None => self.backend.open(&c, spec),
            })
            .map_err(|e| Error::io(self.rank, action, path, &e))
    }

    pub fn close(&self, file: Box<dyn File>, path: &Path) -> Result<()> {
        let closed = match &self.together {
            Some(comm) => {
                c_path(path).and_then(|c| self.backend.close_together(comm.as_ref(), &c, file))
            }
            None => file.close(),
        };
        closed.map_err(|e| Error::io(self.rank, "cannot close", path, &e))
    }

    /// Before a write phase of repetition `rep`: this task's `-u`
    /// directory, and (when this task is `responsible` for its file) the
    /// old file out of the way unless `reuse` (`-E`); a file the phase
    /// creates is recorded.
    pub fn prepare_write(&mut self, rep: u64, responsible: bool, reuse: bool) -> Result<()> {
        let fs = Fs::new(&*self.backend, self.rank);
        if let Some(dir) = self.names.unique_dir(self.rank) {
            fs.ensure_dir(&dir, &mut self.created)?;
        }
        if !responsible {
            return Ok(());
        }
        let path = self.names.path(self.rank, rep);
        let existed = fs.exists(&path)?;
        if existed && !reuse {
            c_path(&path)
                .and_then(|c| self.backend.remove(&c))
                .map_err(|e| fs.error("cannot remove the old test file", &path, &e))?;
        }
        if !(existed && reuse) {
            self.created.file(path);
        }
        Ok(())
    }

    /// Removes the files this task's write phases created.
    pub fn remove_written(&mut self) -> Result<()> {
        let fs = Fs::new(&*self.backend, self.rank);
        self.created.remove_files(fs)
    }

    /// Removes the `-u` directories this task created.
    pub fn remove_dirs(&mut self) {
        let fs = Fs::new(&*self.backend, self.rank);
        self.created.remove_dirs(fs);
    }

    /// After a failure: removes every file and directory this task
    /// created, quietly.
    pub fn remove_all(&mut self) {
        let fs = Fs::new(&*self.backend, self.rank);
        self.created.remove_all(fs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ior_names() {
        let shared = FileNames::new("/d/f", false, false, false);
        assert_eq!(shared.path(3, 0), PathBuf::from("/d/f"));
        let fpp = FileNames::new("/d/f", true, false, false);
        assert_eq!(fpp.path(3, 0), PathBuf::from("/d/f.00000003"));
        let unique = FileNames::new("build/ior-easy/ior_file_easy", true, true, false);
        assert_eq!(
            unique.path(0, 0),
            PathBuf::from("build/ior-easy/0/ior_file_easy.00000000")
        );
        assert_eq!(
            unique.unique_dir(12),
            Some(PathBuf::from("build/ior-easy/12"))
        );
        let bare = FileNames::new("testFile", true, true, false);
        assert_eq!(bare.path(1, 0), PathBuf::from("./1/testFile.00000001"));
        let multi = FileNames::new("/d/f", true, false, true);
        assert_eq!(multi.path(1, 2), PathBuf::from("/d/f.00000001.2"));
        let many = FileNames::new("/a/x@/b/y", true, false, false);
        assert_eq!(many.path(0, 0), PathBuf::from("/a/x.00000000"));
        assert_eq!(many.path(1, 0), PathBuf::from("/b/y.00000001"));
        assert_eq!(many.path(2, 0), PathBuf::from("/a/x.00000002"));
        let dir_only = FileNames::new("/mnt/ext/IOR/", true, false, false);
        assert_eq!(dir_only.path(0, 0), PathBuf::from("/mnt/ext/IOR/.00000000"));
        let shared_ignores_u = FileNames::new("/d/f", false, true, false);
        assert_eq!(shared_ignores_u.path(2, 0), PathBuf::from("/d/f"));
    }
}
