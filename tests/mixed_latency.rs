//! ior's `-O latencyHistogramFile` under `-O rwmixRead` (issue 28): a mixed
//! phase's distribution, and its reads' and writes' apart, each counting
//! the operations the report counts for its kind.

use std::collections::BTreeMap;

use crate::common::ior;
use serde_json::Value;
use tempfile::tempdir;

#[test]
fn a_mixed_phase_has_a_histogram_per_kind() {
    let dir = tempdir().unwrap();
    ior(
        dir.path(),
        2,
        &[
            "-a",
            "DUMMY",
            "-w",
            "-t",
            "4k",
            "-b",
            "1m",
            "-i",
            "2",
            "--random-offset-seed=5",
            "-O",
            "rwmixRead=70,latencyHistogramFile=h.csv",
            "-O",
            "summaryFormat=JSON,summaryFile=out.json",
        ],
    )
    .ok();
    let text = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let csv = std::fs::read_to_string(dir.path().join("h.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("test,access,iteration,latency_s,cumulative_fraction,count")
    );
    // (access, iteration) -> operations counted, and the last fraction.
    let mut counts: BTreeMap<(String, u64), (u64, f64)> = BTreeMap::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 6, "{line}");
        let at = counts
            .entry((f[1].to_string(), f[2].parse().unwrap()))
            .or_default();
        at.0 += f[5].parse::<u64>().unwrap();
        at.1 = f[4].parse().unwrap();
    }
    let rows = doc["tests"][0]["Results"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for row in rows {
        assert_eq!(row["access"], "mixed");
        let it = row["iteration"].as_u64().unwrap();
        let ops = |kind: &str| row["mix"][kind]["ops"].as_u64().unwrap();
        let (read, write) = (ops("read"), ops("write"));
        assert!(read > 0 && write > 0, "{row}");
        for (access, want) in [
            ("mixed", read + write),
            ("mixed.read", read),
            ("mixed.write", write),
        ] {
            let (got, last) = counts[&(access.to_string(), it)];
            assert_eq!(got, want, "{access} in iteration {it}");
            assert_eq!(last, 1.0, "{access}: the distribution ends at 1");
        }
    }
    assert_eq!(counts.len(), 6, "{counts:?}");
}
