//! AIO: IOR's asynchronous backend, built on io_uring instead of libaio.
//! Files are opened as POSIX opens them (`--posix.odirect` applies); their
//! transfers go through a ring with up to `--aio.max-pending` requests in
//! flight, submitted in batches of `--aio.granularity`. Everything else
//! (mdtest's and md-workbench's metadata calls, sync, close) is POSIX's.

use std::ffi::CStr;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;

use super::namespace::{Namespace, PosixNamespace};
use super::posix::{self, open_test_file, Posix, PosixOptions, DIRECT_ALIGNMENT};
use super::ring::{self, Completion, Extras, Ring};
use super::{
    Access, Backend, BackendInfo, Capabilities, Config, Context, CreateSpec, File, OpenSpec, Queue,
    Status, Typed,
};
use crate::options::{long_flag, long_value, on, parsed, OptSpec};
use crate::units::parse_count;

/// Interposers that reach a program through the C library (their library
/// names, lower case): io_uring's transfers pass them by.
const INTERPOSERS: [&str; 5] = ["pil4dfs", "ioil", "darshan", "gkfs", "unifyfs"];

/// The advice for an AIO run under `LD_PRELOAD` (`preload`) naming a file
/// system or profiler that works through the C library: it sees the opens
/// and closes, not the transfers.
pub fn unseen_by_preload(preload: Option<&str>) -> Option<String> {
    let preload = preload?;
    let lower = preload.to_ascii_lowercase();
    let tool = INTERPOSERS.into_iter().find(|t| lower.contains(t))?;
    Some(format!(
        "WARNING: -a AIO submits its transfers through io_uring, which {tool} \
         (LD_PRELOAD={preload}) does not see; use -a POSIX to measure through it"
    ))
}

pub const INFO: BackendInfo = BackendInfo {
    name: "AIO",
    capabilities: Capabilities {
        collective: false,
        metadata: true,
        stores_data: true,
        posix_namespace: true,
    },
    options: &Typed {
        table: options,
        configure,
    },
};

/// AIO's options: POSIX's (its files are opened as POSIX opens them) and
/// the ring's.
#[derive(Debug, Clone, Copy)]
pub struct AioOptions {
    pub posix: PosixOptions,
    /// Requests in flight at most.
    pub max_pending: usize,
    /// Requests submitted together.
    pub granularity: usize,
    pub fixed_buffers: bool,
    pub fixed_files: bool,
    /// Milliseconds a submission-polling kernel thread idles; 0: none.
    pub sqpoll: u64,
    pub iopoll: bool,
}

impl Default for AioOptions {
    fn default() -> Self {
        AioOptions {
            posix: PosixOptions::default(),
            max_pending: 128,
            granularity: 16,
            fixed_buffers: false,
            fixed_files: false,
            sqpoll: 0,
            iopoll: false,
        }
    }
}

/// io_uring's limit on a ring's entries.
const MOST_PENDING: usize = 32768;

/// `--aio.max-pending`: IOR asks for 8 or more; pario also takes 1 to 7
/// (queue depth 1 is how the ring's own cost is measured against POSIX).
fn depth(value: &str) -> Result<usize, String> {
    match parse_count(value)? as usize {
        0 => Err("at least 1".into()),
        n if n > MOST_PENDING => Err(format!("at most {MOST_PENDING} (io_uring's limit)")),
        n => Ok(n),
    }
}

/// AIO's module options, POSIX's first.
fn options() -> Vec<OptSpec<AioOptions>> {
    let own: Vec<OptSpec<AioOptions>> = vec![
        long_value(
            &["aio.max-pending"],
            "Requests in flight at most (the queue depth), 1 or more",
            parsed(|o| &mut o.max_pending, depth),
        ),
        long_value(
            &["aio.granularity"],
            "Requests submitted together, at most max-pending",
            parsed(|o| &mut o.granularity, |v| Ok(parse_count(v)? as usize)),
        ),
        long_flag(
            &["aio.fixed-buffers"],
            "pario: register the buffers with io_uring once (pinned; fixed reads and writes)",
            on(|o| &mut o.fixed_buffers),
        ),
        long_flag(
            &["aio.fixed-files"],
            "pario: register each file with io_uring once",
            on(|o| &mut o.fixed_files),
        ),
        long_value(
            &["aio.sqpoll"],
            "pario: a kernel thread polls the submissions, idle after this many ms (0: off)",
            parsed(|o| &mut o.sqpoll, parse_count),
        ),
        long_flag(
            &["aio.iopoll"],
            "pario: busy-poll completions (needs --posix.odirect and a device with poll queues)",
            on(|o| &mut o.iopoll),
        ),
    ];
    let posix = posix::options().into_iter();
    let posix = posix.map(|s| s.lifted(|o: &mut AioOptions| &mut o.posix));
    posix.chain(own).collect()
}

/// AIO's options, checked.
#[derive(Debug)]
struct AioConfig {
    direct: bool,
    max_pending: usize,
    granularity: usize,
    extras: Extras,
}

fn configure(o: AioOptions) -> Result<Box<dyn Config>, String> {
    let (max_pending, granularity) = (o.max_pending, o.granularity);
    if granularity == 0 || granularity > max_pending {
        return Err(format!(
            "--aio.granularity={granularity}: from 1 to max-pending ({max_pending})"
        ));
    }
    let direct = o.posix.odirect;
    let extras = Extras {
        fixed_buffers: o.fixed_buffers,
        fixed_file: o.fixed_files,
        sqpoll_ms: (o.sqpoll > 0).then_some(o.sqpoll.min(u64::from(u32::MAX)) as u32),
        iopoll: o.iopoll,
    };
    if extras.iopoll && !direct {
        return Err(
            "--aio.iopoll needs --posix.odirect (polled completions are for direct I/O)".into(),
        );
    }
    Ok(Box::new(AioConfig {
        direct,
        max_pending,
        granularity,
        extras,
    }))
}

impl Config for AioConfig {
    fn alignment(&self) -> Option<u64> {
        self.direct.then_some(DIRECT_ALIGNMENT)
    }

    fn build(&self, _: &Context<'_>) -> Result<Box<dyn Backend>, String> {
        ring::probe()?;
        Ok(Box::new(Aio {
            posix: Posix::new(self.direct),
            direct: self.direct,
            max_pending: self.max_pending,
            granularity: self.granularity,
            extras: self.extras,
        }))
    }
}

pub struct Aio {
    posix: Posix,
    direct: bool,
    max_pending: usize,
    granularity: usize,
    extras: Extras,
}

/// A file with its ring. The ring comes first: dropped first, it waits for
/// its requests before the descriptor closes.
struct AioFile {
    ring: Option<Ring>,
    depth: usize,
    granularity: usize,
    extras: Extras,
    file: std::fs::File,
}

impl Backend for Aio {
    fn name(&self) -> &'static str {
        "AIO"
    }

    fn version(&self) -> String {
        "io_uring".into()
    }

    fn open(&self, path: &CStr, spec: &OpenSpec) -> io::Result<Box<dyn File>> {
        let fd = open_test_file(path, spec, self.direct)?;
        Ok(Box::new(AioFile {
            ring: None,
            depth: self.max_pending,
            granularity: self.granularity,
            extras: self.extras,
            file: std::fs::File::from(fd),
        }))
    }

    fn remove(&self, path: &CStr) -> io::Result<()> {
        self.posix.remove(path)
    }

    fn namespace(&self) -> &dyn Namespace {
        &PosixNamespace
    }

    fn create(&self, path: &CStr, spec: &CreateSpec) -> io::Result<Box<dyn File>> {
        self.posix.create(path, spec)
    }

    fn create_empty(&self, path: &CStr, spec: &CreateSpec) -> io::Result<()> {
        self.posix.create_empty(path, spec)
    }

    fn open_read_close(&self, path: &CStr, buf: &mut [u8], rank: usize) -> io::Result<()> {
        self.posix.open_read_close(path, buf, rank)
    }

    fn stat(&self, path: &CStr) -> io::Result<Status> {
        self.posix.stat(path)
    }

    fn rename(&self, from: &CStr, to: &CStr) -> io::Result<()> {
        self.posix.rename(from, to)
    }

    fn mknod(&self, path: &CStr) -> io::Result<()> {
        self.posix.mknod(path)
    }

    fn sync_fs(&self, path: &CStr) -> io::Result<()> {
        self.posix.sync_fs(path)
    }
}

impl AioFile {
    /// Waits for the requests in flight; the first failure among them.
    fn settle(&mut self) -> io::Result<()> {
        let Some(ring) = self.ring.as_mut() else {
            return Ok(());
        };
        match ring.drain()?.into_iter().find_map(|c| c.result.err()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl File for AioFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        self.settle()?;
        self.file.write_at(buf, offset)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.settle()?;
        self.file.read_at(buf, offset)
    }

    fn write_vectored_at(&mut self, bufs: &[io::IoSlice<'_>], offset: u64) -> io::Result<usize> {
        self.settle()?;
        posix::gathered_write(&self.file, bufs, offset)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.settle()?;
        self.file.sync_all()
    }

    fn close(mut self: Box<Self>) -> io::Result<()> {
        self.settle()
    }

    fn queue(&mut self, len: usize) -> Option<io::Result<&mut dyn Queue>> {
        if self.ring.as_ref().is_none_or(|r| r.buffer_len() < len) {
            if let Err(e) = self.settle() {
                return Some(Err(e));
            }
            self.ring = None;
            let fd = self.file.as_raw_fd();
            match Ring::new(fd, self.depth, self.granularity, len, self.extras) {
                Ok(r) => self.ring = Some(r),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(self))
    }
}

impl Queue for AioFile {
    fn depth(&self) -> usize {
        self.depth
    }

    fn in_flight(&self) -> usize {
        self.ring.as_ref().map_or(0, Ring::in_flight)
    }

    fn buffer(&mut self, slot: usize) -> &mut [u8] {
        self.ring.as_mut().expect("a ring").buffer(slot)
    }

    fn submit(
        &mut self,
        access: Access,
        slot: usize,
        start: usize,
        len: usize,
        offset: u64,
    ) -> io::Result<()> {
        let ring = self.ring.as_mut().expect("a ring");
        ring.submit(access, slot, start, len, offset)
    }

    fn reap(&mut self, done: &mut Vec<Completion>) -> io::Result<()> {
        self.ring.as_mut().expect("a ring").reap(done)
    }
}
