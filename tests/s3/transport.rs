//! How `-a S3` reaches a real server (SeaweedFS on loopback): keys from a
//! profile of the shared credentials file (`AWS_PROFILE`) when the
//! environment has none, and the header naming the client library, the
//! layout and the addressing; `-z -z` reads (random offsets, drawn with
//! repeats) of an object as ranged GETs; `-i`, `-e` and `-k` on objects.

use std::process::Command;

use super::remove_kept;
use crate::common::s3::{Server, BUCKET, KEY_ID, SECRET};
use crate::common::{finish, rows, Run};

/// `ior -a S3 args` on 2 tasks with the credentials of `profile` in
/// `file` only (no `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`).
fn with_profile(server: &Server, dir: &std::path::Path, profile: &str, args: &[&str]) -> Run {
    let mut cmd = Command::new(crate::common::bin("ior"));
    cmd.args(["-a", "S3"])
        .args(args)
        .current_dir(dir)
        .env("PARIO_TASKS", "2")
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env_remove("AWS_SESSION_TOKEN")
        .env("AWS_ENDPOINT_URL", &server.endpoint)
        .env("AWS_SHARED_CREDENTIALS_FILE", dir.join("credentials"))
        .env("AWS_PROFILE", profile);
    finish(cmd.output().expect("run ior"))
}

#[test]
fn keys_from_a_profile_and_the_header_names_client_layout_addressing() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    // The default profile holds a wrong secret; `bench` the right one.
    std::fs::write(
        dir.path().join("credentials"),
        format!(
            "[default]\naws_access_key_id = {KEY_ID}\naws_secret_access_key = wrong\n\n\
             [bench]\naws_access_key_id = {KEY_ID}\naws_secret_access_key = {SECRET}\n"
        ),
    )
    .unwrap();
    let o = format!("s3://{BUCKET}/prof/file");
    let write = ["-o", &o, "-F", "-w", "-W", "-k", "-t", "1m", "-b", "6m"];
    let run = with_profile(&server, dir.path(), "default", &write);
    run.fails(2, "SignatureDoesNotMatch");
    let run = with_profile(&server, dir.path(), "bench", &write);
    run.ok();
    let api = format!(
        "ureq 3 + SigV4, layout object, path-style, max-pending 1, {}",
        server.endpoint
    );
    assert!(run.stdout.contains(&api), "{}", run.stdout);
    assert!(!run.stdout.contains(SECRET) && !run.stderr.contains(SECRET));
    // `-z -z`: 4 KiB ranged GETs at random offsets of each object's first
    // MiB, some read twice (the whole objects took 3,072 GETs, a dozen
    // seconds of the server's CPU).
    let read = ["-o", &o, "-F", "-r", "-z", "-z", "-t", "4k", "-b", "1m"];
    let run = with_profile(&server, dir.path(), "bench", &read);
    run.ok();
    assert_eq!(rows(&run.stdout)[0].xfer_kib, 4.0, "{}", run.stdout);
    for task in ["00000000", "00000001"] {
        server
            .client()
            .delete(BUCKET, &format!("prof/file.{task}"))
            .unwrap();
    }
    server.assert_clean("prof/");
}

/// ior's repetitions (`-i`), `-e` and `-k` on objects: each repetition
/// writes and reads back the same objects, and `-k` keeps the last.
#[test]
fn repetitions_fsync_and_keep_on_objects() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let o = format!("s3://{BUCKET}/rep/file");
    for layout in ["object", "fragments"] {
        let mut cmd = server.tool(Command::new(crate::common::bin("ior")), dir.path(), 2);
        let layout_opt = format!("--s3.layout={layout}");
        cmd.args(["-o", &o, &layout_opt, "-w", "-r", "-W", "-R"])
            .args(["-e", "-i", "2", "-k", "-F", "-t", "1m", "-b", "5m"]);
        let run = finish(cmd.output().expect("run ior"));
        run.ok();
        let iters: Vec<u64> = rows(&run.stdout).iter().map(|r| r.iter).collect();
        assert_eq!(iters, [0, 0, 1, 1], "{layout}: {}", run.stdout);
        assert!(!run.stdout.contains("incorrect data"), "{}", run.stdout);
        remove_kept(&server, "rep", layout);
    }
    server.assert_clean("rep/");
}
