//! Which node each task runs on.
//!
//! Engines find nodes by grouping tasks that share memory (threads: all on one
//! node; MPI: `MPI_COMM_TYPE_SHARED`). `IOR_FAKE_NODES` and
//! `IOR_FAKE_TASK_PER_NODES` pretend a topology so that multi-node behaviour is
//! testable on one machine; pario also accepts a comma list of per-node task
//! counts in `IOR_FAKE_TASK_PER_NODES` (uneven nodes) and
//! `PARIO_FAKE_PLACEMENT=cyclic` (ranks dealt round-robin over nodes).

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Topology {
    node_of: Vec<usize>,
    num_nodes: usize,
}

impl Topology {
    /// All tasks on one node.
    pub fn single_node(size: usize) -> Topology {
        Topology {
            node_of: vec![0; size],
            num_nodes: 1,
        }
    }

    /// From any per-rank node key (host name, shared-memory group leader...):
    /// nodes are numbered in order of first appearance.
    pub fn from_keys<K: PartialEq>(keys: &[K]) -> Topology {
        let mut seen: Vec<&K> = Vec::new();
        let node_of = keys
            .iter()
            .map(|k| match seen.iter().position(|s| *s == k) {
                Some(i) => i,
                None => {
                    seen.push(k);
                    seen.len() - 1
                }
            })
            .collect();
        Topology {
            node_of,
            num_nodes: seen.len(),
        }
    }

    /// Contiguous ranks per node: node `n` holds `counts[n]` ranks.
    pub fn block(counts: &[usize]) -> Topology {
        let node_of = counts
            .iter()
            .enumerate()
            .flat_map(|(n, &c)| std::iter::repeat_n(n, c))
            .collect();
        Topology::from_node_of(node_of)
    }

    /// Ranks dealt round-robin over nodes with the given capacities.
    pub fn cyclic(counts: &[usize]) -> Topology {
        let mut left = counts.to_vec();
        let total: usize = counts.iter().sum();
        let mut node_of = Vec::with_capacity(total);
        let mut n = 0;
        while node_of.len() < total {
            if left[n] > 0 {
                left[n] -= 1;
                node_of.push(n);
            }
            n = (n + 1) % counts.len();
        }
        Topology::from_node_of(node_of)
    }

    fn from_node_of(node_of: Vec<usize>) -> Topology {
        Topology::from_keys(&node_of)
    }

    pub fn size(&self) -> usize {
        self.node_of.len()
    }

    pub fn num_nodes(&self) -> usize {
        self.num_nodes
    }

    pub fn node_of(&self, rank: usize) -> usize {
        self.node_of[rank]
    }

    /// The ranks on a node, in rank order.
    pub fn ranks_on(&self, node: usize) -> Vec<usize> {
        (0..self.size())
            .filter(|&r| self.node_of[r] == node)
            .collect()
    }

    /// IOR's "clients per node": the tasks on the node of rank 0.
    pub fn tasks_per_node(&self) -> usize {
        if self.node_of.is_empty() {
            return 0;
        }
        let node0 = self.node_of[0];
        self.node_of.iter().filter(|&&n| n == node0).count()
    }

    /// Whether each node holds a contiguous run of ranks.
    pub fn is_block_mapped(&self) -> bool {
        self.node_of
            .windows(2)
            .all(|w| w[1] == w[0] || w[1] == w[0] + 1)
    }

    /// The topology of the first `n` ranks (for `-N` smaller than the job).
    pub fn first(&self, n: usize) -> Topology {
        Topology::from_node_of(self.node_of[..n.min(self.size())].to_vec())
    }

    /// The topology of the given ranks (in their order), nodes renumbered in
    /// order of first appearance: the topology of a sub-communicator.
    pub fn of_ranks(&self, ranks: &[usize]) -> Topology {
        Topology::from_node_of(ranks.iter().map(|&r| self.node_of[r]).collect())
    }

    /// Applies `IOR_FAKE_NODES`, `IOR_FAKE_TASK_PER_NODES` and
    /// `PARIO_FAKE_PLACEMENT` from the environment, if set.
    pub fn fake_from_env(size: usize) -> Result<Option<Topology>, String> {
        let nodes = std::env::var("IOR_FAKE_NODES").ok();
        let per_node = std::env::var("IOR_FAKE_TASK_PER_NODES").ok();
        let placement = std::env::var("PARIO_FAKE_PLACEMENT").ok();
        Topology::fake(
            size,
            nodes.as_deref(),
            per_node.as_deref(),
            placement.as_deref(),
        )
    }

    /// The fake topology for these settings (see [`Topology::fake_from_env`]).
    pub fn fake(
        size: usize,
        nodes: Option<&str>,
        per_node: Option<&str>,
        placement: Option<&str>,
    ) -> Result<Option<Topology>, String> {
        if nodes.is_none() && per_node.is_none() {
            return Ok(None);
        }
        let parse = |name: &str, v: &str| -> Result<usize, String> {
            v.trim()
                .parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("{name}={v}: expected a positive number"))
        };
        let counts: Vec<usize> = match (nodes, per_node) {
            (_, Some(list)) if list.contains(',') => list
                .split(',')
                .map(|v| parse("IOR_FAKE_TASK_PER_NODES", v))
                .collect::<Result<_, _>>()?,
            (Some(n), Some(t)) => {
                vec![parse("IOR_FAKE_TASK_PER_NODES", t)?; parse("IOR_FAKE_NODES", n)?]
            }
            (Some(n), None) => {
                let n = parse("IOR_FAKE_NODES", n)?;
                let per = size.div_ceil(n);
                (0..n)
                    .map(|i| per.min(size.saturating_sub(i * per)))
                    .collect()
            }
            (None, Some(t)) => {
                let t = parse("IOR_FAKE_TASK_PER_NODES", t)?;
                let n = size.div_ceil(t);
                (0..n).map(|i| t.min(size - i * t)).collect()
            }
            (None, None) => unreachable!(),
        };
        if let Some(n) = nodes {
            if parse("IOR_FAKE_NODES", n)? != counts.len() {
                return Err(format!(
                    "IOR_FAKE_NODES={n} does not match IOR_FAKE_TASK_PER_NODES, which lists {} nodes",
                    counts.len()
                ));
            }
        }
        let total: usize = counts.iter().sum();
        if total != size || counts.contains(&0) {
            return Err(format!(
                "the fake topology ({} tasks on {} nodes) does not match the {size} tasks running",
                total,
                counts.len()
            ));
        }
        match placement.map(str::to_ascii_lowercase).as_deref() {
            None | Some("block") => Ok(Some(Topology::block(&counts))),
            Some("cyclic") => Ok(Some(Topology::cyclic(&counts))),
            Some(other) => Err(format!(
                "PARIO_FAKE_PLACEMENT={other}: expected block or cyclic"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_and_cyclic_placements() {
        let b = Topology::block(&[3, 5]);
        assert_eq!(
            (0..8).map(|r| b.node_of(r)).collect::<Vec<_>>(),
            [0, 0, 0, 1, 1, 1, 1, 1]
        );
        assert_eq!(b.tasks_per_node(), 3);
        assert!(b.is_block_mapped());
        let c = Topology::cyclic(&[2, 2, 2]);
        assert_eq!(
            (0..6).map(|r| c.node_of(r)).collect::<Vec<_>>(),
            [0, 1, 2, 0, 1, 2]
        );
        assert!(!c.is_block_mapped());
        assert_eq!(c.ranks_on(1), vec![1, 4]);
    }

    #[test]
    fn fake_topologies() {
        let t = Topology::fake(12, Some("3"), Some("4"), None)
            .unwrap()
            .unwrap();
        assert_eq!(t.num_nodes(), 3);
        assert_eq!(t.ranks_on(2), vec![8, 9, 10, 11]);
        let u = Topology::fake(8, None, Some("3,5"), None).unwrap().unwrap();
        assert_eq!(u.ranks_on(1), vec![3, 4, 5, 6, 7]);
        let c = Topology::fake(6, Some("2"), None, Some("cyclic"))
            .unwrap()
            .unwrap();
        assert_eq!(c.ranks_on(0), vec![0, 2, 4]);
        assert!(Topology::fake(7, Some("2"), Some("4"), None)
            .unwrap_err()
            .contains("does not match"));
        assert!(Topology::fake(4, Some("x"), None, None)
            .unwrap_err()
            .contains("IOR_FAKE_NODES=x"));
        assert_eq!(Topology::fake(4, None, None, None), Ok(None));
    }

    #[test]
    fn keys_group_ranks() {
        let t = Topology::from_keys(&["b", "a", "b", "c"]);
        assert_eq!(t.num_nodes(), 3);
        assert_eq!(t.ranks_on(0), vec![0, 2]);
        assert_eq!(t.first(2).num_nodes(), 2);
    }
}
