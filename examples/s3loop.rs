//! The minimal S3 client of the bench's `s3` workload: the requests of
//! `ior -a S3 --s3.layout=fragments -w -r` (one PUT per object, then one
//! ranged GET per object, `D` in flight) and nothing else. It uses pario's
//! own request code (`backend::s3::client`: ureq, SigV4) and nothing of
//! ior's: no transfer loop, queue, latency record or report. Its PUTs carry
//! the bytes ior's would (ior's default pattern, filled once): a server may
//! compress what it stores (SeaweedFS does, over 16 KiB), so other bytes
//! would be other work. So pario against it is what ior's machinery costs
//! around the same requests, as mdloop.c is for mdtest's system calls.
//!
//! ```text
//! s3loop ENDPOINT BUCKET KEY SIZE COUNT DEPTH   # PUT, GET, delete; prints
//!                                                # "put_s get_s" (seconds)
//! s3loop ENDPOINT BUCKET ready                   # exit 0 when the bucket answers
//! ```
//!
//! Credentials from `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`. Objects
//! are named as pario's fragments (`KEY~` and the offset in 20 digits)
//! and deleted at the end (`DeleteObjects`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use pario::backend::s3::client::{Client, Endpoint};
use pario::backend::s3::sigv4::{Credentials, Secret};
use pario::pattern::{PacketType, Pattern};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let env = |k: &str| std::env::var(k).unwrap_or_else(|_| die(&format!("{k} is not set")));
    let endpoint = args.first().unwrap_or_else(|| die("usage: see the source"));
    let endpoint = Endpoint::parse(endpoint, false).unwrap_or_else(|e| die(&e));
    let credentials = Credentials {
        key_id: env("AWS_ACCESS_KEY_ID"),
        secret: Secret::new(env("AWS_SECRET_ACCESS_KEY")),
        token: None,
    };
    let number = |i: usize| -> usize {
        args.get(i)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| die(&format!("argument {i}: a number")))
    };
    let depth = match args.get(2).map(String::as_str) {
        Some("ready") => 1,
        _ => number(5),
    };
    let client = Client::new(
        endpoint,
        "us-east-1".into(),
        credentials,
        ureq::tls::TlsConfig::default(),
        depth,
    );
    let bucket = &args[1];
    if args[2] == "ready" {
        std::process::exit(i32::from(client.head_bucket(bucket).is_err()));
    }
    let (key, size, count) = (&args[2], number(3), number(4));
    let name = |i: usize| format!("{key}~{:020}", i * size);
    // The bytes ior sends (its default pattern, task 0, a time stamp as
    // signature): SeaweedFS compresses objects over 16 KiB that compress
    // well, so the same requests must carry the same bytes.
    let mut data = vec![0; size];
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    Pattern::new(PacketType::Timestamp, stamp, 0).fill(&mut data);
    let put = in_flight(count, depth, size, |i, _| {
        client.put(bucket, &name(i), &data)
    });
    let get = in_flight(count, depth, size, |i, buf| {
        match client.get(bucket, &name(i), 0, buf)? {
            n if n == size => Ok(()),
            n => Err(std::io::Error::other(format!("{}: {n} bytes", name(i)))),
        }
    });
    let keys: Vec<String> = (0..count).map(name).collect();
    client
        .delete_many(bucket, &keys)
        .unwrap_or_else(|e| die(&e.to_string()));
    println!("{put:.6} {get:.6}");
}

/// Requests 0..count, `depth` at a time (each thread takes the next one);
/// the seconds from the first to the last answer.
fn in_flight(
    count: usize,
    depth: usize,
    size: usize,
    request: impl Fn(usize, &mut [u8]) -> std::io::Result<()> + Sync,
) -> f64 {
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..depth {
            s.spawn(|| {
                // Each thread reads into its own buffer, as ior's slots.
                let mut own = vec![0; size];
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count {
                        break;
                    }
                    request(i, &mut own).unwrap_or_else(|e| die(&e.to_string()));
                }
            });
        }
    });
    start.elapsed().as_secs_f64()
}

fn die(why: &str) -> ! {
    eprintln!("s3loop: {why}");
    std::process::exit(1)
}
