//! A multipart upload is completed only from the parts sent, and only when
//! the server lists those parts as sent, against a real server (SeaweedFS
//! on loopback) behind a proxy that makes it misbehave: a part lost on the
//! way (answered as taken, never forwarded), a list of parts that names
//! fewer (as SeaweedFS's did under load, 3 of 8), a part answered with
//! another ETag or listed with another size, and a hole a stopped phase
//! leaves each fail the write in one line naming the task, the object and
//! the parts, and leave nothing stored, where completing from the server's
//! list stored a short object as if whole. A shared object whose parts
//! meet 503 answers on the way completes whole.

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

/// The shared, shuffled object of 8 parts of 5 MiB written by 4 tasks
/// (each part sent by the task its transfer fell to).
const SHARED: [&str; 5] = ["-t", "5m", "-b", "10m", "-z"];

/// A part's ETag answered as another (of the form S3 gives).
fn other_etag(answer: &str) -> String {
    let lines = answer
        .split("\r\n")
        .map(|l| match l.to_ascii_lowercase().starts_with("etag:") {
            true => "ETag: \"0123456789abcdef0123456789abcdef\"",
            false => l,
        });
    lines.collect::<Vec<_>>().join("\r\n")
}

/// A list of parts that names only its first 3.
fn three_listed(answer: &str) -> String {
    let fourth = answer.match_indices("<Part>").nth(3).map(|(i, _)| i);
    let end = answer.rfind("</Part>").map(|i| i + "</Part>".len());
    match (fourth, end) {
        (Some(a), Some(b)) => format!("{}{}", &answer[..a], &answer[b..]),
        _ => answer.to_string(),
    }
}

/// A list of parts whose first part holds 3 MiB.
fn first_shorter(answer: &str) -> String {
    answer.replacen("<Size>5242880</Size>", "<Size>3145728</Size>", 1)
}

#[test]
fn parts_listed_otherwise_than_sent_fail_the_write_and_store_nothing() {
    let server = Server::shared(&[]);
    // (tasks, ior's arguments, the request the proxy picks, its answer,
    // what the line names).
    type Case<'a> = (usize, &'a [&'a str], &'a str, Answer, &'a [&'a str]);
    let cases: [Case; 5] = [
        (
            4,
            &SHARED,
            "PUT /bench/parts/file?partNumber=5&",
            Answer::Lost,
            &[
                "task 0",
                "key parts/file:",
                "the server lists 7 parts, 8 were sent: part 5 (task ",
                ") is missing",
            ],
        ),
        (
            2,
            &["-F", "-t", "5m", "-b", "15m"],
            "PUT /bench/parts/file.00000001?partNumber=2&",
            Answer::Lost,
            &["task 1", "key parts/file.00000001:", "part 2 is missing"],
        ),
        (
            4,
            &SHARED,
            "GET /bench/parts/file?",
            Answer::Rewritten(three_listed),
            &[
                "task 0",
                "key parts/file:",
                "the server lists 3 parts, 8 were sent: part 4 (task ",
            ],
        ),
        (
            4,
            &SHARED,
            "PUT /bench/parts/file?partNumber=3&",
            Answer::Rewritten(other_etag),
            &[
                "task 0",
                "part 3 (task ",
                "there, \"0123456789abcdef0123456789abcdef\" sent",
            ],
        ),
        (
            4,
            &SHARED,
            "GET /bench/parts/file?",
            Answer::Rewritten(first_shorter),
            &[
                "task 0",
                "part 1 (task ",
                ") holds 3145728 bytes there, 5242880 sent",
            ],
        ),
    ];
    for (tasks, args, picked, answer, names) in cases {
        let rule = Rule {
            prefix: picked.into(),
            first: 1,
        };
        let proxy = Proxy::answering(&server.endpoint, rule, answer);
        let run = write_through(&proxy, &server, tasks, "parts", args);
        let lines: Vec<String> = proxy.requests().into_iter().map(|r| r.0).collect();
        assert_eq!(proxy.throttled(), 1, "{picked}: {lines:?}");
        one_line_naming(&run, names);
        one_line_naming(&run, &["bucket bench", "the upload is aborted"]);
        server.assert_clean("parts/");
    }
}

#[test]
fn a_shared_object_whose_parts_meet_slow_downs_completes_whole() {
    let server = Server::shared(&[]);
    // Three of the 8 parts are answered 503 first, and sent again.
    let rule = Rule {
        prefix: "PUT /bench/busy/file?partNumber=".into(),
        first: 3,
    };
    let proxy = Proxy::start(&server.endpoint, rule);
    let args = [&SHARED[..], &["-r", "-R", "-k"]].concat();
    let run = write_through(&proxy, &server, 4, "busy", &args);
    run.ok();
    assert_eq!(proxy.throttled(), 3);
    let client = server.client();
    assert_eq!(client.head("bench", "busy/file").unwrap(), Some(40 << 20));
    client.delete("bench", "busy/file").unwrap();
    server.assert_clean("busy/");
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
