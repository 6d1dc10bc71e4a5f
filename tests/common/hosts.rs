//! Host names without DNS: a command run in a private mount namespace
//! (util-linux `unshare`) where a temporary hosts file is bound over
//! `/etc/hosts`. Only that command and its children see the names; the
//! machine's `/etc/hosts` is never written, and the namespace ends with
//! the command. Needs root (to mount).

use std::process::Command;

/// A hosts file of the test's own, in a temporary directory.
pub struct Hosts {
    dir: tempfile::TempDir,
}

/// Binds the file in `$1` over /etc/hosts, then runs the rest of the
/// arguments in its place (the same process: its exit status is theirs).
const BIND_THEN_EXEC: &str = r#"hosts=$1; shift; mount --bind "$hosts" /etc/hosts && exec "$@""#;

impl Hosts {
    /// A hosts file mapping `names` to 127.0.0.1; `None` (the test is
    /// skipped, saying why) unless this process may make the namespace.
    pub fn loopback(names: &[&str]) -> Option<Hosts> {
        if !rustix::process::geteuid().is_root() {
            eprintln!("skipped: binding a hosts file over /etc/hosts needs root");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let text = format!("127.0.0.1 localhost\n127.0.0.1 {}\n", names.join(" "));
        std::fs::write(dir.path().join("hosts"), text).unwrap();
        let hosts = Hosts { dir };
        // `true` in the namespace: unshare and the bind both work here.
        let works = hosts
            .command("true")
            .output()
            .is_ok_and(|o| o.status.success());
        if !works {
            eprintln!("skipped: unshare --mount or mount --bind is refused here");
            return None;
        }
        Some(hosts)
    }

    /// `program` run in a namespace of its own where /etc/hosts is this
    /// file; the caller adds the arguments, environment and directory.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new("unshare");
        cmd.args(["--mount", "--propagation", "private", "sh", "-c"])
            .arg(BIND_THEN_EXEC)
            .arg("sh")
            .arg(self.dir.path().join("hosts"))
            .arg(program);
        cmd
    }
}
