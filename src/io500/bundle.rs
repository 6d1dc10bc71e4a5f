//! `io500 --bundle RESULT_DIR`: the submission in one archive,
//! `RESULT_DIR.tar`: every file of the result directory (the
//! configuration's copies, result files, each phase's output, the CSV and
//! stonewall files, `system.json`) under the directory's name, and
//! `SHA256SUMS` over them (as `sha256sum -c` reads it). `--verify` reads
//! such an archive back: every checksum, then the hashes of its
//! `result.txt` against its configuration.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The checksum list's name in the archive.
pub const SUMS: &str = "SHA256SUMS";

/// The largest member read back (result files are small; a bigger one is
/// not a bundle's).
const LARGEST: u64 = 1 << 30;

/// Whether `--verify`'s file is an archive rather than a result file.
pub fn is_archive(file: &str) -> bool {
    file.ends_with(".tar")
}

fn sha256(data: &[u8]) -> String {
    format!("{:x}", Sha256::digest(data))
}

/// Packs `dir` into `dir.tar` and returns the archive's path and its
/// members (name, bytes). Refused, with nothing written, when `dir` is no
/// result directory or the archive exists.
pub fn pack(dir: &str) -> Result<(PathBuf, Vec<(String, u64)>), String> {
    let dir = Path::new(dir.trim_end_matches('/'));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{}: not a result directory", dir.display()))?;
    for needed in ["result.txt", "config-orig.ini"] {
        if !dir.join(needed).is_file() {
            return Err(format!(
                "{}: no {needed}: not an io500 result directory",
                dir.display()
            ));
        }
    }
    let out = PathBuf::from(format!("{}.tar", dir.display()));
    if out.exists() {
        return Err(format!("{} exists: remove it or keep it", out.display()));
    }
    let files = read_dir_files(dir)?;
    let sums: String = files
        .iter()
        .map(|(f, data)| format!("{}  {f}\n", sha256(data)))
        .collect();
    let partial = PathBuf::from(format!("{}.partial", out.display()));
    let written = write_tar(&partial, &name, &files, &sums).and_then(|()| {
        std::fs::rename(&partial, &out).map_err(|e| format!("{}: {e}", out.display()))
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    let mut listed: Vec<(String, u64)> = files
        .iter()
        .map(|(f, d)| (format!("{name}/{f}"), d.len() as u64))
        .collect();
    listed.push((format!("{name}/{SUMS}"), sums.len() as u64));
    Ok((out, listed))
}

/// The regular files of a directory, by name (a result directory is flat).
fn read_dir_files(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let failed = |e: std::io::Error| format!("{}: {e}", dir.display());
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(failed)? {
        let entry = entry.map_err(failed)?;
        if !entry.file_type().map_err(failed)?.is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let data = std::fs::read(entry.path()).map_err(failed)?;
        out.push((name, data));
    }
    out.sort();
    Ok(out)
}

fn write_tar(
    path: &Path,
    top: &str,
    files: &[(String, Vec<u8>)],
    sums: &str,
) -> Result<(), String> {
    let failed = |e: std::io::Error| format!("{}: {e}", path.display());
    let file = std::fs::File::create_new(path).map_err(failed)?;
    let mut tar = tar::Builder::new(std::io::BufWriter::new(file));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let members = files
        .iter()
        .map(|(f, d)| (f.as_str(), d.as_slice()))
        .chain([(SUMS, sums.as_bytes())]);
    for (name, data) in members {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(now);
        header.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut header, format!("{top}/{name}"), data)
            .map_err(failed)?;
    }
    let inner = tar.into_inner().map_err(failed)?;
    let file = inner.into_inner().map_err(|e| failed(e.into_error()))?;
    file.sync_all().map_err(failed)
}

/// An archive's files, by their names under its top directory.
pub fn unpack(archive: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let failed = |e: std::io::Error| format!("{archive}: not a readable tar archive: {e}");
    let file = std::fs::File::open(archive).map_err(|e| format!("{archive}: {e}"))?;
    let mut tar = tar::Archive::new(std::io::BufReader::new(file));
    let mut out = Vec::new();
    for entry in tar.entries().map_err(failed)? {
        let mut entry = entry.map_err(failed)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = entry.path().map_err(failed)?.into_owned();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if entry.size() > LARGEST {
            return Err(format!("{archive}: {name} is too large for a result file"));
        }
        let mut data = Vec::new();
        entry.read_to_end(&mut data).map_err(failed)?;
        out.push((name, data));
    }
    Ok(out)
}

/// Each member against `SHA256SUMS`: the problems, one line each (none:
/// every file listed is there, unchanged, and every file is listed).
pub fn check_sums(members: &[(String, Vec<u8>)]) -> Result<Vec<String>, String> {
    let sums = members
        .iter()
        .find(|(n, _)| n == SUMS)
        .ok_or_else(|| format!("no {SUMS} in the archive"))?;
    let sums = String::from_utf8_lossy(&sums.1);
    let mut problems = Vec::new();
    let mut listed = Vec::new();
    for line in sums.lines().filter(|l| !l.trim().is_empty()) {
        let Some((digest, name)) = line.split_once("  ") else {
            problems.push(format!("{SUMS}: unreadable line '{line}'"));
            continue;
        };
        listed.push(name);
        match members.iter().find(|(n, _)| n == name) {
            None => problems.push(format!("{name}: listed, not in the archive")),
            Some((_, data)) if sha256(data) != digest => {
                problems.push(format!("{name}: changed (its SHA-256 differs)"))
            }
            Some(_) => {}
        }
    }
    for (n, _) in members.iter().filter(|(n, _)| n != SUMS) {
        if !listed.contains(&n.as_str()) {
            problems.push(format!("{n}: in the archive, not in {SUMS}"));
        }
    }
    Ok(problems)
}

/// A member's text.
pub fn text_of(members: &[(String, Vec<u8>)], name: &str) -> Result<String, String> {
    let (_, data) = members
        .iter()
        .find(|(n, _)| n == name)
        .ok_or_else(|| format!("no {name} in the archive"))?;
    String::from_utf8(data.clone()).map_err(|_| format!("{name}: not UTF-8 text"))
}
