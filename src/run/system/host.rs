//! One node's hardware and kernel as Linux shows them under `/proc` and
//! `/sys`: reads of small files, nothing run, nothing that can wait.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The processors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cpu {
    /// `/proc/cpuinfo`'s model name (the machine's name where it has none).
    pub model: String,
    /// Logical processors (hardware threads).
    pub logical: usize,
    /// Physical packages.
    pub sockets: usize,
}

/// A network interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interface {
    pub name: String,
    /// `ethernet`, `infiniband`, or the kernel's ARPHRD number.
    pub kind: String,
    /// `up`, `down`, ...
    pub state: String,
    pub mtu: Option<u64>,
    /// The link's speed when the driver says (Mb/s).
    pub speed_mbit_s: Option<u64>,
}

/// An InfiniBand (or RoCE, Omni-Path) port.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbPort {
    pub device: String,
    pub port: String,
    /// `100 Gb/sec (4X EDR)`.
    pub rate: String,
    /// `4: ACTIVE`.
    pub state: String,
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(text.trim().to_string())
}

pub fn hostname() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// `6.1.0-18-amd64 x86_64`.
pub fn kernel() -> String {
    let u = rustix::system::uname();
    format!(
        "{} {}",
        u.release().to_string_lossy(),
        u.machine().to_string_lossy()
    )
}

pub fn os() -> Option<String> {
    let text = read("/etc/os-release")?;
    let line = text.lines().find_map(|l| l.strip_prefix("PRETTY_NAME="))?;
    Some(line.trim_matches('"').to_string())
}

pub fn cpu() -> Cpu {
    cpu_of(&read("/proc/cpuinfo").unwrap_or_default())
}

/// The processors `/proc/cpuinfo` lists.
pub fn cpu_of(cpuinfo: &str) -> Cpu {
    let value = |line: &str, key: &str| -> Option<String> {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    };
    let mut model = None;
    let (mut logical, mut packages) = (0, Vec::new());
    for line in cpuinfo.lines() {
        if value(line, "processor").is_some() {
            logical += 1;
        }
        if model.is_none() {
            model = value(line, "model name").or_else(|| value(line, "Model"));
        }
        if let Some(id) = value(line, "physical id") {
            if !packages.contains(&id) {
                packages.push(id);
            }
        }
    }
    let machine = || {
        let u = rustix::system::uname();
        u.machine().to_string_lossy().into_owned()
    };
    let logical = match logical {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    Cpu {
        model: model.unwrap_or_else(machine),
        logical,
        sockets: packages.len().max(1),
    }
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
pub fn memory_bytes() -> u64 {
    memory_of(&read("/proc/meminfo").unwrap_or_default())
}

pub fn memory_of(meminfo: &str) -> u64 {
    let line = meminfo.lines().find_map(|l| l.strip_prefix("MemTotal:"));
    let kib = line.and_then(|l| l.split_whitespace().next()?.parse::<u64>().ok());
    kib.unwrap_or(0).saturating_mul(1024)
}

/// Every interface but loopback, by name.
pub fn interfaces() -> Vec<Interface> {
    let mut out: Vec<Interface> = entries("/sys/class/net")
        .into_iter()
        .filter_map(|name| {
            let dir = Path::new("/sys/class/net").join(&name);
            let kind = match read(dir.join("type"))?.as_str() {
                "772" => return None,
                "1" => "ethernet".to_string(),
                "32" => "infiniband".to_string(),
                other => format!("ARPHRD {other}"),
            };
            let number = |f: &str| read(dir.join(f)).and_then(|v| v.parse::<u64>().ok());
            Some(Interface {
                name,
                kind,
                state: read(dir.join("operstate")).unwrap_or_default(),
                mtu: number("mtu"),
                speed_mbit_s: number("speed"),
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Every port of every RDMA device.
pub fn infiniband() -> Vec<IbPort> {
    let base = Path::new("/sys/class/infiniband");
    let mut out = Vec::new();
    for device in entries(base) {
        let ports = base.join(&device).join("ports");
        for port in entries(&ports) {
            let dir = ports.join(&port);
            out.push(IbPort {
                device: device.clone(),
                port,
                rate: read(dir.join("rate")).unwrap_or_default(),
                state: read(dir.join("state")).unwrap_or_default(),
            });
        }
    }
    out
}

/// The names in a directory, sorted (none when it cannot be read).
fn entries(dir: impl AsRef<Path>) -> Vec<String> {
    let Ok(list) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = list
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpuinfo_gives_model_threads_and_packages() {
        let text = "processor\t: 0\nmodel name\t: AMD EPYC 7763\nphysical id\t: 0\n\n\
                    processor\t: 1\nmodel name\t: AMD EPYC 7763\nphysical id\t: 1\n\n\
                    processor\t: 2\nphysical id\t: 1\n";
        let c = cpu_of(text);
        assert_eq!(
            (c.model.as_str(), c.logical, c.sockets),
            ("AMD EPYC 7763", 3, 2)
        );
        let arm = cpu_of("processor : 0\nModel : Raspberry Pi 4\n");
        assert_eq!((arm.model.as_str(), arm.sockets), ("Raspberry Pi 4", 1));
        assert!(cpu_of("").logical >= 1);
    }

    #[test]
    fn meminfo_gives_bytes() {
        assert_eq!(
            memory_of("MemTotal:       24683584 kB\nMemFree: 1 kB\n"),
            24683584 * 1024
        );
        assert_eq!(memory_of("MemTotal: lots\n"), 0);
        assert!(memory_bytes() > 0);
    }
}
