//! The runners, in process: a tool's runner takes outputs made by its
//! caller and returns its report. Four tasks of the local engine, a sink that
//! records the events, and the returned reports; a failing task included.

use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

use pario::comm::{local, Comm, Topology};
use pario::ior::report::{RunReport, TestReport};
use pario::ior::sink::{IorSink, PhaseDone};
use pario::ior::Ior;
use pario::mdtest::report::{MdtestReport, SweepReport};
use pario::mdtest::sink::{IterationDone, MdtestSink};
use pario::mdtest::Mdtest;
use pario::output::{LogSink, Outputs};
use pario::tool::{Finished, Parsed, Tool};

/// The events a sink was told, one line each.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Recorder {
    fn push(&self, event: String) -> io::Result<()> {
        self.0.lock().unwrap().push(event);
        Ok(())
    }

    fn events(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

impl LogSink for Recorder {}

impl IorSink for Recorder {
    fn run_started(&mut self, r: &RunReport) -> io::Result<()> {
        self.push(format!("run started: {} tasks", r.header.pario.tasks))
    }
    fn test_started(&mut self, t: &TestReport) -> io::Result<()> {
        self.push(format!("test {} started", t.test_id))
    }
    fn phase_done(&mut self, p: &PhaseDone<'_>) -> io::Result<()> {
        let r = p.row;
        let times = p.tasks.iter().filter(|t| t.active).count();
        self.push(format!(
            "{}-{}: {} bytes, {times} task times",
            r.access, r.iteration, r.bytes
        ))
    }
    fn removed(&mut self, _: f64, iteration: u64) -> io::Result<()> {
        self.push(format!("removed {iteration}"))
    }
    fn test_done(&mut self, t: &TestReport) -> io::Result<()> {
        self.push(format!("test {} done", t.test_id))
    }
    fn run_done(&mut self, r: &RunReport) -> io::Result<()> {
        self.push(format!("run done, error: {:?}", r.error))
    }
}

impl MdtestSink for Recorder {
    fn run_started(&mut self, r: &MdtestReport) -> io::Result<()> {
        self.push(format!("run started: {} tasks", r.header.pario.tasks))
    }
    fn sweep_started(&mut self, tasks: usize, total: u64, kind: &str) -> io::Result<()> {
        self.push(format!("{tasks} tasks, {total} {kind}"))
    }
    fn iteration_done(&mut self, it: &IterationDone<'_>) -> io::Result<()> {
        let ops: Vec<&str> = it.report.phases.iter().map(|p| p.operation).collect();
        self.push(format!(
            "iteration {}: {}",
            it.report.iteration,
            ops.join(", ")
        ))
    }
    fn sweep_done(&mut self, s: &SweepReport, _: &MdtestReport) -> io::Result<()> {
        self.push(format!("sweep of {} tasks done", s.tasks))
    }
    fn run_done(&mut self, r: &MdtestReport) -> io::Result<()> {
        self.push(format!("run done, error: {:?}", r.error))
    }
}

/// A tool's checked parameters for a command line.
fn parse<T: Tool>(tool: &T, line: &str) -> T::Params {
    let args: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    match tool.parse(T::NAME, &args) {
        Ok(Parsed::Run(params)) => params,
        Ok(Parsed::Help) => panic!("{line}: help"),
        Err(e) => panic!("{line}: {e}"),
    }
}

/// Runs `tool` on 4 tasks of the local engine in `dir`, rank 0 telling
/// `recorder`; every task's finished run.
fn run4<T, F>(tool: &T, params: &T::Params, sink: F) -> Vec<Finished<T::Report>>
where
    T: Tool,
    T::Report: Send,
    F: Fn() -> Box<T::Sink> + Sync,
{
    local::run(Topology::single_node(4), |comm: &dyn Comm| {
        let sinks = if comm.rank() == 0 {
            vec![sink()]
        } else {
            Vec::new()
        };
        let mut outputs = Outputs::with_sinks(T::NAME, sinks);
        tool.run(comm, params, &mut outputs)
    })
    .into_iter()
    .map(|r| r.expect("no task panics"))
    .collect()
}

/// The names left in a directory, sorted.
fn left_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = walk(dir)
        .into_iter()
        .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
        .collect();
    names.sort();
    names
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            all.extend(walk(&path));
        }
        all.push(path);
    }
    all
}

#[test]
fn ior_events_and_report() {
    let params = parse(&Ior, "-a DUMMY -t 64k -b 1m -s 2 -i 2 -w -r");
    let recorder = Recorder::default();
    let runs = run4(&Ior, &params, || {
        Box::new(recorder.clone()) as Box<dyn IorSink>
    });
    let bytes = 4 * 2 * 1024 * 1024;
    let phase = |name: &str| format!("{name}: {bytes} bytes, 4 task times");
    assert_eq!(
        recorder.events(),
        [
            "run started: 4 tasks".to_string(),
            "test 0 started".into(),
            phase("write-0"),
            phase("read-0"),
            "removed 0".into(),
            phase("write-1"),
            phase("read-1"),
            "removed 1".into(),
            "test 0 done".into(),
            "run done, error: None".into(),
        ]
    );
    for run in &runs {
        assert!(run.result.is_ok());
    }
    let report = &runs[0].report;
    let test = &report.tests[0];
    let rows: Vec<(&str, u64, u64, usize)> = test
        .results
        .iter()
        .map(|r| (r.access, r.iteration, r.transfers, r.tasks))
        .collect();
    // 4 tasks × 2 segments × 16 transfers of 64 KiB.
    assert_eq!(
        rows,
        [
            ("write", 0, 128, 4),
            ("read", 0, 128, 4),
            ("write", 1, 128, 4),
            ("read", 1, 128, 4)
        ]
    );
    assert_eq!(test.removes.len(), 2);
    let summary: Vec<&str> = report
        .summary
        .iter()
        .map(|s| s.operation.as_str())
        .collect();
    assert_eq!(summary, ["write", "read"]);
    // Other tasks return what they know: no results.
    assert!(runs[1].report.tests.is_empty());
}

#[test]
fn ior_failing_task_stops_every_task_and_removes_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("f");
    // Task 2's file cannot be opened: its name is taken by a directory,
    // which -E leaves in place; the other tasks write their files.
    std::fs::create_dir(dir.path().join("f.00000002")).unwrap();
    let line = format!("-t 4k -b 16k -F -w -E -o {}", base.display());
    let params = parse(&Ior, &line);
    let recorder = Recorder::default();
    let runs = run4(&Ior, &params, || {
        Box::new(recorder.clone()) as Box<dyn IorSink>
    });
    let message = format!(
        "task 2: cannot open for writing {}.00000002: Is a directory",
        base.display()
    );
    for run in &runs {
        let e = run.result.as_ref().unwrap_err().to_string();
        assert!(e.starts_with(&message), "{e}");
    }
    let events = recorder.events();
    assert_eq!(events[..2], ["run started: 4 tasks", "test 0 started"]);
    assert!(events[2].starts_with("run done, error: Some(\"task 2: cannot open"));
    assert_eq!(events.len(), 3, "no phase ends: {events:?}");
    let error = runs[0].result.as_ref().unwrap_err().to_string();
    assert_eq!(runs[0].report.error.as_deref(), Some(error.as_str()));
    // The files of tasks 0, 1 and 3 were written, then removed.
    assert_eq!(left_in(dir.path()), ["f.00000002"]);
}

#[test]
fn mdtest_events_and_report() {
    let params = parse(&Mdtest, "-a DUMMY -n 10 -F -i 2");
    let recorder = Recorder::default();
    let runs = run4(&Mdtest, &params, || {
        Box::new(recorder.clone()) as Box<dyn MdtestSink>
    });
    let phases = "File creation, File stat, File read, File removal, Tree creation, Tree removal";
    assert_eq!(
        recorder.events(),
        [
            "run started: 4 tasks".to_string(),
            "4 tasks, 40 files".into(),
            format!("iteration 0: {phases}"),
            format!("iteration 1: {phases}"),
            "sweep of 4 tasks done".into(),
            "run done, error: None".into(),
        ]
    );
    for run in &runs {
        assert!(run.result.is_ok());
    }
    let sweep = &runs[0].report.tests[0];
    assert_eq!((sweep.tasks, sweep.total_items), (4, 40));
    let items: Vec<(&str, u64)> = sweep.iterations[1]
        .phases
        .iter()
        .map(|p| (p.operation, p.items))
        .collect();
    assert_eq!(
        items[..4],
        [
            ("File creation", 40),
            ("File stat", 40),
            ("File read", 40),
            ("File removal", 40)
        ]
    );
    assert!(runs[2].report.tests.is_empty());
}

#[test]
fn mdtest_failing_task_stops_every_task_and_removes_what_it_created() {
    let dir = tempfile::tempdir().unwrap();
    let test_dir = dir.path().join("test-dir.0-0");
    std::fs::create_dir(&test_dir).unwrap();
    // Task 2's tree cannot be made: a file has its name.
    std::fs::write(test_dir.join("mdtest_tree.2.0"), b"mine").unwrap();
    let line = format!("-n 5 -u -d {}", dir.path().display());
    let params = parse(&Mdtest, &line);
    let recorder = Recorder::default();
    let runs = run4(&Mdtest, &params, || {
        Box::new(recorder.clone()) as Box<dyn MdtestSink>
    });
    let message = format!(
        "task 2: cannot create directory {}: File exists",
        test_dir.join("mdtest_tree.2.0").display()
    );
    for run in &runs {
        let e = run.result.as_ref().unwrap_err().to_string();
        assert!(e.starts_with(&message), "{e}");
    }
    let events = recorder.events();
    assert_eq!(
        events[..2],
        ["run started: 4 tasks", "4 tasks, 20 files/directories"]
    );
    assert!(events[2].starts_with("run done, error: Some(\"task 2: cannot create directory"));
    // Only what was there before the run is left.
    assert_eq!(
        left_in(dir.path()),
        ["test-dir.0-0", "test-dir.0-0/mdtest_tree.2.0"]
    );
}
