//! Whose data each task reads back (`-C`, `-Z`, `-Z -Z`, `-Q`, `-X`), so that
//! reads do not come from the page cache of the node that wrote the data.
//!
//! Every map is a permutation: each task's data is read by exactly one task
//! (IOR's `-Z` draws each reader's partner independently, so two readers can
//! share one writer: hpc/ior#500). Maps are computed from the topology and the
//! seed alone, identically on every task, with no communication.
//!
//! * `-C`: the reader at position `i` on node `n` reads the task at position
//!   `i` on node `n + Q`. With contiguous placement and equal nodes this is
//!   exactly IOR's `rank + Q·tasksPerNode`; with round-robin placement it still
//!   moves reads `Q` nodes away. Nodes with more tasks than their partner get
//!   the remaining writers, preferring nodes at least `Q` away.
//! * `-Z`: a random pairing with every writer at least `Q` nodes ahead of its
//!   reader (`Q` is capped at `nodes - 1`, as in IOR).
//! * `-Z -Z`: any random permutation.
//!
//! When the topology makes the distance impossible for some readers (one node
//! with most of the tasks), those readers get the nearest possible writer and
//! [`ReaderMap::same_node`] counts the readers left on their own node.

use crate::comm::Topology;
use crate::random::splitmix64;

/// How read-back partners are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reorder {
    /// Every task reads its own data.
    None,
    /// `-C -Q offset`.
    Constant { offset: u64 },
    /// `-Z -Q offset -X seed`.
    Random { offset: u64, seed: u64 },
    /// `-Z -Z -X seed`.
    Permutation { seed: u64 },
}

impl Reorder {
    /// The reordering for IOR's parameters in repetition `rep` (a negative
    /// `-X` asks for a new seed each repetition).
    pub fn from_params(
        reorder_tasks: bool,
        random: u32,
        offset: i64,
        seed: i64,
        rep: u64,
    ) -> Reorder {
        let seed = if seed < 0 {
            seed.unsigned_abs() + rep
        } else {
            seed as u64
        };
        let offset = offset.max(0) as u64;
        match (reorder_tasks, random) {
            (true, _) => Reorder::Constant { offset },
            (false, 0) => Reorder::None,
            (false, 1) => Reorder::Random { offset, seed },
            (false, _) => Reorder::Permutation { seed },
        }
    }

    /// Whether the map changes from one repetition to the next.
    pub fn varies_by_repetition(seed: i64, random: u32) -> bool {
        seed < 0 && random > 0
    }
}

/// `map[reader] = writer`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderMap {
    pub map: Vec<usize>,
}

impl ReaderMap {
    pub fn new(topology: &Topology, how: Reorder) -> ReaderMap {
        let n = topology.size();
        let map = match how {
            Reorder::None => (0..n).collect(),
            Reorder::Constant { offset } => constant(topology, offset),
            Reorder::Random { offset, seed } => random_distant(topology, offset, seed),
            Reorder::Permutation { seed } => {
                let mut rng = Rng(seed ^ 0x2e0f_5eed);
                let mut map: Vec<usize> = (0..n).collect();
                rng.shuffle(&mut map);
                map
            }
        };
        ReaderMap { map }
    }

    pub fn writer_of(&self, reader: usize) -> usize {
        self.map[reader]
    }

    /// Readers whose writer is on their own node (only when the topology
    /// leaves no other choice, or with a single node).
    pub fn same_node(&self, topology: &Topology) -> usize {
        self.map
            .iter()
            .enumerate()
            .filter(|(r, &w)| topology.node_of(*r) == topology.node_of(w))
            .count()
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(1);
        splitmix64(self.0)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// Forward distance in nodes from `a` to `b`.
fn distance(topology: &Topology, a: usize, b: usize) -> usize {
    let nodes = topology.num_nodes();
    (topology.node_of(b) + nodes - topology.node_of(a)) % nodes
}

fn constant(topology: &Topology, offset: u64) -> Vec<usize> {
    let n = topology.size();
    let nodes = topology.num_nodes().max(1);
    let lists: Vec<Vec<usize>> = (0..nodes).map(|node| topology.ranks_on(node)).collect();
    let shift = (offset % nodes as u64) as usize;
    let mut map = vec![usize::MAX; n];
    let mut taken = vec![false; n];
    for (node, readers) in lists.iter().enumerate() {
        let partner = &lists[(node + shift) % nodes];
        for (i, &reader) in readers.iter().enumerate() {
            if let Some(&writer) = partner.get(i) {
                if !taken[writer] {
                    map[reader] = writer;
                    taken[writer] = true;
                }
            }
        }
    }
    // Readers left over (uneven nodes): nearest free writer at least the
    // offset away, going forward; their own node last.
    let mut free: Vec<Vec<usize>> = lists
        .iter()
        .map(|l| l.iter().rev().copied().filter(|&w| !taken[w]).collect())
        .collect();
    for (node, readers) in lists.iter().enumerate() {
        for &reader in readers {
            if map[reader] != usize::MAX {
                continue;
            }
            let order = (0..nodes)
                .map(|k| (node + shift + k) % nodes)
                .filter(|&m| m != node)
                .chain([node]);
            for m in order.collect::<Vec<_>>() {
                // Another task's data if possible, even on the same node.
                let pick = free[m]
                    .iter()
                    .rposition(|&w| w != reader)
                    .or(free[m].len().checked_sub(1));
                if let Some(i) = pick {
                    map[reader] = free[m].remove(i);
                    break;
                }
            }
        }
    }
    map
}

fn random_distant(topology: &Topology, offset: u64, seed: u64) -> Vec<usize> {
    let n = topology.size();
    let nodes = topology.num_nodes();
    let min_distance = (offset as usize).min(nodes.saturating_sub(1));
    let eligible = |r: usize, w: usize| {
        let d = distance(topology, r, w);
        min_distance == 0 || d >= min_distance
    };
    let mut rng = Rng(seed ^ 0x5eed_0f2e);
    let mut readers: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut readers);
    let mut unused: Vec<usize> = (0..n).collect();
    let mut map = vec![usize::MAX; n];
    let mut pending = Vec::new();
    for &reader in &readers {
        let mut pick = None;
        for _ in 0..32 {
            let i = rng.below(unused.len());
            if eligible(reader, unused[i]) {
                pick = Some(i);
                break;
            }
        }
        if pick.is_none() {
            let start = rng.below(unused.len());
            pick = (0..unused.len())
                .map(|k| (start + k) % unused.len())
                .find(|&i| eligible(reader, unused[i]));
        }
        match pick {
            Some(i) => map[reader] = unused.swap_remove(i),
            None => pending.push(reader),
        }
    }
    // Repair: give a stuck reader a writer by swapping with a reader who can
    // take the free writer instead; failing that, the free writer itself.
    for reader in pending {
        let free = unused.pop().expect("one free writer per pending reader");
        let swap = (0..n).find(|&other| {
            map[other] != usize::MAX && eligible(other, free) && eligible(reader, map[other])
        });
        match swap {
            Some(other) => {
                map[reader] = map[other];
                map[other] = free;
            }
            None => map[reader] = free,
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether every task's data has exactly one reader.
    fn is_permutation(m: &ReaderMap) -> bool {
        let mut seen = vec![false; m.map.len()];
        for &w in &m.map {
            if w >= seen.len() || seen[w] {
                return false;
            }
            seen[w] = true;
        }
        true
    }

    fn map(t: &Topology, how: Reorder) -> Vec<usize> {
        let m = ReaderMap::new(t, how);
        assert!(is_permutation(&m), "{how:?} on {t:?}: {:?}", m.map);
        m.map
    }

    #[test]
    fn no_reordering_reads_own_data() {
        assert_eq!(map(&Topology::block(&[2, 2]), Reorder::None), [0, 1, 2, 3]);
    }

    #[test]
    fn one_node_wraps_to_itself() {
        assert_eq!(
            map(&Topology::single_node(4), Reorder::Constant { offset: 1 }),
            [0, 1, 2, 3]
        );
    }

    #[test]
    fn constant_on_three_nodes_of_four() {
        let t = Topology::block(&[4, 4, 4]);
        assert_eq!(
            map(&t, Reorder::Constant { offset: 1 }),
            [4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3]
        );
        assert_eq!(
            map(&t, Reorder::Constant { offset: 2 }),
            [8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7]
        );
        // IOR: rank + Q * tasksPerNode.
        for q in 1..6u64 {
            let m = map(&t, Reorder::Constant { offset: q });
            for (r, &w) in m.iter().enumerate() {
                assert_eq!(w, (r + q as usize * 4) % 12);
            }
        }
    }

    #[test]
    fn constant_on_uneven_nodes() {
        let t = Topology::block(&[3, 5]);
        // Node 0 (ranks 0-2) reads node 1's first three; node 1's first three
        // read node 0; ranks 6 and 7 are left with node 1's last writers.
        assert_eq!(
            map(&t, Reorder::Constant { offset: 1 }),
            [3, 4, 5, 0, 1, 2, 7, 6]
        );
        assert_eq!(
            ReaderMap::new(&t, Reorder::Constant { offset: 1 }).same_node(&t),
            2
        );
        assert_eq!(
            map(&t, Reorder::Constant { offset: 2 }),
            [0, 1, 2, 3, 4, 5, 6, 7]
        );
    }

    #[test]
    fn constant_on_cyclic_placement() {
        let t = Topology::cyclic(&[2, 2, 2]);
        // Nodes: 0 holds ranks 0,3; node 1 ranks 1,4; node 2 ranks 2,5.
        assert_eq!(map(&t, Reorder::Constant { offset: 1 }), [1, 2, 0, 4, 5, 3]);
        assert_eq!(map(&t, Reorder::Constant { offset: 2 }), [2, 0, 1, 5, 3, 4]);
        assert_eq!(
            ReaderMap::new(&t, Reorder::Constant { offset: 1 }).same_node(&t),
            0
        );
    }

    #[test]
    fn random_pairs_are_distant_permutations() {
        for t in [
            Topology::block(&[4, 4, 4]),
            Topology::cyclic(&[2, 2, 2]),
            Topology::block(&[3, 5]),
        ] {
            for seed in 0..20 {
                let m = ReaderMap::new(&t, Reorder::Random { offset: 1, seed });
                assert!(is_permutation(&m));
                let possible = if t.ranks_on(0).len() == t.ranks_on(1).len() {
                    0
                } else {
                    2
                };
                assert!(m.same_node(&t) <= possible, "{seed} {:?}", m.map);
            }
        }
        let t = Topology::block(&[2, 2, 2, 2]);
        for seed in 0..20 {
            let m = ReaderMap::new(&t, Reorder::Random { offset: 2, seed });
            for (r, &w) in m.map.iter().enumerate() {
                assert!(distance(&t, r, w) >= 2, "Q=2: reader {r} writer {w}");
            }
        }
    }

    #[test]
    fn random_maps_depend_on_the_seed_only() {
        let t = Topology::block(&[4, 4, 4]);
        let a = ReaderMap::new(&t, Reorder::Random { offset: 1, seed: 7 });
        assert_eq!(
            a,
            ReaderMap::new(&t, Reorder::Random { offset: 1, seed: 7 })
        );
        assert_ne!(
            a,
            ReaderMap::new(&t, Reorder::Random { offset: 1, seed: 8 })
        );
    }

    #[test]
    fn full_permutation_with_seed_7() {
        let t = Topology::block(&[4, 4, 4]);
        let m = map(&t, Reorder::Permutation { seed: 7 });
        assert_eq!(m, map(&t, Reorder::Permutation { seed: 7 }));
        assert_eq!(m, [8, 0, 9, 4, 3, 6, 7, 2, 11, 10, 1, 5]);
    }

    #[test]
    fn negative_seed_changes_every_repetition() {
        assert_eq!(
            Reorder::from_params(false, 2, 1, -7, 0),
            Reorder::Permutation { seed: 7 }
        );
        assert_eq!(
            Reorder::from_params(false, 2, 1, -7, 3),
            Reorder::Permutation { seed: 10 }
        );
        assert_eq!(
            Reorder::from_params(false, 1, 2, 5, 3),
            Reorder::Random { offset: 2, seed: 5 }
        );
        assert_eq!(
            Reorder::from_params(true, 0, 2, 5, 3),
            Reorder::Constant { offset: 2 }
        );
        assert!(Reorder::varies_by_repetition(-1, 1));
        assert!(!Reorder::varies_by_repetition(3, 1));
    }
}
