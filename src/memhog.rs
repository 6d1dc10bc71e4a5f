//! Memory hogging (`-M`/`memoryPerNode`, `memoryPerTask`): memory taken away
//! from the page cache before a test, so reads cannot be served from it.
//!
//! The memory is allocated and every page touched before the test starts,
//! and held until the test ends.

use serde::Serialize;

/// How much memory to hog on each node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum NodeMemory {
    Bytes(u64),
    /// A percentage of the node's physical memory.
    Percent(u32),
}

impl NodeMemory {
    /// Parses `2g` or `75%`.
    pub fn parse(text: &str) -> Result<NodeMemory, String> {
        let t = text.trim();
        match t.strip_suffix('%') {
            Some(p) => {
                let pct: u32 = p
                    .trim()
                    .parse()
                    .map_err(|_| format!("'{text}' is not a percentage"))?;
                if pct > 100 {
                    return Err(format!("'{text}': a percentage must be between 0 and 100"));
                }
                Ok(NodeMemory::Percent(pct))
            }
            None => crate::units::parse_size(t).map(NodeMemory::Bytes),
        }
    }

    /// Bytes per node, given the node's physical memory.
    pub fn bytes(self, node_total: u64) -> u64 {
        match self {
            NodeMemory::Bytes(b) => b,
            NodeMemory::Percent(p) => node_total / 100 * p as u64,
        }
    }
}

/// The node's physical memory (`MemTotal` in `/proc/meminfo`).
pub fn node_total() -> Result<u64, String> {
    meminfo("MemTotal")
}

/// The memory the node can give without swapping (`MemAvailable`).
pub fn node_available() -> Result<u64, String> {
    meminfo("MemAvailable")
}

/// A `/proc/meminfo` field, in bytes.
fn meminfo(field: &str) -> Result<u64, String> {
    let text = std::fs::read_to_string("/proc/meminfo")
        .map_err(|e| format!("cannot read /proc/meminfo: {e}"))?;
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kib| kib * 1024)
        .ok_or_else(|| format!("no {field} in /proc/meminfo"))
}

/// What the hogged memory is filled with.
const FILL: u8 = 0x5a;

/// Memory held for the duration of a test.
#[derive(Debug, Default)]
pub struct MemoryHog {
    /// Never read: the memory only has to stay allocated until the hog drops.
    _held: Vec<u8>,
}

impl MemoryHog {
    /// Allocates `bytes` and touches every page so that it is resident.
    pub fn take(bytes: u64) -> Result<MemoryHog, String> {
        let len = usize::try_from(bytes).map_err(|_| format!("cannot hold {bytes} bytes"))?;
        let mut held = Vec::new();
        held.try_reserve_exact(len).map_err(|e| {
            format!(
                "cannot allocate {} to hog: {e}",
                crate::units::human_bytes(bytes)
            )
        })?;
        // Writing every byte makes every page resident. The fill is not
        // zero: allocating and then zeroing may be folded into a zeroed
        // allocation, whose pages are only mapped when first touched.
        held.resize(len, FILL);
        std::hint::black_box(&mut held);
        Ok(MemoryHog { _held: held })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_and_percentages() {
        assert_eq!(NodeMemory::parse("2g"), Ok(NodeMemory::Bytes(2 << 30)));
        assert_eq!(NodeMemory::parse("75%"), Ok(NodeMemory::Percent(75)));
        assert!(NodeMemory::parse("101%")
            .unwrap_err()
            .contains("between 0 and 100"));
        assert!(NodeMemory::parse("x%")
            .unwrap_err()
            .contains("not a percentage"));
        assert_eq!(NodeMemory::Percent(50).bytes(1000), 500);
    }

    #[test]
    fn hogs_and_touches() {
        let hog = MemoryHog::take(1 << 20).unwrap();
        assert_eq!(hog._held.len(), 1 << 20);
        assert!(hog._held.iter().all(|&b| b == FILL));
        assert!(node_total().unwrap() > 0);
    }
}
