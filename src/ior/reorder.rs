//! Which task's data each task reads back (`-C`, `-Q`), so that reads do not
//! come from the reader's own node's page cache.
//!
//! Tasks are listed node by node (a node's ranks in rank order); reader at
//! position `i` of that list reads the data of the task at position
//! `i + Q·(tasks per node)` (mod N). With contiguous (block) placement this is
//! IOR's `rank + Q·tasksPerNode`; with round-robin placement it still moves
//! the read `Q` nodes away, where IOR's formula would not.

use crate::comm::Topology;

/// `map[reader] = writer` with every task reading its own data.
pub fn identity(tasks: usize) -> Vec<usize> {
    (0..tasks).collect()
}

/// The `-C` map for the first `topology.size()` tasks.
pub fn constant_shift(topology: &Topology, offset: u64) -> Vec<usize> {
    let n = topology.size();
    if n == 0 {
        return Vec::new();
    }
    let node_major: Vec<usize> = (0..topology.num_nodes())
        .flat_map(|node| topology.ranks_on(node))
        .collect();
    let shift = (offset as usize % n) * topology.tasks_per_node() % n;
    let mut map = vec![0; n];
    for (position, &reader) in node_major.iter().enumerate() {
        map[reader] = node_major[(position + shift) % n];
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_node_wraps_to_itself() {
        assert_eq!(
            constant_shift(&Topology::single_node(4), 1),
            vec![0, 1, 2, 3]
        );
    }

    #[test]
    fn block_placement_matches_ior() {
        let t = Topology::block(&[4, 4, 4]);
        let map = constant_shift(&t, 1);
        assert_eq!(map, (0..12).map(|r| (r + 4) % 12).collect::<Vec<_>>());
        let map2 = constant_shift(&t, 2);
        assert_eq!(map2, (0..12).map(|r| (r + 8) % 12).collect::<Vec<_>>());
    }

    #[test]
    fn cyclic_placement_reads_from_another_node() {
        let t = Topology::cyclic(&[2, 2, 2]);
        let map = constant_shift(&t, 1);
        for (reader, &writer) in map.iter().enumerate() {
            assert_ne!(t.node_of(reader), t.node_of(writer));
        }
        let mut sorted = map.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..6).collect::<Vec<_>>());
    }
}
