//! `-a AIO` (io_uring with requests in flight): round trips with every
//! packet type and order, on tmpfs and on the machine's disk with and
//! without O_DIRECT, at several queue depths; files identical to POSIX's; a
//! request failing in the middle; a stonewall with requests in flight.

use std::path::Path;

use crate::common;
use crate::common::{disk_scratch, entries, ior, scratch};

fn round_trip(dir: &Path, extra: &[&str], tasks: usize) {
    let out = dir.join("f");
    let o = out.to_str().unwrap();
    let mut args = vec![
        "-a", "AIO", "-t", "64k", "-b", "512k", "-s", "2", "-G", "42",
    ];
    args.extend_from_slice(&["-w", "-r", "-R", "-W", "-o", o]);
    args.extend_from_slice(extra);
    let r = ior(dir, tasks, &args);
    r.ok();
    assert!(
        r.stdout.contains("api                 : AIO"),
        "{}",
        r.stdout
    );
    assert!(
        !r.stdout.to_lowercase().contains("wrong"),
        "{extra:?}: {}",
        r.stdout
    );
    assert_eq!(entries(dir), Vec::<String>::new(), "{extra:?}");
}

#[test]
fn every_packet_type_and_order_round_trips_at_every_depth() {
    let shm = scratch("pario-aio");
    for packet in ["t", "o", "i", "r"] {
        // (-z -z cannot be verified: random offsets overlap)
        for order in [&[][..], &["-z"][..], &["-F", "-C"][..]] {
            for depth in ["1", "2", "32", "200"] {
                let q = format!("--aio.max-pending={depth}");
                let g = "--aio.granularity=1";
                let l = format!("--dataPacketType={packet}");
                let extra: Vec<&str> = [&[q.as_str(), g, l.as_str()][..], order].concat();
                round_trip(shm.path(), &extra, 2);
            }
        }
    }
}

#[test]
fn o_direct_on_the_disk_round_trips() {
    let disk = disk_scratch("pario-aio");
    for extra in [
        &["--posix.odirect"][..],
        &[][..],
        &["--posix.odirect", "-z", "-F"][..],
    ] {
        round_trip(disk.path(), extra, 2);
    }
}

#[test]
fn files_are_the_bytes_posix_writes() {
    let dir = disk_scratch("pario-aio");
    let write = |api: &str, name: &str| {
        let o = dir.path().join(name);
        // (no -z: its shuffle is drawn anew each run)
        let args = [
            "-a", api, "-t", "4k", "-b", "256k", "-s", "3", "-G", "7", "-w", "-k", "-o",
        ];
        ior(dir.path(), 2, &[&args[..], &[o.to_str().unwrap()]].concat()).ok();
        std::fs::read(o).unwrap()
    };
    let posix = write("POSIX", "p");
    let aio = write("AIO", "a");
    assert_eq!(posix.len(), 2 * 3 * 256 * 1024);
    assert!(posix == aio, "AIO's file differs from POSIX's");
}

#[test]
fn a_short_file_fails_naming_task_file_and_offset() {
    let dir = scratch("pario-aio");
    let o = dir.path().join("f");
    let o = o.to_str().unwrap();
    ior(
        dir.path(),
        1,
        &[
            "-a", "AIO", "-t", "64k", "-b", "1m", "-G", "5", "-w", "-k", "-o", o,
        ],
    )
    .ok();
    // The file loses its second half.
    let f = std::fs::OpenOptions::new().write(true).open(o).unwrap();
    f.set_len(512 * 1024).unwrap();
    let r = ior(
        dir.path(),
        1,
        &[
            "-a", "AIO", "-t", "64k", "-b", "1m", "-G", "5", "-r", "-R", "-k", "-o", o,
        ],
    );
    assert_ne!(r.status, 0);
    assert!(r.stderr.contains("task 0"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains(&format!("cannot read {o} at offset 524288")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("short read"), "{}", r.stderr);
}

/// A write of 64 GiB per task stopped by a one-second stonewall: the
/// requests in flight complete, the files are removed.
fn stonewalled(dir: &Path, extra: &[&str]) {
    let o = dir.join("f");
    let args = ["-a", "AIO", "-t", "1m", "-b", "64g", "-D", "1", "-w", "-F"];
    let o = ["-o", o.to_str().unwrap()];
    let r = ior(dir, 2, &[&args[..], extra, &o[..]].concat());
    r.ok();
    assert!(
        r.stdout.lines().any(|l| l.starts_with("write ")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("stonewalling pairs accessed"),
        "{}",
        r.stdout
    );
    assert_eq!(entries(dir), Vec::<String>::new());
}

#[test]
fn a_stonewall_completes_the_requests_in_flight() {
    stonewalled(scratch("pario-aio").path(), &["-e", "--aio.max-pending=32"]);
}

#[test]
fn bad_aio_options_are_refused() {
    let dir = scratch("pario-aio");
    let o = dir.path().join("f");
    let o = o.to_str().unwrap();
    for (args, message) in [
        (
            &["--aio.max-pending=0"][..],
            "--aio.max-pending=0: at least 1",
        ),
        (
            &["--aio.max-pending=8", "--aio.granularity=9"][..],
            "--aio.granularity=9: from 1 to max-pending (8)",
        ),
        (&["--aio.max-pending=lots"][..], "--aio.max-pending=lots"),
    ] {
        let r = ior(
            dir.path(),
            1,
            &[&["-a", "AIO", "-w", "-o", o][..], args].concat(),
        );
        r.fails(2, message);
    }
    // POSIX's options apply to AIO (it opens files as POSIX does); not
    // the other way round.
    let r = ior(
        dir.path(),
        1,
        &["-a", "POSIX", "--aio.max-pending=8", "-w", "-o", o],
    );
    r.fails(2, "--aio.max-pending applies to -a AIO, not -a POSIX");
}

#[test]
fn a_corrupted_transfer_is_caught_in_its_own_buffer() {
    let dir = scratch("pario-aio");
    let o = dir.path().join("f");
    let o = o.to_str().unwrap();
    let base = [
        "-a", "AIO", "-t", "64k", "-b", "1m", "-G", "9", "-k", "-o", o,
    ];
    ior(dir.path(), 1, &[&base[..], &["-w"]].concat()).ok();
    let mut data = std::fs::read(o).unwrap();
    data[5 * 65536 + 8] ^= 0xff;
    std::fs::write(o, data).unwrap();
    let r = ior(
        dir.path(),
        1,
        &[&base[..], &["-r", "-R", "--aio.max-pending=16"]].concat(),
    );
    assert_eq!(r.status, 3, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("1 errors found"), "{}", r.stderr);
}

#[test]
fn random_offsets_write_and_read() {
    let dir = scratch("pario-aio");
    let o = dir.path().join("f");
    let args = [
        "-a",
        "AIO",
        "-t",
        "4k",
        "-b",
        "1m",
        "-z",
        "-z",
        "-w",
        "-r",
        "--aio.max-pending=16",
    ];
    let r = ior(
        dir.path(),
        2,
        &[&args[..], &["-o", o.to_str().unwrap()]].concat(),
    );
    r.ok();
    assert!(
        r.stdout.lines().any(|l| l.starts_with("read ")),
        "{}",
        r.stdout
    );
    assert_eq!(entries(dir.path()), Vec::<String>::new());
}

#[test]
fn latency_is_timed_per_request_and_metadata_stays_posix() {
    let dir = scratch("pario-aio");
    let o = dir.path().join("f");
    let args = [
        "-a",
        "AIO",
        "-t",
        "4k",
        "-b",
        "1m",
        "-w",
        "-O",
        "summaryFormat=JSON",
    ];
    let r = ior(
        dir.path(),
        2,
        &[&args[..], &["-o", o.to_str().unwrap()]].concat(),
    );
    r.ok();
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let write = &doc["tests"][0]["Results"][0];
    assert_eq!(write["latencyPercentiles"]["count"], 2 * 256, "{write}");
    // md-workbench -X with AIO: its reads are POSIX's, so nothing is wrong
    // (IOR's AIO reports false errors here).
    let out = format!("-o={}", dir.path().join("mdw").display());
    let r = common::md_workbench(
        dir.path(),
        2,
        &[
            "-a", "AIO", &out, "-D=2", "-P=4", "-I=2", "-R=2", "-X", "-G=3",
        ],
    );
    r.ok();
    assert!(
        r.stdout.contains("(0 errs)") && !r.stdout.contains("!!!"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_full_file_system_fails_a_request_and_leaves_nothing() {
    let Some(mount) = common::mount::Mount::tmpfs("size=1m") else {
        return;
    };
    let o = mount.path().join("f");
    let args = [
        "-a",
        "AIO",
        "-t",
        "64k",
        "-b",
        "4m",
        "-w",
        "--aio.max-pending=16",
    ];
    let r = ior(
        mount.path(),
        1,
        &[&args[..], &["-o", o.to_str().unwrap()]].concat(),
    );
    assert_ne!(r.status, 0);
    assert!(
        r.stderr
            .contains(&format!("task 0: cannot write {}", o.display())),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("No space left on device"), "{}", r.stderr);
    assert_eq!(entries(mount.path()), ["user.txt"]);
}

#[test]
fn io_uring_extras_round_trip() {
    let disk = disk_scratch("pario-aio");
    for extra in [
        &["--posix.odirect", "--aio.fixed-buffers"][..],
        &["--aio.fixed-files"][..],
        &["--posix.odirect", "--aio.sqpoll=50"][..],
        &[
            "--posix.odirect",
            "--aio.fixed-buffers",
            "--aio.fixed-files",
            "--aio.sqpoll=20",
        ][..],
    ] {
        round_trip(disk.path(), extra, 2);
    }
}

#[test]
fn polled_completions_work_or_say_what_they_need() {
    let disk = disk_scratch("pario-aio");
    let o = disk.path().join("f");
    let args = [
        "-a",
        "AIO",
        "--posix.odirect",
        "--aio.iopoll",
        "-t",
        "64k",
        "-b",
        "1m",
        "-G",
        "4",
    ];
    let r = ior(
        disk.path(),
        1,
        &[&args[..], &["-w", "-r", "-R", "-o", o.to_str().unwrap()]].concat(),
    );
    if r.status != 0 {
        assert!(
            r.stderr
                .contains("need O_DIRECT on a device with poll queues"),
            "{}",
            r.stderr
        );
    }
    assert_eq!(entries(disk.path()), Vec::<String>::new());
    let r = ior(
        disk.path(),
        1,
        &["-a", "AIO", "--aio.iopoll", "-w", "-o", o.to_str().unwrap()],
    );
    r.fails(2, "--aio.iopoll needs --posix.odirect");
}

#[test]
fn a_short_transfer_is_finished_or_refused_as_posix_does() {
    let dir = scratch("pario-aio");
    let o = dir.path().join("f");
    let o = o.to_str().unwrap();
    let base = [
        "-a", "AIO", "-t", "64k", "-b", "1m", "-G", "5", "-k", "-o", o,
    ];
    ior(dir.path(), 1, &[&base[..], &["-w"]].concat()).ok();
    let f = std::fs::OpenOptions::new().write(true).open(o).unwrap();
    f.set_len(512 * 1024 + 100).unwrap();
    // The transfer at 512 KiB reads 100 bytes, then the end of the file.
    let r = ior(dir.path(), 1, &[&base[..], &["-r"]].concat());
    r.fails(
        1,
        "short read: the file ends at 524388 but 65536 bytes were expected at offset 524288",
    );
    let r = ior(dir.path(), 1, &[&base[..], &["-r", "-x"]].concat());
    r.fails(
        1,
        "short read: 100 of 65536 bytes at offset 524288 (-x forbids retrying)",
    );
}

#[test]
fn wear_out_fsync_per_write_and_every_packet_on_disk() {
    let disk = disk_scratch("pario-aio");
    for packet in ["t", "o", "i", "r"] {
        let l = format!("--dataPacketType={packet}");
        round_trip(disk.path(), &["--posix.odirect", &l], 2);
    }
    round_trip(disk.path(), &["-Y"], 2);
    stonewalled(
        scratch("pario-aio").path(),
        &["-O", "stoneWallingWearOut=1"],
    );
}
