//! A result's workload in words (`1 MiB transfers, 16 MiB blocks, file per
//! process, 2 tasks on 1 node, POSIX`), read from its document; and the
//! names of results from what tells them apart.

use super::human::bytes;
use crate::compare::ResultFile;
use crate::concurrent::tools::ToolReport;
use crate::ior::report::RunReport;
use crate::mdtest::report::MdtestReport;
use crate::mdworkbench::report::MdwReport;

/// Which tool wrote a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Ior,
    Mdtest,
    MdWorkbench,
    Io500,
    Dlio,
}

impl Tool {
    /// The tool that wrote a result.
    pub fn of(doc: &ResultFile) -> Tool {
        match doc {
            ResultFile::Io500(_) => Tool::Io500,
            ResultFile::Tool(ToolReport::Ior(_)) => Tool::Ior,
            ResultFile::Tool(ToolReport::Mdtest(_)) => Tool::Mdtest,
            ResultFile::Tool(ToolReport::MdWorkbench(_)) => Tool::MdWorkbench,
            ResultFile::Dlio(_) => Tool::Dlio,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Tool::Ior => "ior",
            Tool::Mdtest => "mdtest",
            Tool::MdWorkbench => "md-workbench",
            Tool::Io500 => "io500",
            Tool::Dlio => "dlio_benchmark",
        }
    }
}

/// What a run did, as (aspect, words) in the order they are said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Workload {
    pub attrs: Vec<(&'static str, String)>,
}

/// Aspects that name a result or title a chart; the others (repetitions,
/// dates) only describe it.
const DISTINGUISHING: [&str; 15] = [
    "transfer", "files", "block", "segments", "offsets", "fsync", "direct", "items", "tree",
    "data", "objects", "tasks", "nodes", "api", "mode",
];

impl Workload {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Every aspect, in a sentence.
    pub fn words(&self) -> String {
        said(self.attrs.iter())
    }

    /// The first `max` aspects that name or title in which `others` are
    /// the same, in a sentence (a chart's title).
    pub fn common(&self, others: &[&Workload], max: usize) -> String {
        let shared = self
            .distinguishing()
            .filter(|(k, v)| others.iter().all(|o| o.get(k) == Some(v)))
            .take(max);
        said(shared)
    }

    /// The aspects that name or title, in order.
    pub fn distinguishing(&self) -> impl Iterator<Item = &(&'static str, String)> {
        self.attrs
            .iter()
            .filter(|(k, _)| DISTINGUISHING.contains(k))
    }
}

/// Aspects in a sentence: `2 tasks on 1 node`, the rest between commas.
fn said<'a>(attrs: impl Iterator<Item = &'a (&'static str, String)>) -> String {
    let mut parts: Vec<String> = Vec::new();
    for (k, v) in attrs {
        match (*k, parts.last_mut()) {
            // "2 tasks on 1 node".
            ("nodes", Some(last)) if last.ends_with("tasks") || last.ends_with("task") => {
                last.push_str(&format!(" on {v}"));
            }
            _ => parts.push(v.clone()),
        }
    }
    parts.join(", ")
}

fn count(n: u64, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// The workload of a result.
pub fn of(doc: &ResultFile) -> Workload {
    let mut w = Workload::default();
    let mut add = |k: &'static str, v: Option<String>| {
        if let Some(v) = v {
            w.attrs.push((k, v));
        }
    };
    match doc {
        ResultFile::Tool(ToolReport::Ior(r)) => ior(r, &mut add),
        ResultFile::Tool(ToolReport::Mdtest(r)) => mdtest(r, &mut add),
        ResultFile::Tool(ToolReport::MdWorkbench(r)) => md_workbench(r, &mut add),
        ResultFile::Io500(d) => {
            add("mode", Some(format!("{} mode", d.mode)));
            add("tasks", Some(count(d.procs as u64, "task", "tasks")));
        }
        ResultFile::Dlio(r) => {
            for (k, v) in super::dlio::workload(r) {
                add(k, Some(v));
            }
        }
    }
    w
}

type Add<'a> = dyn FnMut(&'static str, Option<String>) + 'a;

fn ior(r: &RunReport, add: &mut Add<'_>) {
    let tests = &r.tests;
    let Some(first) = tests.first() else { return };
    let p = &first.parameters;
    add(
        "transfer",
        Some(format!("{} transfers", bytes(p.transfer_size))),
    );
    add("block", Some(format!("{} blocks", bytes(p.block_size))));
    let segments = Some(p.segment_count).filter(|n| *n > 1);
    add("segments", segments.map(|n| format!("{n} segments")));
    let files = match p.file_per_proc > 0 {
        true => "file per process",
        false => "shared file",
    };
    add("files", Some(files.into()));
    add(
        "offsets",
        (p.random_offset > 0).then(|| "random offsets".into()),
    );
    add("fsync", (p.fsync > 0).then(|| "fsync at close".into()));
    let command = &r.header.command_line;
    add(
        "direct",
        command.contains("odirect").then(|| "O_DIRECT".into()),
    );
    add(
        "reorder",
        (p.reorder_tasks > 0).then(|| "reads another node's data".into()),
    );
    let steps: Vec<u64> = tests
        .iter()
        .filter_map(|t| t.sweep.map(|s| s.tasks as u64))
        .collect();
    let tasks = match steps.len() {
        0 | 1 => count(p.num_tasks as u64, "task", "tasks"),
        _ => format!("{} tasks", sweep(&steps)),
    };
    add("tasks", Some(tasks));
    let nodes = r.header.pario.nodes as u64;
    add("nodes", Some(count(nodes, "node", "nodes")));
    add("api", Some(p.api.clone()));
    add(
        "repetitions",
        Some(count(p.repetitions, "repetition", "repetitions")),
    );
    if tests.len() > steps.len().max(1) {
        add("tests", Some(format!("{} tests", tests.len())));
    }
}

/// A sweep's task counts: `4, 2, 1`, or `1 to 64` when there are many.
fn sweep(steps: &[u64]) -> String {
    match steps {
        [a, .., b] if steps.len() > 4 => format!("{a} to {b}"),
        _ => {
            let s: Vec<String> = steps.iter().map(u64::to_string).collect();
            s.join(", ")
        }
    }
}

fn mdtest(r: &MdtestReport, add: &mut Add<'_>) {
    let p = &r.parameters;
    add("items", Some(format!("{} items per task", p.items)));
    let (depth, branch) = (p.depth, p.branch_factor);
    add(
        "tree",
        (depth > 0).then(|| format!("tree of depth {depth}, {branch} wide")),
    );
    let data = match (p.write_bytes, p.read_bytes) {
        (0, 0) => None,
        (w, r) if w == r || r == 0 => Some(format!("{} per file", bytes(w))),
        (w, r) => Some(format!("{} written, {} read per file", bytes(w), bytes(r))),
    };
    add("data", data);
    add(
        "files",
        p.unique_dir_per_task.then(|| "a directory per task".into()),
    );
    let steps: Vec<u64> = r.tests.iter().map(|t| t.tasks as u64).collect();
    let tasks = match steps[..] {
        [n] => Some(count(n, "task", "tasks")),
        [] => None,
        _ => Some(format!("{} tasks", sweep(&steps))),
    };
    add("tasks", tasks);
    let nodes = r.header.pario.nodes as u64;
    add("nodes", Some(count(nodes, "node", "nodes")));
    add("api", Some(p.api.clone()));
    add(
        "repetitions",
        Some(count(p.iterations, "repetition", "repetitions")),
    );
}

fn md_workbench(r: &MdwReport, add: &mut Add<'_>) {
    add(
        "objects",
        Some(format!(
            "{} of {} objects ({} precreated)",
            count(r.data_sets, "data set", "data sets"),
            r.objects_per_set,
            r.precreate_per_set
        )),
    );
    add("data", Some(format!("{} per object", bytes(r.object_size))));
    add("tasks", Some(count(r.tasks as u64, "task", "tasks")));
    let nodes = r.pario.nodes as u64;
    add("nodes", Some(count(nodes, "node", "nodes")));
    add("api", api_of(&r.args));
    add(
        "repetitions",
        Some(count(r.iterations, "iteration", "iterations")),
    );
}

/// The `-a` of md-workbench's quoted command line.
fn api_of(args: &str) -> Option<String> {
    let words: Vec<&str> = args
        .split_whitespace()
        .map(|w| w.trim_matches('"'))
        .collect();
    let at = words.iter().position(|w| *w == "-a")?;
    words.get(at + 1).map(|w| w.to_string())
}

/// How the page names a figure: `write` (ior's first test), `test 1
/// write`, `File creation` (mdtest's figures name their task count), and a
/// sweep's step after it: `write, 4 tasks`.
pub fn figure_words(what: &str, step: Option<u64>) -> String {
    let what = what.strip_prefix("test 0 ").unwrap_or(what);
    let what = match what.split_once(" tasks: ") {
        Some((n, op)) if n.parse::<u64>().is_ok() => op,
        _ => what,
    };
    match step {
        Some(1) => format!("{what}, 1 task"),
        Some(n) => format!("{what}, {n} tasks"),
        None => what.to_string(),
    }
}

/// Names for results without a label: the tool and the aspects in which
/// results of the same tool differ; the file name when none differ (the
/// same workload run twice); numbered when names still repeat.
pub fn names(results: &[(Tool, &Workload, &str)]) -> Vec<String> {
    let mut names: Vec<String> = results
        .iter()
        .map(|(tool, w, file)| {
            let same_tool: Vec<&Workload> = results
                .iter()
                .filter(|(t, ..)| t == tool)
                .map(|(_, w, _)| *w)
                .collect();
            let differ: Vec<&str> = w
                .distinguishing()
                .filter(|(k, v)| same_tool.iter().any(|o| o.get(k) != Some(v)))
                .map(|(_, v)| v.as_str())
                .take(3)
                .collect();
            match (same_tool.len(), differ.is_empty()) {
                (1, _) => tool.name().to_string(),
                (_, true) => file.trim_end_matches(".json").to_string(),
                _ => format!("{} {}", tool.name(), differ.join(", ")),
            }
        })
        .collect();
    let given = names.clone();
    for (i, name) in names.iter_mut().enumerate() {
        let before = given[..i].iter().filter(|n| *n == name).count();
        if before > 0 || given[i + 1..].contains(name) {
            *name = format!("{name} ({})", before + 1);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(attrs: &[(&'static str, &str)]) -> Workload {
        Workload {
            attrs: attrs.iter().map(|(k, v)| (*k, v.to_string())).collect(),
        }
    }

    #[test]
    fn results_are_named_by_what_tells_them_apart() {
        let a = w(&[
            ("transfer", "1 MiB transfers"),
            ("tasks", "2 tasks"),
            ("repetitions", "5"),
        ]);
        let b = w(&[
            ("transfer", "4 KiB transfers"),
            ("tasks", "2 tasks"),
            ("repetitions", "3"),
        ]);
        let m = w(&[("items", "200 items per task")]);
        let named = names(&[
            (Tool::Ior, &a, "x.json"),
            (Tool::Ior, &b, "y.json"),
            (Tool::Mdtest, &m, "m.json"),
        ]);
        assert_eq!(
            named,
            ["ior 1 MiB transfers", "ior 4 KiB transfers", "mdtest"]
        );
        let named = names(&[
            (Tool::Ior, &a, "before.json"),
            (Tool::Ior, &a, "after.json"),
        ]);
        assert_eq!(named, ["before", "after"]);
        let named = names(&[(Tool::Ior, &a, "r.json"), (Tool::Ior, &a, "r.json")]);
        assert_eq!(named, ["r (1)", "r (2)"]);
    }

    #[test]
    fn the_workload_in_a_sentence() {
        let a = w(&[
            ("transfer", "1 MiB transfers"),
            ("tasks", "2 tasks"),
            ("nodes", "1 node"),
        ]);
        assert_eq!(a.words(), "1 MiB transfers, 2 tasks on 1 node");
        assert_eq!(sweep(&[4, 2, 1]), "4, 2, 1");
        assert_eq!(sweep(&[1, 2, 4, 8, 16]), "1 to 16");
    }
}
