//! `-a AIO` (io_uring with requests in flight): round trips with every
//! packet type and order, on tmpfs and on the machine's disk with and
//! without O_DIRECT, at several queue depths; files identical to POSIX's;
//! damaged files caught on read; a request failing in the middle; a
//! stonewall with requests in flight.

use std::path::Path;

use crate::common;
use crate::common::{disk_scratch, entries, ior, scratch, Run};

/// `ior -a AIO ARGS -o DIR/f` on `tasks` threads in `dir`.
fn aio(dir: &Path, tasks: usize, args: &[&str]) -> Run {
    let o = dir.join("f");
    let o = ["-o", o.to_str().unwrap()];
    ior(dir, tasks, &[&["-a", "AIO"][..], args, &o].concat())
}

/// Written and read back (`-w -r -W -R`, 2 tasks), the file then removed.
fn round_trip(dir: &Path, extra: &[&str]) {
    let shape = ["-t", "64k", "-b", "512k", "-s", "2", "-G", "42"];
    let r = aio(
        dir,
        2,
        &[&shape[..], &["-w", "-r", "-R", "-W"], extra].concat(),
    );
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
                round_trip(shm.path(), &extra);
            }
        }
    }
}

/// Round trips on the disk: O_DIRECT or not, io_uring's extras, every
/// packet type through O_DIRECT, an fsync per write.
#[rustfmt::skip]
const ON_DISK: &[&[&str]] = &[
    &["--posix.odirect"],
    &[],
    &["--posix.odirect", "-z", "-F"],
    &["--posix.odirect", "--aio.fixed-buffers"],
    &["--aio.fixed-files"],
    &["--posix.odirect", "--aio.sqpoll=50"],
    &["--posix.odirect", "--aio.fixed-buffers", "--aio.fixed-files", "--aio.sqpoll=20"],
    &["--posix.odirect", "--dataPacketType=t"],
    &["--posix.odirect", "--dataPacketType=o"],
    &["--posix.odirect", "--dataPacketType=i"],
    &["--posix.odirect", "--dataPacketType=r"],
    &["-Y"],
];

#[test]
fn every_disk_option_round_trips() {
    let disk = disk_scratch("pario-aio");
    for extra in ON_DISK {
        round_trip(disk.path(), extra);
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

/// A file written (1 MiB in 64 KiB transfers, kept), changed by `damage`,
/// then read by each of `reads`: its arguments, the exit status and what
/// stderr says (`{o}`: the file's path).
struct Damaged {
    damage: fn(&mut Vec<u8>),
    reads: &'static [(&'static [&'static str], i32, &'static [&'static str])],
}

const DAMAGED: &[Damaged] = &[
    // The file loses its second half.
    Damaged {
        damage: |data| data.truncate(512 * 1024),
        reads: &[(
            &["-r", "-R"],
            1,
            &["task 0", "cannot read {o} at offset 524288", "short read"],
        )],
    },
    // A flipped byte: caught in its own transfer's buffer, with requests
    // in flight.
    Damaged {
        damage: |data| data[5 * 65536 + 8] ^= 0xff,
        reads: &[(&["-r", "-R", "--aio.max-pending=16"], 3, &["1 errors found"])],
    },
    // The transfer at 512 KiB reads 100 bytes, then the end of the file:
    // finished or refused as POSIX does.
    Damaged {
        damage: |data| data.truncate(512 * 1024 + 100),
        reads: &[
            (&["-r"], 1, &["short read: the file ends at 524388 but 65536 bytes were expected at offset 524288"]),
            (&["-r", "-x"], 1, &["short read: 100 of 65536 bytes at offset 524288 (-x forbids retrying)"]),
        ],
    },
];

#[test]
fn damaged_files_are_caught_on_read() {
    let dir = scratch("pario-aio");
    let o = dir.path().join("f");
    let base = ["-t", "64k", "-b", "1m", "-G", "5", "-k"];
    for case in DAMAGED {
        aio(dir.path(), 1, &[&base[..], &["-w"]].concat()).ok();
        let mut data = std::fs::read(&o).unwrap();
        (case.damage)(&mut data);
        std::fs::write(&o, data).unwrap();
        for (args, status, said) in case.reads {
            let r = aio(dir.path(), 1, &[&base[..], args].concat());
            assert_eq!(r.status, *status, "{args:?}\n{}\n{}", r.stdout, r.stderr);
            for part in said.iter() {
                let part = part.replace("{o}", o.to_str().unwrap());
                assert!(r.stderr.contains(&part), "{part}: {}", r.stderr);
            }
        }
    }
}

#[test]
fn a_stonewall_completes_the_requests_in_flight() {
    // A write of 64 GiB per task stopped by a one-second stonewall: the
    // requests in flight complete (with -e's fsync, or wearing out), the
    // files are removed.
    for extra in [
        &["-e", "--aio.max-pending=32"][..],
        &["-O", "stoneWallingWearOut=1"][..],
    ] {
        let dir = scratch("pario-aio");
        let args = ["-t", "1m", "-b", "64g", "-D", "1", "-w", "-F"];
        let r = aio(dir.path(), 2, &[&args[..], extra].concat());
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
        assert_eq!(entries(dir.path()), Vec::<String>::new());
    }
}

#[test]
fn bad_aio_options_are_refused() {
    let dir = scratch("pario-aio");
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
        (&["--aio.iopoll"][..], "--aio.iopoll needs --posix.odirect"),
    ] {
        let r = aio(dir.path(), 1, &[&["-w"][..], args].concat());
        r.fails(2, message);
    }
    // POSIX's options apply to AIO (it opens files as POSIX does); not
    // the other way round.
    let o = dir.path().join("f");
    let o = o.to_str().unwrap();
    let r = ior(
        dir.path(),
        1,
        &["-a", "POSIX", "--aio.max-pending=8", "-w", "-o", o],
    );
    r.fails(2, "--aio.max-pending applies to -a AIO, not -a POSIX");
}

#[test]
fn random_offsets_write_and_read() {
    let dir = scratch("pario-aio");
    let args = ["-t", "4k", "-b", "1m", "-z", "-z", "-w", "-r"];
    let r = aio(
        dir.path(),
        2,
        &[&args[..], &["--aio.max-pending=16"]].concat(),
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
    let args = ["-t", "4k", "-b", "1m", "-w", "-O", "summaryFormat=JSON"];
    let r = aio(dir.path(), 2, &args);
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
    let args = ["-t", "64k", "-b", "4m", "-w", "--aio.max-pending=16"];
    let r = aio(mount.path(), 1, &args);
    assert_ne!(r.status, 0);
    let o = mount.path().join("f");
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
fn polled_completions_work_or_say_what_they_need() {
    let disk = disk_scratch("pario-aio");
    let args = [
        "--posix.odirect",
        "--aio.iopoll",
        "-t",
        "64k",
        "-b",
        "1m",
        "-G",
        "4",
        "-w",
        "-r",
        "-R",
    ];
    let r = aio(disk.path(), 1, &args);
    if r.status != 0 {
        assert!(
            r.stderr
                .contains("need O_DIRECT on a device with poll queues"),
            "{}",
            r.stderr
        );
    }
    assert_eq!(entries(disk.path()), Vec::<String>::new());
}
