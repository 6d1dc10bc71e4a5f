//! IOR's own S3-libs3 command lines against a real server (SeaweedFS on
//! loopback): the lines of IOR's `testing/s3.sh` run unchanged but for the
//! options' current names, and `--S3-libs3.location` sent as CreateBucket's
//! LocationConstraint (seen on the wire by the proxy in front of the
//! server, as SeaweedFS keeps no location).

use crate::common::s3::{libs3_run, Server};
use crate::common::throttle::{Proxy, Rule};

#[test]
fn the_lines_of_iors_s3_test_script_run_unchanged() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let host = server.host();
    let (ior, mdtest) = (crate::common::bin("ior"), crate::common::bin("mdtest"));
    // IOR's testing/s3.sh, with its IOR_EXTRA (-o test) and MDTEST_EXTRA
    // (-d test).
    let lines: [(&str, usize, &[&str]); 6] = [
        (ior, 2, &["-b", "10485760", "-t", "10485760", "-o", "test"]),
        (mdtest, 2, &["-L", "-n", "10", "-d", "test"]),
        (
            mdtest,
            2,
            &["-n", "5", "-w", "1024", "-e", "1024", "-d", "test"],
        ),
        (
            ior,
            1,
            &[
                "-b",
                "10240",
                "-t",
                "10240",
                "--S3-libs3.bucket-per-file",
                "-o",
                "test",
            ],
        ),
        (
            mdtest,
            1,
            &["-L", "--S3-libs3.bucket-per-file", "-n", "5", "-d", "test"],
        ),
        (
            mdtest,
            1,
            &[
                "--S3-libs3.bucket-per-file",
                "-n",
                "10",
                "-w",
                "1024",
                "-e",
                "1024",
                "-d",
                "test",
            ],
        ),
    ];
    for (binary, tasks, args) in lines {
        let run = libs3_run(host, binary, dir.path(), tasks, args);
        run.ok();
        assert!(!run.stdout.contains("ERROR"), "{args:?}\n{}", run.stdout);
        server.assert_empty(&format!("{args:?}"));
    }
}

#[test]
fn the_location_is_sent_with_create_bucket() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let constraint = "<LocationConstraint>eu-west-1</LocationConstraint>";
    for per_file in [false, true] {
        let proxy = Proxy::start(
            &server.endpoint,
            Rule {
                prefix: String::new(),
                first: 0,
            },
        );
        let host = proxy.endpoint.trim_start_matches("http://");
        let mut args = vec!["-o", "/tmp/loc", "-t", "1k", "-b", "2k", "-w", "-r", "-W"];
        if per_file {
            args.push("--S3-libs3.bucket-per-file");
        }
        let placed = [&args[..], &["--S3-libs3.location=eu-west-1"]].concat();
        libs3_run(host, crate::common::bin("ior"), dir.path(), 2, &placed).ok();
        libs3_run(host, crate::common::bin("ior"), dir.path(), 1, &args).ok();
        // A CreateBucket is a PUT of a bucket alone: `PUT /NAME HTTP/1.1`.
        let creates: Vec<String> = proxy
            .requests()
            .into_iter()
            .filter(|(l, _)| l.starts_with("PUT /") && l.matches('/').count() == 2)
            .map(|(_, body)| String::from_utf8(body).unwrap())
            .collect();
        // Each run made its bucket: with the location, then without one.
        let with = creates.iter().filter(|b| b.contains(constraint)).count();
        assert!(with >= 1, "per file {per_file}: {creates:?}");
        assert_eq!(creates.last().map(String::as_str), Some(""), "{creates:?}");
        server.assert_empty(&format!("per file {per_file}"));
    }
}
