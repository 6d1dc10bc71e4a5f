//! IO500's find: a parallel walk of a tree counting the files whose name
//! matches a glob, whose status changed after a timestamp and whose size is
//! given, spread over every task.
//!
//! The engines offer collectives only, so work moves in rounds: each task
//! reads directories from its own queue for a time slice, then all tasks
//! count what is left; when some task is idle and others have more than
//! one directory waiting, every queue goes to rank 0, which deals them out
//! again. Only matching names are stat'ed: a walk costs its `readdir`s.
//! Directories are read with the C library's `fdopendir`/`readdir64` (rustix's
//! `Dir` on its libc backend), not `getdents64`, so that a file system
//! reached through `LD_PRELOAD` (libpil4dfs) lists them.

use std::collections::VecDeque;
use std::ffi::CStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fs::{statat, AtFlags, Dir, FileType, Mode, OFlags, CWD};
use std::time::{Duration, Instant, SystemTime};

use crate::comm::{agree, broadcast_value, gather_records, Comm, Record, ReduceOp};
use crate::error::{Error, Result};

/// What to look for, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct FindSpec {
    pub root: PathBuf,
    /// A glob with `*` and `?` (`*01*`).
    pub name_pattern: String,
    /// Only entries whose status changed at or after this time.
    pub newer_than: Option<SystemTime>,
    /// Only entries of exactly this many bytes.
    pub size: Option<u64>,
}

/// One task's walk.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RankFind {
    pub found: u64,
    /// Entries other than directories seen.
    pub scanned: u64,
    /// Entries whose name matched (and were stat'ed).
    pub checked: u64,
    pub dirs: u64,
    /// Directories that could not be read, entries that could not be stat'ed.
    pub errors: u64,
    /// Directories dealt to this task by a rebalancing round.
    pub received: u64,
    /// Directories this task handed in to be dealt out.
    pub donated: u64,
    pub rounds: u64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub balance_s: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub time_s: f64,
}

impl Record for RankFind {
    const FIELDS: usize = 10;

    fn to_fields(&self) -> Vec<f64> {
        let counts = [
            self.found,
            self.scanned,
            self.checked,
            self.dirs,
            self.errors,
            self.received,
            self.donated,
            self.rounds,
        ];
        let mut v: Vec<f64> = counts.iter().map(|c| *c as f64).collect();
        v.extend([self.balance_s, self.time_s]);
        v
    }

    fn from_fields(f: &[f64]) -> RankFind {
        RankFind {
            found: f[0] as u64,
            scanned: f[1] as u64,
            checked: f[2] as u64,
            dirs: f[3] as u64,
            errors: f[4] as u64,
            received: f[5] as u64,
            donated: f[6] as u64,
            rounds: f[7] as u64,
            balance_s: f[8],
            time_s: f[9],
        }
    }
}

/// The walk over all tasks (complete on rank 0).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FindResult {
    pub found: u64,
    pub scanned: u64,
    /// The slowest task's time.
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub time_s: f64,
    /// Entries scanned per second.
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub rate: f64,
    pub ranks: Vec<RankFind>,
}

/// How long a task works between two rounds: at first a millisecond, so
/// that the top directories are dealt out before anyone starts on a big
/// one, then twice as long each round up to 20 ms, so that rounds stay a
/// small cost.
fn slice(round: u64) -> Duration {
    Duration::from_micros(1000 << round.min(5)).min(Duration::from_millis(20))
}

/// Walks `spec.root` on every task.
pub fn find(comm: &dyn Comm, spec: &FindSpec) -> Result<FindResult> {
    let root_ok = match comm.rank() {
        0 if !spec.root.is_dir() => Err(Error::task(
            0,
            format!("find: {} is not a directory", spec.root.display()),
        )),
        _ => Ok(()),
    };
    agree(comm, root_ok)?;
    walk_all(comm, spec, &Files, spec.root.clone())
}

/// Walks the tree `source` reads from `root`, on every task.
pub fn walk_all<S: Source>(
    comm: &dyn Comm,
    spec: &FindSpec,
    source: &S,
    root: PathBuf,
) -> Result<FindResult> {
    comm.barrier()?;
    let start = Instant::now();
    let mut walk = Walk::new(spec, source);
    if comm.rank() == 0 {
        walk.queue.push_back(root);
    }
    // Rounds fall at the same times since the barrier on every task, so
    // that none waits long in one for another still in its slice.
    let mut deadline = start;
    loop {
        deadline += slice(walk.count.mine.rounds);
        walk.work((comm.size() > 1).then_some(deadline));
        if !walk.round(comm)? {
            break;
        }
    }
    walk.count.mine.time_s = start.elapsed().as_secs_f64();
    let ranks = gather_records(comm, 0, &walk.count.mine)?;
    Ok(summarize(ranks))
}

fn summarize(ranks: Vec<RankFind>) -> FindResult {
    let found = ranks.iter().map(|r| r.found).sum();
    let scanned = ranks.iter().map(|r| r.scanned).sum();
    let time_s = ranks.iter().map(|r| r.time_s).fold(0.0, f64::max);
    FindResult {
        found,
        scanned,
        time_s,
        rate: if time_s > 0.0 {
            scanned as f64 / time_s
        } else {
            0.0
        },
        ranks,
    }
}

/// Where a walk reads its directories: the file system, or a listing.
pub trait Source {
    /// A directory being read.
    type Stream;
    fn open(&self, dir: &Path) -> std::io::Result<Self::Stream>;
    /// Reads some entries of `dir`: subdirectories are queued, files
    /// counted. Whether the directory is finished.
    fn read_some(
        &self,
        dir: &Path,
        stream: &mut Self::Stream,
        count: &mut Count<'_>,
        queue: &mut VecDeque<PathBuf>,
    ) -> bool;
}

/// One task's counts, and the test of a file.
pub struct Count<'a> {
    spec: &'a FindSpec,
    pattern: Vec<u8>,
    pub(super) mine: RankFind,
}

impl Count<'_> {
    /// A file named `name`; `status` gives its size and change time, asked
    /// for only when the name matches and the spec looks at them.
    pub fn file(&mut self, name: &[u8], status: impl FnOnce() -> Option<(u64, SystemTime)>) {
        self.mine.scanned += 1;
        if !glob(&self.pattern, name) {
            return;
        }
        if self.spec.newer_than.is_none() && self.spec.size.is_none() {
            self.mine.found += 1;
            return;
        }
        self.mine.checked += 1;
        let Some((size, changed)) = status() else {
            self.mine.errors += 1;
            return;
        };
        let size_ok = self.spec.size.is_none_or(|s| size == s);
        let newer_ok = self.spec.newer_than.is_none_or(|t| changed >= t);
        if size_ok && newer_ok {
            self.mine.found += 1;
        }
    }

    pub fn error(&mut self) {
        self.mine.errors += 1;
    }
}

/// One task's queue and counts.
struct Walk<'a, S: Source> {
    source: &'a S,
    count: Count<'a>,
    queue: VecDeque<PathBuf>,
    /// The directory being read, and its stream.
    current: Option<(PathBuf, S::Stream)>,
}

impl<'a, S: Source> Walk<'a, S> {
    fn new(spec: &'a FindSpec, source: &'a S) -> Walk<'a, S> {
        Walk {
            source,
            count: Count {
                spec,
                pattern: spec.name_pattern.as_bytes().to_vec(),
                mine: RankFind::default(),
            },
            queue: VecDeque::new(),
            current: None,
        }
    }

    /// Reads directories until the queue is empty or `until`; a directory
    /// can be left half read, so that a huge one does not keep the other
    /// tasks waiting for the next round.
    fn work(&mut self, until: Option<Instant>) {
        loop {
            let Some((dir, mut stream)) = self.current.take() else {
                let Some(dir) = self.queue.pop_front() else {
                    return;
                };
                match self.source.open(&dir) {
                    Ok(stream) => {
                        self.count.mine.dirs += 1;
                        self.current = Some((dir, stream));
                    }
                    Err(_) => self.count.error(),
                }
                continue;
            };
            let done = self
                .source
                .read_some(&dir, &mut stream, &mut self.count, &mut self.queue);
            if !done {
                self.current = Some((dir, stream));
            }
            if until.is_some_and(|t| Instant::now() >= t) {
                return;
            }
        }
    }

    /// The tasks count what is left and, when some are idle while others
    /// wait on several directories, deal every queue out again. Returns
    /// whether any work is left.
    fn round(&mut self, comm: &dyn Comm) -> Result<bool> {
        let reading = u64::from(self.current.is_some());
        if comm.size() == 1 {
            return Ok(!self.queue.is_empty() || reading > 0);
        }
        let began = Instant::now();
        self.count.mine.rounds += 1;
        let len = self.queue.len() as u64;
        let mut total = [len + reading];
        comm.all_reduce_u64(&mut total, ReduceOp::Sum)?;
        // Idle: nothing queued and nothing being read.
        let mut least = [len + reading];
        comm.all_reduce_u64(&mut least, ReduceOp::Min)?;
        let mut queued = [len];
        comm.all_reduce_u64(&mut queued, ReduceOp::Sum)?;
        if queued[0] > 0 && least[0] == 0 {
            self.deal(comm)?;
        }
        self.count.mine.balance_s += began.elapsed().as_secs_f64();
        Ok(total[0] > 0)
    }

    /// Every queue to rank 0, dealt round-robin to all tasks.
    fn deal(&mut self, comm: &dyn Comm) -> Result<()> {
        let mine: Vec<String> = self
            .queue
            .drain(..)
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        self.count.mine.donated += mine.len() as u64;
        let hand = (self.current.is_some(), mine);
        let bytes = serde_json::to_vec(&hand).map_err(|e| Error::Comm(e.to_string()))?;
        let all = comm.gather(0, &bytes)?;
        let mut hands: Vec<Vec<String>> = vec![Vec::new(); comm.size()];
        if comm.rank() == 0 {
            let given: Vec<(bool, Vec<String>)> = all
                .iter()
                .map(|b| serde_json::from_slice(b).unwrap_or_default())
                .collect();
            hands = deal_out(given);
        }
        let hands: Vec<Vec<String>> = broadcast_value(comm, 0, &hands)?;
        let dealt = &hands[comm.rank()];
        self.count.mine.received += dealt.len() as u64;
        self.queue.extend(dealt.iter().map(PathBuf::from));
        Ok(())
    }
}

/// The file system, read with the C library's `readdir`.
struct Files;

/// Entries read between two looks at the clock.
const CHECK_EVERY: usize = 256;

impl Source for Files {
    type Stream = Dir;

    fn open(&self, dir: &Path) -> std::io::Result<Dir> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        Ok(rustix::fs::openat(CWD, dir, flags, Mode::empty()).and_then(Dir::new)?)
    }

    /// Up to [`CHECK_EVERY`] entries (the stream stays open between calls).
    fn read_some(
        &self,
        dir: &Path,
        stream: &mut Dir,
        count: &mut Count<'_>,
        queue: &mut VecDeque<PathBuf>,
    ) -> bool {
        for _ in 0..CHECK_EVERY {
            let entry = match stream.read() {
                None => return true,
                Some(Err(_)) => {
                    count.error();
                    return true;
                }
                Some(Ok(entry)) => entry,
            };
            entry_of(
                dir,
                stream,
                entry.file_name(),
                entry.file_type(),
                count,
                queue,
            );
        }
        false
    }
}

/// One directory entry: a subdirectory is queued, anything else counted
/// and checked. The type comes from the directory entry where the file
/// system stores it, without a stat.
fn entry_of(
    dir: &Path,
    stream: &Dir,
    name: &CStr,
    kind: FileType,
    count: &mut Count<'_>,
    queue: &mut VecDeque<PathBuf>,
) {
    let bytes = name.to_bytes();
    if bytes == b"." || bytes == b".." {
        return;
    }
    let kind = match kind {
        FileType::Unknown => match stat_in(stream, name) {
            Ok(st) => FileType::from_raw_mode(st.st_mode),
            Err(_) => return count.error(),
        },
        known => known,
    };
    if kind == FileType::Directory {
        queue.push_back(dir.join(std::ffi::OsStr::from_bytes(bytes)));
        return;
    }
    count.file(bytes, || {
        let st = stat_in(stream, name).ok()?;
        let changed = SystemTime::UNIX_EPOCH
            + Duration::new(st.st_ctime.max(0) as u64, st.st_ctime_nsec as u32);
        Some((st.st_size as u64, changed))
    });
}

/// `fstatat` of an entry of the directory being read, not following a link.
fn stat_in(stream: &Dir, name: &CStr) -> rustix::io::Result<rustix::fs::Stat> {
    statat(stream.fd()?, name, AtFlags::SYMLINK_NOFOLLOW)
}

/// Deals every queued directory (`(reading, queue)` per task) to the task
/// with the least work: a directory half read counts as two waiting (its
/// size is unknown, and may be large), so idle tasks are served first.
fn deal_out(given: Vec<(bool, Vec<String>)>) -> Vec<Vec<String>> {
    let mut load: Vec<usize> = given
        .iter()
        .map(|(reading, _)| 2 * usize::from(*reading))
        .collect();
    let mut hands = vec![Vec::new(); given.len()];
    for dir in given.into_iter().flat_map(|(_, q)| q) {
        let least = (0..load.len()).min_by_key(|&t| load[t]).unwrap_or(0);
        load[least] += 1;
        hands[least].push(dir);
    }
    hands
}

/// Shell-style matching of `name` against `pattern` (`*`, `?`).
pub fn glob(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == b'?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// `find.csv`, in the layout of pfind's (the columns pario has no
/// counterpart for are 0: unknown entries, steal messages sent, tokens).
pub fn csv(r: &FindResult) -> String {
    let mut s = format!("runtime: {:.6} rate: {:.6}\n", r.time_s, r.rate);
    s.push_str("rank, errors, unknown, found, total, checked, job steal msgs received, work items send, job steal msgs send, work items stolen, time spend in job stealing in s, number of completion tokens send\n");
    for (rank, f) in r.ranks.iter().enumerate() {
        s.push_str(&format!(
            "{rank}, {}, 0, {}, {}, {}, {}, {}, 0, {}, {:.3}s, 0\n",
            f.errors, f.found, f.scanned, f.checked, f.rounds, f.donated, f.received, f.balance_s
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_go_to_idle_tasks_first() {
        let d = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let hands = deal_out(vec![(true, d(&["a", "b"])), (false, d(&[]))]);
        assert_eq!(hands, vec![d(&[]), d(&["a", "b"])]);
        let hands = deal_out(vec![(false, d(&["a", "b", "c", "d"])), (false, d(&[]))]);
        assert_eq!(hands, vec![d(&["a", "c"]), d(&["b", "d"])]);
    }

    #[test]
    fn globs_match_as_fnmatch_does() {
        let m = |p: &str, n: &str| glob(p.as_bytes(), n.as_bytes());
        assert!(m("*01*", "file.mdtest.0.01"));
        assert!(m("*01*", "01"));
        assert!(!m("*01*", "file.0.10"));
        assert!(m("f?le", "file"));
        assert!(!m("f?le", "fle"));
        assert!(m("exact", "exact"));
        assert!(!m("exact", "exactly"));
        assert!(m("*", ""));
        assert!(m("a*b*c", "aXXbYYc"));
    }
}
