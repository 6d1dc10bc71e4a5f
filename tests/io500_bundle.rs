//! `io500 --bundle RESULT_DIR`: the submission archive, its members
//! listed, read back by `--verify` (checksums, then the hashes), and a
//! damaged one refused.

use crate::common::{entries, io500};
use crate::io500::config;
use tempfile::tempdir;

#[test]
fn a_bundle_is_listed_verified_and_refused_when_damaged() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    io500(dir.path(), 1, &[&cfg, "--dry-run", "--timestamp=T1"]).ok();
    let made = io500(dir.path(), 1, &["--bundle", "results/T1/"]);
    made.ok();
    for member in [
        "T1/result.txt",
        "T1/config-orig.ini",
        "T1/system.json",
        "T1/SHA256SUMS",
    ] {
        assert!(
            made.stdout.contains(&format!("  {member}\n")),
            "{}",
            made.stdout
        );
    }
    assert!(made
        .stdout
        .contains("The submission archive: results/T1.tar"));
    let mut results = entries(&dir.path().join("results"));
    results.sort();
    assert_eq!(results, ["T1", "T1.tar"], "no partial file left");
    // Made once: a second --bundle leaves the first alone.
    io500(dir.path(), 1, &["--bundle", "results/T1"]).fails(2, "T1.tar exists");
    io500(dir.path(), 1, &["--bundle", "nosuch"]).fails(2, "not an io500 result directory");

    let ok = io500(dir.path(), 1, &["--verify", "results/T1.tar"]);
    ok.ok();
    assert!(ok.stdout.contains("checksums: OK ("), "{}", ok.stdout);
    assert!(ok.stdout.contains("config-hash: OK"), "{}", ok.stdout);
    assert!(ok.stdout.contains("SCORE hash: OK"), "{}", ok.stdout);

    // One byte of result.txt changed inside the archive.
    let archive = std::fs::read(dir.path().join("results/T1.tar")).unwrap();
    let at = archive.windows(5).position(|w| w == b"[run]").unwrap();
    let mut damaged = archive.clone();
    damaged[at + 1] = b'R';
    std::fs::write(dir.path().join("damaged.tar"), &damaged).unwrap();
    let r = io500(dir.path(), 1, &["--verify", "damaged.tar"]);
    // (1, or 2 as here: result.txt no longer has the [run] the hashes need)
    assert_ne!(r.status, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("checksums: MISMATCH: result.txt: changed"),
        "{}",
        r.stdout
    );
    // Cut short, and not an archive at all.
    std::fs::write(dir.path().join("short.tar"), &archive[..700]).unwrap();
    let r = io500(dir.path(), 1, &["--verify", "short.tar"]);
    assert_ne!(r.status, 0, "{}", r.stdout);
    std::fs::write(dir.path().join("text.tar"), b"not a tar\n").unwrap();
    let r = io500(dir.path(), 1, &["--verify", "text.tar"]);
    assert_eq!(r.status, 2, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
}
