//! DUMMY: no I/O at all. Measures the tool's own overhead, and with
//! `--dummy.delay-*` stands in for a storage system of known speed in tests.

use std::ffi::CStr;
use std::io;
use std::time::Duration;

use super::namespace::{Namespace, NoNamespace};
use super::{
    Backend, BackendInfo, BatchResult, Capabilities, Config, Context, CreateSpec, File,
    ModuleOption, OpenSpec, Piece, Settings, Status,
};

pub const INFO: BackendInfo = BackendInfo {
    name: "DUMMY",
    capabilities: Capabilities {
        collective: false,
        metadata: true,
        stores_data: false,
        posix_namespace: false,
    },
    options: &[
        ModuleOption {
            name: "dummy.delay-create",
            flag: false,
            default: "0",
            help: "Delay per create in usec",
        },
        ModuleOption {
            name: "dummy.delay-close",
            flag: false,
            default: "0",
            help: "Delay per close in usec",
        },
        ModuleOption {
            name: "dummy.delay-sync",
            flag: false,
            default: "0",
            help: "Delay for sync in usec",
        },
        ModuleOption {
            name: "dummy.delay-xfer",
            flag: false,
            default: "0",
            help: "Delay per xfer in usec",
        },
        ModuleOption {
            name: "dummy.delay-only-rank0",
            flag: true,
            default: "",
            help: "Delay only Rank0",
        },
    ],
    configure,
};

fn configure(settings: &Settings<'_>) -> Result<Box<dyn Config>, String> {
    let usec = |name: &str| settings.number(name).map(Duration::from_micros);
    Ok(Box::new(Dummy {
        delays: Delays {
            create: usec("dummy.delay-create")?,
            close: usec("dummy.delay-close")?,
            sync: usec("dummy.delay-sync")?,
            xfer: usec("dummy.delay-xfer")?,
        },
        only_rank0: settings.flag("dummy.delay-only-rank0")?,
    }))
}

/// DUMMY is its own configuration: its delays.
impl Config for Dummy {
    fn build(&self, _: &Context<'_>) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(Dummy { ..*self }))
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Delays {
    pub create: Duration,
    pub close: Duration,
    pub sync: Duration,
    pub xfer: Duration,
}

#[derive(Debug, Clone, Copy)]
pub struct Dummy {
    delays: Delays,
    only_rank0: bool,
}

impl Dummy {
    /// The delays that apply to a task (`--dummy.delay-only-rank0`).
    fn delays_for(&self, rank: usize) -> Delays {
        if self.only_rank0 && rank != 0 {
            Delays::default()
        } else {
            self.delays
        }
    }
}

struct DummyFile {
    delays: Delays,
}

fn pause(d: Duration) {
    if !d.is_zero() {
        // A signal ends the delay: the run stops at its next check.
        crate::signals::sleep(d);
    }
}

impl Backend for Dummy {
    fn name(&self) -> &'static str {
        "DUMMY"
    }

    fn open(&self, _path: &CStr, spec: &OpenSpec) -> io::Result<Box<dyn File>> {
        let delays = self.delays_for(spec.rank);
        if spec.create {
            pause(delays.create);
        }
        Ok(Box::new(DummyFile { delays }))
    }

    fn remove(&self, _path: &CStr) -> io::Result<()> {
        Ok(())
    }

    fn namespace(&self) -> &dyn Namespace {
        &NoNamespace
    }

    fn create(&self, _path: &CStr, spec: &CreateSpec) -> io::Result<Box<dyn File>> {
        let delays = self.delays_for(spec.rank);
        pause(delays.create);
        Ok(Box::new(DummyFile { delays }))
    }

    fn stat(&self, _path: &CStr) -> io::Result<Status> {
        Ok(Status {
            size: 0,
            is_dir: false,
        })
    }

    fn rename(&self, _from: &CStr, _to: &CStr) -> io::Result<()> {
        Ok(())
    }

    fn mknod(&self, _path: &CStr) -> io::Result<()> {
        Ok(())
    }

    fn sync_fs(&self, _path: &CStr) -> io::Result<()> {
        pause(self.delays.sync);
        Ok(())
    }
}

impl File for DummyFile {
    #[inline]
    fn write_at(&mut self, buf: &[u8], _offset: u64) -> io::Result<usize> {
        pause(self.delays.xfer);
        Ok(buf.len())
    }

    #[inline]
    fn read_at(&mut self, buf: &mut [u8], _offset: u64) -> io::Result<usize> {
        pause(self.delays.xfer);
        Ok(buf.len())
    }

    fn sync(&mut self) -> io::Result<()> {
        pause(self.delays.sync);
        Ok(())
    }

    /// Nothing to move: a batch costs one call, and each piece its delay.
    #[inline]
    fn transfer_batch(
        &mut self,
        _write_buf: &[u8],
        _read_buf: &mut [u8],
        pieces: &[Piece],
        _reads: u64,
    ) -> Option<BatchResult> {
        if !self.delays.xfer.is_zero() {
            pieces.iter().for_each(|_| pause(self.delays.xfer));
        }
        Some(Ok(()))
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        pause(self.delays.close);
        Ok(())
    }
}
