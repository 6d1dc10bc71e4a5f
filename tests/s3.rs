//! `-a S3` against a real S3 server (SeaweedFS on loopback, started and
//! stopped by each test): data written and read back byte for byte in both
//! layouts, S3's limits refused up front, credentials never shown, and
//! nothing left behind.

use crate::common;

use common::s3::{files_text, Server, BUCKET, SECRET};
use common::{finish, rows, Run};
use std::path::Path;
use std::process::Command;

mod errors;
mod ior_lines;
mod transport;
mod vhost;

/// `ior` with `tasks` threads against `server`, in `dir`.
fn ior(server: &Server, dir: &Path, tasks: usize, args: &[&str]) -> Run {
    tool(server, crate::common::bin("ior"), dir, tasks, args)
}

pub(crate) fn assert_clean(server: &Server, prefix: &str) {
    let (objects, uploads) = server.leftovers(prefix);
    assert!(objects.is_empty(), "objects left: {objects:?}");
    assert!(uploads.is_empty(), "uploads left: {uploads:?}");
}

/// Every phase of an mdtest run on objects has a row with a rate above 0.
pub(crate) fn assert_every_mdtest_phase(stdout: &str) {
    for phase in [
        "Directory stat",
        "File creation",
        "File stat",
        "File read",
        "File removal",
        "Tree removal",
    ] {
        let line = stdout.lines().find(|l| l.trim_start().starts_with(phase));
        let rate: f64 = line
            .and_then(|l| l[phase.len() + 3..].split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{phase} in\n{stdout}"));
        assert!(rate > 0.0, "{phase}: {stdout}");
    }
}

#[test]
fn every_layout_round_trips_byte_for_byte() {
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/rt/file");
    let cases: &[&[&str]] = &[
        // A file per task: each object one multipart upload (3 parts).
        &["-F", "-t", "1m", "-b", "12m"],
        // One small object per task: a single PUT.
        &["-F", "-t", "256k", "-b", "1m", "-z"],
        // A shared object: each task uploads the parts of its own blocks.
        &["-t", "1m", "-b", "5m", "-s", "2"],
        // Shuffled shared object: every transfer is its own part.
        &["-t", "5m", "-b", "10m", "-z"],
        // Fragments in ior-hard's shape, shared and interleaved.
        &[
            "--s3.layout=fragments",
            "-t",
            "47008",
            "-b",
            "47008",
            "-s",
            "8",
        ],
        &["--s3.layout=fragments", "-F", "-t", "4k", "-b", "64k", "-z"],
        // Another task reads back (-C), timestamp packets.
        &["-t", "1m", "-b", "5m", "-C", "-l", "timestamp"],
        // Other task orders: -Q's offset, random tasks (-Z, -X's seed,
        // fixed and per-iteration).
        &["-t", "1m", "-b", "5m", "-C", "-Q", "2"],
        &["-F", "-t", "1m", "-b", "5m", "-Z", "-X", "7"],
        &["-t", "1m", "-b", "5m", "-Z", "-X", "-3"],
    ];
    for args in cases {
        let mut all = vec!["-o", o.as_str(), "-w", "-r", "-W", "-R"];
        all.extend_from_slice(args);
        let run = ior(&server, dir.path(), 4, &all);
        run.ok();
        assert_eq!(rows(&run.stdout).len(), 2, "{args:?}");
        assert!(
            !run.stdout.contains("incorrect data"),
            "{args:?}\n{}",
            run.stdout
        );
        assert_clean(&server, "rt/");
    }
}

#[test]
fn every_packet_type_and_small_random_reads_of_a_large_object() {
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/pk/file");
    for packet in ["offset", "incompressible", "random"] {
        let run = ior(
            &server,
            dir.path(),
            2,
            &[
                "-o", &o, "-w", "-r", "-W", "-R", "-t", "1m", "-b", "6m", "-l", packet,
            ],
        );
        run.ok();
        assert!(!run.stdout.contains("incorrect data"), "{}", run.stdout);
    }
    // A 12 MiB object (parts gathered from 4 KiB transfers), kept, then
    // read in 4 KiB ranged GETs in random order and checked.
    let big = format!("s3://{BUCKET}/pk/big");
    ior(
        &server,
        dir.path(),
        1,
        &["-o", &big, "-w", "-k", "-G", "77", "-t", "4k", "-b", "12m"],
    )
    .ok();
    assert_eq!(
        server.client().head(BUCKET, "pk/big").unwrap(),
        Some(12 << 20)
    );
    let run = ior(
        &server,
        dir.path(),
        1,
        &[
            "-o", &big, "-r", "-R", "-G", "77", "-t", "4k", "-b", "12m", "-z",
        ],
    );
    run.ok();
    assert!(!run.stdout.contains("incorrect data"), "{}", run.stdout);
    assert_eq!(rows(&run.stdout)[0].xfer_kib, 4.0);
    server.client().delete(BUCKET, "pk/big").unwrap();
    assert_clean(&server, "pk/");
}

#[test]
fn sizes_s3_cannot_express_are_refused_before_anything_is_created() {
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/no/file");
    let run = ior(
        &server,
        dir.path(),
        4,
        &["-o", &o, "-w", "-t", "1m", "-b", "4m"],
    );
    run.fails(
        2,
        "use -b 5 MiB (multiples of 5 MiB), -F, or --s3.layout=fragments",
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    let run = ior(
        &server,
        dir.path(),
        4,
        &["-o", &o, "-w", "-t", "1m", "-b", "10m", "-z"],
    );
    run.fails(2, "use -t 5 MiB or more");
    // Two tasks' blocks in one part: refused, though the object is small.
    let run = ior(
        &server,
        dir.path(),
        2,
        &["-o", &o, "-w", "-t", "1m", "-b", "2m"],
    );
    run.fails(2, "each part of a shared object lies within one block");
    let run = ior(&server, dir.path(), 1, &["-o", &o, "--s3.layout=blocks"]);
    run.fails(2, "--s3.layout=blocks: object or fragments");
    assert_clean(&server, "");
}

#[test]
fn the_secret_appears_in_no_output() {
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/sec/file");
    let run = ior(
        &server,
        dir.path(),
        2,
        &[
            "-o",
            &o,
            "-w",
            "-r",
            "-t",
            "1m",
            "-b",
            "5m",
            "-v",
            "-v",
            "-v",
            "-O",
            "summaryFormat=JSON,CSV",
            "-O",
            "summaryFile=out",
            "-O",
            "latencyHistogramFile=lat.csv",
        ],
    );
    run.ok();
    assert!(!run.stdout.contains(SECRET) && !run.stderr.contains(SECRET));
    let files = files_text(dir.path());
    assert!(files.len() >= 2, "{files:?}");
    for (path, text) in files {
        assert!(
            !text.contains(SECRET),
            "the secret is in {}",
            path.display()
        );
    }
    assert_clean(&server, "sec/");
}

#[test]
fn requests_in_flight_move_the_same_bytes() {
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/q/file");
    let cases: &[&[&str]] = &[
        &[
            "--s3.layout=fragments",
            "-F",
            "-t",
            "4k",
            "-b",
            "256k",
            "-z",
        ],
        &[
            "--s3.layout=fragments",
            "-t",
            "47008",
            "-b",
            "47008",
            "-s",
            "16",
        ],
        // Whole parts in flight: the shared object's parts from 2 tasks.
        &["-t", "5m", "-b", "20m"],
        // Parts gathered from smaller transfers (one at a time), reads in
        // flight.
        &["-F", "-t", "1m", "-b", "12m"],
    ];
    for args in cases {
        let mut all = vec![
            "-o",
            o.as_str(),
            "-w",
            "-r",
            "-W",
            "-R",
            "--s3.max-pending=8",
        ];
        all.extend_from_slice(args);
        let run = ior(&server, dir.path(), 2, &all);
        run.ok();
        assert!(run.stdout.contains("max-pending 8"), "{}", run.stdout);
        assert!(
            !run.stdout.contains("incorrect data"),
            "{args:?}\n{}",
            run.stdout
        );
        assert_clean(&server, "q/");
    }
    let run = ior(&server, dir.path(), 1, &["-o", &o, "--s3.max-pending=0"]);
    run.fails(2, "--s3.max-pending=0: from 1 to 1024");
}

/// `ior` with `args` as given (no `-a`), the server's address only in the
/// options (no AWS_* variables).
fn ior_plain(dir: &Path, tasks: usize, args: &[&str]) -> Run {
    let mut cmd = Command::new(crate::common::bin("ior"));
    cmd.args(args)
        .current_dir(dir)
        .env("PARIO_TASKS", tasks.to_string());
    for var in [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_ENDPOINT_URL",
    ] {
        cmd.env_remove(var);
    }
    finish(cmd.output().expect("run ior"))
}

#[test]
fn ior_s3_command_lines_run_unchanged() {
    use common::s3::KEY_ID;
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let host = server.endpoint.trim_start_matches("http://").to_string();
    let host_opt = format!("--S3-libs3.host={host}");
    let access = format!("--S3-libs3.access-key={KEY_ID}");
    let secret = format!("--S3-libs3.secret-key={SECRET}");
    // IO500's contrib/s3 sample (without TLS), in ior-hard's shape: IOR's
    // bucket (ior + a number from the key) made, its keys, removed after.
    let run = ior_plain(
        dir.path(),
        2,
        &[
            "-a",
            "S3-libs3",
            &host_opt,
            &access,
            &secret,
            "--S3-libs3.s3-compatible",
            "-o",
            "/tmp/ior-hard/file",
            "-t",
            "47008",
            "-b",
            "47008",
            "-s",
            "10",
            "-w",
            "-r",
            "-W",
            "-R",
        ],
    );
    run.ok();
    assert!(!run.stdout.contains(SECRET) && !run.stderr.contains(SECRET));
    assert!(
        run.stdout.contains("--S3-libs3.secret-key=(secret)"),
        "{}",
        run.stdout
    );
    let buckets = server.client().list_buckets().unwrap();
    assert_eq!(buckets, [BUCKET], "IOR's bucket is removed at the end");
    // -k keeps IOR's keys in IOR's bucket: the file at offset 0 and its
    // fragments KEY-OFFSET-LENGTH.
    let bucket = format!("ior{}", pario::backend::s3::libs3_suffix(KEY_ID));
    ior_plain(
        dir.path(),
        1,
        &[
            "-a", "S3-libs3", &host_opt, &access, &secret, "-o", "/tmp/t", "-t", "1k", "-b", "2k",
            "-w", "-k",
        ],
    )
    .ok();
    let (objects, _) = server.client().list(&bucket, "", None, None).unwrap();
    let keys: Vec<&str> = objects.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(keys, ["_tmp_tb", "_tmp_tb-1024-1024"]);
    server
        .client()
        .delete_many(&bucket, &["_tmp_tb".into(), "_tmp_tb-1024-1024".into()])
        .unwrap();
    server.client().delete_bucket(&bucket).unwrap();
    // S3-curl's options, on pario's mapping.
    let run = ior_plain(
        dir.path(),
        2,
        &[
            "-a",
            "S3-curl",
            &format!("--S3-curl.host={host}"),
            &format!("--S3-curl.bucket={BUCKET}"),
            "--S3-curl.access-key",
            KEY_ID,
            "--S3-curl.secret-key",
            SECRET,
            "-o",
            "curl/file",
            "-t",
            "1m",
            "-b",
            "5m",
            "-w",
            "-r",
            "-W",
            "-R",
        ],
    );
    run.ok();
    assert!(!run.stdout.contains(SECRET));
    assert_clean(&server, "curl/");
}

/// mdtest or md-workbench against `server`.
fn tool(server: &Server, binary: &str, dir: &Path, tasks: usize, args: &[&str]) -> Run {
    let mut cmd = server.tool(Command::new(binary), dir, tasks);
    finish(cmd.args(args).output().expect("run the tool"))
}

#[test]
fn mdtest_and_md_workbench_run_every_phase_on_objects() {
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let d = format!("s3://{BUCKET}/md");
    let run = tool(
        &server,
        crate::common::bin("mdtest"),
        dir.path(),
        2,
        &[
            "-d", &d, "-n", "20", "-w", "100", "-e", "100", "-z", "1", "-b", "2", "-X",
        ],
    );
    run.ok();
    assert_every_mdtest_phase(&run.stdout);
    // No `FS:` line for an object store: the client in its place.
    let store = format!(
        "Object store: S3 (ureq 3 + SigV4, layout object, path-style, max-pending 1, {})",
        server.endpoint
    );
    assert!(run.stdout.contains(&store), "{}", run.stdout);
    assert_clean(&server, "md");
    let o = format!("s3://{BUCKET}/mdw");
    let run = tool(
        &server,
        crate::common::bin("md-workbench"),
        dir.path(),
        2,
        &["-o", &o, "-I", "10", "-D", "2", "-P", "10", "-R", "2"],
    );
    run.ok();
    assert!(run.stdout.contains(&store), "{}", run.stdout);
    let errs = run.stdout.matches("errs)").count();
    assert!(
        errs > 0 && run.stdout.matches("(0 errs)").count() == errs,
        "{}",
        run.stdout
    );
    assert_clean(&server, "mdw");
}

#[test]
fn sigint_in_the_middle_of_multipart_uploads_leaves_nothing() {
    use crate::common::running::Running;
    use rustix::process::Signal;
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/int/file");
    let mut cmd = Command::new(crate::common::bin("ior"));
    cmd.args(["-a", "S3", "-o", &o, "-w", "-F", "-t", "1m", "-b", "4g"])
        .current_dir(dir.path())
        .env("PARIO_TASKS", "2");
    for (k, v) in server.env() {
        cmd.env(k, v);
    }
    let mut run = Running::start(cmd);
    let client = server.client();
    run.wait_until("both tasks' uploads in progress", || {
        client
            .list_uploads(BUCKET, "int/")
            .is_ok_and(|u| u.len() == 2)
    });
    run.signal(Signal::INT);
    let end = run.ended();
    assert_eq!(end.status, Some(130), "{}", end.stderr);
    assert!(
        end.stderr.contains("interrupted by SIGINT"),
        "{}",
        end.stderr
    );
    assert_clean(&server, "int/");
}

#[test]
fn https_needs_the_servers_ca_or_an_explicit_insecure() {
    let server = Server::start_tls();
    let (https, ca) = server.https.clone().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/tls/file");
    let endpoint = format!("--s3.endpoint={https}");
    let base = [
        "-F",
        "-o",
        o.as_str(),
        endpoint.as_str(),
        "-t",
        "1m",
        "-b",
        "2m",
        "-w",
        "-r",
        "-W",
        "-R",
    ];
    let refused = ior(&server, dir.path(), 1, &base);
    refused.fails(2, "UnknownIssuer");
    assert!(refused.stderr.contains(&https), "{}", refused.stderr);
    let ca_file = format!("--s3.ca-file={}", ca.display());
    let run = ior(
        &server,
        dir.path(),
        2,
        &[&base[..], &[ca_file.as_str()]].concat(),
    );
    run.ok();
    assert!(run.stdout.contains(&https), "{}", run.stdout);
    let run = ior(
        &server,
        dir.path(),
        1,
        &[&base[..], &["--s3.insecure"]].concat(),
    );
    run.ok();
    assert!(
        run.stdout.contains("WARNING: --s3.insecure"),
        "{}",
        run.stdout
    );
    assert_clean(&server, "tls/");
}
