//! `sweep`: one test run again on fewer tasks, step by step (IOTest's
//! scaling runs: N nodes, N/2, ... 1, with the same tasks per node; or a list
//! of task counts). The tasks of a step form a communicator of their own
//! ([`Comm::split`]), so the step's files, reordering (`-C` over the step's
//! nodes) and results are those of a job of that size; the other tasks wait.

use super::params::Sweep;
use super::report::{RunReport, ScalingRow, TestReport};
use super::results::summarize;
use crate::comm::{agree, Comm, Topology};
use crate::error::{Error, TaskError};
use crate::run::tally::WrongData;

/// The tasks of one step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepPlan {
    pub nodes: usize,
    /// The ranks taking part, in rank order.
    pub ranks: Vec<usize>,
}

/// The steps of a sweep over the job's topology. Rank 0 is in every step
/// (nodes are numbered from rank 0's), so it reports each one.
pub fn plan(sweep: &Sweep, topology: &Topology) -> Vec<StepPlan> {
    let size = topology.size();
    match sweep {
        Sweep::Nodes => {
            let mut steps = Vec::new();
            let mut nodes = topology.num_nodes();
            loop {
                let ranks = (0..size).filter(|&r| topology.node_of(r) < nodes).collect();
                steps.push(StepPlan { nodes, ranks });
                if nodes <= 1 {
                    return steps;
                }
                nodes /= 2;
            }
        }
        Sweep::Tasks(counts) => counts
            .iter()
            .map(|&n| StepPlan {
                nodes: topology.first(n).num_nodes(),
                ranks: (0..n.min(size)).collect(),
            })
            .collect(),
    }
}

/// What one step of a test gave this task: rank 0's report (members only)
/// and the error every task agreed on.
pub struct StepOutcome {
    pub report: Option<TestReport>,
    pub data_errors: WrongData,
    pub error: Option<Error>,
}

/// Runs one step: its members run the test on their own communicator with
/// `run`; the others wait for them. Every task returns the same error and
/// data-error counts.
pub fn run_step<F>(comm: &dyn Comm, step: &StepPlan, run: F) -> Result<StepOutcome, Error>
where
    F: FnOnce(&dyn Comm) -> (Option<TestReport>, Option<Error>),
{
    let sub = comm.split(step.ranks.contains(&comm.rank()))?;
    let (report, error) = match &sub {
        Some(c) => run(&**c),
        None => (None, None),
    };
    drop(sub);
    comm.idle_barrier()?;
    let error = error.map(|e| in_job_ranks(e, &step.ranks));
    let error = agree(comm, error.map_or(Ok(()), Err)).err();
    // Rank 0 is in every step and holds the step's agreed counts.
    let data_errors = report.as_ref().map(|r| r.data_errors).unwrap_or_default();
    Ok(StepOutcome {
        data_errors: data_errors.from_rank0(comm)?,
        report,
        error,
    })
}

/// A step's error names the task by its rank in the step; the job's rank
/// is what the user can find.
fn in_job_ranks(e: Error, ranks: &[usize]) -> Error {
    match e {
        Error::Task(TaskError { rank, message }) => Error::Task(TaskError {
            rank: ranks.get(rank).copied().unwrap_or(rank),
            message,
        }),
        other => other,
    }
}

/// The scaling table of every swept test in the run.
pub fn scaling(report: &RunReport) -> Vec<ScalingRow> {
    let mut rows: Vec<ScalingRow> = Vec::new();
    for test in &report.tests {
        let Some(step) = test.sweep else { continue };
        for access in ["write", "read"] {
            let phases: Vec<_> = test.results.iter().filter(|r| r.access == access).collect();
            if phases.is_empty() {
                continue;
            }
            let s = summarize(&phases, test.parameters.transfer_size);
            let per_task = s.bw.mean / step.tasks as f64;
            let first = rows
                .iter()
                .find(|r| r.test_id == test.test_id && r.access == access)
                .map_or(per_task, |r| r.bw_per_task_mib);
            rows.push(ScalingRow {
                test_id: test.test_id,
                step: step.step,
                nodes: step.nodes,
                tasks: step.tasks,
                access: access.to_string(),
                bw_mean_mib: s.bw.mean,
                bw_per_task_mib: per_task,
                ops_mean: s.ops.mean,
                efficiency: if first > 0.0 { per_task / first } else { 0.0 },
            });
        }
    }
    rows
}

/// The scaling table as text, after the summary.
pub fn scaling_text(rows: &[ScalingRow]) -> String {
    let mut t = String::from("Scaling:\n");
    t.push_str(&format!(
        "{:<7} {:>4} {:>6} {:>6} {:<7} {:>12} {:>15} {:>12} {:>10}\n",
        "TestID",
        "Step",
        "Nodes",
        "Tasks",
        "Access",
        "bw(MiB/s)",
        "per task(MiB/s)",
        "IOPS",
        "Efficiency"
    ));
    for r in rows {
        t.push_str(&format!(
            "{:<7} {:>4} {:>6} {:>6} {:<7} {:>12.2} {:>15.2} {:>12.2} {:>10.3}\n",
            r.test_id,
            r.step,
            r.nodes,
            r.tasks,
            r.access,
            r.bw_mean_mib,
            r.bw_per_task_mib,
            r.ops_mean,
            r.efficiency
        ));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_steps_halve_down_to_one() {
        let t = Topology::block(&[2, 2, 2, 2, 2, 2]);
        let steps = plan(&Sweep::Nodes, &t);
        let shape: Vec<_> = steps.iter().map(|s| (s.nodes, s.ranks.len())).collect();
        assert_eq!(shape, [(6, 12), (3, 6), (1, 2)]);
        assert_eq!(steps[1].ranks, [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn node_steps_follow_a_cyclic_placement() {
        let t = Topology::cyclic(&[2, 2, 2]);
        let steps = plan(&Sweep::Nodes, &t);
        assert_eq!(steps[0].ranks, [0, 1, 2, 3, 4, 5]);
        assert_eq!(
            steps[1],
            StepPlan {
                nodes: 1,
                ranks: vec![0, 3]
            }
        );
    }

    #[test]
    fn task_steps_take_the_first_ranks() {
        let t = Topology::block(&[2, 2, 2]);
        let steps = plan(&Sweep::Tasks(vec![6, 3, 1]), &t);
        let shape: Vec<_> = steps.iter().map(|s| (s.nodes, s.ranks.clone())).collect();
        assert_eq!(
            shape,
            [
                (3, vec![0, 1, 2, 3, 4, 5]),
                (2, vec![0, 1, 2]),
                (1, vec![0])
            ]
        );
    }

    #[test]
    fn errors_name_the_jobs_rank() {
        let e = in_job_ranks(Error::task(1, "write failed"), &[0, 3]);
        assert_eq!(e.to_string(), "task 3: write failed");
    }
}
