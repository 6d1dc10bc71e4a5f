//! Test file names, as IOR forms them.
//!
//! Shared file: the `-o` name. File per process: `<name>.<rank as %08d>`;
//! with `-u`, inside `<dir of name>/<rank>/`. `-o a@b@c` deals tasks over the
//! names round-robin (file per process). `-m` appends `.<repetition>`.

use std::path::{Path, PathBuf};

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
