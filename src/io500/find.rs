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
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
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
    pub balance_s: f64,
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
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct FindResult {
    pub found: u64,
    pub scanned: u64,
    /// The slowest task's time.
    pub time_s: f64,
    /// Entries scanned per second.
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
    comm.barrier()?;
    let start = Instant::now();
    let mut walk = Walk::new(spec);
    if comm.rank() == 0 {
        walk.queue.push_back(spec.root.clone());
    }
    // Rounds fall at the same times since the barrier on every task, so
    // that none waits long in one for another still in its slice.
    let mut deadline = start;
    loop {
        deadline += slice(walk.mine.rounds);
        walk.work((comm.size() > 1).then_some(deadline));
        if !walk.round(comm)? {
            break;
        }
    }
    walk.mine.time_s = start.elapsed().as_secs_f64();
    let ranks = gather_records(comm, 0, &walk.mine)?;
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

/// One task's queue and counts.
struct Walk<'a> {
    spec: &'a FindSpec,
    pattern: Vec<u8>,
    queue: VecDeque<PathBuf>,
    /// The directory being read, and its stream.
    current: Option<(PathBuf, Dir)>,
    mine: RankFind,
}

/// Entries read between two looks at the clock.
const CHECK_EVERY: usize = 256;

impl<'a> Walk<'a> {
    fn new(spec: &'a FindSpec) -> Walk<'a> {
        Walk {
            spec,
            pattern: spec.name_pattern.as_bytes().to_vec(),
            queue: VecDeque::new(),
            current: None,
            mine: RankFind::default(),
        }
    }

    /// Reads directories until the queue is empty or `slice` has passed.
    /// Reads directories until the queue is empty or `until`;
    /// a directory can be left half read (the clock is looked at every
    /// [`CHECK_EVERY`] entries), so that a huge one does not keep the other
    /// tasks waiting for the next round.
    fn work(&mut self, until: Option<Instant>) {
        loop {
            if self.current.is_none() {
                let Some(dir) = self.queue.pop_front() else {
                    return;
                };
                self.open(&dir);
                continue;
            }
            let done = self.read_some();
            if done {
                self.current = None;
            }
            if until.is_some_and(|t| Instant::now() >= t) {
                return;
            }
        }
    }

    fn open(&mut self, dir: &Path) {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        match rustix::fs::openat(CWD, dir, flags, Mode::empty()).and_then(Dir::new) {
            Ok(stream) => {
                self.mine.dirs += 1;
                self.current = Some((dir.to_path_buf(), stream));
            }
            Err(_) => self.mine.errors += 1,
        }
    }

    /// Up to [`CHECK_EVERY`] entries of the current directory (the stream
    /// stays open between two calls): whether the directory is finished.
    fn read_some(&mut self) -> bool {
        let Some((dir, mut stream)) = self.current.take() else {
            return true;
        };
        let mut seen = 0;
        let finished = loop {
            if seen >= CHECK_EVERY {
                break false;
            }
            let entry = match stream.read() {
                None => break true,
                Some(Err(_)) => {
                    self.mine.errors += 1;
                    break true;
                }
                Some(Ok(entry)) => entry,
            };
            seen += 1;
            self.entry(&dir, &stream, entry.file_name(), entry.file_type());
        };
        if !finished {
            self.current = Some((dir, stream));
        }
        finished
    }

    /// One directory entry: a subdirectory is queued, anything else counted
    /// and checked. The type comes from the directory entry where the file
    /// system stores it, without a stat.
    fn entry(&mut self, dir: &Path, stream: &Dir, name: &CStr, kind: FileType) {
        let bytes = name.to_bytes();
        if bytes == b"." || bytes == b".." {
            return;
        }
        let kind = match kind {
            FileType::Unknown => match stat_in(stream, name) {
                Ok(st) => FileType::from_raw_mode(st.st_mode),
                Err(_) => {
                    self.mine.errors += 1;
                    return;
                }
            },
            known => known,
        };
        if kind == FileType::Directory {
            self.queue
                .push_back(dir.join(std::ffi::OsStr::from_bytes(bytes)));
            return;
        }
        self.file(stream, name);
    }

    fn file(&mut self, stream: &Dir, name: &CStr) {
        self.mine.scanned += 1;
        if !glob(&self.pattern, name.to_bytes()) {
            return;
        }
        if self.spec.newer_than.is_none() && self.spec.size.is_none() {
            self.mine.found += 1;
            return;
        }
        self.mine.checked += 1;
        let Ok(st) = stat_in(stream, name) else {
            self.mine.errors += 1;
            return;
        };
        let size_ok = self.spec.size.is_none_or(|s| st.st_size as u64 == s);
        let changed = SystemTime::UNIX_EPOCH
            + Duration::new(st.st_ctime.max(0) as u64, st.st_ctime_nsec as u32);
        let newer_ok = self.spec.newer_than.is_none_or(|t| changed >= t);
        if size_ok && newer_ok {
            self.mine.found += 1;
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
        self.mine.rounds += 1;
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
        self.mine.balance_s += began.elapsed().as_secs_f64();
        Ok(total[0] > 0)
    }

    /// Every queue to rank 0, dealt round-robin to all tasks.
    fn deal(&mut self, comm: &dyn Comm) -> Result<()> {
        let mine: Vec<String> = self
            .queue
            .drain(..)
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        self.mine.donated += mine.len() as u64;
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
        self.mine.received += dealt.len() as u64;
        self.queue.extend(dealt.iter().map(PathBuf::from));
        Ok(())
    }
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
