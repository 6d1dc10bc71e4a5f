//! io500 under real `mpirun` (built with `--features mpi`): complete
//! standard runs on 2 and 4 ranks, scaled down to seconds.
#![cfg(feature = "mpi")]

mod common;

use tempfile::tempdir;

#[test]
fn standard_runs_on_2_and_4_ranks() {
    for ranks in [2, 4] {
        let dir = tempdir().unwrap();
        let text = format!(
            "[global]\ndatadir = {d}/data\nresultdir = {d}/results\n[debug]\nstonewall-time = 1\n\
             [ior-easy]\ntransferSize = 64k\nblockSize = 1m\n[mdtest-easy]\nn = 200\n\
             [ior-hard]\nsegmentCount = 20\n[mdtest-hard]\nn = 200\n",
            d = dir.path().display()
        );
        let cfg = dir.path().join("c.ini");
        std::fs::write(&cfg, text).unwrap();
        let bin = env!("CARGO_BIN_EXE_io500");
        let run = common::mpirun(
            bin,
            dir.path(),
            ranks,
            &[cfg.to_str().unwrap(), "--timestamp=M"],
            &[],
        );
        run.ok();
        assert_eq!(
            run.stdout.matches("IO500 version").count(),
            1,
            "rank 0 alone prints"
        );
        let results = run
            .stdout
            .lines()
            .filter(|l| l.starts_with("[RESULT]"))
            .count();
        assert_eq!(results, 12, "{}", run.stdout);
        let result = std::fs::read_to_string(dir.path().join("results/M/result.txt")).unwrap();
        assert!(
            result.contains(&format!("procs           = {ranks}\n")),
            "{result}"
        );
        assert!(result.contains("[find]\n"), "{result}");
        let found: u64 = result
            .lines()
            .find_map(|l| l.strip_prefix("found           = "))
            .unwrap()
            .parse()
            .unwrap();
        assert!(found > 0, "{result}");
        assert!(!dir.path().join("data/M").exists());
    }
}
