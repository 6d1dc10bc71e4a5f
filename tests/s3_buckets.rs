//! `-a S3-libs3 --S3-libs3.bucket-per-file` against a real S3 server
//! (SeaweedFS on loopback, the tests sharing servers in turn): every file
//! and directory a bucket of its own, under a valid name; what was written
//! read back byte for byte; at the end the server's buckets are the ones
//! it had before (a bucket that existed is never removed), and the secret
//! appears in no output.

use crate::common;

use crate::s3::{assert_phases, MDTEST_BUCKET_PHASES, MDTEST_PHASES};
use common::s3::{libs3_command, libs3_options, Server, KEY_ID, SECRET};
use common::{finish, Run};
use rustix::process::Signal;
use std::path::Path;
use std::process::Command;

/// `binary` with IOR's S3-libs3 options (a bucket per file) and `args`,
/// on `tasks` threads; the server's address and keys only in the options.
fn libs3(server: &Server, binary: &str, dir: &Path, tasks: usize, args: &[&str]) -> Run {
    let args = [&["--S3-libs3.bucket-per-file"][..], args].concat();
    common::s3::libs3_run(server.host(), binary, dir, tasks, &args)
}

fn buckets(server: &Server) -> Vec<String> {
    let mut names = server.client().list_buckets().unwrap();
    names.sort();
    names
}

/// IOR's prefix with its suffix: the start of every bucket of a file.
fn prefix() -> String {
    format!("ior{}-", pario::backend::s3::libs3_suffix(KEY_ID))
}

#[test]
fn ior_writes_and_reads_a_bucket_per_file() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    // A bucket that exists before: never touched. It holds an object.
    server.client().create_bucket("pario-before").unwrap();
    server
        .client()
        .put("pario-before", "kept", b"data")
        .unwrap();
    let before = buckets(&server);
    let ior = crate::common::bin("ior");
    for shape in [&["-F"][..], &[][..], &["-z"][..]] {
        let mut args = vec![
            "-o",
            "/tmp/test",
            "-t",
            "1k",
            "-b",
            "4k",
            "-s",
            "2",
            "-w",
            "-r",
            "-W",
            "-R",
            "-C",
        ];
        args.extend_from_slice(shape);
        let run = libs3(&server, ior, dir.path(), 3, &args);
        run.ok();
        assert!(run.stdout.contains("a bucket per file"), "{}", run.stdout);
        assert_eq!(buckets(&server), before, "{shape:?}: {}", run.stdout);
    }
    // The object layout: the object `0`, one PUT per task's file, or a
    // multipart upload the tasks of a shared file share.
    for shape in [
        &["-F", "-t", "1k", "-b", "4k"][..],
        &["-t", "1m", "-b", "5m"][..],
    ] {
        let mut args = vec![
            "--s3.layout=object",
            "-o",
            "/tmp/obj",
            "-w",
            "-r",
            "-W",
            "-R",
        ];
        args.extend_from_slice(shape);
        libs3(&server, ior, dir.path(), 2, &args).ok();
        assert_eq!(buckets(&server), before, "{shape:?}");
    }
    // With -k the file's bucket stays: its name valid, its keys IOR's.
    let kept =
        |rest: &[&'static str]| [&["-o", "/tmp/kept", "-t", "1k", "-b", "2k"], rest].concat();
    let run = libs3(&server, ior, dir.path(), 1, &kept(&["-w", "-k", "-G", "7"]));
    run.ok();
    let made: Vec<String> = buckets(&server)
        .into_iter()
        .filter(|b| !before.contains(b))
        .collect();
    assert_eq!(made.len(), 1, "{made:?}");
    assert!(
        made[0].starts_with(&format!("{}tmp-keptb-", prefix())),
        "{made:?}"
    );
    let (objects, _) = server.client().list(&made[0], "", None, None).unwrap();
    let keys: Vec<&str> = objects.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(keys, ["0", "1024-1024"]);
    // Read back by a later run, then removed by one that writes it anew.
    let run = libs3(
        &server,
        ior,
        dir.path(),
        1,
        &kept(&["-r", "-R", "-k", "-G", "7"]),
    );
    run.ok();
    libs3(&server, ior, dir.path(), 1, &kept(&["-w"])).ok();
    assert_eq!(buckets(&server), before);
    let (objects, _) = server
        .client()
        .list("pario-before", "", None, None)
        .unwrap();
    assert_eq!(objects.len(), 1, "the bucket that existed keeps its object");
    // A relative path keeps IOR's very name (IOR's default -o testFile).
    let relative = ["-o", "testFile", "-t", "1k", "-b", "1k", "-w"];
    libs3(
        &server,
        ior,
        dir.path(),
        1,
        &[&relative[..], &["-k"]].concat(),
    )
    .ok();
    let name = format!("{}testfileb", prefix());
    assert!(buckets(&server).contains(&name), "{:?}", buckets(&server));
    libs3(&server, ior, dir.path(), 1, &relative).ok();
    assert_eq!(buckets(&server), before);
}

#[test]
fn mdtest_runs_every_phase_on_buckets_and_leaves_the_rest() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let before = buckets(&server);
    let mdtest = crate::common::bin("mdtest");
    let run = libs3(
        &server,
        mdtest,
        dir.path(),
        2,
        &[
            "-d", "/md", "-n", "6", "-w", "100", "-e", "100", "-z", "1", "-b", "2", "-X",
        ],
    );
    run.ok();
    assert_phases(
        &run.stdout,
        &[&MDTEST_PHASES[..], &MDTEST_BUCKET_PHASES].concat(),
    );
    assert_eq!(buckets(&server), before, "{}", run.stdout);
    // A root that exists before the run (its bucket) stays after it.
    let root = format!("{}md2", prefix());
    server.client().create_bucket(&root).unwrap();
    let before = buckets(&server);
    libs3(
        &server,
        mdtest,
        dir.path(),
        2,
        &["-d", "/md2", "-n", "4", "-w", "10", "-e", "10"],
    )
    .ok();
    assert_eq!(buckets(&server), before);
    // md-workbench: its dataset's directories and objects, buckets too.
    let run = libs3(
        &server,
        crate::common::bin("md-workbench"),
        dir.path(),
        2,
        &["-o", "/mdw", "-I", "4", "-D", "2", "-P", "4", "-R", "2"],
    );
    run.ok();
    assert_eq!(buckets(&server), before, "{}", run.stdout);
}

/// `binary` with IOR's S3-libs3 options and `args`, stopped by `signal`
/// once more than `at_least` buckets were made; the buckets afterwards
/// are the ones before.
fn interrupted(server: &Server, binary: &str, args: &[&str], at_least: usize, signal: Signal) {
    use crate::common::running::Running;
    let dir = tempfile::tempdir().unwrap();
    let before = buckets(server);
    let args = [&["--S3-libs3.bucket-per-file"][..], args].concat();
    let cmd = libs3_command(server.host(), binary, dir.path(), 2, &args);
    let mut run = Running::start(cmd);
    let client = server.client();
    run.wait_until("buckets made", || {
        client
            .list_buckets()
            .is_ok_and(|b| b.len() > before.len() + at_least)
    });
    run.signal(signal);
    let end = run.ended();
    assert_eq!(end.status, Some(128 + signal.as_raw()), "{}", end.stderr);
    assert!(!end.stderr.contains(SECRET));
    assert_eq!(buckets(server), before, "{}", end.stderr);
}

#[test]
fn an_interrupted_run_removes_the_buckets_it_made() {
    let server = Server::shared(&[]);
    server.client().create_bucket("pario-before").unwrap();
    interrupted(
        &server,
        crate::common::bin("ior"),
        &["-o", "/tmp/int", "-F", "-w", "-t", "1k", "-b", "1g"],
        1,
        Signal::INT,
    );
    interrupted(
        &server,
        crate::common::bin("mdtest"),
        &["-d", "/mdint", "-n", "100000", "-F", "-C"],
        5,
        Signal::INT,
    );
    // A time limit (Slurm's SIGTERM) in mdtest's directory phase.
    interrupted(
        &server,
        crate::common::bin("mdtest"),
        &["-d", "/mdterm", "-n", "100000", "-D", "-C"],
        5,
        Signal::TERM,
    );
}

#[test]
fn io500_refuses_a_bucket_per_file_before_any_phase() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let before = buckets(&server);
    let options = libs3_options(server.host()).join(" ");
    let global =
        format!("datadir = ./datafiles\napi = S3-libs3 {options} --S3-libs3.bucket-per-file");
    let cfg = crate::s3_io500::config(dir.path(), &global);
    let out = Command::new(crate::common::bin("io500"))
        .args([cfg.as_str(), "--timestamp=T1"])
        .current_dir(dir.path())
        .env("PARIO_TASKS", "2")
        .output()
        .expect("run io500");
    let run = finish(out);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("drop --S3-libs3.bucket-per-file"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains(SECRET) && !run.stderr.contains(SECRET));
    assert!(!dir.path().join("datafiles").exists(), "no local data");
    assert_eq!(buckets(&server), before);
}
