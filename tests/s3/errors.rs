//! `-a S3`'s failures against a real server (SeaweedFS on loopback): the
//! setup errors found before the header, and 503 SlowDown answers (from a
//! throttling proxy in front of the server) retried, counted in their
//! phase, or ending the run in one line when they never stop.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::uploading;
use crate::common::s3::{Server, BUCKET, KEY_ID, READ_ONLY_KEY_ID};
use crate::common::throttle::{Proxy, Rule};
use crate::common::{finish, Run};

/// `tool` (ior, mdtest, md-workbench) with `-a S3` and `args`, its
/// environment changed by `env`.
fn with_env(server: &Server, dir: &Path, tool: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = server.tool(Command::new(tool), dir, 1);
    cmd.args(args).envs(env.iter().copied());
    finish(cmd.output().expect("run the tool"))
}

/// A setup error: exit status 2, one line on stderr naming `names`, no
/// test header.
fn setup_error(run: &Run, names: &[&str]) {
    assert_eq!(run.status, 2, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    for name in names {
        assert!(run.stderr.contains(name), "{name}: {}", run.stderr);
    }
    for header in ["Options:", "SUMMARY", "launched with", "MD-Workbench total"] {
        assert!(!run.stdout.contains(header), "{}", run.stdout);
    }
}

#[test]
fn setup_errors_are_one_line_before_the_header_and_create_nothing() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path();
    let o = format!("s3://{BUCKET}/bad/file");
    let (ior, mdtest) = (crate::common::bin("ior"), crate::common::bin("mdtest"));
    let write = ["-o", &o, "-w", "-t", "1m", "-b", "5m"];
    let wrong = [("AWS_SECRET_ACCESS_KEY", "not-the-secret-at-all")];
    let run = with_env(&server, at, ior, &write, &wrong);
    let endpoint = server.endpoint.as_str();
    setup_error(&run, &[endpoint, "SignatureDoesNotMatch", KEY_ID]);
    assert!(!run.stderr.contains("not-the-secret"), "{}", run.stderr);
    let unknown = [("AWS_ACCESS_KEY_ID", "NOSUCHKEY")];
    let run = with_env(&server, at, ior, &write, &unknown);
    setup_error(&run, &[endpoint, "InvalidAccessKeyId", "NOSUCHKEY"]);

    // A missing bucket: found before the header, on every task, for ior,
    // mdtest and md-workbench.
    let missing = ["-o", "s3://nosuchbucket/f", "-w", "-t", "1m", "-b", "5m"];
    let line = [
        server.endpoint.as_str(),
        "bucket nosuchbucket",
        "NoSuchBucket",
    ];
    let four = [("PARIO_TASKS", "4")];
    setup_error(&with_env(&server, at, ior, &missing, &four), &line);
    let tree = ["-d", "s3://nosuchbucket/md", "-n", "4"];
    setup_error(&with_env(&server, at, mdtest, &tree, &[]), &line);
    let mdw = crate::common::bin("md-workbench");
    let objects = ["-o", "s3://nosuchbucket/mdw", "-I", "2", "-P", "2"];
    setup_error(&with_env(&server, at, mdw, &objects, &[]), &line);

    // A bucket these keys may read but not write: refused before anything
    // is made when the run writes; a read-only run goes on to its open.
    let reader = [("AWS_ACCESS_KEY_ID", READ_ONLY_KEY_ID)];
    let run = with_env(&server, at, ior, &write, &reader);
    let line = [server.endpoint.as_str(), "bucket bench", READ_ONLY_KEY_ID];
    setup_error(&run, &line);
    assert!(run.stderr.contains("may not write"), "{}", run.stderr);
    assert!(
        run.stderr.contains("HTTP 403 AccessDenied"),
        "{}",
        run.stderr
    );
    let md = format!("s3://{BUCKET}/md");
    let run = with_env(&server, at, mdtest, &["-d", &md, "-n", "4"], &reader);
    setup_error(&run, &line);
    let read = ["-o", &o, "-r", "-t", "1m", "-b", "5m"];
    let run = with_env(&server, at, ior, &read, &reader);
    run.fails(1, "bad/file");
    assert!(run.stdout.contains("Options:"), "{}", run.stdout);
    // Nothing was created, the probes of the runs that checked included.
    server.assert_empty("the refused runs");

    let mut gone = server.into_owned();
    let endpoint = gone.endpoint.clone();
    gone.stop();
    let run = with_env(&gone, at, ior, &write, &[]);
    setup_error(&run, &[&endpoint, KEY_ID]);
}

/// A tool run through a proxy that answers 503 SlowDown to the first `n`
/// requests that start with `request`: its JSON (`--summaryFile`) holds
/// the retries of each phase in its rows at `rows`, a row's phase named by
/// its `key`; `warning` tells them in the text.
struct SlowDown {
    tool: &'static str,
    args: Vec<&'static str>,
    request: String,
    n: usize,
    phase: &'static str,
    warning: String,
    rows: &'static str,
    key: &'static str,
    /// The prefix the run works under.
    prefix: &'static str,
}

/// ior's object, in the shape of its slowed-down runs.
const THR: [&str; 6] = ["-o", "s3://bench/thr/file", "-t", "1m", "-b", "5m"];

/// ior's data PUTs (not the bucket's write probe) and ranged GETs, mdtest's
/// item PUTs and GETs and its tree's marker PUT, md-workbench's object GETs
/// in its benchmark phase.
fn slow_downs() -> Vec<SlowDown> {
    let tree = "/bench/mdr/test-dir.0-0/mdtest_tree.0/";
    let ior = |request: &str, phase, n, phases: &[&'static str]| SlowDown {
        tool: "ior",
        args: [&THR[..], phases].concat(),
        request: request.into(),
        n,
        phase,
        warning: format!("WARNING: {phase} phase 0: {n} requests were sent again after HTTP"),
        rows: "/tests/0/Results",
        key: "access",
        prefix: "thr/",
    };
    let mdtest = |request: String, phase, n| SlowDown {
        tool: "mdtest",
        args: vec![
            "-d",
            "s3://bench/mdr",
            "-n",
            "10",
            "-F",
            "-w",
            "100",
            "-e",
            "100",
        ],
        request,
        n,
        phase,
        warning: format!("WARNING: {phase} (iteration 0): {n} requests were sent again"),
        rows: "/tests/0/iterations/0/phases",
        key: "operation",
        prefix: "mdr",
    };
    vec![
        ior("PUT /bench/thr/file", "write", 3, &["-w", "-W", "-r", "-R"]),
        ior("GET /bench/thr/file HTTP", "read", 2, &["-w", "-r", "-R"]),
        mdtest(format!("PUT {tree}file."), "File creation", 3),
        mdtest(format!("GET {tree}file."), "File read", 2),
        mdtest(format!("PUT {tree} HTTP"), "Tree creation", 2),
        SlowDown {
            tool: "md-workbench",
            args: vec![
                "-o",
                "s3://bench/mdw",
                "-I",
                "10",
                "-D",
                "2",
                "-P",
                "10",
                "-R",
                "1",
            ],
            request: "GET /bench/mdw/".into(),
            n: 2,
            phase: "benchmark",
            warning: "WARNING: benchmark (iteration 0): 2 requests were sent again".into(),
            rows: "/phases",
            key: "phase",
            prefix: "mdw",
        },
    ]
}

/// `tool` on 2 tasks through `proxy`, text to stdout and JSON to
/// `dir/run.json` (`--summaryFile`).
fn through(proxy: &Proxy, server: &Server, dir: &Path, tool: &str, args: &[&str]) -> (Run, Value) {
    let json = dir.join("run.json");
    let _ = std::fs::remove_file(&json);
    let summary = format!("--summaryFile={}", json.display());
    let all = [&["--summaryFormat=JSON", &summary], args].concat();
    let env = [
        ("AWS_ENDPOINT_URL", proxy.endpoint.as_str()),
        ("PARIO_TASKS", "2"),
    ];
    let run = with_env(server, dir, crate::common::bin(tool), &all, &env);
    let doc = std::fs::read_to_string(&json).unwrap_or_default();
    (run, serde_json::from_str(&doc).unwrap_or(Value::Null))
}

#[test]
fn slow_down_answers_are_retried_and_counted_in_their_phase() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    for case in slow_downs() {
        let rule = Rule {
            prefix: case.request.clone(),
            first: case.n,
        };
        let proxy = Proxy::start(&server.endpoint, rule);
        let (run, doc) = through(&proxy, &server, dir.path(), case.tool, &case.args);
        run.ok();
        assert_eq!(proxy.throttled(), case.n, "{}", case.request);
        assert!(!run.stdout.contains("incorrect data"), "{}", run.stdout);
        assert!(run.stdout.contains(&case.warning), "{}", run.stdout);
        assert_eq!(run.stdout.matches("were sent again").count(), 1);
        assert!(!run.stdout.contains("were retried"), "{}", run.stdout);
        assert!(!run.stderr.contains("retried"), "{}", run.stderr);
        let rows = doc.pointer(case.rows).and_then(Value::as_array);
        for row in rows.expect("the JSON's rows") {
            let expected = if row[case.key] == case.phase {
                case.n
            } else {
                0
            };
            assert_eq!(row["retries"], expected, "{row}");
        }
        server.assert_clean(case.prefix);
    }
    // A server that answers 503 forever: the read fails after its retries,
    // in one line naming the task, the bucket, the key, the status and the
    // code; what was written is removed.
    let rule = Rule {
        prefix: "GET /bench/thr/file HTTP".into(),
        first: usize::MAX,
    };
    let proxy = Proxy::start(&server.endpoint, rule);
    let write_read = [&THR[..], &["-w", "-r"]].concat();
    let (run, _) = through(&proxy, &server, dir.path(), "ior", &write_read);
    assert_eq!(run.status, 1, "{}\n{}", run.stdout, run.stderr);
    let errors: Vec<&str> = run.stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 1, "{}", run.stderr);
    for part in ["task ", "bucket bench", "key thr/file", "HTTP 503 SlowDown"] {
        assert!(errors[0].contains(part), "{part}: {}", errors[0]);
    }
    // Each task's first GET, sent 8 times: its 7 retries are told too.
    assert_eq!(proxy.throttled(), 16);
    let told = "7 S3 requests were retried after HTTP 500 or 503";
    assert_eq!(run.stdout.matches(told).count(), 2, "{}", run.stdout);
    server.assert_clean("thr/");
}

#[test]
fn a_server_stopped_mid_run_ends_it_in_a_clear_error() {
    let mut server = Server::shared(&[]).into_owned();
    let dir = tempfile::tempdir().unwrap();
    let run = uploading(&server, dir.path(), "mid", 2);
    server.stop();
    // The run ends by itself (`ended` fails the test if it does not), in
    // a line naming the task, the object and the endpoint it lost.
    let end = run.ended();
    assert_eq!(end.status, Some(1), "{}", end.stderr);
    let errors: Vec<&str> = end.stderr.lines().filter(|l| l.contains("error")).collect();
    assert!(!errors.is_empty(), "{}", end.stderr);
    for line in errors {
        for part in [
            "task ",
            "cannot write",
            "mid/file.0000000",
            &server.endpoint,
        ] {
            assert!(line.contains(part), "{part}: {line}");
        }
    }
}
