//! The file system holding a path, as this node sees it: its mount (from
//! `/proc/self/mountinfo`: type, source, options), `statfs`'s magic number,
//! whether that kind of file system is shared between nodes, and what a
//! parallel file system's own tools say (client version, the directory's
//! striping) where they are installed, each given a few seconds at most.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The file system of a path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileSystem {
    /// The path asked about (it may not exist yet: its nearest existing
    /// directory was looked at).
    pub path: String,
    pub mount_point: String,
    /// mountinfo's type: `lustre`, `nfs4`, `ext4`, ...
    pub fs_type: String,
    /// `statfs`'s `f_type`, named when known: `0xbd00bd0 (lustre)`.
    pub magic: String,
    /// What is mounted: a device, `server:/export`, `mgs@o2ib:/fs`.
    pub source: String,
    pub mount_options: String,
    /// The file system's own options (mountinfo's last field).
    pub super_options: String,
    /// The client's version (Lustre, BeeGFS, GPFS), when it can be read.
    pub client_version: Option<String>,
    /// The directory's layout as the file system's tool prints it
    /// (`lfs getstripe -d`, `beegfs-ctl --getentryinfo`, `mmlsattr -L`).
    pub layout: Option<String>,
}

/// Whether a kind of file system can be shared between nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Only this node sees it (a disk's file system, tmpfs).
    Local,
    /// A network or cluster file system.
    Shared,
    /// FUSE and the kinds not listed.
    Unknown,
}

const LOCAL: &[&str] = &[
    "ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "overlay", "zfs", "f2fs", "vfat",
    "exfat", "squashfs", "devtmpfs", "bcachefs",
];
const SHARED: &[&str] = &[
    "nfs", "nfs4", "lustre", "gpfs", "beegfs", "ceph", "cifs", "smb3", "panfs", "gfs2", "ocfs2",
    "orangefs", "pvfs2", "wekafs", "afs", "9p", "virtiofs",
];

/// `statfs` magic numbers of the file systems a benchmark meets.
const MAGICS: &[(u64, &str)] = &[
    (0xEF53, "ext2/3/4"),
    (0x5846_5342, "xfs"),
    (0x9123_683E, "btrfs"),
    (0x0102_1994, "tmpfs"),
    (0x8584_58F6, "ramfs"),
    (0x794C_7630, "overlay"),
    (0x2FC1_2FC1, "zfs"),
    (0x6969, "nfs"),
    (0x0BD0_0BD0, "lustre"),
    (0x4750_4653, "gpfs"),
    (0x1983_0326, "beegfs"),
    (0x00C3_6400, "ceph"),
    (0xFF53_4D42, "cifs"),
    (0xFE53_4D42, "smb2"),
    (0xAAD7_AAEA, "panfs"),
    (0x0116_1970, "gfs2"),
    (0x7461_636F, "ocfs2"),
    (0x2003_0528, "orangefs"),
    (0x6573_5546, "fuse"),
];

impl FileSystem {
    /// The file system of `path`, or `None` when no mount holds it.
    pub fn of(path: &Path) -> Option<FileSystem> {
        let (existing, real) = nearest_existing(path)?;
        let text = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
        let dev = rustix::fs::stat(&existing).ok().map(|s| {
            let dev = s.st_dev;
            (rustix::fs::major(dev), rustix::fs::minor(dev))
        });
        let mount = holding(&parse_mountinfo(&text), &real, dev)?;
        let magic = rustix::fs::statfs(&existing)
            .map(|s| magic_name(s.f_type as u64))
            .unwrap_or_default();
        let (client_version, layout) = client_tools(&mount.fs_type, &existing);
        Some(FileSystem {
            path: path.display().to_string(),
            mount_point: mount.mount_point,
            fs_type: mount.fs_type,
            magic,
            source: mount.source,
            mount_options: mount.options,
            super_options: mount.super_options,
            client_version,
            layout,
        })
    }

    /// Whether its kind can be shared between nodes.
    pub fn reach(&self) -> Reach {
        let base = self.fs_type.split('.').next().unwrap_or_default();
        match base {
            t if LOCAL.contains(&t) => Reach::Local,
            t if SHARED.contains(&t) => Reach::Shared,
            _ => Reach::Unknown,
        }
    }
}

/// `path`'s nearest existing directory and `path` resolved through it
/// (symbolic links followed), or `None` when nothing of it exists.
fn nearest_existing(path: &Path) -> Option<(PathBuf, PathBuf)> {
    let absolute = std::path::absolute(path).ok()?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let full = rest.iter().rev().fold(real.clone(), |p, c| p.join(c));
            return Some((real, full));
        }
        rest.push(existing.file_name()?.to_os_string());
        existing = existing.parent()?;
    }
}

/// `0xef53 (ext2/3/4)`.
fn magic_name(f_type: u64) -> String {
    let f_type = f_type & 0xFFFF_FFFF;
    match MAGICS.iter().find(|(m, _)| *m == f_type) {
        Some((_, name)) => format!("{f_type:#x} ({name})"),
        None => format!("{f_type:#x}"),
    }
}

/// One line of `/proc/self/mountinfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub dev: (u32, u32),
    pub mount_point: String,
    pub options: String,
    pub fs_type: String,
    pub source: String,
    pub super_options: String,
}

/// The mounts of a mountinfo text, lines that do not read skipped:
/// `ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER`,
/// spaces and backslashes in paths written as octal escapes.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines().filter_map(mount_line).collect()
}

fn mount_line(line: &str) -> Option<Mount> {
    let (before, after) = line.split_once(" - ")?;
    let fields: Vec<&str> = before.split(' ').collect();
    let (maj, min) = fields.get(2)?.split_once(':')?;
    let mut tail = after.split(' ');
    Some(Mount {
        dev: (maj.parse().ok()?, min.parse().ok()?),
        mount_point: unescape(fields.get(4)?),
        options: fields.get(5)?.to_string(),
        fs_type: tail.next().filter(|t| !t.is_empty())?.to_string(),
        source: unescape(tail.next().unwrap_or_default()),
        super_options: tail.next().unwrap_or_default().to_string(),
    })
}

/// `\040` (and any `\ooo`) as the byte it stands for.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match (bytes[i], octal) {
            (b'\\', Some(d)) => {
                let v = d.iter().fold(0u32, |v, b| v * 8 + u32::from(b - b'0'));
                out.push(v as u8);
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The mount holding `path`: the last (topmost) of the longest mount
/// points above it, among those of its device when that is known.
pub fn holding(mounts: &[Mount], path: &Path, dev: Option<(u32, u32)>) -> Option<Mount> {
    let deepest = |of_dev: bool| {
        let mut best: Option<&Mount> = None;
        for m in mounts.iter().filter(|m| path.starts_with(&m.mount_point)) {
            let depth = |m: &Mount| Path::new(&m.mount_point).components().count();
            let fits = !of_dev || Some(m.dev) == dev;
            if fits && best.is_none_or(|b| depth(m) >= depth(b)) {
                best = Some(m);
            }
        }
        best.cloned()
    };
    deepest(dev.is_some()).or_else(|| deepest(false))
}

/// The client version and the directory's layout, from the file
/// system's own tools, where they are installed.
fn client_tools(fs_type: &str, dir: &Path) -> (Option<String>, Option<String>) {
    let d = dir.to_string_lossy();
    match fs_type {
        "lustre" => (
            read_first(&["/sys/fs/lustre/version", "/proc/fs/lustre/version"])
                .or_else(|| tool("lfs", &["--version"])),
            tool("lfs", &["getstripe", "-d", &d]),
        ),
        "beegfs" => (
            read_first(&["/sys/module/beegfs/version"])
                .or_else(|| tool("beegfs-ctl", &["--version"])),
            tool("beegfs-ctl", &["--getentryinfo", &d]),
        ),
        "gpfs" => (
            tool("mmdiag", &["--version"]),
            tool("mmlsattr", &["-L", &d]),
        ),
        _ => (None, None),
    }
}

fn read_first(paths: &[&str]) -> Option<String> {
    paths.iter().find_map(|p| {
        let text = std::fs::read_to_string(p).ok()?;
        let text = text.trim();
        (!text.is_empty()).then(|| text.lines().take(4).collect::<Vec<_>>().join("; "))
    })
}

/// The seconds a file system's tool is given.
const TOOL_TIME: Duration = Duration::from_secs(5);

/// `program args`'s output (its first lines), when the program is on the
/// `PATH` (or in GPFS's own directory) and ends well within
/// [`TOOL_TIME`]; one that does not is killed.
fn tool(program: &str, args: &[&str]) -> Option<String> {
    tool_within(program, args, TOOL_TIME)
}

fn tool_within(program: &str, args: &[&str], limit: Duration) -> Option<String> {
    let found = find_program(program)?;
    let mut child = Command::new(found)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.take(64 * 1024).read_to_string(&mut text);
        let _ = tx.send(text);
    });
    let start = Instant::now();
    let ended = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.success(),
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let text = rx.recv_timeout(Duration::from_secs(1)).ok()?;
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    (ended && !lines.is_empty()).then(|| {
        lines
            .iter()
            .take(30)
            .copied()
            .collect::<Vec<_>>()
            .join("\n")
    })
}

fn find_program(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/lpp/mmfs/bin")])
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683584k
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=1k
61 27 0:52 / /lustre/fs\\0401 rw,flock shared:5 - lustre 10.0.0.1@o2ib:/fs1 rw,lazystatfs
62 27 0:53 / /home rw master:7 - nfs4 srv:/export/home rw,vers=4.2
bad line
70 27 x:y / /z rw - ext4 /dev/x rw
";

    #[test]
    fn mountinfo_reads_type_source_options_and_escapes() {
        let mounts = parse_mountinfo(SAMPLE);
        assert_eq!(mounts.len(), 5, "the bad lines are skipped");
        let lustre = &mounts[3];
        assert_eq!(lustre.mount_point, "/lustre/fs 1");
        assert_eq!(lustre.fs_type, "lustre");
        assert_eq!(lustre.source, "10.0.0.1@o2ib:/fs1");
        assert_eq!(lustre.super_options, "rw,lazystatfs");
        assert_eq!(mounts[4].options, "rw");
    }

    #[test]
    fn the_holding_mount_is_the_deepest_and_topmost() {
        let mounts = parse_mountinfo(SAMPLE);
        let at = |p: &str, dev| holding(&mounts, Path::new(p), dev).unwrap();
        assert_eq!(at("/lustre/fs 1/io500/data", None).fs_type, "lustre");
        assert_eq!(
            at("/home2/x", None).fs_type,
            "ext4",
            "a prefix of names, not of text"
        );
        assert_eq!(
            at("/dev/shm/x", None).dev,
            (0, 27),
            "the later of two stacked"
        );
        assert_eq!(at("/dev/shm/x", Some((0, 23))).dev, (0, 23), "its device's");
        assert_eq!(
            at("/dev/shm/x", Some((9, 9))).dev,
            (0, 27),
            "no device matches"
        );
    }

    #[test]
    fn a_directory_not_made_yet_is_on_its_parents_file_system() {
        let fs = FileSystem::of(Path::new("/dev/shm/pario-not-there/a/b")).unwrap();
        assert_eq!(fs.mount_point, "/dev/shm");
        assert_eq!(fs.fs_type, "tmpfs");
        assert_eq!(fs.magic, "0x1021994 (tmpfs)");
        assert_eq!(fs.reach(), Reach::Local);
        assert!(fs.path.ends_with("pario-not-there/a/b"));
    }

    #[test]
    fn a_tool_that_hangs_is_given_up() {
        let start = Instant::now();
        let limit = Duration::from_millis(200);
        assert_eq!(tool_within("sleep", &["30"], limit), None);
        assert!(start.elapsed() < Duration::from_secs(20), "not the 30 s");
        assert_eq!(tool("echo", &["a", "b"]).as_deref(), Some("a b"));
        assert_eq!(tool("pario-no-such-tool", &[]), None);
    }
}
