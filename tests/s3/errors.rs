//! `-a S3`'s failures against a real server (SeaweedFS on loopback): the
//! setup errors found before the header, and 503 SlowDown answers (from a
//! throttling proxy in front of the server) retried, counted in their
//! phase, or ending the run in one line when they never stop.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::assert_clean;
use crate::common::s3::{Server, BUCKET, KEY_ID, READ_ONLY_KEY_ID};
use crate::common::throttle::{Proxy, Rule};
use crate::common::{finish, Run};

/// `tool` (ior, mdtest) with `-a S3` and `args`, its environment changed
/// by `env`.
fn with_env(server: &Server, dir: &Path, tool: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(tool);
    cmd.args(["-a", "S3"]).args(args).current_dir(dir);
    for (k, v) in server.env() {
        cmd.env(k, v);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
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
    let server = Server::start(&[]);
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
    assert_clean(&server, "");
    assert_eq!(server.client().list_buckets().unwrap(), [BUCKET]);

    let mut gone = server;
    let endpoint = gone.endpoint.clone();
    gone.stop();
    let run = with_env(&gone, at, ior, &write, &[]);
    setup_error(&run, &[&endpoint, KEY_ID]);
}

/// `ior` on 2 tasks through `proxy`, text to stdout and JSON to `json`.
fn ior_through(proxy: &Proxy, server: &Server, dir: &Path, args: &[&str]) -> (Run, Value) {
    let json = dir.join("run.json");
    let summary = format!("summaryFile={}", json.display());
    let mut all = vec!["-O", "summaryFormat=JSON", "-O", &summary];
    all.extend_from_slice(args);
    let tool = crate::common::bin("ior");
    let env = [
        ("AWS_ENDPOINT_URL", proxy.endpoint.as_str()),
        ("PARIO_TASKS", "2"),
    ];
    let run = with_env(server, dir, tool, &all, &env);
    let doc = std::fs::read_to_string(&json).unwrap_or_default();
    (run, serde_json::from_str(&doc).unwrap_or(Value::Null))
}

#[test]
fn slow_down_answers_are_retried_and_counted_in_their_phase() {
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/thr/file");
    let shape = ["-o", &o, "-t", "1m", "-b", "5m"];
    // The first 3 PUTs of the data (not the bucket's write probe) answered
    // 503 SlowDown, then the first 2 ranged GETs.
    let cases: [(&str, &str, usize, &[&str]); 2] = [
        ("PUT /bench/thr/file", "write", 3, &["-w", "-W", "-r", "-R"]),
        ("GET /bench/thr/file HTTP", "read", 2, &["-w", "-r", "-R"]),
    ];
    for (prefix, phase, n, phases) in cases {
        let rule = Rule {
            prefix: prefix.into(),
            first: n,
        };
        let proxy = Proxy::start(&server.endpoint, rule);
        let (run, doc) = ior_through(&proxy, &server, dir.path(), &[&shape[..], phases].concat());
        run.ok();
        assert_eq!(proxy.throttled(), n);
        assert!(!run.stdout.contains("incorrect data"), "{}", run.stdout);
        let line = format!("WARNING: {phase} phase 0: {n} requests were sent again after HTTP");
        assert!(run.stdout.contains(&line), "{}", run.stdout);
        assert_eq!(run.stdout.matches("were sent again").count(), 1);
        assert!(!run.stderr.contains("retried"), "{}", run.stderr);
        let rows = doc["tests"][0]["Results"]
            .as_array()
            .expect("the JSON's rows");
        for row in rows {
            let expected = if row["access"] == phase { n } else { 0 };
            assert_eq!(row["retries"], expected, "{row}");
        }
        assert_clean(&server, "thr/");
    }
    // A server that answers 503 forever: the read fails after its retries,
    // in one line naming the task, the bucket, the key, the status and the
    // code; what was written is removed.
    let rule = Rule {
        prefix: "GET /bench/thr/file HTTP".into(),
        first: usize::MAX,
    };
    let proxy = Proxy::start(&server.endpoint, rule);
    let (run, _) = ior_through(
        &proxy,
        &server,
        dir.path(),
        &[&shape[..], &["-w", "-r"]].concat(),
    );
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
    assert_clean(&server, "thr/");
}

#[test]
fn mdtest_counts_slow_down_answers_in_their_phase() {
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("md.json");
    let summary = format!("-O summaryFormat=JSON,summaryFile={}", json.display());
    let tree = "/bench/mdr/test-dir.0-0/mdtest_tree.0/";
    // 3 item PUTs (File creation), 2 item GETs (File read), then the tree's
    // marker PUT answered 503 twice (Tree creation).
    for (request, phase, n) in [
        (format!("PUT {tree}file."), "File creation", 3),
        (format!("GET {tree}file."), "File read", 2),
        (format!("PUT {tree} HTTP"), "Tree creation", 2),
    ] {
        let rule = Rule {
            prefix: request,
            first: n,
        };
        let proxy = Proxy::start(&server.endpoint, rule);
        let args = [
            "-d",
            "s3://bench/mdr",
            "-n",
            "10",
            "-F",
            "-w",
            "100",
            "-e",
            "100",
            &summary,
        ];
        let env = [
            ("AWS_ENDPOINT_URL", proxy.endpoint.as_str()),
            ("PARIO_TASKS", "2"),
        ];
        let run = with_env(
            &server,
            dir.path(),
            crate::common::bin("mdtest"),
            &args,
            &env,
        );
        run.ok();
        assert_eq!(proxy.throttled(), n);
        let line = format!("WARNING: {phase} (iteration 0): {n} requests were sent again");
        assert!(run.stdout.contains(&line), "{}", run.stdout);
        assert!(!run.stdout.contains("were retried"), "{}", run.stdout);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let phases = doc["tests"][0]["iterations"][0]["phases"]
            .as_array()
            .unwrap();
        for p in phases {
            let expected = if p["operation"] == phase { n } else { 0 };
            assert_eq!(p["retries"], expected, "{p}");
        }
        assert_clean(&server, "mdr");
    }
}

#[test]
fn md_workbench_counts_slow_down_answers_in_its_phase() {
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("mdw.json");
    let file = format!("--summaryFile={}", json.display());
    // The first 2 object GETs: the benchmark phase's reads.
    let rule = Rule {
        prefix: "GET /bench/mdw/".into(),
        first: 2,
    };
    let proxy = Proxy::start(&server.endpoint, rule);
    let args = [
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
        "--summaryFormat=JSON",
        &file,
    ];
    let env = [
        ("AWS_ENDPOINT_URL", proxy.endpoint.as_str()),
        ("PARIO_TASKS", "2"),
    ];
    let run = with_env(
        &server,
        dir.path(),
        crate::common::bin("md-workbench"),
        &args,
        &env,
    );
    run.ok();
    assert_eq!(proxy.throttled(), 2);
    let line = "WARNING: benchmark (iteration 0): 2 requests were sent again";
    assert!(run.stdout.contains(line), "{}", run.stdout);
    assert!(!run.stdout.contains("were retried"), "{}", run.stdout);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for p in doc["phases"].as_array().unwrap() {
        let expected = if p["phase"] == "benchmark" { 2 } else { 0 };
        assert_eq!(p["retries"], expected, "{p}");
    }
    assert_clean(&server, "mdw");
}

#[test]
fn a_server_stopped_mid_run_ends_it_in_a_clear_error() {
    use crate::common::running::Running;
    let mut server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/mid/file");
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
            .list_uploads(BUCKET, "mid/")
            .is_ok_and(|u| u.len() == 2)
    });
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
