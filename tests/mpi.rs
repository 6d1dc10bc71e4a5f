//! Real `mpirun` runs of `ior` (built with `--features mpi`).
#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::Command;

use crate::common;
use crate::common::{entries, ior_easy, rank_rows, rows, summary, word, Run, TWO_NODES};
use tempfile::tempdir;

fn mpirun(dir: &Path, ranks: usize, args: &[&str], env: &[(&str, &str)]) -> Run {
    common::mpirun(crate::common::bin("ior"), dir, ranks, args, env)
}

/// The first value of an ior header line.
fn header<'a>(stdout: &'a str, key: &str) -> &'a str {
    common::header_values(stdout, key)
        .first()
        .copied()
        .unwrap_or_else(|| panic!("no {key} in\n{stdout}"))
}

#[test]
fn seed_command_lines_on_1_2_and_4_ranks() {
    for ranks in [1, 2, 4] {
        let dir = tempdir().unwrap();
        // `mpirun -n 64 ior -t 1m -b 16m -s 16 -F -C -e`, scaled down.
        let run = mpirun(
            dir.path(),
            ranks,
            &[
                "-t", "64k", "-b", "256k", "-s", "4", "-F", "-C", "-e", "-o", "seed",
            ],
            &[],
        );
        run.ok();
        assert_eq!(header(&run.stdout, "tasks"), ranks.to_string());
        assert_eq!(rows(&run.stdout).len(), 2);
        assert!(entries(dir.path()).is_empty(), "files removed");
    }
}

#[test]
fn qiita_command_lines_with_and_without_f() {
    // `ior -a POSIX -F -w -r -e -t 1m -b 32g -i 3 -d 1 -C`, scaled down.
    for fpp in [true, false] {
        let dir = tempdir().unwrap();
        let mut args = vec![
            "-a", "POSIX", "-w", "-r", "-e", "-t", "64k", "-b", "512k", "-i", "3", "-d", "0", "-C",
            "-o", "q",
        ];
        if fpp {
            args.push("-F");
        }
        let run = mpirun(dir.path(), 2, &args, &[]);
        run.ok();
        let rows = rows(&run.stdout);
        assert_eq!(rows.len(), 6);
        assert_eq!(
            rows.iter().map(|r| r.iter).collect::<Vec<_>>(),
            [0, 0, 1, 1, 2, 2]
        );
        let summary = summary(&run.stdout);
        assert_eq!(summary.len(), 2);
        assert_eq!(summary[0][16], if fpp { "1" } else { "0" });
    }
    // -d 1 really waits between phases (kept to one repetition).
    let dir = tempdir().unwrap();
    mpirun(
        dir.path(),
        2,
        &["-F", "-d", "1", "-t", "64k", "-b", "64k", "-o", "d"],
        &[],
    )
    .ok();
}

#[test]
fn shared_file_contents_under_mpi() {
    let dir = tempdir().unwrap();
    mpirun(
        dir.path(),
        4,
        &[
            "-w", "-k", "-G", "99", "-t", "8k", "-b", "16k", "-s", "2", "-o", "s",
        ],
        &[],
    )
    .ok();
    let data = std::fs::read(dir.path().join("s")).unwrap();
    assert_eq!(data.len(), 4 * 16384 * 2);
    for s in 0..2u64 {
        for t in 0..4u64 {
            let offset = (s * 4 * 16384 + t * 16384) as usize;
            assert_eq!(word(&data, offset), (t << 32) | 99);
        }
    }
}

/// MPI-IO independent and collective, shared and `-F`, with a file view
/// and preallocation, with random task order: a test each of one script,
/// each test its own file(s).
#[test]
fn mpiio_independent_and_collective() {
    let dir = tempdir().unwrap();
    let (_script, cases) = common::ior_script(&[
        &["testFile=m0"],
        &["testFile=m1", "collective=1"],
        &["testFile=m2", "collective=0", "filePerProc=1"],
        &["testFile=m3", "collective=1"],
        &[
            "testFile=m4",
            "filePerProc=0",
            "useFileView=1",
            "preallocate=1",
        ],
        &[
            "testFile=m5",
            "useFileView=0",
            "preallocate=0",
            "reorderTasksRandom=1",
            "reorderTasksRandomSeed=3",
        ],
    ]);
    let args = [
        "-a", "MPIIO", "-w", "-r", "-R", "-W", "-t", "16k", "-b", "64k", "-s", "3", "-G", "5",
        "-k", "-f", &cases,
    ];
    let run = mpirun(dir.path(), 4, &args, &[]);
    run.ok();
    assert!(!run.stdout.contains("incorrect data"), "{}", run.stdout);
    let (one, all) = ("independent", "collective");
    let kinds = [one, all, one, all, all, all];
    assert_eq!(common::header_values(&run.stdout, "type"), kinds);
    let mut expected: Vec<String> = ["m0", "m1", "m4", "m5"].map(String::from).to_vec();
    for m in ["m2", "m3"] {
        expected.extend((0..4).map(|t| format!("{m}.{t:08}")));
    }
    expected.sort();
    assert_eq!(entries(dir.path()), expected);
    for name in expected {
        let data = std::fs::read(dir.path().join(&name)).unwrap();
        let size = if name.contains('.') { 3 } else { 4 * 3 } * 65536;
        assert_eq!(data.len(), size, "{name}");
        if !name.contains('.') || name.ends_with(".00000000") {
            assert_eq!(word(&data, 0), 5, "{name}: task 0 wrote the first transfer");
        }
    }
}

#[test]
fn mpiio_hints_from_file_and_environment() {
    let dir = tempdir().unwrap();
    std::fs::write(
        dir.path().join("hints"),
        "IOR_HINT__MPI__romio_cb_write=enable\n",
    )
    .unwrap();
    let run = mpirun(
        dir.path(),
        2,
        &[
            "-a", "MPIIO", "-c", "-H", "-U", "hints", "-t", "16k", "-b", "16k", "-o", "h",
        ],
        &[("IOR_HINT__MPI__romio_cb_read", "enable")],
    );
    run.ok();
    assert!(
        run.stdout.contains("hints returned from opened file {"),
        "{}",
        run.stdout
    );
    // With JSON on stdout the hints go to stderr: stdout stays parseable.
    let run = mpirun(
        dir.path(),
        2,
        &[
            "-a",
            "MPIIO",
            "-H",
            "-t",
            "16k",
            "-b",
            "16k",
            "-o",
            "h",
            "-O",
            "summaryFormat=JSON",
        ],
        &[],
    );
    run.ok();
    serde_json::from_str::<serde_json::Value>(&run.stdout).expect("stdout is JSON");
    assert!(
        run.stderr.contains("hints returned from opened file {"),
        "{}",
        run.stderr
    );
}

#[test]
fn n_smaller_than_ranks() {
    let dir = tempdir().unwrap();
    let run = mpirun(
        dir.path(),
        4,
        &[
            "-N", "2", "-F", "-w", "-r", "-R", "-k", "-t", "8k", "-b", "16k", "-o", "n",
        ],
        &[],
    );
    run.ok();
    assert_eq!(header(&run.stdout, "tasks"), "2");
    assert_eq!(entries(dir.path()), ["n.00000000", "n.00000001"]);
    let run = mpirun(
        dir.path(),
        4,
        &[
            "-N", "2", "-a", "MPIIO", "-c", "-t", "8k", "-b", "16k", "-o", "m",
        ],
        &[],
    );
    run.ok();
    let run = mpirun(dir.path(), 2, &["-N", "3", "-o", "x"], &[]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("-N 3: only 2 tasks are running"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_failing_rank_stops_every_rank_with_one_message() {
    let dir = tempdir().unwrap();
    std::fs::create_dir(dir.path().join("f.00000002")).unwrap();
    let run = mpirun(
        dir.path(),
        4,
        &["-F", "-E", "-t", "8k", "-b", "16k", "-o", "f"],
        &[],
    );
    assert_ne!(run.status, 0);
    let messages: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("ior: error:"))
        .collect();
    assert_eq!(
        messages,
        ["ior: error: task 2: cannot open for writing f.00000002: Is a directory (os error 21)"]
    );
    assert_eq!(
        entries(dir.path()),
        ["f.00000002"],
        "the other ranks' files are removed"
    );
    // A short read on one rank of four.
    mpirun(
        dir.path(),
        4,
        &["-w", "-k", "-t", "8k", "-b", "16k", "-o", "short"],
        &[],
    )
    .ok();
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("short"))
        .unwrap()
        .set_len(40000)
        .unwrap();
    let run = mpirun(
        dir.path(),
        4,
        &["-r", "-k", "-t", "8k", "-b", "16k", "-o", "short"],
        &[],
    );
    assert_ne!(run.status, 0);
    assert!(
        run.stderr
            .contains("ior: error: task 2: cannot read short at offset 32768: short read: the file ends at 40000"),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_options_are_reported_once_before_any_io() {
    let dir = tempdir().unwrap();
    let run = mpirun(dir.path(), 4, &["-b", "-5", "-o", "x"], &[]);
    assert_eq!(run.status, 2);
    let messages: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("ior: error:"))
        .collect();
    assert_eq!(
        messages,
        ["ior: error: -b -5: '-5' is negative; sizes must be positive"]
    );
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn fake_topology_and_reader_map() {
    let dir = tempdir().unwrap();
    let run = mpirun(
        dir.path(),
        4,
        &["-v", "-v", "-C", "-F", "-t", "8k", "-b", "8k", "-o", "t"],
        &TWO_NODES,
    );
    run.ok();
    assert_eq!(header(&run.stdout, "nodes"), "2");
    assert_eq!(header(&run.stdout, "clients per node"), "2");
    assert!(
        run.stdout
            .contains("task 0 (node 0) reads the data of task 2 (node 1)"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains("task 3 (node 1) reads the data of task 1 (node 0)"));
    let run = mpirun(
        dir.path(),
        4,
        &[
            "-v", "-v", "-Z", "-F", "-w", "-r", "-R", "-t", "8k", "-b", "8k", "-o", "z",
        ],
        &TWO_NODES,
    );
    run.ok();
    assert_eq!(run.stdout.matches(" reads the data of task ").count(), 4);
}

#[test]
fn memory_hog_is_shown() {
    let dir = tempdir().unwrap();
    let run = mpirun(
        dir.path(),
        2,
        &["-M", "1%", "-t", "8k", "-b", "8k", "-o", "m"],
        &[],
    );
    run.ok();
    assert!(
        run.stdout.contains("memoryPerNode       : "),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("memoryPerTask       : "));
}

#[test]
fn singleton_without_mpirun() {
    let dir = tempdir().unwrap();
    let out = Command::new(crate::common::bin("ior"))
        .args(["-a", "MPIIO", "-c", "-t", "8k", "-b", "8k", "-o", "one"])
        .current_dir(dir.path())
        .env_remove("PARIO_TASKS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(header(&stdout, "tasks"), "1");
}

#[test]
fn mpiio_needs_the_mpi_engine() {
    let dir = tempdir().unwrap();
    let out = Command::new(crate::common::bin("ior"))
        .args(["-a", "MPIIO", "-t", "8k", "-b", "8k", "-o", "x"])
        .current_dir(dir.path())
        .env("PARIO_TASKS", "2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("MPI-IO needs the MPI engine"));
}

#[test]
fn stonewalled_seed_commands_under_mpi() {
    let dir = tempdir().unwrap();
    std::fs::create_dir(dir.path().join("easy")).unwrap();
    let mut write = ior_easy("512k", "64m");
    write.extend(["-w", "-D", "1", "-O", "stoneWallingWearOut=300"]);
    let run = mpirun(dir.path(), 2, &write, &[]);
    run.ok();
    assert!(run.stdout.contains("stonewalling pairs accessed min: "));
    let mut read = ior_easy("512k", "64m");
    read.extend(["-r", "-R"]);
    let run = mpirun(dir.path(), 2, &read, &[]);
    run.ok();
    assert!(!run.stdout.contains("incorrect data"));
}

#[test]
fn collective_stonewall_stops_every_task_at_the_same_transfer() {
    let dir = tempdir().unwrap();
    // Three ranks, two taking part: the idle one joins every checkpoint.
    let run = mpirun(
        dir.path(),
        3,
        &[
            "-a",
            "MPIIO",
            "-c",
            "-N",
            "2",
            "-t",
            "8",
            "-b",
            "64g",
            "-w",
            "-D",
            "1",
            "-O",
            "stoneWallingWearOut=1",
            "-O",
            "saveRankPerformanceDetailsCSV=r.csv",
            "-o",
            "coll",
        ],
        &[],
    );
    run.ok();
    let counts: Vec<u64> = rank_rows(&dir.path().join("r.csv"))
        .iter()
        .map(|r| r.2)
        .collect();
    assert_eq!(counts.len(), 2);
    assert_eq!(counts[0], counts[1]);
    assert!(counts[0] > 0);
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("stonewalling pairs accessed"))
        .unwrap();
    assert!(
        line.contains(&format!("min: {} max: {} ", counts[0], counts[0])),
        "{line}"
    );
}

#[test]
fn latency_histograms_merge_across_ranks() {
    let dir = tempdir().unwrap();
    let run = mpirun(
        dir.path(),
        4,
        &[
            "-a",
            "DUMMY",
            "--dummy.delay-xfer=1000",
            "-t",
            "1k",
            "-b",
            "10k",
            "-w",
            "-O",
            "summaryFormat=JSON",
            "-O",
            "summaryFile=out.json",
        ],
        &[],
    );
    run.ok();
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out.json")).unwrap()).unwrap();
    let p = &doc["tests"][0]["Results"][0]["latencyPercentiles"];
    assert_eq!(p["count"], 40);
    assert!(p["min"].as_f64().unwrap() >= 0.001);
    assert!(
        doc["tests"][0]["Results"][0]["taskTimes"]["slowest"]
            .as_u64()
            .unwrap()
            < 4
    );
}

#[test]
fn a_failed_file_view_closes_the_file_and_fails_cleanly() {
    let dir = tempdir().unwrap();
    // A file view holds blocks below 2 GiB: the open fails on every rank
    // after MPI_File_open, and the ranks close the file together.
    let run = mpirun(
        dir.path(),
        2,
        &[
            "-a", "MPIIO", "-c", "-V", "-w", "-t", "1m", "-b", "2g", "-o", "v",
        ],
        &[],
    );
    run.fails(1, "--mpiio.useFileView needs blocks below 2 GiB");
}

/// The header and the JSON name the MPI library that ran, and the launcher.
#[test]
fn the_mpi_library_and_launcher_are_named() {
    let dir = tempdir().unwrap();
    let args = ["-a", "DUMMY", "-w", "-t", "1k", "-b", "4k", "-o", "f"];
    let run = mpirun(dir.path(), 2, &args, &[]);
    run.ok();
    let (library, launcher) = match common::hydra() {
        Some(_) => ("MPICH Version: ", "mpiexec (hydra: MPICH, Intel MPI)"),
        None => ("Open MPI v", "mpirun (Open MPI)"),
    };
    assert!(
        header(&run.stdout, "MPI library").starts_with(library),
        "{}",
        run.stdout
    );
    assert!(
        header(&run.stdout, "Job").starts_with(launcher),
        "{}",
        run.stdout
    );
    let json = [&args[..], &["-O", "summaryFormat=JSON"]].concat();
    let run = mpirun(dir.path(), 2, &json, &[]);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let named = doc["pario"]["mpiLibrary"].as_str().unwrap();
    assert!(named.starts_with(library), "{named}");
    assert_eq!(doc["pario"]["job"]["launcher"], launcher);
    let md = common::mpirun(
        crate::common::bin("mdtest"),
        dir.path(),
        2,
        &["-n", "4", "-d", "md"],
        &[],
    );
    assert!(
        md.stdout.contains(&format!("\nMPI library: {named}\n")),
        "{}",
        md.stdout
    );
}
