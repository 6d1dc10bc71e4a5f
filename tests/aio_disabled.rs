//! `-a AIO` where io_uring is forbidden: one line naming the cause and the
//! way out, before anything is created. The test forbids io_uring for the
//! whole machine for a moment (`kernel.io_uring_disabled`, as root), so it
//! has a test binary of its own: no other test runs beside it.

mod common;

use common::{entries, ior};

const SWITCH: &str = "/proc/sys/kernel/io_uring_disabled";

#[test]
fn a_forbidden_io_uring_is_one_line_suggesting_posix() {
    let Ok(before) = std::fs::read_to_string(SWITCH) else {
        eprintln!("skipped: this kernel has no {SWITCH}");
        return;
    };
    if std::fs::write(SWITCH, "2").is_err() {
        eprintln!("skipped: cannot write {SWITCH} (needs root)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("f");
    let r = ior(
        dir.path(),
        1,
        &["-a", "AIO", "-w", "-o", o.to_str().unwrap()],
    );
    std::fs::write(SWITCH, before.trim()).unwrap();
    assert_ne!(r.status, 0);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("cannot set up io_uring"), "{}", r.stderr);
    assert!(r.stderr.contains("use -a POSIX"), "{}", r.stderr);
    assert_eq!(entries(dir.path()), Vec::<String>::new());
}
