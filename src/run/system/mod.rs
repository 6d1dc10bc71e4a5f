//! The system a run ran on, as far as its clients can tell: pario's build,
//! the engine and MPI library, every client node (CPU, memory, kernel,
//! network, and the file system holding the run's data as that node sees
//! it), and clearly marked blanks for what only the submitter knows (the
//! servers, the media, the vendor).
//!
//! Gathered once per run: the first task of each node describes its node
//! (files under `/proc` and `/sys`, a file system's own tools where they
//! are installed), rank 0 gathers the descriptions and groups alike nodes,
//! so a thousand identical clients are one entry naming a thousand hosts.
//! [`System`] is serialisable both ways, for any tool's result document.

pub mod host;
pub mod mounts;

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::comm::{Comm, CommError};
use host::{Cpu, IbPort, Interface};
use mounts::FileSystem;

/// What a blank the submitter fills in holds until then.
pub const FILL_IN: &str = "FILL IN";

/// The run's system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct System {
    pub pario: Build,
    /// `threads` or `MPI`.
    pub engine: String,
    /// The MPI library and its version (MPI engine only).
    pub mpi_library: Option<String>,
    pub tasks: usize,
    pub nodes: usize,
    /// The client nodes, alike ones together.
    pub clients: Vec<Clients>,
    /// Which node each task ran on (results written before have none).
    #[serde(default, skip_serializing_if = "Placement::is_empty")]
    pub placement: Placement,
    /// The object store the data went to (S3: client, addressing,
    /// endpoint; never a secret), where a file system would be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_store: Option<String>,
    /// What the clients cannot see: each field [`FILL_IN`] until the
    /// submitter writes it (io500's `system.json`; a tool's result has
    /// none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitter: Option<Submitter>,
}

/// Which node each task ran on: what per-node figures are summed by.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// Each node's host name, in the order of its first task (fake nodes
    /// on one host share its name).
    pub hosts: Vec<String>,
    /// Each task's node, in rank order: an index into `hosts`.
    pub tasks: Vec<usize>,
}

impl Placement {
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The nodes' names, told apart when hosts repeat (`vm`, `vm#2`).
    pub fn names(&self) -> Vec<String> {
        let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        self.hosts
            .iter()
            .map(|h| {
                let n = seen.entry(h.as_str()).or_default();
                *n += 1;
                match *n {
                    1 => h.clone(),
                    n => format!("{h}#{n}"),
                }
            })
            .collect()
    }

    /// A figure per node: `per_task` summed over each node's tasks (tasks
    /// beyond the placement's are left out).
    pub fn per_node(&self, per_task: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.hosts.len()];
        for (node, v) in self.tasks.iter().zip(per_task) {
            if let Some(o) = out.get_mut(*node) {
                *o += v;
            }
        }
        out
    }
}

/// pario's version and the cargo features it was built with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Build {
    pub version: String,
    pub features: Vec<String>,
}

impl Build {
    pub fn this() -> Build {
        let features = [
            ("mpi", cfg!(feature = "mpi")),
            ("hdf5", cfg!(feature = "hdf5")),
        ];
        Build {
            version: env!("CARGO_PKG_VERSION").to_string(),
            features: features
                .iter()
                .filter(|(_, on)| *on)
                .map(|(f, _)| f.to_string())
                .collect(),
        }
    }
}

/// Client nodes alike in everything below (their host names differ).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clients {
    pub hosts: Vec<String>,
    #[serde(flatten)]
    pub node: Node,
}

/// One client node as its first task sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// The run's tasks on this node.
    pub tasks: usize,
    pub cpu: Cpu,
    pub memory_bytes: u64,
    /// `uname -r` and the machine (`6.1.0-18-amd64 x86_64`).
    pub kernel: String,
    /// `/etc/os-release`'s `PRETTY_NAME`.
    pub os: Option<String>,
    /// Network interfaces but loopback.
    pub network: Vec<Interface>,
    /// InfiniBand (and RoCE, Omni-Path) ports.
    pub infiniband: Vec<IbPort>,
    /// The file system holding the run's data, when it is on one.
    pub file_system: Option<FileSystem>,
}

/// The blanks of a submission's system description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submitter {
    pub system_name: String,
    pub institution: String,
    pub storage_vendor: String,
    pub file_system_name: String,
    pub file_system_version: String,
    pub server_nodes: String,
    pub metadata_servers: String,
    pub storage_media: String,
    pub interconnect: String,
}

impl Default for Submitter {
    fn default() -> Submitter {
        let blank = || FILL_IN.to_string();
        Submitter {
            system_name: blank(),
            institution: blank(),
            storage_vendor: blank(),
            file_system_name: blank(),
            file_system_version: blank(),
            server_nodes: blank(),
            metadata_servers: blank(),
            storage_media: blank(),
            interconnect: blank(),
        }
    }
}

impl Node {
    /// This node, with `tasks` of the run's tasks, and the file system of
    /// `data` (the run's data directory; it may not exist yet).
    pub fn here(tasks: usize, data: Option<&Path>) -> Node {
        Node {
            tasks,
            cpu: host::cpu(),
            memory_bytes: host::memory_bytes(),
            kernel: host::kernel(),
            os: host::os(),
            network: host::interfaces(),
            infiniband: host::infiniband(),
            file_system: data.and_then(FileSystem::of),
        }
    }
}

impl System {
    /// Gathers the system on every task (a collective); rank 0 gets it.
    /// `data` is where the run keeps its data, if on a file system.
    pub fn gather(comm: &dyn Comm, data: Option<&Path>) -> Result<Option<System>, CommError> {
        let t = comm.topology();
        let here = t.ranks_on(t.node_of(comm.rank()));
        let mine = match here.first() == Some(&comm.rank()) {
            true => serde_json::to_vec(&(host::hostname(), Node::here(here.len(), data)))
                .map_err(|e| CommError::Failed(e.to_string()))?,
            false => Vec::new(),
        };
        let all = comm.gather(0, &mine)?;
        if comm.rank() != 0 {
            return Ok(None);
        }
        let mut nodes = Vec::new();
        let mut placement = Placement {
            hosts: vec![String::new(); t.num_nodes()],
            tasks: (0..comm.size()).map(|r| t.node_of(r)).collect(),
        };
        for (rank, bytes) in all.iter().enumerate().filter(|(_, b)| !b.is_empty()) {
            let node: (String, Node) =
                serde_json::from_slice(bytes).map_err(|e| CommError::Failed(e.to_string()))?;
            if let Some(h) = placement.hosts.get_mut(t.node_of(rank)) {
                h.clone_from(&node.0);
            }
            nodes.push(node);
        }
        Ok(Some(System {
            pario: Build::this(),
            engine: comm.engine().to_string(),
            mpi_library: comm.library(),
            tasks: comm.size(),
            nodes: t.num_nodes(),
            clients: group(nodes),
            placement,
            object_store: None,
            submitter: Some(Submitter::default()),
        }))
    }

    /// The system of a tool's run, for its result document (rank 0; no
    /// submitter's blanks). A failed gather leaves it out: the run's next
    /// collective fails the same way and says why.
    pub fn of_run(comm: &dyn Comm, data: Option<&Path>) -> Option<System> {
        let mut system = System::gather(comm, data).ok()??;
        system.submitter = None;
        Some(system)
    }

    /// The data is in `store` (an object store), not on a file system.
    pub fn in_object_store(&mut self, store: String) {
        for c in &mut self.clients {
            c.node.file_system = None;
        }
        self.object_store = Some(store);
    }

    /// The clients' memory, all hosts together: fake nodes on one host
    /// (`IOR_FAKE_NODES`) share its memory, so a host counts once.
    pub fn memory_bytes(&self) -> u64 {
        let mut seen: Vec<&str> = Vec::new();
        let mut total = 0u64;
        for c in &self.clients {
            for h in &c.hosts {
                if !seen.contains(&h.as_str()) {
                    seen.push(h);
                    total = total.saturating_add(c.node.memory_bytes);
                }
            }
        }
        total
    }

    /// Every node's view of the data's file system, with its host.
    pub fn file_systems(&self) -> impl Iterator<Item = (&str, Option<&FileSystem>)> {
        self.clients.iter().flat_map(|c| {
            c.hosts
                .iter()
                .map(move |h| (h.as_str(), c.node.file_system.as_ref()))
        })
    }

    /// The blanks still to fill in, by name.
    pub fn blanks(&self) -> Vec<&'static str> {
        let Some(s) = &self.submitter else {
            return Vec::new();
        };
        [
            ("system_name", &s.system_name),
            ("institution", &s.institution),
            ("storage_vendor", &s.storage_vendor),
            ("file_system_name", &s.file_system_name),
            ("file_system_version", &s.file_system_version),
            ("server_nodes", &s.server_nodes),
            ("metadata_servers", &s.metadata_servers),
            ("storage_media", &s.storage_media),
            ("interconnect", &s.interconnect),
        ]
        .into_iter()
        .filter(|(_, v)| v.as_str() == FILL_IN)
        .map(|(k, _)| k)
        .collect()
    }

    /// The document, as `system.json` holds it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }
}

/// Nodes alike in all but their names, together, in order of first
/// appearance (rank order).
fn group(nodes: Vec<(String, Node)>) -> Vec<Clients> {
    let mut out: Vec<Clients> = Vec::new();
    for (host, node) in nodes {
        match out.iter_mut().find(|c| c.node == node) {
            Some(c) => c.hosts.push(host),
            None => out.push(Clients {
                hosts: vec![host],
                node,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::{local, Topology};

    #[test]
    fn alike_nodes_are_one_entry() {
        let node = Node::here(2, None);
        let mut other = node.clone();
        other.memory_bytes += 1;
        let groups = group(vec![
            ("a".into(), node.clone()),
            ("b".into(), other),
            ("c".into(), node),
        ]);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].hosts, ["a", "c"]);
        assert_eq!(groups[1].hosts, ["b"]);
    }

    #[test]
    fn threads_are_one_node_described_once() {
        let dir = std::env::temp_dir();
        let all = local::run(Topology::single_node(3), |comm| {
            System::gather(comm, Some(&dir)).unwrap()
        });
        let all: Vec<Option<System>> = all.into_iter().map(Result::unwrap).collect();
        let system = all[0].clone().expect("rank 0 has it");
        assert!(all[1..].iter().all(Option::is_none));
        assert_eq!((system.tasks, system.nodes), (3, 1));
        assert_eq!(system.clients.len(), 1);
        let node = &system.clients[0].node;
        assert_eq!(node.tasks, 3);
        assert!(node.memory_bytes > 0 && node.cpu.logical > 0);
        assert!(node.file_system.is_some());
        assert_eq!(system.memory_bytes(), node.memory_bytes);
        assert_eq!(system.blanks().len(), 9);
        let back: System = serde_json::from_str(&system.to_json()).unwrap();
        assert_eq!(back, system);
    }

    #[test]
    fn the_placement_names_each_tasks_node() {
        // Three tasks round robin on two (fake) nodes of this host.
        let all = local::run(Topology::cyclic(&[2, 1]), |comm| {
            System::gather(comm, None).unwrap()
        });
        let system = all.into_iter().next().unwrap().unwrap().expect("rank 0's");
        let p = &system.placement;
        assert_eq!(p.tasks, [0, 1, 0]);
        assert_eq!(p.hosts.len(), 2);
        assert_eq!(p.hosts[0], p.hosts[1]);
        let names = p.names();
        assert_eq!(names[1], format!("{}#2", names[0]));
        assert_eq!(p.per_node(&[1.0, 2.0, 4.0]), [5.0, 2.0]);
        let back: System = serde_json::from_str(&system.to_json()).unwrap();
        assert_eq!(back.placement, system.placement);
    }
}
