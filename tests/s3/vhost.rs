//! Virtual-host addressing (`--s3.addressing=virtual`) against a real
//! server: SeaweedFS started with `-s3.domainName=s3.pario.test` routes a
//! request by its `Host` (`bench.s3.pario.test:PORT`; the port is ignored
//! in matching) to bucket `bench`. The machine has no wildcard DNS, so
//! the tools run in a mount namespace of their own whose /etc/hosts maps
//! those names to 127.0.0.1 (`common::hosts`); the server stays on
//! loopback outside it, and the test's own client checks what was made
//! path-style, on 127.0.0.1.
//!
//! That the requests really went virtual-host: their paths name no
//! bucket (`/vh/file...`), so the objects land in `bench` only because the
//! server took the bucket from the `Host` (started without
//! `-s3.domainName`, SeaweedFS answers the bucket's HEAD 405 and the run
//! stops before its header); and a hosts file without
//! `bench.s3.pario.test` fails the run in one line naming that host.

use std::path::Path;

use super::{assert_phases, remove_kept, MDTEST_PHASES};
use crate::common::hosts::Hosts;
use crate::common::s3::shared::Lease;
use crate::common::s3::{Server, BUCKET};
use crate::common::{finish, rows, Run};

const DOMAIN: &str = "s3.pario.test";

/// A hosts file mapping `names` to 127.0.0.1, then the server; `None`
/// where the namespace cannot be made (the test is skipped).
fn start(names: &[&str]) -> Option<(Lease, Hosts)> {
    let hosts = Hosts::loopback(names)?;
    Some((Server::shared(&[format!("-s3.domainName={DOMAIN}")]), hosts))
}

/// The bucket's host name under virtual-host addressing.
fn bucket_host() -> String {
    format!("{BUCKET}.{DOMAIN}")
}

fn port(server: &Server) -> &str {
    server.endpoint.rsplit(':').next().unwrap()
}

/// `tool -a S3` addressing `http://BUCKET.s3.pario.test:PORT`, on `tasks`
/// threads, in `hosts`' namespace; keys from the environment.
fn virtual_run(
    server: &Server,
    hosts: &Hosts,
    tool: &str,
    dir: &Path,
    tasks: usize,
    args: &[&str],
) -> Run {
    let mut cmd = server.tool(hosts.command(crate::common::bin(tool)), dir, tasks);
    cmd.arg("--s3.addressing=virtual")
        .arg(format!("--s3.endpoint=http://{DOMAIN}:{}", port(server)))
        .args(args);
    finish(cmd.output().expect("run the tool in its namespace"))
}

/// ior's write and read back (`-W -R`) of one object per task (`-F`) in
/// `layout`; the header names the addressing and the endpoint.
fn round_trip(server: &Server, hosts: &Hosts, dir: &Path, layout: &str, keep: bool) {
    let o = format!("s3://{BUCKET}/vh/file");
    let layout_opt = format!("--s3.layout={layout}");
    let mut args = vec!["-o", &o, &layout_opt, "-F", "-w", "-W", "-r", "-R"];
    args.extend(["-t", "1m", "-b", "5m"]);
    if keep {
        args.push("-k");
    }
    let run = virtual_run(server, hosts, "ior", dir, 2, &args);
    run.ok();
    let api = format!(
        "layout {layout}, virtual-host-style, max-pending 1, http://{DOMAIN}:{}",
        port(server)
    );
    assert!(run.stdout.contains(&api), "{}", run.stdout);
    assert_eq!(rows(&run.stdout).len(), 2, "{}", run.stdout);
    assert!(!run.stdout.contains("incorrect data"), "{}", run.stdout);
}

#[test]
fn ior_round_trips_on_the_buckets_host_name_in_both_layouts() {
    let Some((server, hosts)) = start(&[DOMAIN, &bucket_host()]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for layout in ["object", "fragments"] {
        // Kept (-k): the objects are in `bench` under the keys asked for.
        round_trip(&server, &hosts, dir.path(), layout, true);
        remove_kept(&server, "vh", layout);
        server.assert_clean("vh/");
        // Not kept: the run's own removal, virtual-host too, leaves nothing.
        round_trip(&server, &hosts, dir.path(), layout, false);
        server.assert_clean("vh/");
    }
}

#[test]
fn a_bucket_host_name_that_does_not_resolve_is_one_line_naming_it() {
    // The endpoint's own name resolves (ListBuckets goes there), the
    // bucket's does not: every request for the bucket goes to its name.
    let Some((server, endpoint_only)) = start(&[DOMAIN]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/vh/file");
    let write = ["-o", &o, "-F", "-w", "-t", "1m", "-b", "5m"];
    let run = virtual_run(&server, &endpoint_only, "ior", dir.path(), 2, &write);
    // A setup error: status 2, one line, before the header.
    run.fails(2, &format!("bucket {BUCKET}: cannot be reached"));
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    let host = format!("http://{}:{}", bucket_host(), port(&server));
    assert!(run.stderr.contains(&host), "{}", run.stderr);
    assert!(!run.stdout.contains("Options:"), "{}", run.stdout);
    server.assert_clean("");
}

#[test]
fn mdtest_runs_every_phase_on_the_buckets_host_name() {
    let Some((server, hosts)) = start(&[DOMAIN, &bucket_host()]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = format!("s3://{BUCKET}/vhmd");
    let args = [
        "-d", &d, "-n", "20", "-w", "100", "-e", "100", "-z", "1", "-b", "2", "-X",
    ];
    let run = virtual_run(&server, &hosts, "mdtest", dir.path(), 2, &args);
    run.ok();
    assert_phases(&run.stdout, &MDTEST_PHASES);
    server.assert_clean("vhmd");
}

#[test]
fn a_server_that_does_not_route_by_host_is_named_as_refusing() {
    // Reached, but SeaweedFS without `-s3.domainName` takes the bucket's
    // host for its own and the bucket's HEAD for a HEAD of `/`: an HTTP
    // answer, not an unreachable endpoint.
    let Some(hosts) = Hosts::loopback(&[DOMAIN, &bucket_host()]) else {
        return;
    };
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/vh/file");
    let write = ["-o", &o, "-F", "-w", "-t", "1m", "-b", "5m"];
    let run = virtual_run(&server, &hosts, "ior", dir.path(), 2, &write);
    run.fails(2, &format!("bucket {BUCKET}: cannot be used (HTTP 405"));
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    server.assert_clean("");
}
