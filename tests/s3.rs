//! `-a S3` against a real S3 server (SeaweedFS on loopback, the tests
//! sharing servers in turn: `common::s3`): data written and read back byte
//! for byte in both layouts, S3's limits refused up front, credentials
//! never shown, and nothing left behind.

use crate::common;

use common::running::Running;
use common::s3::{files_text, without_aws_env, Server, BUCKET, SECRET};
use common::{finish, rows, Run};
use std::path::Path;
use std::process::Command;

mod completion;
mod errors;
mod ior_lines;
mod transport;
mod vhost;

/// `ior` with `tasks` threads against `server`, in `dir`.
fn ior(server: &Server, dir: &Path, tasks: usize, args: &[&str]) -> Run {
    tool(server, crate::common::bin("ior"), dir, tasks, args)
}

/// mdtest's phases that have a row when it runs on objects, and those on
/// buckets (IOR's S3-libs3, a bucket per directory) add.
pub(crate) const MDTEST_PHASES: [&str; 6] = [
    "Directory stat",
    "File creation",
    "File stat",
    "File read",
    "File removal",
    "Tree removal",
];
pub(crate) const MDTEST_BUCKET_PHASES: [&str; 3] =
    ["Directory creation", "Directory removal", "Tree creation"];

/// Each of `phases` has a row of mdtest's `stdout` with a rate above 0.
pub(crate) fn assert_phases(stdout: &str, phases: &[&str]) {
    for phase in phases {
        let line = stdout.lines().find(|l| l.trim_start().starts_with(phase));
        let rate: f64 = line
            .and_then(|l| l[phase.len() + 3..].split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{phase} in\n{stdout}"));
        assert!(rate > 0.0, "{phase}: {stdout}");
    }
}

/// A round trip: `-w -r -R` of `s3://bench/PREFIX/file` in one shape (the
/// read phase checks every byte; `-W`'s read-back is tried on objects by
/// the packet types' test, once per type).
pub(crate) struct Trip {
    pub tasks: usize,
    pub args: &'static [&'static str],
    /// Run under mpirun too (s3_mpi.rs, on 4 ranks).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub mpi: bool,
}

/// Every layout and order, and requests in flight, written and read back.
#[rustfmt::skip]
pub(crate) const ROUND_TRIPS: &[Trip] = &[
    // A file per task: each object one multipart upload (3 parts).
    trip(4, &["-F", "-t", "1m", "-b", "12m"]),
    // One small object per task: a single PUT.
    trip(4, &["-F", "-t", "256k", "-b", "1m", "-z"]),
    // A shared object: each task uploads the parts of its own blocks.
    mpi(4, &["-t", "1m", "-b", "5m", "-s", "2"]),
    // Shuffled shared object: every transfer is its own part.
    mpi(4, &["-t", "5m", "-b", "10m", "-z"]),
    // Fragments in ior-hard's shape, shared and interleaved.
    mpi(4, &["--s3.layout=fragments", "-t", "47008", "-b", "47008", "-s", "8"]),
    trip(4, &["--s3.layout=fragments", "-F", "-t", "4k", "-b", "64k", "-z"]),
    // Another task reads back (-C), timestamp packets.
    trip(4, &["-t", "1m", "-b", "5m", "-C", "-l", "timestamp"]),
    // Other task orders: -Q's offset, random tasks (-Z, -X's seed, fixed
    // and per-iteration).
    trip(4, &["-t", "1m", "-b", "5m", "-C", "-Q", "2"]),
    trip(4, &["-F", "-t", "1m", "-b", "5m", "-Z", "-X", "7"]),
    trip(4, &["-t", "1m", "-b", "5m", "-Z", "-X", "-3"]),
    // Requests in flight: fragments; whole parts of a shared object from 2
    // tasks; parts gathered from smaller transfers (one at a time), reads
    // in flight.
    trip(2, &["--s3.max-pending=8", "--s3.layout=fragments", "-F", "-t", "4k", "-b", "256k", "-z"]),
    trip(2, &["--s3.max-pending=8", "--s3.layout=fragments", "-t", "47008", "-b", "47008", "-s", "16"]),
    trip(2, &["--s3.max-pending=8", "-t", "5m", "-b", "20m"]),
    mpi(2, &["--s3.max-pending=8", "-F", "-t", "1m", "-b", "12m"]),
];

const fn trip(tasks: usize, args: &'static [&'static str]) -> Trip {
    Trip {
        tasks,
        args,
        mpi: false,
    }
}

const fn mpi(tasks: usize, args: &'static [&'static str]) -> Trip {
    Trip {
        tasks,
        args,
        mpi: true,
    }
}

impl Trip {
    /// Its ior arguments (no `-a`), on objects under `prefix`, kept (`-k`)
    /// for [`Trip::check`] to weigh.
    pub fn command(&self, prefix: &str) -> Vec<String> {
        let o = format!("s3://{BUCKET}/{prefix}/file");
        let all = ["-o", &o, "-w", "-r", "-R", "-k"]
            .into_iter()
            .chain(self.args.iter().copied());
        all.map(String::from).collect()
    }

    /// The bytes a run stores: `-b` times `-s` on each of its tasks (the
    /// header's `tasks` line: under mpirun, the ranks).
    fn stored(&self, run: &Run) -> u64 {
        let value = |flag: &str| {
            let at = self.args.iter().position(|a| *a == flag);
            at.map_or(1, |i| pario::units::parse_size(self.args[i + 1]).unwrap())
        };
        let tasks: u64 = run
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix("tasks")?.trim_start().strip_prefix(':'))
            .and_then(|n| n.trim().parse().ok())
            .expect("the header's tasks line");
        value("-b") * value("-s") * tasks
    }

    /// A write and a read row, every byte as written, the objects kept
    /// holding all that was written and no more (a completed upload's
    /// size), the requests in flight shown in the header; then the
    /// objects removed, nothing left under `prefix`.
    pub fn check(&self, run: &Run, server: &Server, prefix: &str) {
        run.ok();
        assert_eq!(rows(&run.stdout).len(), 2, "{:?}", self.args);
        let args = self.args;
        assert!(
            !run.stdout.contains("incorrect data"),
            "{args:?}\n{}",
            run.stdout
        );
        if let Some(n) = args
            .iter()
            .find_map(|a| a.strip_prefix("--s3.max-pending="))
        {
            let shown = format!("max-pending {n}");
            assert!(run.stdout.contains(&shown), "{}", run.stdout);
        }
        let client = server.client();
        let (kept, _) = client
            .list(BUCKET, &format!("{prefix}/"), None, None)
            .unwrap();
        let stored: u64 = kept.iter().map(|o| o.size).sum();
        assert_eq!(stored, self.stored(run), "{args:?}: {kept:?}");
        let keys: Vec<String> = kept.into_iter().map(|o| o.key).collect();
        client.delete_many(BUCKET, &keys).unwrap();
        server.assert_clean(&format!("{prefix}/"));
    }
}

#[test]
fn every_layout_round_trips_byte_for_byte() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    for trip in ROUND_TRIPS {
        let args = trip.command("rt");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = ior(&server, dir.path(), trip.tasks, &args);
        trip.check(&run, &server, "rt");
    }
}

#[test]
fn every_packet_type_and_small_random_reads_of_a_large_object() {
    let server = Server::shared(&[]);
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
    // A 6 MiB object (a 5 MiB part and a 1 MiB one, gathered from 16 KiB
    // transfers), kept, then read in 16 KiB ranged GETs in random order and
    // checked (4 KiB ones: 1,536 GETs, seconds of the server's CPU).
    let big = format!("s3://{BUCKET}/pk/big");
    ior(
        &server,
        dir.path(),
        1,
        &["-o", &big, "-w", "-k", "-G", "77", "-t", "16k", "-b", "6m"],
    )
    .ok();
    assert_eq!(
        server.client().head(BUCKET, "pk/big").unwrap(),
        Some(6 << 20)
    );
    let run = ior(
        &server,
        dir.path(),
        1,
        &[
            "-o", &big, "-r", "-R", "-G", "77", "-t", "16k", "-b", "6m", "-z",
        ],
    );
    run.ok();
    assert!(!run.stdout.contains("incorrect data"), "{}", run.stdout);
    assert_eq!(rows(&run.stdout)[0].xfer_kib, 16.0);
    server.client().delete(BUCKET, "pk/big").unwrap();
    server.assert_clean("pk/");
}

#[test]
fn sizes_and_options_s3_cannot_take_are_refused_before_anything_is_created() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/no/file");
    let refused: [(usize, &[&str], &str); 5] = [
        (
            4,
            &["-w", "-t", "1m", "-b", "4m"],
            "use -b 5 MiB (multiples of 5 MiB), -F, or --s3.layout=fragments",
        ),
        (
            4,
            &["-w", "-t", "1m", "-b", "10m", "-z"],
            "use -t 5 MiB or more",
        ),
        // Two tasks' blocks in one part: refused, though the object is small.
        (
            2,
            &["-w", "-t", "1m", "-b", "2m"],
            "each part of a shared object lies within one block",
        ),
        (
            1,
            &["--s3.layout=blocks"],
            "--s3.layout=blocks: object or fragments",
        ),
        (
            1,
            &["--s3.max-pending=0"],
            "--s3.max-pending=0: from 1 to 1024",
        ),
    ];
    for (tasks, args, message) in refused {
        let run = ior(
            &server,
            dir.path(),
            tasks,
            &[&["-o", &o][..], args].concat(),
        );
        run.fails(2, message);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    }
    server.assert_clean("");
}

/// What `-k` kept in [`BUCKET`] of `PREFIX/file` written by 2 tasks (`-F`,
/// 5 MiB each), seen path-style: each task's object, or its five 1 MiB
/// fragments (`KEY~OFFSET`), and no upload; then removed.
pub(crate) fn remove_kept(server: &Server, prefix: &str, layout: &str) {
    let client = server.client();
    let (kept, uploads) = server.leftovers(&format!("{prefix}/"));
    assert!(uploads.is_empty(), "{uploads:?}");
    for task in ["00000000", "00000001"] {
        let key = format!("{prefix}/file.{task}");
        match layout {
            "object" => assert_eq!(client.head(BUCKET, &key).unwrap(), Some(5 << 20)),
            _ => {
                let fragment = format!("{key}~");
                let n = kept.iter().filter(|k| k.starts_with(&fragment)).count();
                assert_eq!(n, 5, "{kept:?}");
            }
        }
    }
    client.delete_many(BUCKET, &kept).unwrap();
}

/// `ior -a S3` writing a 4 GiB object per task (`-F`) under `prefix` on
/// `tasks` threads, once every task's multipart upload is in progress.
pub(crate) fn uploading(server: &Server, dir: &Path, prefix: &str, tasks: usize) -> Running {
    let o = format!("s3://{BUCKET}/{prefix}/file");
    let mut cmd = Command::new(crate::common::bin("ior"));
    cmd.args(["-o", &o, "-w", "-F", "-t", "1m", "-b", "4g"]);
    let mut run = Running::start(server.tool(cmd, dir, tasks));
    let client = server.client();
    run.wait_until("every task's upload in progress", || {
        client
            .list_uploads(BUCKET, &format!("{prefix}/"))
            .is_ok_and(|u| u.len() == tasks)
    });
    run
}

#[test]
fn the_secret_appears_in_no_output() {
    let server = Server::shared(&[]);
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
    // The run's system names the object store (its endpoint), not the
    // file system of the directory the run started in.
    let json = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let system = &json["pario"]["system"];
    let store = system["object_store"].as_str().unwrap_or_default();
    assert!(store.contains(server.host()), "{system}");
    assert!(system["clients"][0]["file_system"].is_null(), "{system}");
    server.assert_clean("sec/");
}

/// `ior` with `args` as given (no `-a`), the server's address only in the
/// options (no AWS_* variables).
fn ior_plain(dir: &Path, tasks: usize, args: &[&str]) -> Run {
    let mut cmd = Command::new(crate::common::bin("ior"));
    cmd.args(args)
        .current_dir(dir)
        .env("PARIO_TASKS", tasks.to_string());
    finish(without_aws_env(&mut cmd).output().expect("run ior"))
}

#[test]
fn ior_s3_command_lines_run_unchanged() {
    use common::s3::KEY_ID;
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let host = server.host();
    let [host_opt, access, secret] = common::s3::libs3_options(host);
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
    server.assert_clean("curl/");
}

/// mdtest or md-workbench against `server`.
fn tool(server: &Server, binary: &str, dir: &Path, tasks: usize, args: &[&str]) -> Run {
    let mut cmd = server.tool(Command::new(binary), dir, tasks);
    finish(cmd.args(args).output().expect("run the tool"))
}

#[test]
fn mdtest_and_md_workbench_run_every_phase_on_objects() {
    let server = Server::shared(&[]);
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
    assert_phases(&run.stdout, &MDTEST_PHASES);
    // No `FS:` line for an object store: the client in its place.
    let store = format!(
        "Object store: S3 (ureq 3 + SigV4, layout object, path-style, max-pending 1, {})",
        server.endpoint
    );
    assert!(run.stdout.contains(&store), "{}", run.stdout);
    server.assert_clean("md");
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
    server.assert_clean("mdw");
}

#[test]
fn sigint_in_the_middle_of_multipart_uploads_leaves_nothing() {
    use rustix::process::Signal;
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let run = uploading(&server, dir.path(), "int", 2);
    run.signal(Signal::INT);
    let end = run.ended();
    assert_eq!(end.status, Some(130), "{}", end.stderr);
    assert!(
        end.stderr.contains("interrupted by SIGINT"),
        "{}",
        end.stderr
    );
    server.assert_clean("int/");
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
    server.assert_clean("tls/");
}
