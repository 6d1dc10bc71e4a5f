//! IO500's hashes: the per-phase seeds (`-G`), the configuration's hash and
//! the score hashes a verifier recomputes. All are built from one rotate-and-
//! add step over bytes, so a result file edited by hand no longer matches.
//!
//! Facts checked against the official harness's own files (tests/data/io500,
//! harness 02091cf):
//! - A key-value pair is hashed as one chain from 0: the key's bytes, then
//!   the value's ([`hash_pair`]); the pairs are XORed, so order is free.
//! - Seeds chain the group's name, then the timestamp string: `ior-easy`,
//!   `ior-hard`, `mdtest-easy`, `mdtest-hard` (every phase of a group shares
//!   its seed) and `md-workbench` (with a hyphen, unlike its `[mdworkbench]`
//!   section; checked on the extended sample's `-G=413751125`).
//! - `[SCORE]`'s hash covers `version`, each scored mandatory phase (not
//!   `timestamp` nor `ior-rnd4K-easy-read`; `find` counts), `MD`, `BW`,
//!   `SCORE`, and `valid = NO` when invalid. `[SCOREX]`'s covers only the
//!   extended phases that score (`find-easy`, `find-hard`,
//!   `mdworkbench-bench`), then its own `MD`, `BW`, `SCORE` and `valid`: no
//!   version, no mandatory phase.

/// One rotate-and-add step per byte: `x = rotl32(x, 2) + byte`.
///
/// The harness adds a C `char`, signed on x86-64 (where results are made):
/// a byte from 0x80 up (UTF-8 in a path) adds its sign-extended value, so
/// it does here too. On a platform with unsigned `char` (Arm) the official
/// harness itself hashes such text differently.
pub fn rotladd(start: u32, text: &str) -> u32 {
    text.bytes().fold(start, |x, b| {
        x.rotate_left(2).wrapping_add(b as i8 as i32 as u32)
    })
}

/// A key and its value, as one chain from 0 (not two hashes combined).
pub fn hash_pair(key: &str, value: &str) -> u32 {
    rotladd(rotladd(0, key), value)
}

/// The `-G` seed of a phase group (`ior-easy`, `ior-hard`, `mdtest-easy`,
/// `mdtest-hard`, `md-workbench`) for a run's timestamp string: printed by
/// the harness as a C `int`, and 4711 where it would be 0 or -1 (a seed
/// the tools treat as "none").
pub fn phase_seed(group: &str, timestamp: &str) -> i32 {
    match hash_pair(group, timestamp) as i32 {
        0 | -1 => 4711,
        seed => seed,
    }
}

/// C's `%f`, so that a score that is not a number hashes as the harness's.
pub fn c_fixed(v: f64) -> String {
    crate::units::c_fixed(v, 6)
}

/// The hash of a `[SCORE]` section: the version, each scored phase's score
/// (`%f`), MD, BW and SCORE, and `valid = NO` for an invalid run. For the
/// harness's `[SCOREX]` hash pass no version and only the extended phases
/// that score (see the module's notes).
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
        h ^= hash_pair(phase, &c_fixed(*score));
    }
    h ^= hash_pair("MD", &c_fixed(md));
    h ^= hash_pair("BW", &c_fixed(bw));
    h ^= hash_pair("SCORE", &c_fixed(total));
    if !valid {
        h ^= hash_pair("valid", "NO");
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    const STANDARD: &str = include_str!("../../tests/data/io500/result.txt");
    const EXTENDED: &str = include_str!("../../tests/data/io500/result-extended.txt");

    /// A result file's `key = value` lines: (section, key, value).
    fn entries(text: &str) -> Vec<(String, String, String)> {
        let mut section = String::new();
        let mut out = Vec::new();
        for line in text.lines() {
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = name.to_string();
            } else if let Some((k, v)) = line.split_once('=') {
                out.push((section.clone(), k.trim().to_string(), v.trim().to_string()));
            }
        }
        out
    }

    fn value(text: &str, section: &str, key: &str) -> String {
        let found = entries(text)
            .into_iter()
            .find(|(s, k, _)| s == section && k == key);
        found.map(|(_, _, v)| v).unwrap_or_default()
    }

    /// The hash the file's `[section]` should carry, from its own figures:
    /// the phases `scored` picks, MD, BW, SCORE and its INVALID mark.
    fn recomputed(text: &str, section: &str, scored: &[&str]) -> u32 {
        let scores: Vec<(String, f64)> = entries(text)
            .into_iter()
            .filter(|(s, k, _)| k == "score" && scored.contains(&s.as_str()))
            .map(|(s, _, v)| (s, v.parse().unwrap()))
            .collect();
        let phases: Vec<(&str, f64)> = scores.iter().map(|(s, v)| (s.as_str(), *v)).collect();
        let number = |k: &str| -> f64 {
            let v = value(text, section, k);
            v.split_whitespace().next().unwrap().parse().unwrap()
        };
        let version = value(text, "run", "version");
        let version = (section == "SCORE").then_some(version.as_str());
        let valid = !value(text, section, "SCORE").contains("INVALID");
        score_hash(
            version,
            &phases,
            number("MD"),
            number("BW"),
            number("SCORE"),
            valid,
        )
    }

    const MANDATORY: [&str; 12] = [
        "ior-easy-write",
        "mdtest-easy-write",
        "ior-hard-write",
        "mdtest-hard-write",
        "find",
        "ior-easy-read",
        "mdtest-easy-stat",
        "ior-hard-read",
        "mdtest-hard-stat",
        "mdtest-easy-delete",
        "mdtest-hard-read",
        "mdtest-hard-delete",
    ];
    const EXTENDED_SCORED: [&str; 3] = ["find-easy", "find-hard", "mdworkbench-bench"];

    #[test]
    fn seeds_are_the_harness_seeds() {
        let t = "2026.11.22-11.55.29";
        assert_eq!(phase_seed("ior-easy", t), 1836513156);
        assert_eq!(phase_seed("mdtest-easy", t), -1572276346);
        assert_eq!(phase_seed("ior-hard", t), 1836523844);
        assert_eq!(phase_seed("mdtest-hard", t), -1572265658);
        assert!(STANDARD.contains("-G 1836513156") && STANDARD.contains("-G=-1572265658"));
        let t = "2026.11.22-11.55.55";
        assert_eq!(phase_seed("md-workbench", t), 413751125);
        assert_eq!(phase_seed("ior-easy", t), 1836513164);
        assert!(EXTENDED.contains("-G=413751125") && EXTENDED.contains("-G 1836513164"));
    }

    #[test]
    fn the_score_hash_of_a_standard_run_is_the_harness() {
        assert_eq!(value(STANDARD, "SCORE", "hash"), "4805C4B8");
        assert_eq!(recomputed(STANDARD, "SCORE", &MANDATORY), 0x4805C4B8);
        // Unscored phases and the version matter: leaving either in or out
        // gives another hash.
        let mut more = MANDATORY.to_vec();
        more.push("ior-rnd4K-easy-read");
        assert_ne!(recomputed(STANDARD, "SCORE", &more), 0x4805C4B8);
    }

    #[test]
    fn both_score_hashes_of_an_extended_run_are_the_harness() {
        assert_eq!(value(EXTENDED, "SCORE", "hash"), "4801BB1D");
        assert_eq!(recomputed(EXTENDED, "SCORE", &MANDATORY), 0x4801BB1D);
        assert_eq!(value(EXTENDED, "SCOREX", "hash"), "660DCFB3");
        assert_eq!(recomputed(EXTENDED, "SCOREX", &EXTENDED_SCORED), 0x660DCFB3);
    }

    #[test]
    fn pairs_chain_and_bytes_are_signed_chars() {
        assert_eq!(rotladd(0, "ab"), (97 << 2) + 98);
        assert_eq!(hash_pair("a", "b"), rotladd(0, "ab"));
        // 0xC3 0xA9 ("é") add -61 and -87, as a signed C char does.
        let e = 0u32.wrapping_sub(61).rotate_left(2).wrapping_sub(87);
        assert_eq!(rotladd(0, "é"), e);
        assert_eq!(c_fixed(1.5), "1.500000");
        assert_eq!(c_fixed(f64::NAN), "nan");
    }
}
