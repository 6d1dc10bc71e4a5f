//! IO500's hashes: the per-phase seeds (`-G`), the configuration's hash and
//! the score hashes a verifier recomputes. All are built from one rotate-and-
//! add step over bytes; the facts below were checked against the official
//! harness's result files (tests/data/io500).

/// One rotate-and-add step per byte: `x = rotl32(x, 2) + byte`.
pub fn rotladd(start: u32, text: &str) -> u32 {
    text.bytes()
        .fold(start, |x, b| x.rotate_left(2).wrapping_add(u32::from(b)))
}

/// A key and its value, chained from 0.
pub fn hash_pair(key: &str, value: &str) -> u32 {
    rotladd(rotladd(0, key), value)
}

/// The `-G` seed of a phase group (`ior-easy`, `ior-hard`, `mdtest-easy`,
/// `mdtest-hard`, `md-workbench`) for a run's timestamp: as a C `int`, and
/// 4711 where that would be 0 or -1.
pub fn phase_seed(group: &str, timestamp: &str) -> i32 {
    match hash_pair(group, timestamp) as i32 {
        0 | -1 => 4711,
        seed => seed,
    }
}

/// The hash of a `[SCORE]` section: the version, each scored phase's score
/// (`%f`), MD, BW and SCORE, and `valid = NO` for an invalid run. The
/// harness's `[SCOREX]` hash leaves the version and the mandatory phases
/// out: pass only the extended phases and `with_version = false` for it.
pub fn score_hash(
    version: Option<&str>,
    phases: &[(&str, f64)],
    md: f64,
    bw: f64,
    total: f64,
    valid: bool,
) -> u32 {
    let mut h = version.map_or(0, |v| hash_pair("version", v));
    for (phase, score) in phases {
        h ^= hash_pair(phase, &format!("{score:.6}"));
    }
    h ^= hash_pair("MD", &format!("{md:.6}"));
    h ^= hash_pair("BW", &format!("{bw:.6}"));
    h ^= hash_pair("SCORE", &format!("{total:.6}"));
    if !valid {
        h ^= hash_pair("valid", "NO");
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_the_harness_seeds() {
        let t = "2026.11.22-11.55.29";
        assert_eq!(phase_seed("ior-easy", t), 1836513156);
        assert_eq!(phase_seed("mdtest-easy", t), -1572276346);
        assert_eq!(phase_seed("ior-hard", t), 1836523844);
        assert_eq!(phase_seed("mdtest-hard", t), -1572265658);
        assert_eq!(phase_seed("md-workbench", "2026.11.22-11.55.55"), 413751125);
    }

    #[test]
    fn score_hashes_are_the_harness_hashes() {
        // The official run's scores, without the two it does not score.
        let standard: Vec<(&str, f64)> = crate::io500::results::tests::SAMPLE
            .into_iter()
            .filter(|(name, _)| !matches!(*name, "timestamp" | "ior-rnd4K-easy-read"))
            .collect();
        let v = "io500-isc26_v2-26-g02091cf254d8";
        let h = score_hash(Some(v), &standard, 796.171760, 8.053493, 80.074737, false);
        assert_eq!(h, 0x4805C4B8);
        let extended = [
            ("find-easy", 2482.562481),
            ("find-hard", 216.180728),
            ("mdworkbench-bench", 697.720660),
        ];
        let h = score_hash(None, &extended, 766.264201, 5.905449, 67.269117, false);
        assert_eq!(h, 0x660DCFB3);
    }
}
