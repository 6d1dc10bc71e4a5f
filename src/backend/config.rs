//! What a backend declares ([`BackendInfo`]: its name, its capabilities,
//! its options) and the configuration its options make. A backend's
//! options are typed and declared once. Each backend has an options type (`PosixOptions`,
//! `AioOptions`, ...) whose `Default` holds every default, and one table of
//! [`OptSpec`]s over it, built with the constructors the tools' tables use
//! (`on`, `parsed`, ...): the table reads the text the tools' grammars kept
//! for `--posix.odirect`, `-O aio.max-pending=16`, and gives the tools'
//! help each option's name, help and default. Its `configure` checks the
//! typed options and returns a [`Config`]. A backend that takes another's
//! options (AIO takes POSIX's, the IOR S3 backends take S3's) holds the
//! other's type and lists its table lifted ([`OptSpec::lifted`]).

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;

use super::Backend;
use crate::comm::Comm;
use crate::console::TaskLines;
use crate::options::{ModuleOption, OptSpec, Setting};

/// What a backend can do, as data: the tools' checks, their help and
/// mdtest's choice of APIs follow from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// Collective transfers (`-c`): every task makes the same calls.
    pub collective: bool,
    /// The metadata calls mdtest makes (create, stat, rename, mknod, syncfs).
    pub metadata: bool,
    /// It keeps what is written, so data can be verified and cached.
    pub stores_data: bool,
    /// Its paths are names in the POSIX file system: the page cache and the
    /// file system's usage can be looked at.
    pub posix_namespace: bool,
}

/// A backend as the registry knows it.
pub struct BackendInfo {
    pub name: &'static str,
    pub capabilities: Capabilities,
    /// Its module options, typed (its table), and how they become its
    /// configuration.
    pub options: &'static dyn Module,
}

/// The capabilities of MPI-IO (known to builds without it, for messages).
pub const MPIIO_CAPABILITIES: Capabilities = Capabilities {
    collective: true,
    metadata: false,
    stores_data: true,
    posix_namespace: true,
};

/// The capabilities of HDF5 (known to builds without it, for messages).
pub const HDF5_CAPABILITIES: Capabilities = Capabilities {
    collective: true,
    metadata: false,
    stores_data: true,
    posix_namespace: true,
};

/// The module options given for a run: each option's name and its value
/// as text (a flag's count), as the tools' grammars keep them.
pub type Given = BTreeMap<String, String>;

/// `given` from pairs (for tests).
#[cfg(test)]
pub fn given(pairs: &[(&str, &str)]) -> Given {
    let pair = |(k, v): &(&str, &str)| (k.to_string(), v.to_string());
    pairs.iter().map(pair).collect()
}

/// A backend's options, whatever their type: what the registry and the
/// tools' grammars see of them.
pub trait Module: Sync {
    /// Every option it takes, in its table's order, as grammars list them.
    fn options(&self) -> Vec<ModuleOption>;
    /// Whether it takes the option `name` (matched ignoring case).
    fn takes(&self, name: &str) -> bool;
    /// Its options type, from its defaults and the options of `given` it
    /// takes (see [`Typed::read`]).
    fn read(&self, given: &Given) -> Result<Box<dyn Any>, String>;
    /// Its options read and checked: the backend's configuration.
    fn configure(&self, given: &Given) -> Result<Box<dyn Config>, String>;
}

/// A backend's options of type `O`: the table and the check.
pub struct Typed<O> {
    pub table: fn() -> Vec<OptSpec<O>>,
    /// Checks the options (their combinations, the files they name) and
    /// makes the configuration. Touches nothing.
    pub configure: fn(O) -> Result<Box<dyn Config>, String>,
}

impl<O: Default + 'static> Typed<O> {
    /// `O` from its defaults and the options of `given` it takes, each
    /// name matched ignoring case, in the table's order; a value its field
    /// refuses gives `--name=value: why`.
    pub fn read(&self, given: &Given) -> Result<O, String> {
        let mut options = O::default();
        for spec in (self.table)() {
            for (_, value) in given.iter().filter(|(name, _)| spec.takes(name)) {
                spec.set_field(&mut options, Setting::Value(value))
                    .map_err(|e| e.0)?;
            }
        }
        Ok(options)
    }
}

impl<O: Default + 'static> Module for Typed<O> {
    fn options(&self) -> Vec<ModuleOption> {
        (self.table)().iter().map(OptSpec::described).collect()
    }

    fn takes(&self, name: &str) -> bool {
        (self.table)().iter().any(|spec| spec.takes(name))
    }

    fn read(&self, given: &Given) -> Result<Box<dyn Any>, String> {
        Ok(Box::new(Typed::read(self, given)?))
    }

    fn configure(&self, given: &Given) -> Result<Box<dyn Config>, String> {
        (self.configure)(Typed::read(self, given)?)
    }
}

/// What a backend may need from the run it serves.
pub struct Context<'a> {
    pub comm: &'a dyn Comm,
    /// Whether this task takes part in the test (`-N`).
    pub active: bool,
    /// `-c`: collective transfers.
    pub collective: bool,
    /// Where the backend prints lines of its own (`--mpiio.showHints`).
    pub lines: TaskLines,
}

/// A backend's checked configuration: its module options, typed.
pub trait Config: Send + Sync + fmt::Debug {
    /// Alignment that buffers, offsets and sizes must respect (O_DIRECT).
    fn alignment(&self) -> Option<u64> {
        None
    }
    /// Whether reads are preceded by eviction from the page cache
    /// (`--posix.evict`).
    fn evicts(&self) -> bool {
        false
    }
    /// Makes the backend of a run; every task calls it (it may be collective).
    fn build(&self, context: &Context<'_>) -> Result<Box<dyn Backend>, String>;
    /// Whether a written file holds exactly the bytes written, which ior
    /// checks after a write (HDF5's files hold metadata too).
    fn exact_file_size(&self) -> bool {
        true
    }
    /// Refuses, with the line to print, what this backend cannot run (HDF5:
    /// random offsets). Touches nothing.
    fn refuse(&self, _demands: &Demands) -> Result<(), String> {
        Ok(())
    }
}

/// How a test uses its files, for the combinations a backend refuses
/// ([`Config::refuse`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Demands {
    /// Offsets in a shuffled or random order (`-z`).
    pub random_offsets: bool,
    /// Tasks share one file (no `-F`).
    pub shared_file: bool,
    /// Collective transfers (`-c`).
    pub collective: bool,
    /// A task may stop its phase early on its own (`-D` without `-c`).
    pub own_deadline: bool,
    /// The tasks are threads of one process (the local engine, more than one).
    pub threads: bool,
    /// The sizes of the test (IOR's `-t`, `-b`, `-s`).
    pub transfer: u64,
    pub block: u64,
    pub segments: u64,
    /// The tasks taking part, once they are known.
    pub tasks: Option<u64>,
    /// Whether the test writes (reads only: files made before).
    pub writes: bool,
}
