//! io500 over S3 against a real server (SeaweedFS on loopback, the tests
//! sharing servers in turn): a scaled standard run with every phase, find
//! included, with pario's mapping (`api = S3`, `datadir = s3://...`) and
//! with the shape of IO500's contrib/s3 ini (`api = S3-libs3
//! --S3-libs3.host=...`, a plain datadir). Find counts every file the run
//! made and the matching ones a file system's find would; the secret is in
//! no result file; nothing is left in the server. `--plan` probes over S3
//! with the first run's server.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::common;
use common::s3::{files_text, libs3_options, without_aws_env, Server, BUCKET, SECRET};
use common::{finish, Run};

const TASKS: usize = 3;

pub fn config(dir: &Path, global: &str) -> String {
    let text = format!(
        "[global]\n{global}\nresultdir = {d}/results\n\n[debug]\nstonewall-time = 1\n\n\
         [ior-easy]\ntransferSize = 1m\nblockSize = 5m\n\n[mdtest-easy]\nn = 60\n\n\
         [ior-hard]\nsegmentCount = 20\n\n[mdtest-hard]\nn = 120\n",
        d = dir.display()
    );
    let path = dir.join("config.ini");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn io500(dir: &Path, args: &[&str], env: &[(&'static str, String)]) -> Run {
    let mut cmd = Command::new(crate::common::bin("io500"));
    cmd.args(args)
        .current_dir(dir)
        .env("PARIO_TASKS", TASKS.to_string());
    without_aws_env(&mut cmd).envs(env.iter().map(|(k, v)| (k, v)));
    finish(cmd.output().expect("run io500"))
}

/// `result.txt`'s sections.
fn sections(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current = String::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name.to_string();
        } else if let Some((k, v)) = line.split_once(" = ") {
            let entry = out.entry(current.clone()).or_default();
            entry.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    out
}

/// Items per task a phase's stonewall file says were made.
fn per_task(results: &Path, name: &str) -> u64 {
    let text = std::fs::read_to_string(results.join(name)).unwrap();
    text.trim().parse().unwrap()
}

/// Checks a finished run: every phase ran and none failed, find counted
/// every file made (ior-easy's object per task, ior-hard's fragments as
/// one file, every mdtest item) and matched what a file system's find
/// would, no result file holds the secret, and the api is named.
pub fn check(run: &Run, results: &Path, api: &str, tasks: usize) {
    run.ok();
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("[RESULT]") || l.starts_with("[      ]"))
        .collect();
    assert_eq!(lines.len(), 14, "{}", run.stdout);
    let result = std::fs::read_to_string(results.join("result.txt")).unwrap();
    assert!(!result.contains("the phase failed"), "{result}");
    let s = sections(&result);
    for phase in ["ior-easy-read", "ior-hard-read", "mdtest-hard-read", "find"] {
        let score: f64 = s[phase]["score"].parse().unwrap();
        assert!(score > 0.0, "{phase}: {result}");
    }
    assert!(s["run"]["api"].starts_with(api), "{result}");
    let easy = per_task(results, "mdtest-easy.stonewall");
    let hard = per_task(results, "mdtest-hard.stonewall");
    let tasks = tasks as u64;
    let total = tasks + 1 + tasks * (easy + hard);
    assert_eq!(s["find"]["total-files"], total.to_string(), "{result}");
    // `file.mdtest.<task>.<i>` of 3901 bytes matches `*01*` for the i
    // that hold "01" (mdtest-easy's items are empty). How many items the
    // 1 s stonewall lets mdtest-hard make depends on the machine's load
    // (from 102 per task on, some match): the count is exact either way.
    let matching = (0..hard).filter(|i| i.to_string().contains("01")).count();
    let found = tasks * matching as u64;
    assert_eq!(s["find"]["found"], found.to_string(), "{result}");
    for (path, text) in files_text(results) {
        assert!(
            !text.contains(SECRET),
            "the secret is in {}",
            path.display()
        );
    }
    assert!(!run.stdout.contains(SECRET) && !run.stderr.contains(SECRET));
}

/// `--plan` over S3: the probes run on the store under a prefix of their
/// own, the plan is printed and written, and nothing is left in the
/// server nor beside the configuration (their local result files in
/// `resultdir/plan-<stamp>` removed, with the resultdir made for them).
fn plan(server: &Server, dir: &Path, cfg: &str) {
    let args = [cfg, "--plan=plan.ini", "--timestamp=P"];
    let run = io500(dir, &args, &server.env());
    run.ok();
    for phase in [
        "ior-easy-write",
        "mdtest-easy-write",
        "ior-hard-write",
        "mdtest-hard-write",
        "find",
    ] {
        let line = format!("[probe] {phase} ");
        assert!(run.stdout.contains(&line), "{}", run.stdout);
    }
    assert!(
        run.stdout.contains("Predicted wall time of the run"),
        "{}",
        run.stdout
    );
    let planned = std::fs::read_to_string(dir.join("plan.ini")).unwrap();
    assert_eq!(planned.matches("# plan-rate ").count(), 4, "{planned}");
    assert!(planned.contains("api = S3 --s3.max-pending=2"), "{planned}");
    server.assert_empty("the plan");
    assert_eq!(common::entries(dir), ["config.ini", "plan.ini"]);
}

#[test]
fn a_standard_run_over_s3_runs_every_phase_and_leaves_nothing() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    let global = format!("datadir = s3://{BUCKET}/io500\napi = S3 --s3.max-pending=2");
    let cfg = config(dir.path(), &global);
    plan(&server, dir.path(), &cfg);
    let run = io500(dir.path(), &[&cfg, "--timestamp=T1"], &server.env());
    check(&run, &dir.path().join("results/T1"), "S3", TASKS);
    let result = std::fs::read_to_string(dir.path().join("results/T1/result.txt")).unwrap();
    // Each phase on its layout: ior-hard's transfers as fragments.
    assert!(result.contains("-a S3 --s3.max-pending=2 --s3.layout=fragments"));
    assert!(result.contains("-a S3 --s3.max-pending=2 --s3.layout=object"));
    server.assert_empty("the run");
    assert!(!dir.path().join("s3:").exists(), "no local data directory");
    // The data prefix must be empty, as a data directory must.
    let client = server.client();
    client.put(BUCKET, "io500/T2/mine", b"x").unwrap();
    let run = io500(dir.path(), &[&cfg, "--timestamp=T2"], &server.env());
    run.fails(1, "holds objects");
    assert_eq!(server.leftovers("").0, ["io500/T2/mine"]);
    client.delete(BUCKET, "io500/T2/mine").unwrap();
    // IO500's default ior-easy block is an object S3 cannot hold: refused
    // in one line before anything is made.
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, text.replace("blockSize = 5m", "blockSize = 9920000m")).unwrap();
    let run = io500(dir.path(), &[&cfg, "--timestamp=T3"], &server.env());
    run.fails(2, "ior-easy-write: --s3.layout=object");
    assert!(run.stderr.contains("exceeds S3's 5 TiB"), "{}", run.stderr);
    assert!(!dir.path().join("results/T3").exists());
}

#[test]
fn io500s_contrib_s3_ini_runs_every_phase_find_included() {
    let server = Server::shared(&[]);
    let dir = tempfile::tempdir().unwrap();
    // IO500's contrib/s3 sample, without TLS: the keys on the api line,
    // IOR's bucket (ior + a number from the key), IOR's key names.
    let options = libs3_options(server.host()).join(" ");
    let global =
        format!("datadir = ./datafiles\napi = S3-libs3 {options} --S3-libs3.s3-compatible");
    let cfg = config(dir.path(), &global);
    let run = io500(dir.path(), &[&cfg, "--timestamp=T1"], &[]);
    check(&run, &dir.path().join("results/T1"), "S3-libs3", TASKS);
    assert!(!dir.path().join("datafiles").exists(), "no local data");
    server.assert_empty("the run");
}
