//! The outputs of every tool: the text, the JSON and CSV documents (one or
//! several per run) and the extra files, with local tasks in a temporary
//! directory.

use crate::common::*;
use tempfile::tempdir;

#[test]
fn json_summary_is_valid_and_complete() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        4,
        &[
            "-w",
            "-r",
            "-i",
            "2",
            "-t",
            "4k",
            "-b",
            "8k",
            "-o",
            "j",
            "-O",
            "summaryFormat=JSON,summaryFile=out.json",
        ],
    );
    run.ok();
    assert_eq!(rows(&run.stdout).len(), 4, "the text still goes to stdout");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out.json")).unwrap()).unwrap();
    assert!(doc["Version"].as_str().unwrap().starts_with("4.1.0+pario"));
    assert!(doc["Command line"]
        .as_str()
        .unwrap()
        .contains("summaryFormat=JSON"));
    let test = &doc["tests"][0];
    assert_eq!(test["Options"]["tasks"], 4);
    assert_eq!(test["Options"]["xfersize"], "4096 bytes");
    assert_eq!(test["Options"]["clients per node"], 4);
    assert_eq!(test["Parameters"]["transferSize"], 4096);
    let results = test["Results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    assert_eq!(results[0]["access"], "write");
    assert_eq!(results[3]["iteration"], 1);
    assert_eq!(results[0]["bytes"], 4 * 8192);
    for key in [
        "bwMiB",
        "iops",
        "latency",
        "openTime",
        "wrRdTime",
        "closeTime",
        "totalTime",
        "blockKiB",
        "xferKiB",
    ] {
        assert!(results[0][key].is_number(), "{key}");
    }
    let summary = doc["summary"].as_array().unwrap();
    assert_eq!(summary.len(), 2);
    assert_eq!(summary[1]["operation"], "read");
    assert!(summary[0]["bwMeanMIB"].as_f64().unwrap() > 0.0);
    assert!(test["max"]["writeMiB"].as_f64().unwrap() > 0.0);
    assert!(doc["Finished"].is_string());
    assert!(doc.get("error").is_none());
}

/// `summaryFile` without a format takes the text, as in IOR: stdout says
/// where it went.
#[test]
fn summary_file_alone_takes_the_text() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        2,
        &[
            "-w",
            "-r",
            "-t",
            "4k",
            "-b",
            "8k",
            "-o",
            "t",
            "-O",
            "summaryFile=out.txt",
        ],
    );
    run.ok();
    assert_eq!(run.stdout.trim(), "Writing output to out.txt");
    let text = std::fs::read_to_string(dir.path().join("out.txt")).unwrap();
    assert_eq!(rows(&text).len(), 2, "{text}");
    assert!(text.contains("Summary of all tests:"), "{text}");
}

#[test]
fn json_to_stdout_without_summary_file() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        2,
        &[
            "-v",
            "-t",
            "4k",
            "-b",
            "8k",
            "-o",
            "j",
            "-O",
            "summaryFormat=JSON",
        ],
    );
    run.ok();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("stdout is only JSON");
    assert_eq!(doc["tests"][0]["Results"].as_array().unwrap().len(), 2);
    assert!(
        run.stderr.contains("Commencing write performance test"),
        "log lines go to stderr"
    );
}

#[test]
fn csv_summary() {
    let dir = tempdir().unwrap();
    ior(
        dir.path(),
        2,
        &[
            "-i",
            "3",
            "-t",
            "4k",
            "-b",
            "8k",
            "-o",
            "c",
            "-O",
            "summaryFormat=pario-CSV",
            "-O",
            "summaryFile=out.csv",
        ],
    )
    .ok();
    let text = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 6);
    assert!(lines[0].starts_with("test,iteration,access,api,tasks"));
    let cells: Vec<&str> = lines[6].split(',').collect();
    assert_eq!(&cells[..5], ["0", "2", "read", "POSIX", "2"]);
    assert_eq!(cells[16], (2 * 8192).to_string());
}

#[test]
fn ior_csv_is_iors_own_layout() {
    // Scripts written for IOR parse these columns (often with `tail -1`).
    let dir = tempdir().unwrap();
    let args = [
        "-i",
        "2",
        "-t",
        "4k",
        "-b",
        "8k",
        "-o",
        "c",
        "-O",
        "summaryFormat=CSV",
    ];
    let run = ior(dir.path(), 2, &args);
    run.ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "access,bw(MiB/s),IOPS,Latency,block(KiB),xfer(KiB),open(s),wr/rd(s),close(s),total(s),numTasks,iter"
    );
    assert_eq!(lines.len(), 1 + 4, "{}", run.stdout);
    let last: Vec<&str> = lines[4].split(',').collect();
    assert_eq!(last[0], "read");
    assert_eq!(&last[4..6], ["8.0000", "4.0000"]);
    assert_eq!(&last[10..], ["2", "1"]);
    for cell in &last[1..10] {
        let (_, decimals) = cell.split_once('.').unwrap();
        assert_eq!(decimals.len(), 4, "{cell}");
    }
    // Both layouts at once, a file each.
    let both = [
        "-t",
        "4k",
        "-b",
        "8k",
        "-o",
        "c",
        "-O",
        "summaryFormat=CSV,pario-CSV",
    ];
    let run = ior(
        dir.path(),
        1,
        &[&both[..], &["-O", "summaryFile=r.csv"]].concat(),
    );
    run.ok();
    let ior_csv = std::fs::read_to_string(dir.path().join("r.csv")).unwrap();
    let pario_csv = std::fs::read_to_string(dir.path().join("r.pario.csv")).unwrap();
    assert!(ior_csv.starts_with("access,bw(MiB/s)"), "{ior_csv}");
    assert!(
        pario_csv.starts_with("test,iteration,access"),
        "{pario_csv}"
    );
}

#[test]
fn json_and_csv_summaries() {
    let dir = tempdir().unwrap();
    let run = mdtest(
        dir.path(),
        2,
        &["-n", "10", "-i", "2", "-d", "out", "--summaryFormat=JSON"],
    );
    run.ok();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    assert_eq!(doc["pario"]["tasks"], 2);
    let test = &doc["tests"][0];
    assert_eq!(test["tasks"], 2);
    assert_eq!(test["total_items"], 20);
    assert_eq!(test["iterations"].as_array().unwrap().len(), 2);
    let phases = test["iterations"][0]["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 10);
    for ph in phases {
        let items = ph["items"].as_f64().unwrap();
        let time = ph["time_s"].as_f64().unwrap();
        let rate = ph["rate"].as_f64().unwrap();
        assert!((rate - items / time).abs() <= 1e-6 * rate, "{ph}");
    }
    let create = &phases[4];
    assert_eq!(create["operation"], "File creation");
    assert_eq!(create["items"], 20);
    let summary = test["summary"].as_array().unwrap();
    assert_eq!(summary.len(), 10);
    assert!(
        summary[0]["rate"]["max"].as_f64().unwrap() >= summary[0]["rate"]["min"].as_f64().unwrap()
    );
    assert_eq!(doc["Parameters"]["items"], 10);

    // With a summary file, the text stays on stdout.
    let run = mdtest(
        dir.path(),
        1,
        &[
            "-n",
            "3",
            "-F",
            "-d",
            "out",
            "-O",
            "summaryFormat=CSV,summaryFile=r.csv",
        ],
    );
    run.ok();
    assert!(run.stdout.contains("SUMMARY rate"));
    let csv = std::fs::read_to_string(dir.path().join("r.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("tasks,iteration,operation,items,time_s,rate_ops_s"));
    assert_eq!(lines.len(), 1 + 6);
    assert!(lines[1].starts_with("1,0,File creation,3,"));
}

#[test]
fn traces_leave_json_on_stdout_parseable() {
    let dir = tempdir().unwrap();
    let args = ["-n", "4", "-d", "out", "--summaryFormat=JSON"];
    let run = mdtest(dir.path(), 2, &[&args[..], &["-v"; 5][..]].concat());
    run.ok();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", run.stdout));
    assert_eq!(doc["tests"][0]["total_items"], 8);
    assert!(
        run.stderr.contains("V-3: Rank   1 create file: "),
        "{}",
        run.stderr
    );
}

/// A JSON document on disk.
fn json_file(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn several_formats_write_one_file_each() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        2,
        &[
            "-t",
            "4k",
            "-b",
            "8k",
            "-o",
            "f",
            "-O",
            "summaryFormat=JSON,CSV,summaryFile=run",
        ],
    );
    run.ok();
    assert_eq!(rows(&run.stdout).len(), 2, "the text still goes to stdout");
    let doc = json_file(&dir.path().join("run.json"));
    assert_eq!(doc["tests"][0]["Results"][1]["access"], "read");
    let csv = std::fs::read_to_string(dir.path().join("run.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("access,bw(MiB/s),IOPS"), "{csv}");
    assert_eq!(lines.len(), 3, "a header and a row per phase");
    assert_eq!(entries(dir.path()), ["run.csv", "run.json"]);
    // mdtest: a name that already says one format gives the other its own.
    let run = mdtest(
        dir.path(),
        2,
        &[
            "-n",
            "4",
            "-d",
            "m",
            "--summaryFormat=CSV,JSON",
            "--summaryFile=md.json",
        ],
    );
    run.ok();
    assert!(run.stdout.contains("SUMMARY rate"), "{}", run.stdout);
    assert_eq!(
        json_file(&dir.path().join("md.json"))["tests"][0]["tasks"],
        2
    );
    let csv = std::fs::read_to_string(dir.path().join("md.csv")).unwrap();
    assert!(csv.starts_with("tasks,iteration,operation,items"), "{csv}");
}

#[test]
fn several_formats_need_a_file() {
    let dir = tempdir().unwrap();
    let run = ior(dir.path(), 1, &["-o", "f", "-O", "summaryFormat=JSON,CSV"]);
    run.fails(
        2,
        "-O summaryFormat: several summary formats need a summary file",
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let run = mdtest(
        dir.path(),
        1,
        &["-n", "1", "-d", "m", "--summaryFormat=JSON,CSV"],
    );
    run.fails(
        2,
        "--summaryFormat: several summary formats need a summary file",
    );
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn an_extra_file_that_cannot_be_created_stops_the_run_before_it_starts() {
    let dir = tempdir().unwrap();
    for option in ["saveRankPerformanceDetailsCSV", "latencyHistogramFile"] {
        let directive = format!("{option}=nowhere/x.csv");
        let run = ior(dir.path(), 2, &["-o", "f", "-O", &directive]);
        run.fails(
            1,
            "task 0: cannot create nowhere/x.csv: No such file or directory",
        );
        assert!(run.stdout.is_empty(), "no header: {}", run.stdout);
        assert!(entries(dir.path()).is_empty());
    }
    let run = mdtest(
        dir.path(),
        2,
        &[
            "-n",
            "2",
            "-d",
            "m",
            "--saveRankPerformanceDetails=nowhere/x.csv",
        ],
    );
    run.fails(1, "task 0: cannot create nowhere/x.csv");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn every_tool_declares_the_summary_options_alike() {
    let dir = tempdir().unwrap();
    let runs = [
        ior(dir.path(), 1, &["-o", "f", "-O", "summaryFile="]),
        mdtest(dir.path(), 1, &["-n", "1", "-d", "m", "--summaryFile="]),
        md_workbench(dir.path(), 1, &["-o", "w", "--summaryFile="]),
    ];
    for run in &runs {
        run.fails(2, "summaryFile=: the summary file name is empty");
    }
    let runs = [
        ior(dir.path(), 1, &["-O", "summaryFormat=xml"]),
        mdtest(dir.path(), 1, &["-n", "1", "--summaryFormat=xml"]),
        md_workbench(dir.path(), 1, &["--summaryFormat=xml"]),
    ];
    for run in &runs {
        run.fails(
            2,
            "unknown summary format (use default, JSON, CSV or pario-CSV)",
        );
    }
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn every_tool_prints_its_help() {
    let dir = tempdir().unwrap();
    let runs = [
        ior(dir.path(), 1, &["-h"]),
        mdtest(dir.path(), 1, &["-h"]),
        md_workbench(dir.path(), 1, &["-h"]),
        io500(dir.path(), 1, &["-h"]),
    ];
    for run in &runs {
        run.ok();
        assert!(run.stdout.contains("summaryFormat") || run.stdout.contains("--dry-run"));
    }
    // Defaults come from the tools' parameters; md-workbench's -G and -o
    // have no long name (their help once panicked).
    assert!(
        runs[0].stdout.contains("  -t=262144 "),
        "{}",
        runs[0].stdout
    );
    assert!(runs[1].stdout.contains("  -a=POSIX "), "{}", runs[1].stdout);
    for line in ["  -G=-1 ", "  -o=./out ", "  -I=1000 ", "  -S=3901 "] {
        assert!(runs[2].stdout.contains(line), "{line}: {}", runs[2].stdout);
    }
    assert!(
        runs[3].stdout.contains("  --verify=RESULT.txt "),
        "{}",
        runs[3].stdout
    );
    assert!(
        runs[3].stdout.contains("  -v, --verbose "),
        "{}",
        runs[3].stdout
    );
}
