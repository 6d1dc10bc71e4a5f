//! The page's sections after the figures: io500's phases, latency
//! percentiles, the tasks' times, the page cache before reads, and each
//! run's details (folded).

use std::fmt::Write as _;

use super::charts::{self, Curve, Row, HALF};
use super::elements::{escape, table, title, titled, Charts, Section};
use super::human;
use super::io500::{nodes_table, phase_label, phases_table};
use super::marks::swatch;
use super::model::Loaded;
use super::sidefiles;
use super::timeline::{self, Spreads};
use super::workload::figure_words;

/// io500's score and phases: a table per result, one chart for the
/// bandwidth phases and one for the metadata phases, the results side by
/// side.
pub fn io500(results: &[Loaded], charts: &mut Charts) -> Option<Section> {
    let runs: Vec<(usize, &Loaded)> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_io500())
        .collect();
    if runs.is_empty() {
        return None;
    }
    let mut h = String::new();
    for unit in ["GiB/s", "kIOPS"] {
        // In the order io500 ran them (its timestamp is no phase).
        let mut phases: Vec<String> = Vec::new();
        for doc in runs.iter().filter_map(|(_, r)| r.io500()) {
            for p in &doc.phases {
                let name = &p.name;
                let known = phases.contains(name);
                if p.unit == unit && name != "timestamp" && !known {
                    phases.push(name.clone());
                }
            }
        }
        if phases.is_empty() {
            continue;
        }
        let series: Vec<(usize, String, Vec<f64>)> = runs
            .iter()
            .map(|(i, r)| {
                let value = |p: &String| r.figures.get(p).and_then(|f| f.values.first().copied());
                (
                    *i,
                    r.name.clone(),
                    phases.iter().map(|p| value(p).unwrap_or(0.0)).collect(),
                )
            })
            .collect();
        let max = series
            .iter()
            .flat_map(|s| s.2.iter().copied())
            .fold(0.0, f64::max);
        let scale = human::scale_for(unit, max);
        let what = if unit == "GiB/s" {
            "bandwidth"
        } else {
            "metadata"
        };
        let title = format!("io500 {what} phases");
        // An invalid or unscored phase says so where its bars are.
        let labels: Vec<String> = phases
            .iter()
            .map(|name| {
                let docs = runs.iter().filter_map(|(_, r)| r.io500());
                let mut all = docs.flat_map(|doc| doc.phases.iter().filter(|x| x.name == *name));
                let first = all.next();
                let invalid = first.is_some_and(|p| !p.valid) || all.any(|p| !p.valid);
                let scored = first.is_none_or(|p| p.scored);
                phase_label(name, !invalid, scored)
            })
            .collect();
        let svg = charts::grouped(&title, &scale, &labels, &series);
        h.push_str(&charts.add(title, svg));
    }
    for (_, r) in &runs {
        let _ = writeln!(h, "<h3>{}</h3>", escape(&r.name));
        let score: Vec<Vec<String>> = r
            .score()
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| vec![k, v])
            .collect();
        h.push_str(&table(&["score", ""], &score));
        h.push_str(&phases_table(r));
        h.push_str(&nodes_table(r));
        if let Some(rows) = r.io500_concurrent() {
            h.push_str(
                "<p>The concurrent phase (IO500#56; pario's extension, outside the IO500 \
                 score and its hashes): its groups ran at once, each on its share of the tasks.</p>",
            );
            let head = ["concurrent group", "tasks (ranks)", "score", "per task"];
            h.push_str(&table(&head, &rows));
        }
    }
    Some(Section {
        id: "io500",
        heading: "IO500".into(),
        body: h,
    })
}

/// A series of a chart: its result, its key (a figure or a latency
/// curve's name), its name and its colour.
pub struct Member<'a> {
    pub result: usize,
    pub key: &'a String,
    pub name: String,
    pub colour: usize,
}

/// A chart's series: every result's that has a figure, or one sweep's
/// steps (a chart per figure of a sweep, a series per step).
pub struct Group<'a> {
    pub title: String,
    pub members: Vec<Member<'a>>,
}

/// What a chart is of: a key across results, a sweep's figure, or the
/// keys only one result has (up to ten, a colour each).
#[derive(PartialEq)]
enum Of<'a> {
    Across(&'a String),
    Steps(usize, String),
    Alone(usize),
}

/// The charts of keys only one result has, joined per result: one chart
/// of its figures rather than many of one series each.
fn alone_together<'a>(
    found: Vec<(Of<'a>, Vec<Member<'a>>)>,
    results: &'a [Loaded],
) -> Vec<(Of<'a>, Vec<Member<'a>>)> {
    let mut out: Vec<(Of<'a>, Vec<Member<'a>>)> = Vec::new();
    for (of, mut members) in found {
        let (Of::Across(_), 1) = (&of, members.len()) else {
            out.push((of, members));
            continue;
        };
        let mut m = members.remove(0);
        let at = out
            .iter()
            .position(|(o, ms)| *o == Of::Alone(m.result) && ms.len() < charts::PALETTE.len());
        let at = at.unwrap_or_else(|| {
            out.push((Of::Alone(m.result), Vec::new()));
            out.len() - 1
        });
        let r = &results[m.result];
        m.name = r.figure_label(m.key);
        m.colour = out[at].1.len();
        out[at].1.push(m);
    }
    // One figure alone is charted as the result's.
    for (of, members) in &mut out {
        if let (Of::Alone(i), [m]) = (&*of, &mut members[..]) {
            m.colour = *i;
            m.name = results[*i].name.clone();
            *of = Of::Across(m.key);
        }
    }
    out
}

/// The charts of `keys` (per result, in order), `suffix` in their titles.
pub fn groups<'a>(
    results: &'a [Loaded],
    keys: impl Fn(&'a Loaded) -> Vec<&'a String>,
    suffix: &str,
) -> Vec<Group<'a>> {
    let mut found: Vec<(Of<'a>, Vec<Member<'a>>)> = Vec::new();
    for (i, r) in results.iter().enumerate() {
        for key in keys(r) {
            let step = r
                .steps
                .iter()
                .find(|(f, _)| key == *f || key.starts_with(&format!("{f} ")));
            let (of, name) = match step {
                Some((f, (what, s))) => {
                    let what = format!("{what} {}", &key[f.len()..]).trim().to_string();
                    let tasks = match s.tasks {
                        1 => "1 task".to_string(),
                        n => format!("{n} tasks"),
                    };
                    (Of::Steps(i, what), tasks)
                }
                None => (Of::Across(key), r.name.clone()),
            };
            let at = match found.iter().position(|(o, _)| *o == of) {
                Some(at) => at,
                None => {
                    found.push((of, Vec::new()));
                    found.len() - 1
                }
            };
            let members = &mut found[at];
            let colour = match members.0 {
                Of::Steps(..) => members.1.len(),
                _ => i,
            };
            members.1.push(Member {
                result: i,
                key,
                name,
                colour,
            });
        }
    }
    alone_together(found, results)
        .into_iter()
        .map(|(of, members)| {
            let who: Vec<&Loaded> = members.iter().map(|m| &results[m.result]).collect();
            let title = match &of {
                Of::Across(key) => title(&who, key, suffix),
                Of::Steps(_, what) => {
                    let r = who[0];
                    let head = format!(
                        "{} {}{suffix} by step",
                        r.tool.name(),
                        figure_words(what, None)
                    );
                    titled(head, &who[..1])
                }
                Of::Alone(_) => {
                    let r = who[0];
                    let what = suffix.trim_start_matches([':', ' ']);
                    titled(format!("{} {what}", r.tool.name()), &who[..1])
                }
            };
            Group { title, members }
        })
        .collect()
}

/// The latency keys of a result in its figures' order (md-workbench's
/// operations after their phase).
fn latency_order(r: &Loaded) -> Vec<&String> {
    let mut out: Vec<&String> = Vec::new();
    for f in &r.order {
        let prefix = format!("{f} ");
        for (k, _) in r
            .latency
            .iter()
            .filter(|(k, _)| *k == f || k.starts_with(&prefix))
        {
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    for k in r.latency.keys() {
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// Each figure's latency percentiles, the results' curves together (a
/// sweep's steps together).
pub fn latency(results: &[Loaded], charts: &mut Charts) -> Option<Section> {
    let groups = groups(results, latency_order, " latency");
    if groups.is_empty() {
        return None;
    }
    let mut h = String::from(
        "<p class=\"note\">Latency on a log scale against the share of operations at or \
         below it: from a histogram file where one was given (every repetition merged, \
         marked “all repetitions” beside curves that are not), else from the percentiles \
         of the figure's first repetition.</p>\n<div class=\"charts\">\n",
    );
    for g in groups {
        let merged = |m: &Member<'_>| results[m.result].merged.contains(m.key);
        // Said of each curve only where the chart has both kinds.
        let mixed = g.members.iter().any(merged) && !g.members.iter().all(merged);
        let curves: Vec<Curve> = g
            .members
            .iter()
            .map(|m| {
                let r = &results[m.result];
                Curve {
                    name: match mixed && merged(m) {
                        true => format!("{} (all repetitions)", m.name),
                        false => m.name.clone(),
                    },
                    result: m.colour,
                    points: r.latency[m.key].clone(),
                }
            })
            .collect();
        let svg = charts::percentiles(&g.title, &curves);
        h.push_str(&charts.add(g.title, svg));
    }
    h.push_str("</div>\n");
    Some(Section {
        id: "latency",
        heading: "Latency".into(),
        body: h,
    })
}

/// Task times: per figure, the fastest and slowest task of each
/// repetition; with a task file, every task of the widest phase.
pub fn task_times<'a>(results: &'a [Loaded], charts: &mut Charts) -> Option<Section> {
    let spread_of = |r: &'a Loaded| {
        r.order
            .iter()
            .filter(|f| r.spread.contains_key(*f))
            .collect()
    };
    let groups = groups(results, spread_of, ": fastest to slowest task");
    let with_tasks = results.iter().any(|r| !r.tasks.is_empty());
    if groups.is_empty() && !with_tasks {
        return None;
    }
    let mut h = String::from(
        "<p class=\"note\">Each line a repetition, from its fastest task's open-to-close time \
         to its slowest's, the point their mean: a long line is a straggler, and the phase \
         lasts as long as its slowest task.</p>\n<div class=\"charts\">\n",
    );
    for g in groups {
        let rows: Vec<Spreads> = g
            .members
            .iter()
            .map(|m| Spreads {
                name: m.name.clone(),
                result: m.colour,
                spreads: results[m.result].spread[m.key].clone(),
            })
            .collect();
        h.push_str(&charts.add(g.title.clone(), timeline::spread(&g.title, &rows)));
    }
    for r in results {
        // In the order the file has them (write before read).
        let mut accesses: Vec<&str> = Vec::new();
        for t in &r.tasks {
            if !accesses.contains(&t.access.as_str()) {
                accesses.push(&t.access);
            }
        }
        for access in accesses {
            let rows = sidefiles::widest_phase(&r.tasks, access);
            let rep = rows.first().map_or(0, |t| t.iteration);
            let title = format!("{}: every task, {access} #{rep}", r.name);
            let svg = timeline::tasks(&title, &rows);
            h.push_str(&charts.add(title, svg));
        }
    }
    h.push_str("</div>\n");
    Some(Section {
        id: "tasks",
        heading: "Task times".into(),
        body: h,
    })
}

/// The chart's rows: per result and part, exempt reads in their own row.
fn chart_rows(results: &[Loaded]) -> Vec<Row> {
    let mut rows: Vec<(usize, String, Vec<f64>)> = Vec::new();
    for (i, r) in results.iter().enumerate() {
        for c in &r.cache {
            let mut name = r.name.clone();
            if let Some(part) = &c.part {
                let _ = write!(name, " · {part}");
            }
            if let Some(why) = c.exempt {
                let _ = write!(name, " ({why})");
            }
            match rows.iter_mut().find(|(j, n, _)| *j == i && *n == name) {
                Some(row) => row.2.push(c.fraction * 100.0),
                None => rows.push((i, name, vec![c.fraction * 100.0])),
            }
        }
    }
    rows.into_iter()
        .map(|(result, name, values)| Row {
            name,
            result,
            values,
        })
        .collect()
}

/// The page cache before each read, the suspect share marked (see
/// [`super::cache`]).
pub fn page_cache(results: &[Loaded], charts: &mut Charts) -> Option<Section> {
    let rows = chart_rows(results);
    if rows.is_empty() {
        return None;
    }
    let warned = results.iter().flat_map(|r| &r.cache);
    let warned = warned.filter(|c| c.warning.is_some()).count();
    let mut h = format!(
        "<p class=\"note\">The share of the data a read phase was about to read that was \
         already in this node's page cache (after an eviction, where one was asked for). \
         Above the mark a read likely measures memory rather than storage, unless it \
         bypassed the cache (O_DIRECT) or read data another node wrote (<code>-C</code>, \
         <code>-Q</code> across nodes) or met what an eviction left: those rows say so in brackets and are not suspect. The tools \
         warned of {warned} read(s); the overview says what to do.</p>\n<div class=\"charts\">\n"
    );
    let title = "Page cache before each read".to_string();
    let limit = crate::pagecache::SUSPECT_FRACTION * 100.0;
    let scale = human::scale_for("%", 100.0);
    let svg = charts::dots(&title, &scale, &rows, Some((limit, "suspect above")), HALF);
    h.push_str(&charts.add(title, svg));
    h.push_str("</div>\n");
    Some(Section {
        id: "page-cache",
        heading: "Page cache".into(),
        body: h,
    })
}

/// Each run's details, folded: when and where, its workload, parameters
/// and environment, ior's stonewall counts and task times per row.
pub fn runs(results: &[Loaded]) -> Section {
    let mut h = String::new();
    for (i, r) in results.iter().enumerate() {
        let _ = write!(
            h,
            "<details class=\"run\" id=\"run-{}\"><summary>{}{} <small>{}</small></summary>\n\
             <p>{}: {}</p>\n",
            i + 1,
            swatch(i),
            escape(&r.name),
            escape(&r.path),
            r.tool.name(),
            escape(&r.workload.words()),
        );
        let pairs = |v: Vec<(String, String)>| -> Vec<Vec<String>> {
            v.into_iter().map(|(k, v)| vec![k, v]).collect()
        };
        h.push_str(&table(&["run", ""], &pairs(r.about())));
        h.push_str(&super::system::details(r));
        h.push_str("<h4>Parameters and environment</h4>\n");
        h.push_str(&table(&["parameter", "value"], &pairs(r.parameters())));
        if !r.stonewall.is_empty() {
            h.push_str("<h4>Stonewall</h4>\n");
            let head = [
                "row",
                "hit",
                "pairs min",
                "pairs max",
                "time (s)",
                "MiB/s at the stop",
            ];
            h.push_str(&table(&head, &r.stonewall));
        }
        if !r.times.is_empty() {
            h.push_str("<h4>Task times</h4>\n");
            let head = [
                "row",
                "fastest (s)",
                "mean (s)",
                "slowest (s)",
                "slowest task",
            ];
            h.push_str(&table(&head, &r.times));
        }
        h.push_str("</details>\n");
    }
    Section {
        id: "runs",
        heading: "Run details".into(),
        body: h,
    }
}
