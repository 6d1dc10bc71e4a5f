//! What DLIO's outputs say about the host: `/proc/cpuinfo` and
//! `/proc/meminfo` as its `lines_to_dict` reads them (each `key: value`
//! line, the last of a repeated key winning, `processor` left out), the
//! memory size and the processor count.

use std::collections::BTreeMap;

/// `lines_to_dict` of a `/proc` file's text, in first-seen key order.
pub fn lines_to_pairs(text: &str) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    for line in text.lines() {
        let parts: Vec<&str> = line.split(':').collect();
        if parts.len() != 2 {
            continue;
        }
        let (key, value) = (parts[0].trim(), parts[1].trim());
        if key == "processor" {
            continue;
        }
        match at.get(key) {
            Some(&i) => pairs[i].1 = value.to_string(),
            None => {
                at.insert(key.to_string(), pairs.len());
                pairs.push((key.to_string(), value.to_string()));
            }
        }
    }
    pairs
}

fn proc_file(name: &str) -> Vec<(String, String)> {
    std::fs::read_to_string(name)
        .map(|t| lines_to_pairs(&t))
        .unwrap_or_default()
}

pub fn meminfo() -> Vec<(String, String)> {
    proc_file("/proc/meminfo")
}

pub fn cpuinfo() -> Vec<(String, String)> {
    proc_file("/proc/cpuinfo")
}

/// This host's memory in GB (2^30 bytes), as psutil's `virtual_memory().total`.
pub fn memory_gib() -> f64 {
    let kib = meminfo()
        .into_iter()
        .find(|(k, _)| k == "MemTotal")
        .and_then(|(_, v)| v.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap_or(0);
    kib as f64 / 1024.0 / 1024.0
}

/// Logical processors, as psutil's `cpu_count()` (the system's, whatever
/// the process may run on).
pub fn cpu_count() -> usize {
    let listed = std::fs::read_to_string("/proc/cpuinfo")
        .map(|t| t.lines().filter(|l| l.starts_with("processor")).count())
        .unwrap_or(0);
    match listed {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// `socket.gethostname()`.
pub fn hostname() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// `platform.processor()`: empty on most Linux systems.
pub fn processor_name() -> String {
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dict_of_proc_lines() {
        let text = "processor\t: 0\nmodel name\t: A\nflags\t\t: x y\n\nprocessor\t: 1\nmodel name\t: B\nbad line\na:b:c\n";
        let pairs = lines_to_pairs(text);
        assert_eq!(
            pairs,
            vec![
                ("model name".into(), "B".into()),
                ("flags".into(), "x y".into())
            ]
        );
        assert!(memory_gib() > 0.0);
        assert!(cpu_count() >= 1);
    }
}
