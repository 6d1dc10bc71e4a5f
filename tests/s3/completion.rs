//! A multipart upload is completed only when the object holds what was
//! written, against a real server (SeaweedFS on loopback): a part lost on
//! the way (a proxy answers it as taken and never forwards it) and a hole a
//! stopped phase leaves each fail the write, in one line naming the task,
//! the object and the parts, and leave nothing stored, where completing
//! from the server's list of parts stored a short object as if whole.

use std::process::Command;

use crate::common::s3::Server;
use crate::common::throttle::{Answer, Proxy, Rule};
use crate::common::{finish, Run};

/// `ior -a S3 -w` on `tasks` threads through `proxy`, writing
/// `s3://bench/PREFIX/file` with `args`.
fn write_through(proxy: &Proxy, server: &Server, tasks: usize, prefix: &str, args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://bench/{prefix}/file");
    let mut cmd = server.tool(Command::new(crate::common::bin("ior")), dir.path(), tasks);
    cmd.args(["-o", &o, "-w"])
        .args(args)
        .env("AWS_ENDPOINT_URL", &proxy.endpoint);
    finish(cmd.output().expect("run ior"))
}

/// The run failed in one error line holding each of `parts`.
fn one_line_naming(run: &Run, parts: &[&str]) {
    assert_eq!(run.status, 1, "{}\n{}", run.stdout, run.stderr);
    let errors: Vec<&str> = run.stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 1, "{}", run.stderr);
    for part in parts {
        assert!(errors[0].contains(part), "{part}: {}", errors[0]);
    }
}

#[test]
fn a_part_lost_on_the_way_fails_the_write_and_stores_nothing() {
    let server = Server::shared(&[]);
    // (tasks, ior's arguments, the part lost, what the line names): the
    // shared `-z` object of the round trips (8 parts, each sent by the
    // task its shuffled transfer fell to), and task 1's own object of 3
    // parts (`-F`).
    let cases: [(usize, &[&str], &str, &[&str]); 2] = [
        (
            4,
            &["-t", "5m", "-b", "10m", "-z"],
            "file?partNumber=5&",
            &["task 0", "key lost/file:", "part 5 (task ", ") is missing"],
        ),
        (
            2,
            &["-F", "-t", "5m", "-b", "15m"],
            "file.00000001?partNumber=2&",
            &["task 1", "key lost/file.00000001:", "part 2 is missing"],
        ),
    ];
    for (tasks, args, part, names) in cases {
        let rule = Rule {
            prefix: format!("PUT /bench/lost/{part}"),
            first: 1,
        };
        let proxy = Proxy::answering(&server.endpoint, rule, Answer::Lost);
        let run = write_through(&proxy, &server, tasks, "lost", args);
        assert_eq!(proxy.throttled(), 1, "{args:?}");
        // The server refuses to complete without the part, and its list
        // of parts tells which one it lacks.
        one_line_naming(&run, names);
        one_line_naming(&run, &["InvalidPart", "the upload is aborted"]);
        server.assert_clean("lost/");
    }
}

#[test]
fn a_hole_left_by_a_stopped_phase_fails_the_write() {
    let server = Server::shared(&[]);
    // Task 0's first part is answered 503 five times: its retries' waits
    // (at least 1.55 s) outlast the 1 s deadline, so task 0 stops after
    // part 1 and part 2 is never written, while task 1 writes part 3 (and
    // maybe 4). Completed, task 1's bytes would sit at task 0's offsets.
    let rule = Rule {
        prefix: "PUT /bench/hole/file?partNumber=1&".into(),
        first: 5,
    };
    let proxy = Proxy::start(&server.endpoint, rule);
    let args = ["-t", "5m", "-b", "10m", "-D", "1"];
    let run = write_through(&proxy, &server, 2, "hole", &args);
    assert_eq!(proxy.throttled(), 5);
    let names = ["task 0", "key hole/file:", "no task wrote part 2 (of "];
    one_line_naming(&run, &names);
    server.assert_clean("hole/");
}
