//! DLIO's lines about training, worded as its branch words them
//! (main.py, utils/statscounter.py), to rank 0's outputs: the text and
//! `dlio.log`.

use super::compute::describe;
use super::plan::{BlockEnd, TrainEvents, TrainPlan};
use crate::dlio::metrics::{Figures, Summary};
use crate::dlio::sink::DlioSink;
use crate::output::Outputs;

/// Tells the sinks what the loop does.
pub struct ToSinks<'o> {
    pub outputs: &'o mut Outputs<dyn DlioSink>,
    pub ranks: usize,
}

impl ToSinks<'_> {
    fn say(&mut self, message: &str) {
        self.outputs.each(|s| s.output(message));
    }
}

impl TrainEvents for ToSinks<'_> {
    fn epoch_started(&mut self, epoch: usize, steps: usize, overridden: bool) {
        let m = if overridden {
            format!("Starting epoch {epoch}: Overriding number of steps to {steps}.")
        } else {
            format!("Starting epoch {epoch}: {steps} steps expected")
        };
        self.say(&m);
    }

    fn block_started(&mut self, block: usize) {
        self.say(&format!("Starting block {block}"));
    }

    fn block_ended(&mut self, b: &BlockEnd<'_>) {
        let (e, n) = (b.epoch, b.block);
        self.say(&format!(
            "Ending block {n} - {} steps completed in {} s",
            b.steps, b.duration
        ));
        let head = format!("Epoch {e} - Block {n} [Training]");
        self.say(&format!(
            "{head} Accelerator Utilization [AU] (%): {:.4}",
            b.figures.au
        ));
        let rate = b.figures.throughput * self.ranks as f64;
        self.say(&format!("{head} Throughput (samples/second): {rate:.4}"));
        self.say(&format!(
            "{head} Computation time per step (second): {:.4}+/-{:.4} (set value: {})",
            b.compute.0,
            b.compute.1,
            describe(b.set)
        ));
    }

    fn epoch_ended(&mut self, epoch: usize, steps: usize, duration: &str) {
        self.say(&format!(
            "Ending epoch {epoch} - {steps} steps completed in {duration} s"
        ));
    }

    fn eval_started(&mut self, steps: usize) {
        self.say(&format!("Starting eval - {steps} steps expected"));
    }

    fn eval_ended(&mut self, epoch: usize, steps: usize, duration: &str, f: Figures) {
        self.say(&format!(
            "Ending eval - {steps} steps completed in {duration} s"
        ));
        self.say(&format!(
            "Epoch {epoch} [Eval] Accelerator Utilization [AU] (%): {:.4}",
            f.au
        ));
        let rate = f.throughput * self.ranks as f64;
        self.say(&format!(
            "Epoch {epoch} [Eval] Throughput (samples/second): {rate:.4}"
        ));
    }

    fn checkpoint_started(&mut self, epoch: usize, block: usize, step: usize) {
        self.say(&format!(
            "Starting saving checkpoint {block} after total step {step} for epoch {epoch}"
        ));
    }

    fn checkpoint_ended(&mut self, epoch: usize, block: usize, seconds: f64, rate: f64) {
        self.say(&format!(
            "Finished saving checkpoint {block} for epoch {epoch} in {seconds:.4} s; Throughput: {rate:.4} GB/s"
        ));
    }
}

/// DLIO's lines before the first epoch.
pub fn run_lines(plan: &TrainPlan, files: u64, spf: u64, ranks: usize) -> Vec<String> {
    let t = &plan.train;
    let max = t.max_steps();
    let mut lines = vec![format!(
        "Max steps per epoch: {max} = {spf} * {files} / {} / {ranks} (samples per file * num files / batch size / comm size)",
        t.batch
    )];
    if plan.steps_overridden {
        lines.push(format!(
            "Total training steps is set to be {}. Will only run up to {}",
            plan.steps,
            (max * plan.epochs).min(plan.steps)
        ));
    }
    if let Some(e) = &plan.eval {
        lines.push(format!(
            "Steps per eval: {} = {spf} * {} / {} / {ranks} (samples per file * num files / batch size eval / comm size)",
            e.steps, e.sharding.files, e.sharding.batch
        ));
    }
    lines
}

/// DLIO's `[METRIC]` block (after `Averaged metric over all steps/epochs`).
pub fn metric_block(ranks: usize, train: &Summary, eval: Option<&Summary>) -> String {
    let bar = "[METRIC] ==========================================================\n";
    let mut m = format!("[OUTPUT] Averaged metric over all steps/epochs\n{bar}");
    m += &format!("[METRIC] Number of Simulated Accelerators: {ranks} \n");
    m += &format!(
        "[METRIC] Training Accelerator Utilization [AU] (%): {:.4} ({:.4})\n",
        train.au_mean, train.au_stdev
    );
    m += &format!(
        "[METRIC] Training Throughput (samples/second): {:.4} ({:.4})\n",
        train.throughput_mean, train.throughput_stdev
    );
    m += &format!(
        "[METRIC] Training I/O Throughput (MB/second): {:.4} ({:.4})\n",
        train.io_mean_mb, train.io_stdev_mb
    );
    let meets = |s: &Summary| {
        if s.meets_expectation {
            "success"
        } else {
            "fail"
        }
    };
    m += &format!("[METRIC] train_au_meet_expectation: {}\n", meets(train));
    if let Some(e) = eval {
        m += &format!(
            "[METRIC] Eval Accelerator Utilization [AU] (%): {:.4} ({:.4})\n",
            e.au_mean, e.au_stdev
        );
        m += &format!(
            "[METRIC] Eval Throughput (samples/second): {:.6} ({:.6})\n",
            e.throughput_mean, e.throughput_stdev
        );
        m += &format!(
            "[METRIC] Eval Throughput (MB/second): {:.6} ({:.6})\n",
            e.io_mean_mb, e.io_stdev_mb
        );
        m += &format!("[METRIC] eval_au_meet_expectation: {}\n", meets(e));
    }
    m += bar;
    m + "\n"
}
