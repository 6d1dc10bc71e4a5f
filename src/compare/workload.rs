//! What a result's run did, typed: its tool and its settings (transfer and
//! block size, layout, tasks, nodes, API, ...), each with its words; and
//! what differs between two results (`differences`), the one comparison
//! `pario compare` prints above its verdicts and the report beside its
//! ratios, names and parameter curves.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use super::ResultFile;
use crate::backend::aio::AioOptions;
use crate::concurrent::tools::ToolReport;
use crate::dlio::report::DlioReport;
use crate::ior::report::RunReport;
use crate::mdtest::report::MdtestReport;
use crate::mdworkbench::report::MdwReport;
use crate::units::readable_size as size;

/// A setting's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Bytes: a transfer, a block.
    Size(u64),
    /// A count: tasks, segments, items, a queue's depth.
    Count(u64),
    /// A name among others: the API, a sweep's steps.
    Name(String),
    /// One of a few ways, said in its words alone (`file per process`).
    Way(&'static str),
}

impl Value {
    /// Where it goes on an axis (a name or a way has no place).
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Size(n) | Value::Count(n) => Some(*n as f64),
            Value::Name(_) | Value::Way(_) => None,
        }
    }

    /// The value alone: `8 MiB`, `4`, `POSIX`.
    pub fn short(&self) -> String {
        match self {
            Value::Size(n) => size(*n),
            Value::Count(n) => n.to_string(),
            Value::Name(s) => s.clone(),
            Value::Way(s) => s.to_string(),
        }
    }
}

/// One thing a run was set to do.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// What it is (`transfer`, `files`, `API`): how a difference names it.
    pub aspect: &'static str,
    pub value: Value,
    /// How the workload's sentence says it (`1 MiB transfers`).
    pub words: String,
    /// Whether the sentence says it (a default such as `buffered` is only
    /// named where it differs).
    pub said: bool,
}

/// Aspects that describe a run without setting its workload apart.
const DESCRIBING: [&str; 2] = ["repetitions", "tests"];

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Workload {
    /// `ior`, `mdtest`, `md-workbench`, `io500`, `dlio_benchmark`.
    pub tool: &'static str,
    pub settings: Vec<Setting>,
}

/// One aspect in which two workloads differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub aspect: &'static str,
    pub a: Value,
    pub b: Value,
}

impl fmt::Display for Difference {
    /// `transfer 8 MiB vs 16 MiB`, `file per process vs shared file`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = (self.a.short(), self.b.short());
        match (&self.a, &self.b) {
            (Value::Way(_), Value::Way(_)) => write!(f, "{a} vs {b}"),
            _ => write!(f, "{} {a} vs {b}", self.aspect),
        }
    }
}

/// A difference as `pario compare --json` writes it: the aspect and each
/// side's value in words (`block`, `8 MiB`, `16 MiB`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Differs {
    pub aspect: String,
    pub a: String,
    pub b: String,
}

impl From<&Difference> for Differs {
    fn from(d: &Difference) -> Differs {
        Differs {
            aspect: d.aspect.to_string(),
            a: d.a.short(),
            b: d.b.short(),
        }
    }
}

/// What differs between `a` and `b`, in their order: the tool alone when
/// the tools differ; aspects one of them lacks are not compared.
pub fn differences(a: &Workload, b: &Workload) -> Vec<Difference> {
    if a.tool != b.tool {
        let tool = |w: &Workload| Value::Name(w.tool.to_string());
        return vec![Difference {
            aspect: "tool",
            a: tool(a),
            b: tool(b),
        }];
    }
    a.setting_apart()
        .filter_map(|s| {
            let other = b.setting(s.aspect)?;
            (other.value != s.value).then(|| Difference {
                aspect: s.aspect,
                a: s.value.clone(),
                b: other.value.clone(),
            })
        })
        .collect()
}

/// `workloads differ: transfer 8 MiB vs 16 MiB; file per process vs shared
/// file` (none when they do not).
pub fn line(differences: &[Difference]) -> Option<String> {
    let said: Vec<String> = differences.iter().map(Difference::to_string).collect();
    (!said.is_empty()).then(|| format!("workloads differ: {}", said.join("; ")))
}

impl Workload {
    pub fn setting(&self, aspect: &str) -> Option<&Setting> {
        self.settings.iter().find(|s| s.aspect == aspect)
    }

    /// An aspect's words, when the sentence says them.
    pub fn get(&self, aspect: &str) -> Option<&str> {
        self.setting(aspect)
            .filter(|s| s.said)
            .map(|s| s.words.as_str())
    }

    /// Every aspect said, in a sentence.
    pub fn words(&self) -> String {
        said(self.settings.iter().filter(|s| s.said))
    }

    /// The settings that can set a workload apart (said or not).
    pub fn setting_apart(&self) -> impl Iterator<Item = &Setting> {
        self.settings
            .iter()
            .filter(|s| !DESCRIBING.contains(&s.aspect))
    }

    /// The aspects said that name or title, in order.
    pub fn distinguishing(&self) -> impl Iterator<Item = &Setting> {
        self.setting_apart().filter(|s| s.said)
    }

    /// The first `max` said aspects that name or title in which `others`
    /// are the same, in a sentence (a chart's title).
    pub fn common(&self, others: &[&Workload], max: usize) -> String {
        let shared = self
            .distinguishing()
            .filter(|s| others.iter().all(|o| o.get(s.aspect) == Some(&s.words)))
            .take(max);
        said(shared)
    }
}

/// Settings in a sentence: `2 tasks on 1 node`, the rest between commas.
pub fn said<'a>(settings: impl Iterator<Item = &'a Setting>) -> String {
    let mut parts: Vec<String> = Vec::new();
    for s in settings {
        match (s.aspect, parts.last_mut()) {
            ("nodes", Some(last)) if last.ends_with("tasks") || last.ends_with("task") => {
                last.push_str(&format!(" on {}", s.words));
            }
            _ => parts.push(s.words.clone()),
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

/// A workload as it is built: settings said, a way said only when it is
/// not the default.
struct Build(Workload);

impl Build {
    fn new(tool: &'static str) -> Build {
        Build(Workload {
            tool,
            settings: Vec::new(),
        })
    }

    fn put(&mut self, aspect: &'static str, value: Value, words: String, said: bool) {
        let s = Setting {
            aspect,
            value,
            words,
            said,
        };
        self.0.settings.push(s);
    }

    fn size(&mut self, aspect: &'static str, n: u64, words: &str) {
        self.put(aspect, Value::Size(n), format!("{} {words}", size(n)), true);
    }

    fn count(&mut self, aspect: &'static str, n: u64, one: &str, many: &str) {
        self.put(aspect, Value::Count(n), count(n, one, many), true);
    }

    /// `on` or `off`'s words, said when on.
    fn way(&mut self, aspect: &'static str, on: bool, words: (&'static str, &'static str)) {
        let w = if on { words.0 } else { words.1 };
        self.put(aspect, Value::Way(w), w.into(), on);
    }

    /// `on` or `off`'s words, said either way.
    fn either(&mut self, aspect: &'static str, on: bool, words: (&'static str, &'static str)) {
        self.way(aspect, on, words);
        if let Some(s) = self.0.settings.last_mut() {
            s.said = true;
        }
    }

    fn name(&mut self, aspect: &'static str, name: &str) {
        self.put(aspect, Value::Name(name.into()), name.into(), true);
    }
}

/// The workload of a result.
pub fn of(doc: &ResultFile) -> Workload {
    match doc {
        ResultFile::Tool(ToolReport::Ior(r)) => ior(r),
        ResultFile::Tool(ToolReport::Mdtest(r)) => mdtest(r),
        ResultFile::Tool(ToolReport::MdWorkbench(r)) => md_workbench(r),
        ResultFile::Io500(d) => {
            let mut w = Build::new("io500");
            let mode = Value::Name(d.mode.clone());
            w.put("mode", mode, format!("{} mode", d.mode), true);
            w.count("tasks", d.procs as u64, "task", "tasks");
            w.0
        }
        ResultFile::Dlio(r) => of_dlio(r),
    }
}

fn ior(r: &RunReport) -> Workload {
    let mut w = Build::new("ior");
    let tests = &r.tests;
    let Some(first) = tests.first() else {
        return w.0;
    };
    let p = &first.parameters;
    w.size("transfer", p.transfer_size, "transfers");
    w.size("block", p.block_size, "blocks");
    let segments = p.segment_count;
    let said = count(segments, "segment", "segments");
    w.put("segments", Value::Count(segments), said, segments > 1);
    let files = ("file per process", "shared file");
    w.either("files", p.file_per_proc > 0, files);
    w.way(
        "offsets",
        p.random_offset > 0,
        ("random offsets", "sequential offsets"),
    );
    w.way("fsync", p.fsync > 0, ("fsync at close", "no fsync"));
    let command = &r.header.command_line;
    let direct = command.contains("odirect") || command.contains("useO_DIRECT");
    w.way("direct", direct, ("O_DIRECT", "buffered"));
    let reorder = match (p.reorder_tasks > 0, p.reorder_tasks_random > 0) {
        (true, _) => "reads another node's data (-C)",
        (false, true) => "reads random tasks' data (-Z)",
        (false, false) => "reads its own data",
    };
    w.way(
        "reorder",
        reorder != "reads its own data",
        (reorder, reorder),
    );
    let steps: Vec<u64> = tests
        .iter()
        .filter_map(|t| t.sweep.map(|s| s.tasks as u64))
        .collect();
    tasks(&mut w, p.num_tasks as u64, &steps);
    w.count("nodes", r.header.pario.nodes as u64, "node", "nodes");
    w.name("API", &p.api);
    if p.api == "AIO" {
        let given = option_value(command, "aio.max-pending").and_then(|v| v.parse().ok());
        let depth = given.unwrap_or(AioOptions::default().max_pending as u64);
        let words = format!("queue depth {depth}");
        w.put("queue depth", Value::Count(depth), words, true);
    }
    w.count("repetitions", p.repetitions, "repetition", "repetitions");
    if tests.len() > steps.len().max(1) {
        let n = tests.len() as u64;
        w.put("tests", Value::Count(n), format!("{n} tests"), true);
    }
    w.0
}

/// A task count, or a sweep's steps: `4, 2, 1 tasks`.
fn tasks(w: &mut Build, n: u64, steps: &[u64]) {
    match steps {
        [] | [_] => w.count("tasks", n, "task", "tasks"),
        _ => {
            let s = sweep(steps);
            w.put("tasks", Value::Name(s.clone()), format!("{s} tasks"), true);
        }
    }
}

/// The value of `--name=V` or `--name V` on a command line.
fn option_value<'a>(command: &'a str, name: &str) -> Option<&'a str> {
    let flag = format!("--{name}");
    let mut words = command.split_whitespace();
    while let Some(w) = words.next() {
        match w.strip_prefix(flag.as_str()) {
            Some("") => return words.next(),
            Some(rest) if rest.starts_with('=') => return Some(&rest[1..]),
            _ => {}
        }
    }
    None
}

/// A sweep's task counts: `4, 2, 1`, or `1 to 64` when there are many.
pub fn sweep(steps: &[u64]) -> String {
    match steps {
        [a, .., b] if steps.len() > 4 => format!("{a} to {b}"),
        _ => {
            let s: Vec<String> = steps.iter().map(u64::to_string).collect();
            s.join(", ")
        }
    }
}

fn mdtest(r: &MdtestReport) -> Workload {
    let mut w = Build::new("mdtest");
    let p = &r.parameters;
    w.count("items", p.items, "item per task", "items per task");
    let (depth, branch) = (p.depth, p.branch_factor);
    let tree = format!("tree of depth {depth}");
    w.put("depth", Value::Count(depth), tree, depth > 0);
    let wide = format!("{branch} wide");
    w.put("branching", Value::Count(branch), wide, depth > 0);
    let kind = match (p.files_only, p.dirs_only) {
        (true, false) => "files only",
        (false, true) => "directories only",
        _ => "files and directories",
    };
    w.way("kind", kind != "files and directories", (kind, kind));
    w.way(
        "leaves",
        p.leaf_only,
        ("leaf directories only", "every directory"),
    );
    let dirs = ("a directory per task", "shared directories");
    w.way("files", p.unique_dir_per_task, dirs);
    let written = match p.read_bytes {
        r if r == p.write_bytes || r == 0 => "per file",
        _ => "written per file",
    };
    let data = format!("{} {written}", size(p.write_bytes));
    w.put("data", Value::Size(p.write_bytes), data, p.write_bytes > 0);
    let read = format!("{} read per file", size(p.read_bytes));
    let read_said = written != "per file";
    w.put("read", Value::Size(p.read_bytes), read, read_said);
    let steps: Vec<u64> = r.tests.iter().map(|t| t.tasks as u64).collect();
    if let Some(first) = steps.first() {
        tasks(&mut w, *first, &steps);
    }
    w.count("nodes", r.header.pario.nodes as u64, "node", "nodes");
    w.name("API", &p.api);
    w.count("repetitions", p.iterations, "repetition", "repetitions");
    w.0
}

fn md_workbench(r: &MdwReport) -> Workload {
    let mut w = Build::new("md-workbench");
    // Said as md-workbench's own output says them, in one phrase.
    let sets = format!(
        "{} of {} objects ({} precreated)",
        count(r.data_sets, "data set", "data sets"),
        r.objects_per_set,
        r.precreate_per_set
    );
    w.put("data sets", Value::Count(r.data_sets), sets, true);
    let objects = Value::Count(r.objects_per_set);
    w.put(
        "objects",
        objects,
        format!("{} objects", r.objects_per_set),
        false,
    );
    let pre = Value::Count(r.precreate_per_set);
    w.put(
        "precreated",
        pre,
        format!("{} precreated", r.precreate_per_set),
        false,
    );
    w.size("object size", r.object_size, "per object");
    w.count("tasks", r.tasks as u64, "task", "tasks");
    w.count("nodes", r.pario.nodes as u64, "node", "nodes");
    if let Some(api) = api_of(&r.args) {
        w.name("API", &api);
    }
    w.count("repetitions", r.iterations, "iteration", "iterations");
    w.0
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

/// dlio_benchmark's workload: its name and its key sizes, read from the
/// configuration its document holds.
pub fn of_dlio(r: &DlioReport) -> Workload {
    let mut w = Build::new("dlio_benchmark");
    w.name("workload", &r.workload);
    let c = &r.config;
    let at = |path: &str| c.pointer(path).and_then(Json::as_f64);
    if let Some(f) = c.pointer("/dataset/format").and_then(Json::as_str) {
        w.name("format", f);
    }
    if let Some(n) = at("/dataset/record_length_bytes") {
        w.size("record", n.round() as u64, "records");
    }
    let counts = [
        ("/dataset/num_files_train", "files", "file", "files"),
        (
            "/dataset/num_samples_per_file",
            "samples",
            "sample per file",
            "samples per file",
        ),
        (
            "/reader/batch_size",
            "batch",
            "sample a batch",
            "samples a batch",
        ),
    ];
    for (path, aspect, one, many) in counts {
        if let Some(n) = at(path) {
            w.count(aspect, n as u64, one, many);
        }
    }
    w.count("tasks", r.ranks as u64, "task", "tasks");
    w.0
}

#[cfg(test)]
mod tests;
