//! A one-node Slurm cluster on this machine, for the tests: munged,
//! slurmctld and slurmd with their configuration, state, logs and sockets in
//! a temporary directory (nothing under /etc, /run or /var is touched), and
//! every daemon stopped when the cluster is dropped, also after a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use tempfile::TempDir;

pub struct Cluster {
    dir: TempDir,
    /// The pid files of the daemons, stopped in reverse order.
    pids: Vec<PathBuf>,
}

/// Why the cluster cannot be had here, or nothing.
pub fn unavailable() -> Option<String> {
    super::missing(
        &["munged", "slurmctld", "slurmd", "srun", "sbatch", "mpirun"],
        "slurm-wlm, munge",
    )
}

/// A free TCP port (the daemons bind it a moment later).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn run(cmd: &mut Command, what: &str) -> Result<Output, String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(out)
}

impl Cluster {
    /// A cluster on this machine. Its ports are picked free a moment before
    /// the daemons bind them, and another process (an S3 server or an
    /// mpirun of a test beside) may take one meanwhile: then the daemons
    /// are stopped and started again on other ports.
    pub fn start() -> Result<Cluster, String> {
        for _ in 0..4 {
            match Cluster::start_once() {
                Err(e) if e.contains("Address already in use") => continue,
                started => return started,
            }
        }
        Cluster::start_once()
    }

    fn start_once() -> Result<Cluster, String> {
        let dir = tempfile::Builder::new()
            .prefix("pario-slurm")
            .tempdir()
            .unwrap();
        let mut cluster = Cluster {
            dir,
            pids: Vec::new(),
        };
        cluster.start_munge()?;
        cluster.write_config()?;
        let conf = cluster.path("slurm.conf");
        run(
            Command::new("slurmctld").arg("-i").env("SLURM_CONF", &conf),
            "slurmctld",
        )?;
        cluster.pids.push(cluster.path("slurmctld.pid"));
        run(Command::new("slurmd").env("SLURM_CONF", &conf), "slurmd")?;
        cluster.pids.push(cluster.path("slurmd.pid"));
        cluster.wait_idle()?;
        Ok(cluster)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn start_munge(&mut self) -> Result<(), String> {
        let m = self.path("munge");
        std::fs::create_dir(&m).unwrap();
        let key = m.join("key");
        std::fs::copy("/etc/munge/munge.key", &key).map_err(|e| format!("munge key: {e}"))?;
        let mode = |p: &Path, m: u32| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
        };
        mode(&key, 0o600);
        mode(self.dir.path(), 0o755);
        let arg = |name: &str, file: &str| format!("--{name}={}", m.join(file).display());
        run(
            Command::new("munged").arg("--force").args([
                arg("socket", "sock"),
                arg("key-file", "key"),
                arg("pid-file", "pid"),
                arg("log-file", "log"),
                arg("seed-file", "seed"),
            ]),
            "munged",
        )?;
        self.pids.push(m.join("pid"));
        Ok(())
    }

    fn write_config(&self) -> Result<(), String> {
        let host = rustix::system::uname()
            .nodename()
            .to_string_lossy()
            .into_owned();
        let d = self.dir.path().display();
        for sub in ["state", "spool", "log"] {
            std::fs::create_dir(self.path(sub)).unwrap();
        }
        // proctrack/linuxproc and task/none: no cgroups needed (Slurm 22.05
        // has no "disabled" cgroup plugin). More CPUs than the machine has,
        // and oversubscription, so that small machines run several tasks.
        let conf = format!(
            "ClusterName=pariotest\nSlurmctldHost={host}\nSlurmctldPort={}\nSlurmdPort={}\n\
             AuthType=auth/munge\nAuthInfo=socket={d}/munge/sock\nCredType=cred/munge\n\
             SlurmUser=root\nSlurmdUser=root\nStateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/log/slurmctld.log\nSlurmdLogFile={d}/log/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
             SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nMpiDefault=none\n\
             ReturnToService=2\nJobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\nSlurmdParameters=config_overrides\n\
             KillWait=5\nNodeName={host} CPUs=8 State=UNKNOWN\n\
             PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8\n",
            free_port(),
            free_port()
        );
        std::fs::write(self.path("slurm.conf"), conf).map_err(|e| e.to_string())
    }

    /// A Slurm command with this cluster's configuration.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("SLURM_CONF", self.path("slurm.conf"))
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("OMPI_MCA_orte_tmpdir_base", self.dir.path())
            .env_remove("PARIO_TASKS");
        cmd
    }

    /// Waits (polling, up to a minute) until the node takes jobs; a daemon
    /// that lost its port ends the wait at once.
    fn wait_idle(&self) -> Result<(), String> {
        let log = |name: &str| std::fs::read_to_string(self.path(name)).unwrap_or_default();
        let end = Instant::now() + Duration::from_secs(60);
        while Instant::now() < end {
            let out = self.command("sinfo").args(["-h", "-o", "%t"]).output();
            if out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle") {
                return Ok(());
            }
            if ["slurmd", "slurmctld"]
                .iter()
                .any(|d| log(&format!("log/{d}.log")).contains("Address already in use"))
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Err(format!(
            "the node never became idle; slurmd's log:\n{}slurmctld's log:\n{}",
            log("log/slurmd.log"),
            log("log/slurmctld.log")
        ))
    }

    /// Waits (polling, up to `limit`) until job `id` has left the queue.
    pub fn wait_gone(&self, id: &str, limit: Duration) -> bool {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            let out = self.command("squeue").args(["-h", "-j", id]).output();
            // squeue fails once the job is forgotten, or lists nothing.
            if out.is_ok_and(|o| !o.status.success() || o.stdout.is_empty()) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        false
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.command("scancel").args(["--user=root"]).output();
        for pid_file in self.pids.iter().rev() {
            let Some(pid) = std::fs::read_to_string(pid_file)
                .ok()
                .and_then(|p| p.trim().parse::<i32>().ok())
            else {
                continue;
            };
            let pid = rustix::process::Pid::from_raw(pid).unwrap();
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            // Each daemon is gone before the next, and before the directory.
            let end = Instant::now() + Duration::from_secs(20);
            while rustix::process::test_kill_process(pid).is_ok() && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}
