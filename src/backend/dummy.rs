//! DUMMY: no I/O at all. Measures the tool's own overhead, and with
//! `--dummy.delay-*` stands in for a storage system of known speed in tests.

use std::ffi::CStr;
use std::io;
use std::time::Duration;

use super::namespace::{Namespace, NoNamespace};
use super::{
    Backend, BackendInfo, BatchResult, Capabilities, Config, Context, CreateSpec, File, OpenSpec,
    Piece, Status, Typed,
};
use crate::options::{long_flag, long_value, on, parsed, OptSpec};
use crate::units::parse_size;

pub const INFO: BackendInfo = BackendInfo {
    name: "DUMMY",
    capabilities: Capabilities {
        collective: false,
        metadata: true,
        stores_data: false,
        posix_namespace: false,
    },
    options: &Typed {
        table: options,
        configure,
    },
};

/// DUMMY's options: delays in microseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct DummyOptions {
    pub delay_create: u64,
    pub delay_close: u64,
    pub delay_sync: u64,
    pub delay_xfer: u64,
    pub delay_only_rank0: bool,
}

fn options() -> Vec<OptSpec<DummyOptions>> {
    vec![
        long_value(
            &["dummy.delay-create"],
            "Delay per create in usec",
            parsed(|o| &mut o.delay_create, parse_size),
        ),
        long_value(
            &["dummy.delay-close"],
            "Delay per close in usec",
            parsed(|o| &mut o.delay_close, parse_size),
        ),
        long_value(
            &["dummy.delay-sync"],
            "Delay for sync in usec",
            parsed(|o| &mut o.delay_sync, parse_size),
        ),
        long_value(
            &["dummy.delay-xfer"],
            "Delay per xfer in usec",
            parsed(|o| &mut o.delay_xfer, parse_size),
        ),
        long_flag(
            &["dummy.delay-only-rank0"],
            "Delay only Rank0",
            on(|o| &mut o.delay_only_rank0),
        ),
    ]
}

fn configure(o: DummyOptions) -> Result<Box<dyn Config>, String> {
    Ok(Box::new(Dummy {
        delays: Delays {
            create: Duration::from_micros(o.delay_create),
            close: Duration::from_micros(o.delay_close),
            sync: Duration::from_micros(o.delay_sync),
            xfer: Duration::from_micros(o.delay_xfer),
        },
        only_rank0: o.delay_only_rank0,
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
