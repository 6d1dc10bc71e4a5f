//! io500 under real `mpirun` (built with `--features mpi`): complete
//! standard runs on 2 and 4 ranks, scaled down to seconds, and `--plan` on
//! 2 ranks.
#![cfg(feature = "mpi")]

use crate::common;

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
        let bin = crate::common::bin("io500");
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
        // What find can match depends on how many files mdtest-hard wrote
        // before its stonewall (every rank as many, in the status file),
        // which depends on the machine's load: `file.mdtest.<rank>.<i>`
        // matches `*01*` for the i that contain "01".
        let status = dir.path().join("results/M/mdtest-hard.stonewall");
        let per_rank: u64 = std::fs::read_to_string(status)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let matching = (0..per_rank)
            .filter(|i| i.to_string().contains("01"))
            .count();
        assert_eq!(found, (ranks * matching) as u64, "{result}");
        assert!(!dir.path().join("data/M").exists());
    }
}

/// `--plan` on 2 ranks: the probes run on both, rank 0 alone prints the
/// arithmetic and writes OUT.ini (rates over 2 tasks), nothing is left.
#[test]
fn a_plan_on_2_ranks_prints_once_and_leaves_nothing() {
    let dir = tempdir().unwrap();
    let text = format!(
        "[global]\ndatadir = {d}/data\nresultdir = {d}/results\n[debug]\nstonewall-time = 1\n\
         [ior-easy]\ntransferSize = 64k\nblockSize = 1m\n[mdtest-easy]\nn = 200\n\
         [ior-hard]\nsegmentCount = 20\n[mdtest-hard]\nn = 200\n",
        d = dir.path().display()
    );
    std::fs::write(dir.path().join("c.ini"), text).unwrap();
    let bin = crate::common::bin("io500");
    let run = common::mpirun(bin, dir.path(), 2, &["c.ini", "--plan=out.ini"], &[]);
    run.ok();
    for once in [
        "io500 --plan: each phase probed",
        "(stonewall-time 1 s, 2 tasks)",
        "[probe] ior-easy-write ",
        "[probe] mdtest-hard-write ",
        "Proposed sizes",
        "Predicted wall time of the run",
        "The planned configuration: out.ini",
    ] {
        assert_eq!(
            run.stdout.matches(once).count(),
            1,
            "{once}: {}",
            run.stdout
        );
    }
    let out = std::fs::read_to_string(dir.path().join("out.ini")).unwrap();
    assert_eq!(out.matches(" over 2 tasks, margin ").count(), 4, "{out}");
    pario::io500::config::Config::parse("out.ini", &out).unwrap();
    assert_eq!(common::entries(dir.path()), ["c.ini", "out.ini"]);
}

/// The concurrent phase (pario's extension) on 4 ranks: its groups on
/// split communicators of MPI, each scoring, nothing left behind.
#[test]
fn the_concurrent_phase_on_4_ranks() {
    let dir = tempdir().unwrap();
    let text = format!(
        "[global]\ndatadir = {d}/data\nresultdir = {d}/results\n[debug]\nstonewall-time = 1\n\
         [ior-easy]\ntransferSize = 64k\nblockSize = 2m\n[mdtest-easy]\nn = 200\n\
         [ior-hard]\nsegmentCount = 20\n[mdtest-hard]\nn = 100\n\
         [mdworkbench]\nprecreatePerSet = 20\nfilesPerProc = 20\n[concurrent]\nrun = TRUE\n",
        d = dir.path().display()
    );
    let cfg = dir.path().join("c.ini");
    std::fs::write(&cfg, text).unwrap();
    let bin = crate::common::bin("io500");
    let args = [cfg.to_str().unwrap(), "--timestamp=C"];
    let run = common::mpirun(bin, dir.path(), 4, &args, &[]);
    run.ok();
    let result = std::fs::read_to_string(dir.path().join("results/C/result.txt")).unwrap();
    let (_, extension) = result
        .split_once("; EXTENSION pario")
        .expect("the extension");
    // 20/40/40 of 4 ranks: 1, 2, 1 (largest remainders, ties to the first).
    for (group, tasks) in [("write", 1), ("read", 2), ("md", 1)] {
        let key = format!("tasks-{group}");
        assert!(
            extension.contains(&format!("{key:<15} = {tasks}\n")),
            "{extension}"
        );
        let score: f64 = extension
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{:<15} = ", format!("score-{group}"))))
            .unwrap()
            .parse()
            .unwrap();
        assert!(score > 0.0, "{group}: {extension}");
    }
    assert_eq!(run.stdout.matches("[EXTEND]").count(), 4, "{}", run.stdout);
    assert!(!dir.path().join("data/C").exists());
}
