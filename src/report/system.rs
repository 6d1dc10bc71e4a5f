//! Where a result ran, as the page says it: above the overview, what
//! differs between the results' systems first (`kernel 6.1 vs 6.8; file
//! system ext4 at / vs tmpfs at /dev/shm`), or the one system they share;
//! in each run's details, its whole description. Results written before
//! pario recorded the system say so.

use std::fmt::Write as _;

use super::elements::{escape, table};
use super::human;
use super::model::Loaded;
use crate::run::system::mounts::FileSystem;
use crate::run::system::{Node, System};

/// The aspects the overview names when the systems agree.
const SHARED: [&str; 7] = [
    "nodes",
    "CPU",
    "memory",
    "kernel",
    "file system",
    "source",
    "object store",
];

/// The aspects that are the workload's, not the system's (the overview's
/// workload says them).
const WORKLOAD: [&str; 1] = ["tasks"];

/// The longest value the overview's line quotes.
const SHORT: usize = 60;

/// The system as (aspect, words) in the order said; nodes that differ
/// give each their value, ` / ` between them.
pub fn aspects(s: &System) -> Vec<(&'static str, String)> {
    let hosts: Vec<&str> = s
        .clients
        .iter()
        .flat_map(|c| &c.hosts)
        .map(|h| h.as_str())
        .collect();
    let nodes = match s.nodes {
        1 => "1 node".to_string(),
        n => format!("{n} nodes"),
    };
    let mut out = vec![
        ("nodes", format!("{nodes} ({})", host_list(&hosts))),
        ("tasks", s.tasks.to_string()),
    ];
    let each = |f: &dyn Fn(&Node) -> Option<String>| -> Option<String> {
        let mut seen: Vec<String> = Vec::new();
        for v in s.clients.iter().filter_map(|c| f(&c.node)) {
            if !seen.contains(&v) {
                seen.push(v);
            }
        }
        (!seen.is_empty()).then(|| seen.join(" / "))
    };
    let fs = |f: &dyn Fn(&FileSystem) -> Option<String>| each(&|n| f(n.file_system.as_ref()?));
    let found = [
        ("CPU", each(&|n| Some(cpu(n)))),
        (
            "memory",
            each(&|n| Some(format!("{} per node", human::bytes(n.memory_bytes)))),
        ),
        ("kernel", each(&|n| Some(n.kernel.clone()))),
        ("OS", each(&|n| n.os.clone())),
        ("network", each(&network)),
        (
            "file system",
            fs(&|f| Some(format!("{} at {}", f.fs_type, f.mount_point))),
        ),
        ("source", fs(&|f| Some(f.source.clone()))),
        ("mount options", fs(&|f| Some(f.mount_options.clone()))),
        (
            "file system options",
            fs(&|f| Some(f.super_options.clone())),
        ),
        ("client version", fs(&|f| f.client_version.clone())),
        ("layout of the directory", fs(&|f| f.layout.clone())),
        ("object store", s.object_store.clone()),
        ("MPI library", s.mpi_library.clone()),
        ("engine", Some(s.engine.clone())),
        ("pario", Some(build(s))),
    ];
    out.extend(found.into_iter().filter_map(|(k, v)| Some((k, v?))));
    out
}

/// `vm`, `n01, n02, n03`, or `n001, n002, ... n128` past eight.
fn host_list(hosts: &[&str]) -> String {
    match hosts {
        [first, second, .., last] if hosts.len() > 8 => format!("{first}, {second}, ... {last}"),
        _ => hosts.join(", "),
    }
}

fn cpu(n: &Node) -> String {
    let sockets = match n.cpu.sockets {
        1 => String::new(),
        k => format!(", {k} sockets"),
    };
    format!("{} ({} threads{sockets})", n.cpu.model, n.cpu.logical)
}

/// Interfaces that are up, with their speed.
fn network(n: &Node) -> Option<String> {
    let up: Vec<String> = n
        .network
        .iter()
        .filter(|i| i.state == "up")
        .map(|i| match i.speed_mbit_s {
            Some(s) => format!("{} {} {s} Mb/s", i.name, i.kind),
            None => format!("{} {}", i.name, i.kind),
        })
        .chain(
            n.infiniband
                .iter()
                .map(|p| format!("{} {}", p.device, p.rate)),
        )
        .collect();
    (!up.is_empty()).then(|| up.join(", "))
}

/// pario's version and features.
fn build(s: &System) -> String {
    match s.pario.features.is_empty() {
        true => s.pario.version.clone(),
        false => format!("{} ({})", s.pario.version, s.pario.features.join(", ")),
    }
}

/// A value as the overview's line quotes it: its first line, shortened.
fn short(v: &str) -> String {
    let line = v.lines().next().unwrap_or_default();
    match line.chars().count() > SHORT || v.contains('\n') {
        true => format!("{}…", line.chars().take(SHORT).collect::<String>()),
        false => line.to_string(),
    }
}

/// What differs between the systems, one `aspect A vs B` part each (with
/// the results' names past two results), in the first system's order.
pub fn differences(named: &[(&str, &System)]) -> Vec<String> {
    let all: Vec<(&str, Vec<(&'static str, String)>)> =
        named.iter().map(|(n, s)| (*n, aspects(s))).collect();
    let mut keys: Vec<&'static str> = Vec::new();
    for (_, a) in &all {
        for (k, _) in a {
            if !keys.contains(k) && !WORKLOAD.contains(k) {
                keys.push(k);
            }
        }
    }
    let mut out = Vec::new();
    for key in keys {
        // Each value with the results that have it, in order.
        let mut values: Vec<(String, Vec<&str>)> = Vec::new();
        for (name, a) in &all {
            let v = a
                .iter()
                .find(|(k, _)| *k == key)
                .map_or("none".into(), |(_, v)| short(v));
            match values.iter_mut().find(|(x, _)| *x == v) {
                Some((_, names)) => names.push(name),
                None => values.push((v, vec![name])),
            }
        }
        if values.len() < 2 {
            continue;
        }
        let parts: Vec<String> = values
            .iter()
            .map(|(v, names)| match all.len() {
                2 => v.clone(),
                _ => format!("{v} ({})", names.join(", ")),
            })
            .collect();
        out.push(format!("{key} {}", parts.join(" vs ")));
    }
    out
}

/// The overview's line: what differs between the results' systems, or
/// the system they share; which results did not record theirs.
pub fn overview_line(results: &[Loaded]) -> String {
    let named: Vec<(&str, &System)> = results
        .iter()
        .filter_map(|r| Some((r.name.as_str(), r.doc.system()?)))
        .collect();
    let Some((_, first)) = named.first() else {
        return String::new();
    };
    let diff = differences(&named);
    let mut h = String::from("<p class=\"note system\">");
    if named.len() > 1 && !diff.is_empty() {
        let _ = write!(h, "<b>Systems differ:</b> {}.", escape(&diff.join("; ")));
    } else {
        let same: Vec<String> = aspects(first)
            .into_iter()
            .filter(|(k, _)| SHARED.contains(k))
            .map(|(k, v)| match k {
                "nodes" | "memory" | "CPU" => short(&v),
                _ => format!("{k} {}", short(&v)),
            })
            .collect();
        let title = match named.len() {
            1 => "System:",
            _ => "The same system:",
        };
        let _ = write!(h, "<b>{title}</b> {}.", escape(&same.join(", ")));
    }
    let missing: Vec<&str> = results
        .iter()
        .filter(|r| r.doc.system().is_none())
        .map(|r| r.name.as_str())
        .collect();
    if !missing.is_empty() {
        let _ = write!(
            h,
            " No system recorded in {} (written by a pario before it recorded one).",
            escape(&missing.join(", "))
        );
    }
    h.push_str(" Each run's whole system is in its details.</p>\n");
    h
}

/// A run's whole system, for its details.
pub fn details(r: &Loaded) -> String {
    let Some(s) = r.doc.system() else {
        return "<h4>System</h4>\n<p class=\"note\">Not recorded (written by a pario before it \
                recorded the system).</p>\n"
            .into();
    };
    let rows: Vec<Vec<String>> = aspects(s)
        .into_iter()
        .map(|(k, v)| vec![k.to_string(), v])
        .collect();
    format!("<h4>System</h4>\n{}", table(&["aspect", ""], &rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::{local, Topology};

    fn here() -> System {
        let dir = std::env::temp_dir();
        let all = local::run(Topology::single_node(1), |comm| {
            System::of_run(comm, Some(&dir))
        });
        all.into_iter().next().unwrap().unwrap().expect("rank 0's")
    }

    #[test]
    fn differences_name_the_aspect_and_both_values() {
        let a = here();
        let mut b = a.clone();
        b.clients[0].node.kernel = "6.8.0 x86_64".into();
        assert!(differences(&[("a", &a), ("b", &a)]).is_empty());
        let d = differences(&[("a", &a), ("b", &b)]);
        let want = format!("kernel {} vs 6.8.0 x86_64", a.clients[0].node.kernel);
        assert_eq!(d, [want]);
        let three = differences(&[("a", &a), ("b", &b), ("c", &a)]);
        assert!(three[0].ends_with("vs 6.8.0 x86_64 (b)"), "{three:?}");
        let keys: Vec<&str> = aspects(&a).iter().map(|(k, _)| *k).collect();
        assert!(
            keys.contains(&"file system") && keys.contains(&"pario"),
            "{keys:?}"
        );
    }
}
