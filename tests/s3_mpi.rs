//! `-a S3` under the MPI engine (`--features mpi`, real `mpirun`, a real
//! SeaweedFS on loopback): a shared object's multipart upload started by
//! rank 0 and filled by every rank, fragments, and files per rank with
//! requests in flight, each written and read back byte for byte, nothing
//! left behind; a scaled io500 over S3 on 4 ranks, find included; and
//! `--S3-libs3.bucket-per-file` (ranks racing to make a shared file's bucket).
#![cfg(feature = "mpi")]

use crate::common;
use crate::common::s3::{libs3_options, Server, BUCKET};
use crate::common::Run;
use crate::s3::ROUND_TRIPS;
use crate::s3_io500::{check, config};

/// `binary` under mpirun on `ranks` ranks in `dir`, reaching `server`
/// through the environment.
fn mpirun(
    server: &Server,
    binary: &str,
    dir: &std::path::Path,
    ranks: usize,
    args: &[&str],
) -> Run {
    let env: Vec<(&str, String)> = server.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    common::mpirun(binary, dir, ranks, args, &env)
}

#[test]
fn shared_objects_and_fragments_round_trip_under_mpi() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    for trip in ROUND_TRIPS.iter().filter(|t| t.mpi) {
        let args = [
            vec!["-a".to_string(), "S3".to_string()],
            trip.command("mpi"),
        ]
        .concat();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = mpirun(&server, crate::common::bin("ior"), dir.path(), 4, &args);
        trip.check(&run, &server, "mpi");
    }
}

#[test]
fn io500_over_s3_runs_every_phase_on_4_ranks() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let global = format!("datadir = s3://{BUCKET}/io500\napi = S3");
    let cfg = config(dir.path(), &global);
    let bin = crate::common::bin("io500");
    let run = mpirun(&server, bin, dir.path(), 4, &[&cfg, "--timestamp=M"]);
    check(&run, &dir.path().join("results/M"), "S3", 4);
    server.assert_empty("the run");
}

#[test]
fn a_bucket_per_file_under_mpi() {
    use crate::common::s3::SECRET;
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let before = server.client().list_buckets().unwrap();
    let [host, access, secret] = libs3_options(server.host());
    let libs3 = [
        "-a",
        "S3-libs3",
        "--S3-libs3.bucket-per-file",
        &host,
        &access,
        &secret,
    ];
    // The ranks of a shared file race to make its bucket.
    for shape in [&[][..], &["-F"][..]] {
        let mut all = libs3.to_vec();
        all.extend_from_slice(&[
            "-o", "/tmp/mpi", "-t", "4k", "-b", "16k", "-s", "2", "-w", "-r", "-W", "-R",
        ]);
        all.extend_from_slice(shape);
        let run = common::mpirun(crate::common::bin("ior"), dir.path(), 4, &all, &[]);
        run.ok();
        assert!(!run.stdout.contains(SECRET) && !run.stderr.contains(SECRET));
        assert_eq!(server.client().list_buckets().unwrap(), before, "{shape:?}");
    }
    let mut all = libs3.to_vec();
    all.extend_from_slice(&["-d", "/mdmpi", "-n", "5", "-w", "10", "-e", "10", "-u"]);
    let run = common::mpirun(crate::common::bin("mdtest"), dir.path(), 4, &all, &[]);
    run.ok();
    assert_eq!(server.client().list_buckets().unwrap(), before);
}

/// As on a file system (signals_mpi.rs): when a rank dies, the launcher
/// stops the others, and each survivor removes what it made (aborts its
/// multipart upload); only the dead rank's upload is left, and rank 0
/// says a task may have died.
#[test]
fn when_a_rank_dies_the_others_abort_their_uploads() {
    use crate::common::running::signal_pid;
    use crate::signals_mpi::{mpirun_with, no_answer_line, not_open_mpi, rank_pid};
    use rustix::process::Signal;
    if not_open_mpi() {
        return;
    }
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/dead/file");
    let env: Vec<(&str, String)> = server.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let binary = crate::common::bin("ior");
    let args = ["-a", "S3", "-o", &o, "-w", "-F", "-t", "1m", "-b", "4g"];
    let mut run = mpirun_with(binary, dir.path(), 3, &args, &env);
    let client = server.client();
    run.wait_until("every rank's upload in progress", || {
        client
            .list_uploads(BUCKET, "dead/")
            .is_ok_and(|u| u.len() == 3)
    });
    let victim = rank_pid(binary, &o, 1).expect("rank 1's process");
    signal_pid(victim, Signal::KILL);
    let end = run.ended();
    assert_ne!(end.status, Some(0), "{}", end.stderr);
    let (objects, uploads) = server.leftovers("dead/");
    assert!(objects.is_empty(), "{objects:?}");
    assert_eq!(uploads, ["dead/file.00000001"], "{}", end.stderr);
    assert!(end.stderr.contains(&no_answer_line()), "{}", end.stderr);
    for (key, id) in client.list_uploads(BUCKET, "dead/").unwrap() {
        client.abort_upload(BUCKET, &key, &id).unwrap();
    }
}
