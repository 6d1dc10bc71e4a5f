//! `-a HDF5` against a C reference of IOR 4's HDF5 backend
//! (`tests/reference/ior_hdf5.c`, compiled with Debian's `h5pcc` and run
//! with `mpirun -n 2`): it makes IOR's HDF5 calls (property lists, dataset
//! names and shapes, one hyperslab per transfer) with IOR's data pattern
//! (`tests/reference/ior_pattern.h`). Files the reference writes verify with
//! pario's `-R`, files pario writes verify word by word with the reference,
//! both have the same layout and the same data bytes, and a damaged word is
//! caught both ways.
#![cfg(feature = "hdf5")]

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use crate::common::{assert_clean, entries, Run};
use tempfile::{tempdir, TempDir};

/// The reference program, built in a directory of its own.
struct Reference {
    exe: PathBuf,
    _dir: TempDir,
}

impl Reference {
    /// `None` (and one line on stderr) without `h5pcc` (hdf5 dev tools).
    fn build() -> Option<Reference> {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/ior_hdf5.c");
        let dir = tempdir().unwrap();
        let exe = dir.path().join("ior_hdf5");
        // h5pcc leaves its object file in the current directory.
        let out = match Command::new("h5pcc")
            .current_dir(dir.path())
            .args(["-O2", "-fwrapv", "-fno-strict-aliasing", "-o"])
            .arg(&exe)
            .arg(&source)
            .output()
        {
            Ok(out) => out,
            Err(e) => {
                eprintln!("skipped: no h5pcc to build the IOR HDF5 reference ({e})");
                return None;
            }
        };
        assert!(
            out.status.success(),
            "h5pcc failed to build {}:\n{}",
            source.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        Some(Reference { exe, _dir: dir })
    }

    fn run(&self, dir: &Path, ranks: usize, args: &[String]) -> Run {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        common::mpirun(self.exe.to_str().unwrap(), dir, ranks, &args, &[])
    }

    /// The layout of each file, one line for the file (without its name)
    /// and one per dataset.
    fn describe(&self, dir: &Path, files: &[String]) -> Vec<Vec<String>> {
        let mut args = vec!["-d".to_string(), "-o".to_string()];
        args.extend(files.iter().cloned());
        let run = self.run(dir, 1, &args);
        run.ok();
        let mut described: Vec<Vec<String>> = Vec::new();
        for line in run.stdout.lines() {
            match line.strip_prefix("file ") {
                Some(rest) => {
                    let size = rest.split_once(' ').map_or("", |(_, size)| size);
                    described.push(vec![format!("file {size}")]);
                }
                None if line.starts_with("dataset ") => {
                    described.last_mut().unwrap().push(line.to_string());
                }
                None => {}
            }
        }
        assert_eq!(described.len(), files.len(), "{}", run.stdout);
        described
    }
}

const TASKS: usize = 2;

/// One IOR test, as both programs take it.
#[derive(Clone)]
struct Case {
    packet: &'static str,
    signature: &'static str,
    transfer: u64,
    block: u64,
    segments: u64,
    file_per_proc: bool,
    collective: bool,
    /// `--hdf5.setAlignment`, `--hdf5.chunkSize` (0: none), `--hdf5.noFill`.
    alignment: u64,
    chunk: u64,
    no_fill: bool,
}

/// Three segments of three transfers per block: an odd count, where IOR's
/// own `-R` opens the wrong dataset.
const BASE: Case = Case {
    packet: "t",
    signature: "0",
    transfer: 8192,
    block: 24576,
    segments: 3,
    file_per_proc: false,
    collective: false,
    alignment: 1,
    chunk: 0,
    no_fill: false,
};

impl Case {
    /// The options both programs share (IOR's letters).
    fn common(&self, file: &str) -> Vec<String> {
        let mut args: Vec<String> = [
            "-t",
            &self.transfer.to_string(),
            "-b",
            &self.block.to_string(),
            "-s",
            &self.segments.to_string(),
            "-G",
            self.signature,
            "-l",
            self.packet,
            "-o",
            file,
        ]
        .map(String::from)
        .to_vec();
        for (on, flag) in [(self.file_per_proc, "-F"), (self.collective, "-c")] {
            if on {
                args.push(flag.into());
            }
        }
        args
    }

    fn pario(&self, phase: &[&str], file: &str) -> Vec<String> {
        let mut args: Vec<String> = ["-a", "HDF5", "-k"].map(String::from).to_vec();
        args.extend(phase.iter().map(|a| a.to_string()));
        args.extend(self.common(file));
        args.push(format!("--hdf5.setAlignment={}", self.alignment));
        if self.chunk > 0 {
            args.push(format!("--hdf5.chunkSize={}", self.chunk));
        }
        if self.no_fill {
            args.push("--hdf5.noFill".into());
        }
        args
    }

    fn reference(&self, mode: &str, file: &str) -> Vec<String> {
        let mut args = vec![mode.to_string()];
        args.extend(self.common(file));
        args.extend(["-A".to_string(), self.alignment.to_string()]);
        args.extend(["-K".to_string(), self.chunk.to_string()]);
        if self.no_fill {
            args.push("-N".into());
        }
        args
    }

    /// The file names a test on `file` makes.
    fn files(&self, file: &str) -> Vec<String> {
        match self.file_per_proc {
            true => (0..TASKS).map(|r| format!("{file}.{r:08}")).collect(),
            false => vec![file.to_string()],
        }
    }

    fn transfers(&self) -> u64 {
        TASKS as u64 * self.segments * self.block / self.transfer
    }

    fn describe(&self) -> String {
        format!(
            "-l {} -G {} -t {} -b {} -s {} -F {} -c {} align {} chunk {} noFill {}",
            self.packet,
            self.signature,
            self.transfer,
            self.block,
            self.segments,
            self.file_per_proc,
            self.collective,
            self.alignment,
            self.chunk,
            self.no_fill
        )
    }
}

fn pario(dir: &Path, args: &[String]) -> Run {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::mpirun(crate::common::bin("ior"), dir, TASKS, &args, &[])
}

/// The `offset` and `storage` fields of a dataset line: its raw data.
fn data_range(dataset: &str) -> Option<std::ops::Range<usize>> {
    let field = |name: &str| -> i64 {
        let mut words = dataset.split_whitespace();
        words.find(|w| *w == name);
        words.next().unwrap().parse().unwrap()
    };
    let (offset, storage) = (field("offset"), field("storage"));
    (offset >= 0).then(|| offset as usize..(offset + storage) as usize)
}

/// Two files of one layout hold the same data bytes, and differ at most
/// in metadata (the datasets' modification times).
fn assert_same_data(ours: &Path, theirs: &Path, datasets: &[String], what: &str) {
    let (a, b) = (std::fs::read(ours).unwrap(), std::fs::read(theirs).unwrap());
    assert_eq!(a.len(), b.len(), "{what}");
    let ranges: Vec<_> = datasets.iter().filter_map(|d| data_range(d)).collect();
    for range in &ranges {
        assert!(
            a[range.clone()] == b[range.clone()],
            "{what}: data at {range:?}"
        );
    }
    let differing = (0..a.len()).filter(|&i| a[i] != b[i]);
    for i in differing {
        assert!(
            !ranges.iter().any(|r| r.contains(&i)),
            "{what}: byte {i} differs"
        );
    }
}

/// `name` in `dir`, as both programs take it: MPI-IO may not find the file
/// system of a bare relative name.
fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

/// Reference writes, pario reads and checks; pario writes, the reference
/// reads and checks; both files have one layout and the same bytes of data.
fn cross_check(reference: &Reference, dir: &Path, case: &Case) {
    let what = case.describe();
    let (ior, ours) = (path(dir, "ior"), path(dir, "pario"));
    let written = reference.run(dir, TASKS, &case.reference("-w", &ior));
    written.ok();
    let read = pario(dir, &case.pario(&["-r", "-R"], &ior));
    assert_clean(&read, &what);
    assert!(read.stdout.contains("api                 : HDF5"), "{what}");
    assert_clean(&pario(dir, &case.pario(&["-w"], &ours)), &what);
    let checked = reference.run(dir, TASKS, &case.reference("-r", &ours));
    checked.ok();
    let summary = format!("ior_hdf5: checked {} transfers, 0 errors", case.transfers());
    assert!(
        checked.stdout.contains(&summary),
        "{what}\n{}",
        checked.stdout
    );
    let (theirs, ours) = (case.files(&ior), case.files(&ours));
    let all: Vec<String> = theirs.iter().chain(&ours).cloned().collect();
    let layouts = reference.describe(dir, &all);
    let (their_layouts, our_layouts) = layouts.split_at(theirs.len());
    assert_eq!(their_layouts, our_layouts, "{what}");
    for ((t, o), layout) in theirs.iter().zip(&ours).zip(their_layouts) {
        assert_eq!(
            layout.len(),
            1 + case.segments as usize,
            "{what}: {layout:?}"
        );
        assert_same_data(Path::new(o), Path::new(t), &layout[1..], &what);
    }
    for file in all {
        std::fs::remove_file(file).unwrap();
    }
}

#[test]
fn files_of_iors_hdf5_backend_and_of_pario_verify_with_each_other() {
    let Some(reference) = Reference::build() else {
        return;
    };
    let dir = tempdir().unwrap();
    let cases = [
        Case {
            signature: "1234567",
            ..BASE
        },
        Case {
            packet: "o",
            signature: "-7",
            ..BASE
        },
        Case {
            packet: "i",
            signature: "3000000000",
            ..BASE
        },
        Case {
            packet: "r",
            signature: "42",
            ..BASE
        },
        Case {
            packet: "o",
            file_per_proc: true,
            ..BASE
        },
        Case {
            packet: "o",
            collective: true,
            ..BASE
        },
        Case {
            file_per_proc: true,
            collective: true,
            signature: "99",
            ..BASE
        },
        Case {
            packet: "o",
            alignment: 4096,
            ..BASE
        },
        Case {
            packet: "o",
            chunk: 1024,
            no_fill: true,
            ..BASE
        },
        Case {
            packet: "t",
            chunk: 4096,
            collective: true,
            ..BASE
        },
    ];
    for case in &cases {
        cross_check(&reference, dir.path(), case);
    }
    assert!(entries(dir.path()).is_empty());
}

/// The reference's file is the one h5dump showed for a real
/// `ior -a HDF5 -w -t 64k -b 256k -s 2 -k` on 2 ranks.
#[test]
fn the_reference_writes_the_layout_ior_wrote() {
    let Some(reference) = Reference::build() else {
        return;
    };
    let dir = tempdir().unwrap();
    let case = Case {
        transfer: 65536,
        block: 262144,
        segments: 2,
        ..BASE
    };
    let h = path(dir.path(), "h");
    reference
        .run(dir.path(), TASKS, &case.reference("-w", &h))
        .ok();
    let layout = reference
        .describe(dir.path(), std::slice::from_ref(&h))
        .remove(0);
    assert!(layout[0].starts_with("file size 1050624 "), "{layout:?}");
    for (dataset, offset) in ["Dataset-0000.0000 ", "Dataset-0000.0001 "]
        .iter()
        .zip([2048, 526336])
    {
        let line = layout.iter().find(|l| l.contains(dataset)).unwrap();
        let expected = format!(
            "type i64 le dims 65536/65536 contiguous chunk 0 offset {offset} storage 524288 \
             filters 0 fill_time ifset alloc_time early fill_value default"
        );
        assert!(line.ends_with(&expected), "{line}");
    }
    std::fs::remove_file(h).unwrap();
    assert!(entries(dir.path()).is_empty());
}

/// Flips every bit of element 1000 of the second dataset.
fn damage(reference: &Reference, dir: &Path, file: &str) {
    let layout = reference.describe(dir, &[file.to_string()]).remove(0);
    let range = data_range(&layout[2]).unwrap();
    let mut data = std::fs::read(file).unwrap();
    data[range.start + 8 * 1000] ^= 0xff;
    std::fs::write(file, data).unwrap();
}

#[test]
fn a_damaged_word_is_caught_both_ways() {
    let Some(reference) = Reference::build() else {
        return;
    };
    let dir = tempdir().unwrap();
    let case = Case {
        packet: "o",
        signature: "77",
        ..BASE
    };
    let (ior, ours) = (path(dir.path(), "ior"), path(dir.path(), "pario"));
    reference
        .run(dir.path(), TASKS, &case.reference("-w", &ior))
        .ok();
    damage(&reference, dir.path(), &ior);
    let read = pario(dir.path(), &case.pario(&["-r", "-R"], &ior));
    assert_eq!(read.status, 3, "{}\n{}", read.stdout, read.stderr);
    assert!(read
        .stdout
        .contains("incorrect data on read (1 errors found"));
    pario(dir.path(), &case.pario(&["-w"], &ours)).ok();
    damage(&reference, dir.path(), &ours);
    let checked = reference.run(dir.path(), TASKS, &case.reference("-r", &ours));
    assert_ne!(checked.status, 0, "{}", checked.stdout);
    let summary = format!("ior_hdf5: checked {} transfers, 1 errors", case.transfers());
    assert!(checked.stdout.contains(&summary), "{}", checked.stdout);
    for file in [ior, ours] {
        std::fs::remove_file(file).unwrap();
    }
    assert!(entries(dir.path()).is_empty());
}
