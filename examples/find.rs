//! Runs io500's parallel find on local tasks, for the benchmark against a
//! minimal walk (scripts/bench/workloads/find.py):
//! `cargo run --release --example find -- ROOT TASKS NEWER_THAN_FILE` prints
//! `scanned found seconds`.

use std::os::unix::fs::MetadataExt;
use std::time::{Duration, SystemTime};

use pario::comm::{local, Topology};
use pario::io500::find::{find, FindSpec};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, root, tasks, stamp] = &args[..] else {
        panic!("usage: find ROOT TASKS NEWER_THAN_FILE");
    };
    let meta = std::fs::metadata(stamp).expect("stat the timestamp file");
    let changed = Duration::new(meta.ctime() as u64, meta.ctime_nsec() as u32);
    let spec = FindSpec {
        root: root.into(),
        name_pattern: "*01*".into(),
        newer_than: Some(SystemTime::UNIX_EPOCH + changed),
        size: Some(3901),
    };
    let tasks: usize = tasks.parse().expect("a number of tasks");
    let results = local::run(Topology::single_node(tasks), |comm| {
        find(comm, &spec).map_err(|e| e.to_string())
    });
    let r = results
        .into_iter()
        .next()
        .expect("task 0")
        .expect("ran")
        .expect("find");
    println!("{} {} {:.6}", r.scanned, r.found, r.time_s);
    for (rank, k) in r.ranks.iter().enumerate() {
        eprintln!(
            "task {rank}: {} scanned in {} directories, {} received, {} rounds, {:.3} s",
            k.scanned, k.dirs, k.received, k.rounds, k.time_s
        );
    }
}
