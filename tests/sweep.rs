//! `ior -O sweep=...`: the test over steps of fewer nodes or tasks, each
//! step's tasks on a communicator of their own, then a scaling table.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// 3 nodes of 2 tasks, as IOR's fake topology says.
const FAKE_3X2: [(&str, &str); 2] = [("IOR_FAKE_NODES", "3"), ("IOR_FAKE_TASK_PER_NODES", "2")];

fn swept(dir: &Path, sweep: &str, extra: &[&str]) -> Run {
    let file = dir.join("f");
    let directives = format!("sweep={sweep},summaryFormat=JSON,summaryFile=out.json");
    let mut args = vec![
        "-t",
        "4k",
        "-b",
        "16k",
        "-s",
        "2",
        "-w",
        "-r",
        "-W",
        "-R",
        "-i",
        "2",
        "-v",
        "-v",
        "-O",
        &directives,
        "-o",
        file.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    ior_env(dir, 6, &args, &FAKE_3X2)
}

fn json(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).unwrap()
}

/// The lines of the output between one step's line and the next.
fn step_text(stdout: &str, step: usize) -> &str {
    let start = stdout
        .find(&format!("Sweep step {step} of"))
        .unwrap_or_else(|| panic!("no step {step} in\n{stdout}"));
    let rest = &stdout[start..];
    let end = rest[1..].find("Sweep step ").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

fn option(text: &str, key: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.trim_start().strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {key} in\n{text}"))
        .trim()
        .to_string()
}

#[test]
fn node_sweep_halves_the_nodes_with_their_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let run = swept(dir.path(), "nodes", &["-F", "-C"]);
    run.ok();
    let out = &run.stdout;
    assert!(out.contains("Sweep step 1 of 2: 3 nodes, 6 tasks"), "{out}");
    assert!(out.contains("Sweep step 2 of 2: 1 nodes, 2 tasks"), "{out}");
    let (one, two) = (step_text(out, 1), step_text(out, 2));
    assert_eq!(
        (option(one, "nodes"), option(one, "tasks")),
        ("3".into(), "6".into())
    );
    assert_eq!(
        (option(two, "nodes"), option(two, "tasks")),
        ("1".into(), "2".into())
    );
    assert_eq!(option(two, "clients per node"), "2");
    // -C over the step's nodes: the next node's data in step 1; one node
    // in step 2, so no other node to read from.
    assert!(
        one.contains("task 0 (node 0) reads the data of task 2 (node 1)"),
        "{one}"
    );
    assert!(
        one.contains("task 5 (node 2) reads the data of task 1 (node 0)"),
        "{one}"
    );
    assert!(
        two.contains("task 1 (node 0) reads the data of task"),
        "{two}"
    );
    assert!(
        !two.contains("task 2 "),
        "step 2 has tasks 0 and 1 only:\n{two}"
    );
    // Each step's files: a file per task of the step.
    assert!(one.contains(&format!(
        "task 5 file : {}",
        dir.path().join("f.00000005").display()
    )));
    assert!(two.contains(&format!(
        "task 1 file : {}",
        dir.path().join("f.00000001").display()
    )));
    assert_eq!(
        entries(dir.path()),
        ["out.json"],
        "the steps' files are removed"
    );
    // The scaling table, one row per step and access.
    let scaling: Vec<&str> = out
        .lines()
        .skip_while(|l| *l != "Scaling:")
        .skip(2)
        .take_while(|l| !l.starts_with("Finished"))
        .collect();
    let shape: Vec<Vec<&str>> = scaling
        .iter()
        .map(|l| l.split_whitespace().take(5).collect())
        .collect();
    assert_eq!(
        shape,
        [
            ["0", "1", "3", "6", "write"],
            ["0", "1", "3", "6", "read"],
            ["0", "2", "1", "2", "write"],
            ["0", "2", "1", "2", "read"],
        ]
    );
    assert!(
        scaling[0].ends_with("1.000"),
        "the first step is the reference: {}",
        scaling[0]
    );
}

#[test]
fn json_holds_every_step_with_its_own_results() {
    let dir = tempfile::tempdir().unwrap();
    swept(dir.path(), "6,4,1", &[]).ok();
    let doc = json(dir.path());
    let tests = doc["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3);
    for (test, (tasks, nodes)) in tests.iter().zip([(6, 3), (4, 2), (1, 1)]) {
        let step = &test["sweepStep"];
        assert_eq!(
            (step["tasks"].as_u64(), step["nodes"].as_u64()),
            (Some(tasks), Some(nodes))
        );
        assert_eq!(test["Parameters"]["numTasks"].as_u64(), Some(tasks));
        for result in test["Results"].as_array().unwrap() {
            // Each task moves 2 segments of 16 KiB.
            assert_eq!(result["bytes"].as_u64(), Some(tasks * 2 * 16384));
        }
        assert_eq!(test["dataErrors"]["transfers"].as_u64(), Some(0));
    }
    let scaling = doc["scaling"].as_array().unwrap();
    assert_eq!(scaling.len(), 6);
    let write = &scaling[4];
    assert_eq!(
        (write["step"].as_u64(), write["tasks"].as_u64()),
        (Some(3), Some(1))
    );
    let ratio =
        write["bwPerTaskMIB"].as_f64().unwrap() / scaling[0]["bwPerTaskMIB"].as_f64().unwrap();
    assert!((write["efficiency"].as_f64().unwrap() - ratio).abs() < 1e-9);
    assert_eq!(doc["summary"].as_array().unwrap().len(), 6);
    // pario compare keeps the steps apart: a figure per step and access.
    let json = dir.path().join("out.json");
    let json = json.to_str().unwrap();
    let compared = pario(dir.path(), &["compare", json, json]);
    compared.ok();
    for n in [6, 4, 1] {
        for access in ["write", "read"] {
            let figure = format!("test 0 at {n} tasks {access}");
            assert!(
                compared.stdout.contains(&figure),
                "{figure}:\n{}",
                compared.stdout
            );
        }
    }
}

#[test]
fn a_failing_step_ends_the_sweep_naming_the_task() {
    let dir = tempfile::tempdir().unwrap();
    // Task 3 takes part in the second step only; its file cannot be opened.
    std::fs::create_dir(dir.path().join("f.00000003")).unwrap();
    let run = swept(dir.path(), "2,4,6", &["-F"]);
    run.fails(1, "task 3");
    assert!(run.stderr.contains("f.00000003"), "{}", run.stderr);
    assert!(run.stdout.contains("Sweep step 1 of 3: 1 nodes, 2 tasks"));
    assert!(!run.stdout.contains("Sweep step 3"), "{}", run.stdout);
    assert_eq!(
        entries(dir.path()),
        ["f.00000003", "out.json"],
        "only the user's entry is left"
    );
}

#[test]
fn bad_sweeps_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    for (sweep, extra, message) in [
        ("7", &[][..], "sweep=7: only 6 tasks are running"),
        ("4,x", &[], "'x' is not a task count"),
        ("0,2", &[], "'0' is not a task count"),
        (
            "nodes",
            &["-N", "2"][..],
            "-N 2 and sweep both choose the tasks",
        ),
    ] {
        swept(dir.path(), sweep, extra).fails(2, message);
        assert!(entries(dir.path()).is_empty(), "{sweep}");
    }
}

#[test]
fn a_script_sweeps_one_test_and_not_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.ior");
    let file = dir.path().join("f");
    std::fs::write(
        &script,
        format!(
            "IOR START\n  testFile={}\n  transferSize=4k\n  blockSize=8k\n  sweep=nodes\nRUN\n  sweep=0\nRUN\nIOR STOP\n",
            file.display()
        ),
    )
    .unwrap();
    let run = ior_env(dir.path(), 6, &["-f", script.to_str().unwrap()], &FAKE_3X2);
    run.ok();
    assert_eq!(
        run.stdout.matches("Sweep step").count(),
        2,
        "{}",
        run.stdout
    );
    // Test 1 runs once, on every task.
    let last = run.stdout.rsplit("\nStartTime").next().unwrap();
    assert_eq!(option(last, "tasks"), "6");
    assert_eq!(rows(&run.stdout).len(), 6);
    let _ = std::fs::remove_file(&script);
    assert!(entries(dir.path()).is_empty());
}

/// mdtest's `-f/-l/-s` sweep runs each step on its own communicator: the
/// step's tasks, its items, every task's figures and nothing left.
#[test]
fn mdtest_sweep_runs_each_step_on_its_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = mdtest(
        dir.path(),
        6,
        &[
            "-n",
            "4",
            "-u",
            "-w",
            "8",
            "-e",
            "8",
            "-f",
            "2",
            "-l",
            "6",
            "-s",
            "2",
            "-d",
            out.to_str().unwrap(),
            "--summaryFormat=JSON",
            "--summaryFile=md.json",
        ],
    );
    run.ok();
    for n in [2, 4, 6] {
        assert!(run
            .stdout
            .contains(&format!("\n{n} tasks, {} files/directories\n", 4 * n)));
    }
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("md.json")).unwrap())
            .unwrap();
    for (test, n) in doc["tests"].as_array().unwrap().iter().zip([2u64, 4, 6]) {
        assert_eq!(test["tasks"].as_u64(), Some(n));
        let it = &test["iterations"][0];
        let create = it["phases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["operation"] == "File creation");
        assert_eq!(create.unwrap()["items"].as_u64(), Some(4 * n));
        assert_eq!(test["verification_errors"].as_u64(), Some(0));
    }
    assert!(!out.exists(), "the run removes its directory");
}

/// `pario report` draws a sweep: bandwidth (ior) and rates (mdtest) against
/// the step's tasks, a mark per step, and the efficiency table.
#[test]
fn report_plots_the_scaling_of_a_sweep() {
    let dir = tempfile::tempdir().unwrap();
    swept(dir.path(), "6,3,1", &[]).ok();
    let out = dir.path().join("out");
    let md = mdtest(
        dir.path(),
        4,
        &[
            "-n",
            "4",
            "-F",
            "-f",
            "1",
            "-l",
            "4",
            "-s",
            "1",
            "-d",
            out.to_str().unwrap(),
            "--summaryFormat=JSON",
            "--summaryFile=md.json",
        ],
    );
    md.ok();
    let html = dir.path().join("r.html");
    let (ior_json, md_json) = (dir.path().join("out.json"), dir.path().join("md.json"));
    let args = [
        "report",
        ior_json.to_str().unwrap(),
        md_json.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
    ];
    pario(dir.path(), &args).ok();
    let page = std::fs::read_to_string(&html).unwrap();
    let at = page
        .find("<section id=\"scaling\">")
        .expect("a Scaling section");
    let section = &page[at..at + page[at..].find("</section>").unwrap()];
    // Every repetition a point: ior's 2 per step, mdtest's 1.
    for (title, marks) in [
        ("ior write scaling", 2 * 3),
        ("mdtest File creation scaling", 4),
    ] {
        let start = section.find(title).unwrap_or_else(|| panic!("{title}"));
        let svg = &section[start..start + section[start..].find("</svg>").unwrap()];
        assert_eq!(svg.matches("<circle").count(), marks, "{title}");
    }
    // ior's steps span nodes (3 of 2 tasks): its axis and efficiency are per
    // node, against the smallest step (1 task on 1 node).
    let ior = &section[section.find("ior write scaling").unwrap()..];
    assert!(ior.contains("nodes</text>"), "{ior}");
    let rows = &ior[ior.find("<table>").unwrap()..ior.find("</table>").unwrap()];
    assert!(rows.contains("<th>per node</th>"), "{rows}");
    let first = &rows[rows.find("<tbody>").unwrap()..];
    assert!(
        first.starts_with("<tbody><tr><td class=\"num\">1</td><td class=\"num\">1</td>"),
        "{first}"
    );
    assert!(
        first[..first.find("</tr>").unwrap()].ends_with("<td class=\"num\">100 %</td>"),
        "{first}"
    );
    assert!(
        rows.contains("<td class=\"num\">3</td><td class=\"num\">2</td>"),
        "{rows}"
    );
}
