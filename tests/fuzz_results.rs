//! Result files as `pario report`, `pario compare`, `io500 --verify` and
//! `pario concurrent` read them, fuzzed with a fixed seed: arbitrary bytes,
//! and real results of every tool mutated (truncated, bytes flipped, fields
//! removed, renamed or given another type, numbers as strings, nulls where
//! numbers were, huge numbers, long arrays). In this process: no input
//! panics; what is read is charted and compared; a refusal is one line. A
//! few program runs: a damaged file, an older pario's or another tool's is
//! one line naming it and the field, exit 2.
//!
//! Longer runs: `PARIO_FUZZ_CASES=20000 PARIO_FUZZ_SEED=7 cargo test
//! --release --test suite -- fuzz_results::`.

use pario::compare::{self, ResultFile};
use pario::concurrent::report::{ConcurrentReport, Outcome};
use pario::concurrent::{Config, Group, Kind};
use pario::io500::json::{ConcurrentJson, Extensions};
use pario::report::{html, model::Loaded, sidefiles};
use serde_json::Value;
use tempfile::tempdir;

use crate::common::fuzz::{self, assert_one_line, setting, Bytes, Rng};
use crate::common::{io500, pario};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// Cases per test: a few hundred in all, a few seconds of a debug build.
fn cases(default: u64) -> u64 {
    setting("PARIO_FUZZ_CASES", default)
}

/// JSON's own pieces, for random documents and byte-level mutations.
const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "null",
    "true",
    "-",
    "1e999",
    "\\u0000",
    "\"tests\"",
];

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Where in a document a mutation goes: the keys and indices to a node.
type Place = Vec<Step>;

#[derive(Clone)]
enum Step {
    Key(String),
    At(usize),
}

fn places(v: &Value, at: &mut Place, out: &mut Vec<Place>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                at.push(Step::Key(k.clone()));
                places(child, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                at.push(Step::At(i));
                places(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn node<'a>(v: &'a mut Value, place: &[Step]) -> &'a mut Value {
    place.iter().fold(v, |v, step| match step {
        Step::Key(k) => &mut v[k.as_str()],
        Step::At(i) => &mut v[*i],
    })
}

/// What a value may become: another type, a number as text, null, the
/// edges of the numbers, a string that names no known value.
fn replacement(rng: &mut Rng, old: &Value) -> Value {
    let choices = [
        Value::Null,
        Value::Bool(true),
        Value::String(old.to_string()),
        Value::String("nope".into()),
        serde_json::json!(-1),
        serde_json::json!(0),
        serde_json::json!(u64::MAX),
        serde_json::json!(i64::MIN),
        serde_json::json!(1e308),
        serde_json::json!(-1e-308),
        serde_json::json!(0.5),
        serde_json::json!([]),
        serde_json::json!({}),
        serde_json::json!([1, "x", null]),
    ];
    rng.pick(&choices).clone()
}

/// One mutation of the document at a random place.
fn mutate(doc: &mut Value, rng: &mut Rng) {
    let mut all = Vec::new();
    places(doc, &mut Vec::new(), &mut all);
    let place = rng.pick(&all).clone();
    let (parent, last) = match place.split_last() {
        Some((last, parent)) => (parent.to_vec(), Some(last.clone())),
        None => (Vec::new(), None),
    };
    match (rng.below(5), last) {
        (0, Some(Step::Key(k))) => {
            if let Value::Object(m) = node(doc, &parent) {
                m.remove(&k);
            }
        }
        (1, Some(Step::Key(k))) => {
            if let Value::Object(m) = node(doc, &parent) {
                if let Some(v) = m.remove(&k) {
                    m.insert(format!("{k}_"), v);
                }
            }
        }
        (2, _) => {
            // A long array: an array's items many times over.
            if let Value::Array(a) = node(doc, &place) {
                if !a.is_empty() {
                    let copies = 1 + rng.below(200 / a.len().max(1));
                    let items = a.clone();
                    for _ in 0..copies {
                        a.extend(items.iter().cloned());
                    }
                }
            }
        }
        _ => {
            let n = node(doc, &place);
            *n = replacement(rng, n);
        }
    }
}

/// A mutated copy of `seed`'s bytes: its document changed in one to
/// three places, then, one time in four, its bytes too (cut, flipped,
/// pieces of `other` or of JSON put in: `fuzz::mutate`).
fn mutated(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let bytes = match serde_json::from_slice::<Value>(seed) {
        Ok(mut doc) => {
            for _ in 0..1 + rng.below(3) {
                mutate(&mut doc, rng);
            }
            serde_json::to_vec_pretty(&doc).unwrap()
        }
        Err(_) => seed.to_vec(),
    };
    match rng.one_in(4) {
        true => fuzz::mutate(rng, &bytes, other, JSON_TOKENS),
        false => bytes,
    }
}

/// io500's result with its concurrent phase, made here from real reports:
/// the extension's object and concurrent's report with a tool's in it.
fn io500_with_the_concurrent_phase() -> Vec<u8> {
    let tool = |name: &str| match ResultFile::parse(&read(&format!("{DATA}/report/{name}"))) {
        Ok(ResultFile::Tool(r)) => Some(r),
        other => panic!("{name}: {other:?}"),
    };
    let group = |kind, args: &str| Group {
        line: 0,
        share: 50,
        kind,
        args: args.split(' ').map(str::to_string).collect(),
        before: None,
    };
    let groups = vec![
        group(Kind::Ior, "-a DUMMY -w"),
        group(Kind::MdWorkbench, "-a DUMMY"),
    ];
    let c = Config::of_groups("[concurrent]", groups, Some(1));
    let outcome = |report| Outcome {
        start: 0.0,
        end: 1.0,
        report,
        text: String::new(),
        error: None,
    };
    let together = vec![
        outcome(tool("ior.json")),
        outcome(tool("md-workbench.json")),
    ];
    let report = ConcurrentReport::new(&c, &[0..1, 1..2], together.clone(), together);
    let Ok(ResultFile::Io500(mut doc)) =
        ResultFile::parse(&read(&format!("{DATA}/report/io500.json")))
    else {
        panic!("io500.json is io500's");
    };
    let extension: ConcurrentJson = serde_json::from_value(serde_json::json!({
        "scored": false, "about": "", "score": 1.5, "formula": "", "valid": false,
        "invalid": ["group md (md-workbench) did not score"], "warnings": [],
        "procs": 2, "stonewall_s": 1, "t_start": "", "t_end": "", "t_delta_s": 1.0,
        "groups": [{"name": "write", "tool": "ior", "share": 50, "tasks": 1,
                    "first_rank": 0, "last_rank": 0, "exe": "ior", "score": 1.0,
                    "unit": "GiB/s", "score_per_task": 1.0, "start_s": 0.0, "end_s": 1.0}],
        "overlap": report.overlap, "report": report,
    }))
    .unwrap();
    doc.extensions = Some(Extensions {
        concurrent: extension,
    });
    doc.text().into_bytes()
}

/// Real results of every tool: the seeds of the mutations.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = [
        "report/ior.json",
        "report/sweep.json",
        "report/mdtest.json",
        "report/md-workbench.json",
        "report/io500.json",
        "report/dlio.json",
        "compare/a.json",
    ]
    .iter()
    .map(|f| (f.to_string(), read(&format!("{DATA}/{f}"))))
    .collect();
    out.push((
        "io500 with its concurrent phase".into(),
        io500_with_the_concurrent_phase(),
    ));
    for (name, bytes) in &mut out {
        if name.contains("io500") {
            *bytes = fewer_reports(bytes);
        }
    }
    out
}

/// io500's result with the reports of its first ior and mdtest phase and
/// its find, the others left out (null, as a phase without one has it):
/// each tool's report once is enough to mutate, and smaller is faster.
fn fewer_reports(bytes: &[u8]) -> Vec<u8> {
    let mut doc: Value = serde_json::from_slice(bytes).unwrap();
    let kept = ["ior-easy-write", "mdtest-easy-write", "find"];
    for p in doc["phases"].as_array_mut().unwrap() {
        if !kept.contains(&p["name"].as_str().unwrap()) {
            p["report"] = Value::Null;
        }
    }
    serde_json::to_vec_pretty(&doc).unwrap()
}

/// What report and compare do with a result file's bytes: the figures,
/// their comparison and the whole page, or a refusal in one line.
fn report_and_compare(input: &Bytes) {
    match ResultFile::parse(&input.0) {
        Err(e) => assert_one_line("a result file's reader", input, &e),
        Ok(doc) => {
            let figures = compare::figures(&doc);
            let rows = compare::compare(&figures, &figures);
            compare::text_table(&rows);
            let loaded = Loaded::of("fuzz.json", doc);
            html::page(&[loaded], 0, false);
        }
    }
}

#[test]
fn result_files_mutated_or_arbitrary_never_panic() {
    let seeds = seeds();
    for (name, seed) in &seeds {
        report_and_compare(&Bytes(seed.clone()));
        assert!(ResultFile::parse(seed).is_ok(), "{name} reads");
    }
    let make = move |rng: &mut Rng| {
        let (_, seed) = rng.pick(&seeds);
        let (_, other) = rng.pick(&seeds);
        Bytes(match rng.one_in(5) {
            true => fuzz::random(rng, JSON_TOKENS, 300),
            false => mutated(rng, seed, other),
        })
    };
    fuzz::run("report and compare", cases(240), make, report_and_compare);
}

/// CSV files: lines dropped, fields cut or replaced by numbers at the
/// edges, the end cut off.
fn mutated_csv(rng: &mut Rng, seed: &str) -> Vec<u8> {
    let mut lines: Vec<String> = seed.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(lines.len());
        let mut fields: Vec<String> = lines[at].split(',').map(str::to_string).collect();
        match rng.below(4) {
            0 => {
                lines.remove(at);
            }
            1 => fields.truncate(rng.below(fields.len().max(1))),
            _ => {
                let f = rng.below(fields.len());
                fields[f] = rng.pick(fuzz::VALUES).to_string();
            }
        }
        if at < lines.len() {
            lines[at] = fields.join(",");
        }
        if lines.is_empty() {
            break;
        }
    }
    let mut bytes = lines.join("\n").into_bytes();
    if rng.one_in(5) {
        bytes.truncate(rng.below(bytes.len().max(1)));
    }
    bytes
}

#[test]
fn side_files_mutated_never_panic() {
    let Ok(ior) = ResultFile::parse(&read(&format!("{DATA}/report/ior.json"))) else {
        panic!("ior.json reads");
    };
    let sides: Vec<(&str, String)> = ["ior-latency.csv", "ior-tasks.csv", "mdtest-latency.csv"]
        .into_iter()
        .map(|f| {
            (
                f,
                String::from_utf8(read(&format!("{DATA}/report/{f}"))).unwrap(),
            )
        })
        .collect();
    let make = move |rng: &mut Rng| {
        let (name, seed) = rng.pick(&sides);
        (*name, Bytes(mutated_csv(rng, seed)))
    };
    let check = move |(name, input): &(&str, Bytes)| match sidefiles::parse(name, &input.0) {
        Err(e) => {
            assert_one_line("a side file's reader", input, &e);
            assert!(e.starts_with(&format!("{name}:")), "{e}");
        }
        Ok(side) => {
            let mut loaded = Loaded::of("ior.json", ior.clone());
            loaded.attach(side);
            html::page(&[loaded], 0, false);
        }
    };
    fuzz::run("side files", cases(120), make, check);
}

/// What result.txt is made of.
const RESULT_TXT_TOKENS: &[&str] = &[
    "[run]",
    "[SCORE]",
    "[SCOREX]",
    "[find]",
    "MD",
    "BW",
    "SCORE",
    "hash",
    "score",
    "version",
    "config-hash",
    " = ",
    " [INVALID]",
    "; ",
    "\n",
];

#[test]
fn result_txt_mutated_is_verified_or_refused_in_one_line() {
    let config_text = String::from_utf8(read(&format!("{DATA}/io500/config.ini"))).unwrap();
    let config = pario::io500::config::Config::parse("config.ini", &config_text).unwrap();
    let files: Vec<String> = ["result.txt", "result-extended.txt"]
        .iter()
        .map(|f| String::from_utf8(read(&format!("{DATA}/io500/{f}"))).unwrap())
        .collect();
    for text in &files {
        let sections = pario::io500::verify::parse(text);
        assert!(pario::io500::verify::checks(&config, &sections).is_ok());
    }
    let make = move |rng: &mut Rng| {
        let (a, b) = (rng.pick(&files).as_bytes(), rng.pick(&files).as_bytes());
        Bytes(fuzz::mutate(rng, a, b, RESULT_TXT_TOKENS))
    };
    let check = move |input: &Bytes| {
        let text = String::from_utf8_lossy(&input.0);
        let sections = pario::io500::verify::parse(&text);
        if let Err(e) = pario::io500::verify::checks(&config, &sections) {
            assert_one_line("--verify", input, &e);
        }
    };
    fuzz::run("io500 --verify", cases(400), make, check);
}

/// An outcome a group sends, or concurrent's report, read back.
fn concurrent_reading((which, input): &(usize, Bytes)) {
    match which {
        0 => match serde_json::from_slice::<Outcome>(&input.0) {
            Err(e) => assert_one_line("an outcome's reader", input, &e.to_string()),
            Ok(o) => {
                let groups = vec![Group {
                    line: 1,
                    share: 100,
                    kind: Kind::Ior,
                    args: vec!["-a".into(), "DUMMY".into()],
                    before: None,
                }];
                let c = Config::of_groups("f", groups, None);
                let one_task = std::iter::once(0..1).collect::<Vec<_>>();
                let r = ConcurrentReport::new(&c, &one_task, vec![o.clone()], vec![o]);
                r.text();
                serde_json::to_string(&r).unwrap();
            }
        },
        _ => {
            if let Err(e) = serde_json::from_slice::<ConcurrentReport>(&input.0) {
                assert_one_line("concurrent's report's reader", input, &e.to_string());
            }
        }
    }
}

#[test]
fn concurrent_outcomes_and_reports_read_back_or_refuse() {
    let io500 = io500_with_the_concurrent_phase();
    let doc: Value = serde_json::from_slice(&io500).unwrap();
    let report = &doc["extensions"]["concurrent"]["report"];
    let outcome = serde_json::json!({
        "start": 0.0, "end": 1.0, "text": "", "error": null,
        "report": report["groups"][0]["report"],
    });
    let seeds = [
        serde_json::to_vec(&outcome).unwrap(),
        serde_json::to_vec(report).unwrap(),
    ];
    let make = move |rng: &mut Rng| {
        let which = rng.below(2);
        (which, Bytes(mutated(rng, &seeds[which], &seeds[1 - which])))
    };
    fuzz::run("concurrent's reading", cases(40), make, concurrent_reading);
}

/// Through the programs: compare, report and io500 --verify refuse a damaged
/// file, an older pario's and another tool's in one line, exit 2.
#[test]
fn damaged_files_are_refused_in_one_line_naming_them() {
    let dir = tempdir().unwrap();
    let d = dir.path();
    let ior = String::from_utf8(read(&format!("{DATA}/report/ior.json"))).unwrap();
    let mut older: Value = serde_json::from_str(&ior).unwrap();
    older.as_object_mut().unwrap().remove("pario");
    let extended: Value = serde_json::from_slice(&io500_with_the_concurrent_phase()).unwrap();
    let concurrent = &extended["extensions"]["concurrent"]["report"];
    let damaged = [
        (
            "cut.json",
            ior[..ior.len() / 2].to_string(),
            "cut.json: EOF while parsing",
        ),
        (
            "typed.json",
            ior.replacen("\"bwMiB\": ", "\"bwMiB\": \"fast\", \"x\": ", 1),
            "typed.json: tests[0].Results[0].bwMiB: invalid type: string \"fast\"",
        ),
        (
            "other.json",
            r#"{"tests": [{"Results": []}], "summary": []}"#.into(),
            "other.json: tests[0]: missing field `TestID`",
        ),
        // An ior result of a pario before the run header had its block.
        (
            "older.json",
            older.to_string(),
            "older.json: missing field `pario`",
        ),
        // Another tool's document: pario concurrent's report.
        (
            "concurrent.json",
            concurrent.to_string(),
            "concurrent.json: not a result document of ior, mdtest, md-workbench, io500 or dlio_benchmark",
        ),
    ];
    for (name, text, message) in &damaged {
        std::fs::write(d.join(name), text).unwrap();
        let runs = [
            pario(d, &["compare", name, "cut.json"]),
            pario(d, &["report", name, "-o", "r.html"]),
        ];
        for r in runs {
            r.fails(2, message);
            assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        }
    }
    assert!(!d.join("r.html").exists());
    let cfg = format!("{DATA}/io500/config.ini");
    let result = String::from_utf8(read(&format!("{DATA}/io500/result.txt"))).unwrap();
    std::fs::write(
        d.join("bad.txt"),
        result.replace("MD              = 796", "MD = x796"),
    )
    .unwrap();
    let r = io500(d, 1, &[&cfg, "--verify", "bad.txt"]);
    r.fails(2, "bad.txt: [SCORE] MD: 'x796.171760' is not a number");
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    // Another of io500's files: result.json is not result.txt.
    std::fs::write(d.join("result.json"), extended.to_string()).unwrap();
    let r = io500(d, 1, &[&cfg, "--verify", "result.json"]);
    r.fails(2, "result.json: no [run] section");
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
}
