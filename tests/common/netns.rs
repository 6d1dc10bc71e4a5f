//! Three test hosts on this machine: network namespaces joined by veth
//! links to a bridge that lives in a namespace of its own (nothing touches
//! the machine's own network), addresses 10.213.0.1-3 used only on those
//! links, and a UTS namespace with its own hostname per host for every
//! process started there. Open MPI reaches the hosts through a launch agent
//! (`--mca plm_rsh_agent`) and talks TCP between them. Everything is removed
//! when [`Hosts`] is dropped, also after a failure.

use std::path::Path;
use std::process::Command;

use tempfile::TempDir;

pub const HOSTS: usize = 3;
const NET: &str = "10.213.0";

pub struct Hosts {
    prefix: String,
    namespaces: Vec<String>,
    /// The launch agent and Open MPI's session directories.
    dir: TempDir,
}

/// Why the hosts cannot be made here, or nothing.
pub fn unavailable() -> Option<String> {
    super::missing(
        &["ip", "unshare", "mpirun"],
        "iproute2, util-linux, openmpi-bin",
    )
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

impl Hosts {
    pub fn start() -> Result<Hosts, String> {
        let prefix = format!("pario{}", std::process::id());
        let mut hosts = Hosts {
            namespaces: Vec::new(),
            dir: tempfile::Builder::new()
                .prefix("pario-hosts")
                .tempdir()
                .unwrap(),
            prefix,
        };
        let bridge = format!("{}-br", hosts.prefix);
        ip(&["netns", "add", &bridge])?;
        hosts.namespaces.push(bridge.clone());
        ip(&["-n", &bridge, "link", "add", "br0", "type", "bridge"])?;
        ip(&["-n", &bridge, "link", "set", "br0", "up"])?;
        for h in 1..=HOSTS {
            let ns = hosts.name(h);
            ip(&["netns", "add", &ns])?;
            hosts.namespaces.push(ns.clone());
            let port = format!("p{h}");
            ip(&[
                "-n", &bridge, "link", "add", &port, "type", "veth", "peer", "name", "eth0",
                "netns", &ns,
            ])?;
            ip(&["-n", &bridge, "link", "set", &port, "master", "br0", "up"])?;
            ip(&[
                "-n",
                &ns,
                "addr",
                "add",
                &format!("{NET}.{h}/24"),
                "dev",
                "eth0",
            ])?;
            ip(&["-n", &ns, "link", "set", "eth0", "up"])?;
            ip(&["-n", &ns, "link", "set", "lo", "up"])?;
        }
        hosts.write_agent()?;
        Ok(hosts)
    }

    /// Host `h`'s namespace, which is also its hostname.
    pub fn name(&self, h: usize) -> String {
        format!("{}-h{h}", self.prefix)
    }

    fn agent(&self) -> std::path::PathBuf {
        self.dir.path().join("agent.sh")
    }

    /// Open MPI calls the agent as `agent HOST COMMAND...` for each host
    /// but its own; the host is an address, whose last number names it.
    fn write_agent(&self) -> Result<(), String> {
        let script = format!(
            "#!/bin/sh\nhost=\"$1\"; shift\nn=\"${{host##*.}}\"\n\
             exec ip netns exec \"{p}-h$n\" unshare --uts sh -c \"hostname {p}-h$n; $*\"\n",
            p = self.prefix
        );
        std::fs::write(self.agent(), script).map_err(|e| e.to_string())?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(self.agent(), std::fs::Permissions::from_mode(0o755))
            .map_err(|e| e.to_string())
    }

    /// `mpirun` started on host 1 with two ranks on each host, TCP between
    /// hosts, running `binary args` in `dir`.
    pub fn mpirun(&self, binary: &str, dir: &Path, args: &[&str]) -> Command {
        let hosts: Vec<String> = (1..=HOSTS).map(|h| format!("{NET}.{h}:2")).collect();
        let net = format!("{NET}.0/24");
        let mut mpirun = vec![
            "mpirun".to_string(),
            "--oversubscribe".into(),
            "--host".into(),
            hosts.join(","),
            "-n".into(),
            (2 * HOSTS).to_string(),
        ];
        for (k, v) in [
            ("plm_rsh_agent", self.agent().display().to_string()),
            ("btl", "self,vader,tcp".into()),
            ("pml", "ob1".into()),
            ("btl_tcp_if_include", net.clone()),
            ("oob_tcp_if_include", net),
            ("orte_tmpdir_base", self.dir.path().display().to_string()),
            // Open MPI's SIGKILL comes 1 s after its SIGTERM by default:
            // time for the survivors of a dead rank to remove their files
            // (as docs/scale.md advises for real jobs).
            ("odls_base_sigkill_timeout", "30".into()),
        ] {
            mpirun.extend(["--mca".into(), k.into(), v]);
        }
        mpirun.push(binary.into());
        mpirun.extend(args.iter().map(|a| a.to_string()));
        let quoted: Vec<String> = mpirun.iter().map(|a| format!("'{a}'")).collect();
        let mut cmd = Command::new("timeout");
        cmd.args([
            "120",
            "ip",
            "netns",
            "exec",
            &self.name(1),
            "unshare",
            "--uts",
            "sh",
            "-c",
        ])
        .arg(format!(
            "hostname {}; exec {}",
            self.name(1),
            quoted.join(" ")
        ))
        .current_dir(dir)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env_remove("PARIO_TASKS");
        for var in [
            "IOR_FAKE_NODES",
            "IOR_FAKE_TASK_PER_NODES",
            "PARIO_FAKE_PLACEMENT",
        ] {
            cmd.env_remove(var);
        }
        cmd
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        for ns in self.namespaces.iter().rev() {
            // Whatever still runs there (a test that failed mid-run) first.
            if let Ok(out) = Command::new("ip").args(["netns", "pids", ns]).output() {
                for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                    if let Some(pid) = pid.parse().ok().and_then(rustix::process::Pid::from_raw) {
                        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                    }
                }
            }
            let _ = ip(&["netns", "del", ns]);
        }
    }
}
