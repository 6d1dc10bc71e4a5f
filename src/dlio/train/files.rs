//! The dataset's files as DLIO finds them (main.py `initialize`): the
//! entries of `<data_folder>/<train|valid>` ending in the format's name,
//! sorted by path; with subfolders, `*/*.<format>` sorted by file name;
//! the first `num_files` of them. Every rank lists, as DLIO's do, and keeps
//! the names of the files it will read.

use std::ffi::CString;
use std::io;

use super::read::FileNames;
use crate::backend::Backend;

/// The files a rank reads, by their index in the sorted list.
#[derive(Debug, Clone, Default)]
pub struct Listed {
    /// Files in the list (the workload's count).
    total: usize,
    indices: Vec<usize>,
    names: Vec<CString>,
}

impl Listed {
    /// Keeps the paths of `wanted` (indices into `paths`).
    pub fn keep(paths: &[String], wanted: impl IntoIterator<Item = usize>) -> io::Result<Listed> {
        let mut indices: Vec<usize> = wanted.into_iter().filter(|&i| i < paths.len()).collect();
        indices.sort_unstable();
        indices.dedup();
        let names = indices
            .iter()
            .map(|&i| CString::new(paths[i].as_str()).map_err(io::Error::other))
            .collect::<io::Result<_>>()?;
        Ok(Listed {
            total: paths.len(),
            indices,
            names,
        })
    }
}

impl FileNames for Listed {
    fn count(&self) -> usize {
        self.total
    }

    fn path(&self, index: usize) -> CString {
        match self.indices.binary_search(&index) {
            Ok(at) => self.names[at].clone(),
            // A file the rank did not expect: a name that cannot exist.
            Err(_) => {
                CString::new(format!("<file {index} not kept by this rank>")).expect("no NUL")
            }
        }
    }
}

/// The names in one directory: (name, is a directory).
fn entries(backend: &dyn Backend, dir: &str) -> io::Result<Vec<(String, bool)>> {
    if let Some(listing) = backend.listing() {
        let handle = listing.directory(dir)?;
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let page = listing.page(&handle, token.as_deref())?;
            out.extend(
                page.files
                    .into_iter()
                    .filter(|f| !f.continues)
                    .map(|f| (f.name, false)),
            );
            for d in page.dirs {
                let name = d
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or(&d)
                    .to_string();
                out.push((name, true));
            }
            match page.next {
                Some(t) => token = Some(t),
                None => return Ok(out),
            }
        }
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let is_dir = entry.file_type()?.is_dir();
        out.push((entry.file_name().to_string_lossy().into_owned(), is_dir));
    }
    Ok(out)
}

/// The sorted paths of a split, at most `wanted` of them; fewer files than
/// wanted is an error (DLIO's "Not enough training dataset is found").
pub fn list(
    backend: &dyn Backend,
    dir: &str,
    format: &str,
    wanted: usize,
    what: &str,
) -> Result<Vec<String>, String> {
    let failed = |e: io::Error| format!("{dir}: {e}");
    let top = entries(backend, dir).map_err(failed)?;
    let mut paths: Vec<String> = Vec::new();
    if top.first().is_some_and(|(_, is_dir)| *is_dir) {
        let mut named: Vec<(String, String)> = Vec::new();
        for (sub, is_dir) in &top {
            if !is_dir {
                continue;
            }
            let subdir = format!("{dir}/{sub}");
            for (name, is_dir) in entries(backend, &subdir).map_err(failed)? {
                if !is_dir && name.ends_with(&format!(".{format}")) {
                    named.push((name.clone(), format!("{subdir}/{name}")));
                }
            }
        }
        named.sort();
        paths = named.into_iter().map(|(_, p)| p).collect();
    } else {
        for (name, is_dir) in top {
            if !is_dir && name.ends_with(format) {
                paths.push(format!("{dir}/{name}"));
            }
        }
        paths.sort();
    }
    if paths.len() < wanted {
        return Err(format!(
            "{dir}: not enough {what} files: {} found, the workload reads {wanted} \
             (generate them: ++workload.workflow.generate_data=True)",
            paths.len()
        ));
    }
    paths.truncate(wanted);
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::posix::Posix;

    #[test]
    fn flat_and_subfolder_layouts_sort_as_dlio_does() {
        let dir = tempfile::tempdir().unwrap();
        let flat = dir.path().join("train");
        std::fs::create_dir(&flat).unwrap();
        for name in [
            "img_2_of_3.npz",
            "img_0_of_3.npz",
            "img_1_of_3.npz",
            "x.npz.tmp",
        ] {
            std::fs::write(flat.join(name), b"").unwrap();
        }
        let b = Posix::new(false);
        let d = flat.to_str().unwrap();
        let got = list(&b, d, "npz", 2, "training").unwrap();
        assert_eq!(
            got,
            [format!("{d}/img_0_of_3.npz"), format!("{d}/img_1_of_3.npz")]
        );
        let err = list(&b, d, "npz", 4, "training").unwrap_err();
        assert!(err.contains("not enough training files: 3 found"), "{err}");

        let nested = dir.path().join("valid");
        for (sub, name) in [
            ("1", "img_1_of_3.npz"),
            ("0", "img_0_of_3.npz"),
            ("0", "img_2_of_3.npz"),
        ] {
            std::fs::create_dir_all(nested.join(sub)).unwrap();
            std::fs::write(nested.join(sub).join(name), b"").unwrap();
        }
        let n = nested.to_str().unwrap();
        let got = list(&b, n, "npz", 3, "evaluation").unwrap();
        let names: Vec<_> = got.iter().map(|p| p.strip_prefix(n).unwrap()).collect();
        assert_eq!(
            names,
            [
                "/0/img_0_of_3.npz",
                "/1/img_1_of_3.npz",
                "/0/img_2_of_3.npz"
            ]
        );
        let kept = Listed::keep(&got, [2, 0]).unwrap();
        assert_eq!(kept.count(), 3);
        assert_eq!(kept.path(2).to_str().unwrap(), got[2]);
        assert!(kept.path(1).to_str().unwrap().contains("not kept"));
    }
}
