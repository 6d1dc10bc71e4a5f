//! The backends of this build: what each can do, its module options, and how
//! those options become a typed configuration before anything runs. Checking
//! ([`configure`]) is separate from construction ([`Choice::build`], which a
//! run calls on every task).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::Backend;
use crate::comm::Comm;
use crate::console::TaskLines;
use crate::options::ModuleOption;

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

/// The module options given for a run, with typed accessors.
pub struct Settings<'a> {
    pub values: &'a BTreeMap<String, String>,
}

impl Settings<'_> {
    pub fn flag(&self, name: &str) -> Result<bool, String> {
        match self.values.get(name) {
            None => Ok(false),
            Some(v) => v
                .trim()
                .parse::<i64>()
                .map(|n| n != 0)
                .map_err(|_| format!("--{name}={v}: expected 0 or 1")),
        }
    }

    pub fn number(&self, name: &str) -> Result<u64, String> {
        match self.values.get(name) {
            None => Ok(0),
            Some(v) => crate::units::parse_size(v).map_err(|e| format!("--{name}: {e}")),
        }
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

/// A backend's option check (see [`BackendInfo::configure`]).
pub type ConfigureFn = fn(&Settings<'_>) -> Result<Box<dyn Config>, String>;

/// A backend as the registry knows it.
pub struct BackendInfo {
    pub name: &'static str,
    pub capabilities: Capabilities,
    pub options: &'static [ModuleOption],
    /// Checks its module options, touching nothing.
    pub configure: ConfigureFn,
}

/// Every backend of this build.
pub fn registry() -> &'static [BackendInfo] {
    &[
        super::posix::INFO,
        super::aio::INFO,
        super::dummy::INFO,
        super::mmap::INFO,
        #[cfg(feature = "mpi")]
        super::mpiio::INFO,
        #[cfg(feature = "hdf5")]
        super::hdf5::INFO,
        super::s3::INFO,
        super::s3::LIBS3_INFO,
        super::s3::CURL_INFO,
    ]
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

/// An IOR API that a rebuild of pario adds.
struct Rebuild {
    name: &'static str,
    why: &'static str,
    feature: &'static str,
    capabilities: Capabilities,
}

/// IOR APIs that a rebuild of pario adds.
const REBUILD: &[Rebuild] = &[
    #[cfg(not(feature = "mpi"))]
    Rebuild {
        name: "MPIIO",
        why: "needs MPI: rebuild pario with '--features mpi'",
        feature: "mpi",
        capabilities: MPIIO_CAPABILITIES,
    },
    #[cfg(not(feature = "hdf5"))]
    Rebuild {
        name: "HDF5",
        why: "needs parallel HDF5: rebuild pario with '--features hdf5' \
              (Debian: libhdf5-openmpi-dev)",
        feature: "hdf5",
        capabilities: HDF5_CAPABILITIES,
    },
];

/// Other IOR APIs, which pario does not have.
const NOT_SUPPORTED: &[&str] = &[
    "NCMPI", "S3-4C", "DFS", "DAOS", "HDFS", "RADOS", "CEPHFS", "IME", "GFARM", "PMDK", "LIBNFS",
];

/// Why this build cannot run `api`.
fn missing(api: &str) -> String {
    let names: Vec<&str> = registry().iter().map(|b| b.name).collect();
    if let Some(r) = REBUILD.iter().find(|r| r.name.eq_ignore_ascii_case(api)) {
        return format!("-a {api}: this API {}", r.why);
    }
    if NOT_SUPPORTED.iter().any(|n| n.eq_ignore_ascii_case(api)) {
        return format!("-a {api}: this API is not supported by pario");
    }
    format!(
        "-a {api}: unknown API (this build has {})",
        names.join(", ")
    )
}

/// Whether `backend` takes `owner`'s module options too (AIO opens files as
/// POSIX does, so `--posix.odirect` applies to it, as in IOR; IOR's S3
/// backends run on pario's, so `--s3.*` applies to them).
fn inherits(backend: &str, owner: &str) -> bool {
    (backend == "AIO" && owner == "POSIX")
        || (matches!(backend, "S3-libs3" | "S3-curl") && owner == "S3")
}

/// The backend a module option belongs to (`posix.odirect` → POSIX).
pub fn module_of(option: &str) -> Option<&'static str> {
    registry()
        .iter()
        .find(|b| {
            b.options
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(option))
        })
        .map(|b| b.name)
}

/// The module options of every backend (for the option grammars).
pub fn all_module_options() -> impl Iterator<Item = (&'static str, &'static ModuleOption)> {
    registry()
        .iter()
        .flat_map(|b| b.options.iter().map(move |o| (b.name, o)))
}

/// The backends of this build that have what `wanted` asks for, in registry
/// order (for help texts: `POSIX|DUMMY|MMAP`).
pub fn names_with(wanted: fn(&Capabilities) -> bool) -> Vec<&'static str> {
    registry()
        .iter()
        .filter(|b| wanted(&b.capabilities))
        .map(|b| b.name)
        .collect()
}

/// Like [`names_with`], and where this build has none, the backends a
/// rebuild would add (for messages that say what to use instead).
pub fn names_able(wanted: fn(&Capabilities) -> bool) -> Vec<&'static str> {
    let built = names_with(wanted);
    if !built.is_empty() {
        return built;
    }
    REBUILD
        .iter()
        .filter(|r| wanted(&r.capabilities))
        .map(|r| r.name)
        .collect()
}

/// `A`, `A or B`, `A, B or C`.
pub fn either(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// A checked backend: which one, and its typed configuration.
#[derive(Clone)]
pub struct Choice {
    info: &'static BackendInfo,
    config: Arc<dyn Config>,
}

impl fmt::Debug for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}", self.info.name, self.config)
    }
}

impl Choice {
    pub fn name(&self) -> &'static str {
        self.info.name
    }

    pub fn capabilities(&self) -> Capabilities {
        self.info.capabilities
    }

    pub fn alignment(&self) -> Option<u64> {
        self.config.alignment()
    }

    pub fn evicts(&self) -> bool {
        self.config.evicts()
    }

    /// Makes the backend of a run; every task calls it.
    pub fn build(&self, context: &Context<'_>) -> Result<Box<dyn Backend>, String> {
        self.config
            .build(context)
            .map_err(|e| format!("-a {}: {e}", self.info.name))
    }

    pub fn exact_file_size(&self) -> bool {
        self.config.exact_file_size()
    }

    /// Refuses what the backend cannot run (see [`Config::refuse`]).
    pub fn refuse(&self, demands: &Demands) -> Result<(), String> {
        self.config.refuse(demands)
    }

    /// DUMMY with its defaults (`--dryRun`).
    pub fn dummy() -> Choice {
        configure("DUMMY", &BTreeMap::new()).expect("DUMMY's defaults are valid")
    }
}

/// Checks `api` and the module options given: every option must belong to
/// that backend and hold a valid value. Touches nothing.
pub fn configure(api: &str, options: &BTreeMap<String, String>) -> Result<Choice, String> {
    let info = registry()
        .iter()
        .find(|b| b.name.eq_ignore_ascii_case(api))
        .ok_or_else(|| missing(api))?;
    let config = (info.configure)(&Settings { values: options })
        .map_err(|e| format!("-a {}: {e}", info.name))?;
    for name in options.keys() {
        match module_of(name) {
            Some(owner) if owner == info.name || inherits(info.name, owner) => {}
            Some(owner) => {
                return Err(format!(
                    "--{name} applies to -a {owner}, not -a {}",
                    info.name
                ))
            }
            None => {
                let owner = name.split('.').next().unwrap_or(name).to_uppercase();
                let feature = REBUILD
                    .iter()
                    .find(|r| r.name == owner)
                    .map_or("mpi", |r| r.feature);
                return Err(format!(
                    "--{name} needs -a {owner}, which this build does not have (rebuild with '--features {feature}')"
                ));
            }
        }
    }
    Ok(Choice {
        info,
        config: Arc::from(config),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_decide_the_lists() {
        assert_eq!(names_with(|c| c.metadata), ["POSIX", "AIO", "DUMMY"]);
        #[cfg(not(feature = "mpi"))]
        assert_eq!(names_able(|c| c.collective), ["MPIIO", "HDF5"]);
        assert_eq!(either(&["POSIX", "DUMMY", "MMAP"]), "POSIX, DUMMY or MMAP");
        assert_eq!(either(&["POSIX"]), "POSIX");
    }

    #[test]
    fn configuration_checks_names_and_values() {
        let mut options = BTreeMap::new();
        assert_eq!(configure("posix", &options).unwrap().name(), "POSIX");
        options.insert("posix.odirect".to_string(), "1".to_string());
        assert_eq!(
            configure("POSIX", &options).unwrap().alignment(),
            Some(4096)
        );
        let e = configure("MMAP", &options).unwrap_err();
        assert_eq!(e, "--posix.odirect applies to -a POSIX, not -a MMAP");
        options.insert("posix.odirect".to_string(), "x".to_string());
        let e = configure("POSIX", &options).unwrap_err();
        assert_eq!(e, "-a POSIX: --posix.odirect=x: expected 0 or 1");
        assert!(configure("NCMPI", &BTreeMap::new())
            .unwrap_err()
            .contains("not supported by pario"));
        assert!(configure("NOPE", &BTreeMap::new())
            .unwrap_err()
            .contains("unknown API (this build has POSIX, AIO, DUMMY, MMAP"));
    }
}
