//! IO500's find: a parallel walk of a tree counting the files whose name
//! matches a glob, whose status changed after a timestamp and whose size is
//! given, spread over every task.
//!
//! The engines offer collectives only, so work moves in rounds: each task
//! reads directories from its own queue for a time slice, then all tasks
//! count what is left; when some task is idle and others have more than
//! one directory waiting, every queue goes to rank 0, which deals them out
//! again. Only matching names are stat'ed: a walk costs its `readdir`s.

use std::collections::VecDeque;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
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

/// How long a task works between two rounds.
const SLICE: Duration = Duration::from_millis(20);

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
    loop {
        walk.work(if comm.size() == 1 { None } else { Some(SLICE) });
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
    mine: RankFind,
}

impl<'a> Walk<'a> {
    fn new(spec: &'a FindSpec) -> Walk<'a> {
        Walk {
            spec,
            pattern: spec.name_pattern.as_bytes().to_vec(),
            queue: VecDeque::new(),
            mine: RankFind::default(),
        }
    }

    /// Reads directories until the queue is empty or `slice` has passed.
    fn work(&mut self, slice: Option<Duration>) {
        let began = Instant::now();
        while let Some(dir) = self.queue.pop_front() {
            self.read(&dir);
            if slice.is_some_and(|s| began.elapsed() >= s) {
                break;
            }
        }
    }

    fn read(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            self.mine.errors += 1;
            return;
        };
        self.mine.dirs += 1;
        for entry in entries {
            let Ok(entry) = entry else {
                self.mine.errors += 1;
                continue;
            };
            // read_dir gives the type from the directory entry where the
            // file system stores it, without a stat.
            match entry.file_type() {
                Ok(t) if t.is_dir() => self.queue.push_back(entry.path()),
                Ok(_) => self.file(&entry),
                Err(_) => self.mine.errors += 1,
            }
        }
    }

    fn file(&mut self, entry: &std::fs::DirEntry) {
        self.mine.scanned += 1;
        if !glob(&self.pattern, entry.file_name().as_encoded_bytes()) {
            return;
        }
        if self.spec.newer_than.is_none() && self.spec.size.is_none() {
            self.mine.found += 1;
            return;
        }
        self.mine.checked += 1;
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            self.mine.errors += 1;
            return;
        };
        let size_ok = self.spec.size.is_none_or(|s| meta.len() == s);
        let changed = SystemTime::UNIX_EPOCH
            + Duration::new(meta.ctime().max(0) as u64, meta.ctime_nsec().max(0) as u32);
        let newer_ok = self.spec.newer_than.is_none_or(|t| changed >= t);
        if size_ok && newer_ok {
            self.mine.found += 1;
        }
    }

    /// The tasks count what is left and, when some are idle while others
    /// wait on several directories, deal every queue out again. Returns
    /// whether any work is left.
    fn round(&mut self, comm: &dyn Comm) -> Result<bool> {
        if comm.size() == 1 {
            return Ok(!self.queue.is_empty());
        }
        let began = Instant::now();
        self.mine.rounds += 1;
        let len = self.queue.len() as u64;
        let mut total = [len];
        comm.all_reduce_u64(&mut total, ReduceOp::Sum)?;
        let mut least = [len];
        comm.all_reduce_u64(&mut least, ReduceOp::Min)?;
        if total[0] > 1 && least[0] == 0 {
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
        let bytes = serde_json::to_vec(&mine).map_err(|e| Error::Comm(e.to_string()))?;
        let all = comm.gather(0, &bytes)?;
        let mut hands: Vec<Vec<String>> = vec![Vec::new(); comm.size()];
        if comm.rank() == 0 {
            let every = all
                .iter()
                .filter_map(|b| serde_json::from_slice::<Vec<String>>(b).ok());
            for (i, dir) in every.flatten().enumerate() {
                hands[i % comm.size()].push(dir);
            }
        }
        let hands: Vec<Vec<String>> = broadcast_value(comm, 0, &hands)?;
        let dealt = &hands[comm.rank()];
        self.mine.received += dealt.len() as u64;
        self.queue.extend(dealt.iter().map(PathBuf::from));
        Ok(())
    }
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
