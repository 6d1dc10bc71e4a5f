//! A pario process the test signals while it runs: its output goes to files
//! (no pipe can fill and stall it), and every wait has a generous bound so a
//! broken stop fails the test instead of hanging it. The bounds are safety
//! nets, not measurements: nothing asserts how fast anything is.
#![allow(dead_code)]

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use rustix::process::{kill_process, Pid, Signal};
use tempfile::TempDir;

/// How long a test waits for anything before it gives up.
const BOUND: Duration = Duration::from_secs(120);

pub struct Running {
    child: Child,
    /// Holds stdout and stderr.
    logs: TempDir,
}

/// The end of a signalled run.
#[derive(Debug)]
pub struct Ended {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Running {
    /// Starts `cmd`; its output goes to files outside any scratch directory.
    /// An `mpirun` gets a session directory of its own there (mpiruns
    /// started together race on the shared one).
    pub fn start(mut cmd: Command) -> Running {
        let logs = tempfile::tempdir().unwrap();
        let out = File::create(logs.path().join("stdout")).unwrap();
        let err = File::create(logs.path().join("stderr")).unwrap();
        cmd.env("OMPI_MCA_orte_tmpdir_base", logs.path());
        let child = cmd.stdout(out).stderr(err).spawn().expect("start");
        Running { child, logs }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits until `ready` holds (the run reached the point to signal).
    pub fn wait_until(&mut self, what: &str, ready: impl Fn() -> bool) {
        let start = Instant::now();
        while !ready() {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("ended ({status}) before {what}:\n{}", self.output());
            }
            if start.elapsed() > BOUND {
                self.kill();
                panic!("never reached {what}:\n{}", self.output());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Whether the process ends within `limit` (it is left running if not).
    pub fn wait_for(&mut self, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    pub fn signal(&self, sig: Signal) {
        signal_pid(self.pid(), sig);
    }

    /// Waits for the end (killing the process if it does not come).
    pub fn ended(mut self) -> Ended {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > BOUND {
                self.kill();
                panic!("did not stop:\n{}", self.output());
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        Ended {
            status: status.code(),
            stdout: self.read("stdout"),
            stderr: self.read("stderr"),
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The file that takes the process's stdout (to wait for a line).
    pub fn stdout_path(&self) -> PathBuf {
        self.logs.path().join("stdout")
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.logs.path().join(name)).unwrap_or_default()
    }

    fn output(&self) -> String {
        format!(
            "stdout:\n{}\nstderr:\n{}",
            self.read("stdout"),
            self.read("stderr")
        )
    }
}

pub fn signal_pid(pid: u32, sig: Signal) {
    let pid = Pid::from_raw(pid as i32).unwrap();
    kill_process(pid, sig).expect("send the signal");
}

/// A scratch directory on tmpfs (fast, and small runs stay small) holding a
/// user's file that no run may touch.
pub fn scratch_with_user_file() -> TempDir {
    let dir = super::scratch("pario-signals");
    std::fs::write(dir.path().join("user.txt"), "not pario's").unwrap();
    dir
}

/// Whether any entry under `dir` (recursively) has a name starting with
/// `prefix`.
pub fn holds(dir: &Path, prefix: &str) -> bool {
    let Ok(read) = std::fs::read_dir(dir) else {
        return false;
    };
    read.flatten().any(|e| {
        let path: PathBuf = e.path();
        e.file_name().to_string_lossy().starts_with(prefix)
            || (path.is_dir() && holds(&path, prefix))
    })
}

/// A FIFO a run writes a document into, held open for reading but not read:
/// a document larger than the pipe holds stops its writer until the test
/// drains it, a point after every measurement where a signal can land.
pub struct Fifo {
    file: File,
}

impl Fifo {
    /// Makes the FIFO at `path` and opens it without waiting for a writer.
    pub fn make(path: &Path) -> Fifo {
        use rustix::fs::{mkfifoat, Mode, OFlags, CWD};
        mkfifoat(CWD, path, Mode::from_raw_mode(0o600)).expect("mkfifo");
        let fd = rustix::fs::open(path, OFlags::RDONLY | OFlags::NONBLOCK, Mode::empty())
            .expect("open the FIFO");
        Fifo {
            file: File::from(fd),
        }
    }

    /// Whether the writer has begun (the pipe holds data).
    pub fn written(&self) -> bool {
        rustix::io::ioctl_fionread(&self.file).unwrap_or(0) > 0
    }

    /// Reads everything until the writer closes.
    pub fn drain(self) -> Vec<u8> {
        use std::io::Read;
        let mut all = Vec::new();
        let mut file = self.file;
        let start = Instant::now();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match file.read(&mut buf) {
                Ok(0) => return all,
                Ok(n) => all.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    assert!(start.elapsed() < BOUND, "the writer never closed");
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => panic!("read the FIFO: {e}"),
            }
        }
    }
}
