//! Times pario's page-cache residency measurement of a whole file:
//! `cargo run --release --example residency -- FILE` prints the resident
//! share and the seconds taken (the target: a 10 GiB file in 0.1 s).

use std::path::Path;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: residency FILE");
    let len = std::fs::metadata(&path).expect("stat the file").len();
    let start = Instant::now();
    let r = pario::pagecache::residency(Path::new(&path), &[(0, len)]).expect("measure residency");
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{path}: {} bytes, {:.1}% resident ({} of {} bytes examined{}) in {seconds:.4} s",
        len,
        r.fraction() * 100.0,
        r.examined,
        r.total,
        if r.sampled() { ", sampled" } else { "" }
    );
}
