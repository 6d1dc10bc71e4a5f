//! A small tmpfs a test mounts (as root), for full and read-only file systems.

use std::path::Path;
use std::process::Command;

/// A tmpfs mounted for one test (unmounted when dropped), holding a user's
/// file the runs must leave alone.
pub struct Mount {
    dir: tempfile::TempDir,
}

impl Mount {
    /// `None` (the test is skipped) unless this process may mount.
    pub fn tmpfs(options: &str) -> Option<Mount> {
        if !rustix::process::geteuid().is_root() {
            eprintln!("skipped: mounting a tmpfs needs root");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            eprintln!("skipped: this system does not let root mount a tmpfs");
            return None;
        }
        std::fs::write(dir.path().join("user.txt"), "not pario's").unwrap();
        Some(Mount { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn read_only(&self) {
        let ok = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(self.path())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "remount read-only");
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}
