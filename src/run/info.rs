//! What every report opens with: versions, dates, the machine and the scale
//! of the run.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::backend::Backend;
use crate::comm::Comm;
use crate::launcher::{self, Job};
use crate::run::system::System;

/// The version IOR parsers see: IOR's format version plus pario's own.
pub fn version() -> String {
    format!("4.1.0+pario-{}", env!("CARGO_PKG_VERSION"))
}

/// `Sat Nov 21 11:41:30 2026`, as C's `ctime`.
pub fn now_string() -> String {
    chrono::Local::now()
        .format("%a %b %e %H:%M:%S %Y")
        .to_string()
}

/// md-workbench's and IO500's stamps: `2026-11-21 11:41:30`.
pub fn local_time() -> String {
    chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string()
}

/// mdtest's start and end stamps: `11/21/2026 11:41:30`.
pub fn timestamp() -> String {
    chrono::Local::now().format("%m/%d/%Y %H:%M:%S").to_string()
}

/// `Linux vm` (with the kernel release and machine at higher verbosity).
pub fn machine(verbose: u32) -> String {
    let u = rustix::system::uname();
    let name = format!(
        "{} {}",
        u.sysname().to_string_lossy(),
        u.nodename().to_string_lossy()
    );
    if verbose >= 2 {
        format!(
            "{name} {} {} {}",
            u.release().to_string_lossy(),
            u.version().to_string_lossy(),
            u.machine().to_string_lossy()
        )
    } else {
        name
    }
}

/// What the documents of IOR's tools (ior, mdtest) open with, in IOR's
/// words: the version, when it began, the command line and the machine,
/// then pario's own section. md-workbench and io500 have their own words
/// for some of these (`args`, `started`) and write them as their tools do.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunHeader {
    #[serde(rename = "Version")]
    pub version: String,
    #[serde(rename = "Began")]
    pub began: String,
    #[serde(rename = "Command line")]
    pub command_line: String,
    #[serde(rename = "Machine")]
    pub machine: String,
    pub pario: ParioInfo,
}

impl RunHeader {
    /// A run of `command_line` beginning now on this task's machine
    /// (`verbose` >= 2: with its kernel), began as `began` says.
    pub fn now(comm: &dyn Comm, command_line: &str, verbose: u32, began: String) -> RunHeader {
        RunHeader {
            version: version(),
            began,
            command_line: command_line.to_string(),
            machine: machine(verbose),
            pario: ParioInfo::of(comm),
        }
    }
}

/// Tool, engine and scale of a run (pario's own section of every report).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ParioInfo {
    pub version: String,
    pub engine: String,
    pub tasks: usize,
    pub nodes: usize,
    /// The MPI library and its version, under the MPI engine.
    #[serde(rename = "mpiLibrary", skip_serializing_if = "Option::is_none")]
    pub mpi_library: Option<String>,
    /// The launcher and Slurm job, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<Job>,
    /// An object store's API and client (S3: library, layout, addressing,
    /// requests in flight, endpoint), where a file system would have its
    /// `FS:` line. Never a secret.
    #[serde(rename = "objectStore", skip_serializing_if = "Option::is_none")]
    pub object_store: Option<String>,
    /// Where it ran: the client nodes (names, CPU, memory, kernel), the
    /// data's file system or object store, the MPI library, pario's
    /// build. Results written before pario recorded it have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<System>,
}

impl ParioInfo {
    /// This build, and the engine and scale `comm` runs on.
    pub fn of(comm: &dyn Comm) -> ParioInfo {
        ParioInfo {
            version: env!("CARGO_PKG_VERSION").to_string(),
            engine: comm.engine().to_string(),
            tasks: comm.size(),
            nodes: comm.topology().num_nodes(),
            mpi_library: comm.library(),
            job: launcher::job(),
            object_store: None,
            system: None,
        }
    }

    /// Gathers the system the run is on (a collective, outside any timed
    /// phase), unless a driver (io500, `pario concurrent`) runs the tool
    /// and records the system once for all of its phases. `data`: where
    /// the run keeps its data, when it is on a file system.
    pub fn gather_system(&mut self, comm: &dyn Comm, driven: bool, data: Option<&Path>) {
        if !driven {
            self.system = System::of_run(comm, data);
        }
    }

    /// Names the object store `backend` reaches, if it is one.
    pub fn set_backend(&mut self, backend: &dyn Backend) {
        let store = backend
            .object_client()
            .map(|client| format!("{} ({client})", backend.name()));
        self.set_object_store(store);
    }

    /// The data went to `store` (an object store), if there is one.
    pub fn set_object_store(&mut self, store: Option<String>) {
        if let (Some(system), Some(store)) = (&mut self.system, &store) {
            system.in_object_store(store.clone());
        }
        self.object_store = store;
    }

    /// The header lines of mdtest and md-workbench that IOR's tools lack:
    /// the MPI library, the launcher, the object store.
    pub fn header_lines(&self) -> String {
        let mut t = String::new();
        if let Some(library) = &self.mpi_library {
            t.push_str(&format!("MPI library: {library}\n"));
        }
        if let Some(job) = &self.job {
            t.push_str(&format!("Launched by: {}\n", job.describe()));
        }
        if let Some(store) = &self.object_store {
            t.push_str(&format!("Object store: {store}\n"));
        }
        t
    }
}

/// `1` per task on the same node as task 0, `0` otherwise (the `Nodemap:`
/// line of mdtest and md-workbench).
pub fn nodemap(topology: &crate::comm::Topology) -> String {
    let node0 = topology.node_of(0);
    (0..topology.size())
        .map(|r| {
            if topology.node_of(r) == node0 {
                '1'
            } else {
                '0'
            }
        })
        .collect()
}
