//! Which tool wrote a result, how the page names a figure, and the names
//! of results from what tells them apart; the workload itself, in words
//! and typed, is `compare`'s (`crate::compare::workload`), which both
//! commands share.

pub use crate::compare::workload::{of, Workload};
use crate::compare::workload::{said, Setting};
use crate::compare::ResultFile;
use crate::concurrent::tools::ToolReport;

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

/// Names for results without a label: the tool and the fewest aspects
/// that tell a result from each other result of its tool (`ior AIO`, `ior
/// 4 KiB transfers, shared file`); the file's name besides when another
/// has the same workload (the same run twice); numbered when names still
/// repeat.
pub fn names(results: &[(Tool, &Workload, &str)]) -> Vec<String> {
    let mut names: Vec<String> = results
        .iter()
        .enumerate()
        .map(|(i, (tool, w, file))| {
            let others: Vec<&Workload> = (results.iter().enumerate())
                .filter(|(j, (t, ..))| *j != i && t == tool)
                .map(|(_, (_, o, _))| *o)
                .collect();
            let stem = file.trim_end_matches(".json");
            let (apart, twins) = setting_apart(w, &others);
            match (others.is_empty(), apart.is_empty(), twins) {
                (true, ..) => tool.name().to_string(),
                (_, true, _) => stem.to_string(),
                (_, false, false) => format!("{} {}", tool.name(), said(apart.into_iter())),
                (_, false, true) => {
                    format!("{} {} ({stem})", tool.name(), said(apart.into_iter()))
                }
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

/// The fewest of `w`'s settings (chosen greedily, each telling it from
/// the most others not told yet; in the workload's order) that tell it
/// from every other workload, and whether some other is the same.
fn setting_apart<'a>(w: &'a Workload, others: &[&Workload]) -> (Vec<&'a Setting>, bool) {
    // An aspect the other lacks (AIO's queue depth against POSIX) does not
    // tell them apart: the aspect they both have does.
    let differs =
        |s: &Setting, o: &Workload| o.setting(s.aspect).is_some_and(|x| x.value != s.value);
    let mut left: Vec<&Workload> = others.to_vec();
    let mut chosen: Vec<&Setting> = Vec::new();
    while !left.is_empty() {
        let best = w
            .setting_apart()
            .map(|s| (s, left.iter().filter(|o| differs(s, o)).count()))
            .fold(None, |best: Option<(&Setting, usize)>, (s, n)| match best {
                Some((_, m)) if m >= n => best,
                _ if n > 0 => Some((s, n)),
                _ => best,
            });
        let Some((s, _)) = best else { break };
        chosen.push(s);
        left.retain(|o| !differs(s, o));
    }
    let order = |s: &&Setting| w.settings.iter().position(|x| std::ptr::eq(x, *s));
    chosen.sort_by_key(order);
    (chosen, !left.is_empty())
}

/// The overview's words: per tool, what its results share (`ior: 1 MiB
/// transfers, 2 tasks on 1 node`), and per result only what sets it apart
/// from the others of its tool (every setting in which they are not all
/// the same, said even where it is a default: `buffered`).
pub fn shared_and_own(results: &[(Tool, &Workload)]) -> (Vec<(Tool, String)>, Vec<String>) {
    let mut shared: Vec<(Tool, String)> = Vec::new();
    let own = results
        .iter()
        .map(|(tool, w)| {
            let group: Vec<&Workload> = (results.iter())
                .filter(|(t, _)| t == tool)
                .map(|(_, o)| *o)
                .collect();
            let alike = |s: &Setting| group.iter().all(|o| o.setting(s.aspect) == Some(s));
            if !shared.iter().any(|(t, _)| t == tool) {
                let common = w.settings.iter().filter(|s| s.said && alike(s));
                shared.push((*tool, said(common)));
            }
            said(w.settings.iter().filter(|s| !alike(s)))
        })
        .collect();
    (shared, own)
}

#[cfg(test)]
mod tests;
