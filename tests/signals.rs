//! Signals sent to running `ior` and `mdtest` (local engine, two tasks):
//! the phase closes, the partial figures are reported and marked, what the
//! run created is removed, and the exit status is 128 + the signal.
//!
//! The runs are made long on purpose (8-byte transfers, millions of items)
//! so that the signal always lands in the phase the test waits for.

use std::path::Path;
use std::process::Command;

use crate::common;
use crate::common::entries;
use crate::common::running::{holds, scratch_with_user_file, Running};
use rustix::process::Signal;

fn command(binary: &str, dir: &Path, tasks: usize, args: &[&str]) -> Command {
    let mut cmd = Command::new(binary);
    cmd.args(args)
        .current_dir(dir)
        .env("PARIO_TASKS", tasks.to_string());
    cmd
}

/// `ior -w` with 8-byte transfers into `dir`, each task its own file.
fn long_ior(dir: &Path, extra: &[&str]) -> Running {
    let target = dir.join("t");
    let mut args = vec![
        "-w",
        "-t",
        "8",
        "-b",
        "8g",
        "-F",
        "-o",
        target.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    Running::start(command(crate::common::bin("ior"), dir, 2, &args))
}

fn both_files_open(dir: &Path) -> impl Fn() -> bool + '_ {
    move || dir.join("t.00000000").exists() && dir.join("t.00000001").exists()
}

#[test]
fn ior_sigint_reports_the_partial_phase_and_removes_its_files() {
    let dir = scratch_with_user_file();
    let json = tempfile::NamedTempFile::new().unwrap();
    let json_path = json.path().to_str().unwrap();
    let mut run = long_ior(
        dir.path(),
        &[
            "-O",
            "summaryFormat=JSON",
            "-O",
            &format!("summaryFile={json_path}"),
        ],
    );
    run.wait_until("the write phase", both_files_open(dir.path()));
    run.signal(Signal::INT);
    let end = run.ended();
    assert_eq!(end.status, Some(130), "{}", end.stderr);
    assert_eq!(entries(dir.path()), ["user.txt"]);
    assert!(
        end.stderr.contains("interrupted by SIGINT"),
        "{}",
        end.stderr
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json.path()).unwrap()).unwrap();
    let results = &doc["tests"][0]["Results"];
    let write = results.as_array().unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(write.len(), 1, "one row: the interrupted write");
    assert_eq!(write[0]["access"], "write");
    assert_eq!(write[0]["interrupted"], "SIGINT");
    assert!(write[0]["bwMiB"].as_f64().unwrap() > 0.0);
}

#[test]
fn ior_text_marks_the_row_and_every_stop_signal_has_its_status() {
    for (sig, name, status) in [
        (Signal::TERM, "SIGTERM", 143),
        (Signal::HUP, "SIGHUP", 129),
        (Signal::USR1, "SIGUSR1", 138),
        (Signal::USR2, "SIGUSR2", 140),
    ] {
        let dir = scratch_with_user_file();
        let mut run = long_ior(dir.path(), &[]);
        run.wait_until("the write phase", both_files_open(dir.path()));
        run.signal(sig);
        let end = run.ended();
        assert_eq!(end.status, Some(status), "{name}: {}", end.stderr);
        let line = format!(
            "interrupted by {name}: the write-0 row above covers the transfers made until then"
        );
        assert!(end.stdout.contains(&line), "{name}: {}", end.stdout);
        assert_eq!(common::rows(&end.stdout).len(), 1, "{}", end.stdout);
        assert_eq!(entries(dir.path()), ["user.txt"], "{name}");
    }
}

/// `mdtest -F` creating two million files per task under `dir/m`.
fn long_mdtest(dir: &Path, extra: &[&str]) -> Running {
    let root = dir.join("m");
    let mut args = vec!["-n", "2000000", "-F", "-d", root.to_str().unwrap()];
    args.extend_from_slice(extra);
    Running::start(command(crate::common::bin("mdtest"), dir, 2, &args))
}

#[test]
fn mdtest_sigint_in_the_create_phase_reports_it_and_removes_every_item() {
    let dir = scratch_with_user_file();
    let csv = tempfile::NamedTempFile::new().unwrap();
    let csv_path = csv.path().to_str().unwrap();
    let mut run = long_mdtest(
        dir.path(),
        &["--summaryFormat=CSV", &format!("--summaryFile={csv_path}")],
    );
    let root = dir.path().join("m");
    run.wait_until("the create phase", || holds(&root, "file.mdtest."));
    run.signal(Signal::INT);
    let end = run.ended();
    assert_eq!(end.status, Some(130), "{}", end.stderr);
    assert_eq!(entries(dir.path()), ["user.txt"]);
    assert!(
        end.stderr.contains("interrupted by SIGINT"),
        "{}",
        end.stderr
    );
    let text = std::fs::read_to_string(csv.path()).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let create = rows
        .iter()
        .find(|r| r[column("operation")] == "File creation")
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(create[column("interrupted")], "SIGINT");
    let items: u64 = create[column("items")].parse().unwrap();
    assert!(items > 0 && items < 4_000_000, "{text}");
    assert!(
        rows.iter().all(|r| r[column("operation")] != "File stat"),
        "no phase after the signal: {text}"
    );
}

#[test]
fn mdtest_text_names_the_phase_and_keeps_files_it_did_not_create() {
    let dir = scratch_with_user_file();
    // Items already in the tree are the user's: the run must not remove
    // them even when a signal stops it.
    let root = dir.path().join("m");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("notes"), "mine").unwrap();
    let mut run = long_mdtest(dir.path(), &["-u"]);
    run.wait_until("the create phase", || holds(&root, "file.mdtest."));
    run.signal(Signal::TERM);
    let end = run.ended();
    assert_eq!(end.status, Some(143), "{}", end.stderr);
    let line = "interrupted by SIGTERM in iteration 1 of 1, File creation: \
                the figures above cover the items handled until then";
    assert!(end.stdout.contains(line), "{}", end.stdout);
    assert!(!end.stdout.contains("-- finished at"), "{}", end.stdout);
    assert_eq!(entries(dir.path()), ["m", "user.txt"]);
    assert_eq!(entries(&root), ["notes"]);
}

/// Sends `sig` every 10 ms until the run ends.
fn keep_signalling(run: &mut common::running::Running, sig: Signal) {
    while !run.wait_for(std::time::Duration::from_millis(10)) {
        run.signal(sig);
    }
}

#[test]
fn a_second_sigint_ends_the_run_at_once_saying_where_files_may_be() {
    let dir = scratch_with_user_file();
    let mut run = long_mdtest(dir.path(), &[]);
    let root = dir.path().join("m");
    // 60,000 files made: removing them takes far longer than the 10 ms
    // until the next signal.
    run.wait_until("60,000 files", || holds(&root, "file.mdtest.1.30000"));
    run.signal(Signal::INT);
    keep_signalling(&mut run, Signal::INT);
    let end = run.ended();
    assert_eq!(end.status, Some(130), "{}", end.stderr);
    let line = format!(
        "mdtest: SIGINT again: stopped at once; what this run created may be left in {}",
        root.display()
    );
    assert!(end.stderr.contains(&line), "{}", end.stderr);
}

/// Launchers send SIGTERM more than once: the stop goes on and removes
/// everything.
#[test]
fn more_sigterms_do_not_cut_the_stop_short() {
    let dir = scratch_with_user_file();
    let mut run = long_mdtest(dir.path(), &[]);
    let root = dir.path().join("m");
    run.wait_until("the create phase", || holds(&root, "file.mdtest."));
    run.signal(Signal::TERM);
    keep_signalling(&mut run, Signal::TERM);
    let end = run.ended();
    assert_eq!(end.status, Some(143), "{}", end.stderr);
    assert!(!end.stderr.contains("again"), "{}", end.stderr);
    assert_eq!(entries(dir.path()), ["user.txt"]);
}

#[test]
fn with_k_an_interrupted_run_keeps_its_files() {
    let dir = scratch_with_user_file();
    let mut run = long_ior(dir.path(), &["-k"]);
    run.wait_until("the write phase", both_files_open(dir.path()));
    run.signal(Signal::INT);
    let end = run.ended();
    assert_eq!(end.status, Some(130), "{}", end.stderr);
    assert_eq!(
        entries(dir.path()),
        ["t.00000000", "t.00000001", "user.txt"]
    );
}

#[test]
fn aio_sigint_completes_the_requests_in_flight_then_removes_the_files() {
    let dir = scratch_with_user_file();
    let mut run = long_ior(dir.path(), &["-a", "AIO", "--aio.max-pending=32"]);
    run.wait_until("the write phase", both_files_open(dir.path()));
    run.signal(Signal::INT);
    let end = run.ended();
    assert_eq!(end.status, Some(130), "{}", end.stderr);
    assert!(
        end.stderr.contains("interrupted by SIGINT"),
        "{}",
        end.stderr
    );
    assert_eq!(entries(dir.path()), ["user.txt"]);
}

/// A signal during a sweep step with a task waiting outside it: the step's
/// partial row, no further step, every task stops with the signal's status.
#[test]
fn ior_sigint_in_a_sweep_step_stops_the_sweep() {
    let dir = scratch_with_user_file();
    let mut run = long_ior(dir.path(), &["-O", "sweep=1,2"]);
    run.wait_until("step 1's write", || dir.path().join("t.00000000").exists());
    run.signal(Signal::INT);
    let end = run.ended();
    assert_eq!(end.status, Some(130), "{}", end.stderr);
    assert!(
        end.stdout.contains("Sweep step 1 of 2: 1 nodes, 1 tasks"),
        "{}",
        end.stdout
    );
    assert!(!end.stdout.contains("Sweep step 2"), "{}", end.stdout);
    assert!(
        end.stdout
            .contains("interrupted by SIGINT: the write-0 row"),
        "{}",
        end.stdout
    );
    assert_eq!(entries(dir.path()), ["user.txt"]);
}

/// A signal after the last measurement, while the JSON document is written:
/// the results are complete, and the exit status still says 128 + n.
#[test]
fn a_signal_after_the_last_measurement_still_sets_the_status() {
    let dir = scratch_with_user_file();
    let fifo_path = dir.path().join("doc.json");
    let fifo = common::running::Fifo::make(&fifo_path);
    let summary = format!("summaryFile={}", fifo_path.display());
    let target = dir.path().join("t");
    // Enough repetitions for a document larger than the pipe holds.
    let args = [
        "-w",
        "-t",
        "4k",
        "-b",
        "8k",
        "-i",
        "200",
        "-o",
        target.to_str().unwrap(),
        "-O",
        "summaryFormat=JSON",
        "-O",
        &summary,
    ];
    let mut run = Running::start(command(crate::common::bin("ior"), dir.path(), 1, &args));
    run.wait_until("the document", || fifo.written());
    run.signal(Signal::INT);
    let doc = fifo.drain();
    let end = run.ended();
    assert_eq!(end.status, Some(130), "{}", end.stderr);
    assert!(
        end.stderr
            .contains("SIGINT came after the last measurement"),
        "{}",
        end.stderr
    );
    let doc: serde_json::Value = serde_json::from_slice(&doc).unwrap();
    assert_eq!(doc["tests"][0]["Results"].as_array().unwrap().len(), 200);
    assert_eq!(entries(dir.path()), ["doc.json", "user.txt"]);
}

/// The same for io500, while it writes result.json.
#[test]
fn io500_sets_the_status_for_a_signal_after_its_last_phase() {
    let dir = scratch_with_user_file();
    let d = dir.path().display();
    let config = format!(
        "[global]\ndatadir = {d}/data\nresultdir = {d}/results\n[debug]\nstonewall-time = 1\n\
         [ior-easy]\ntransferSize = 4k\nblockSize = 16k\n[mdtest-easy]\nn = 10\n\
         [ior-hard]\nsegmentCount = 2\n[mdtest-hard]\nn = 10\n[find]\nnproc = 1\n"
    );
    let ini = dir.path().join("io500.ini");
    std::fs::write(&ini, config).unwrap();
    std::fs::create_dir_all(dir.path().join("results/S")).unwrap();
    let fifo = common::running::Fifo::make(&dir.path().join("results/S/result.json"));
    let args = [ini.to_str().unwrap(), "--timestamp=S"];
    let mut run = Running::start(command(crate::common::bin("io500"), dir.path(), 1, &args));
    run.wait_until("result.json", || fifo.written());
    run.signal(Signal::INT);
    let doc = fifo.drain();
    let end = run.ended();
    assert_eq!(end.status, Some(130), "{}", end.stderr);
    assert!(
        end.stderr
            .contains("SIGINT came after the last measurement"),
        "{}",
        end.stderr
    );
    assert!(end.stdout.contains("[SCORE ]"), "{}", end.stdout);
    serde_json::from_slice::<serde_json::Value>(&doc).unwrap();
    assert!(!dir.path().join("data/S").exists());
}

/// A file size of gigabytes makes mdtest fill a buffer that large before
/// its first file: a signal meanwhile stops the fill, and the run.
#[test]
fn a_signal_while_a_huge_buffer_is_filled_stops_the_run() {
    let dir = scratch_with_user_file();
    let args = [
        "-a",
        "DUMMY",
        "-w",
        "4294967296",
        "-n",
        "1",
        "-F",
        "-d",
        "m",
    ];
    let mut run = Running::start(command(crate::common::bin("mdtest"), dir.path(), 3, &args));
    let stdout = run.stdout_path();
    let said = move || std::fs::read_to_string(&stdout).is_ok_and(|t| t.contains("Path"));
    run.wait_until("the header", said);
    run.signal(Signal::INT);
    let end = run.ended();
    assert_eq!(end.status, Some(130), "{}", end.stderr);
    assert_eq!(entries(dir.path()), ["user.txt"]);
}
