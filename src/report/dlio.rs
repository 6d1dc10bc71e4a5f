//! What the page says of a dlio_benchmark result besides its figures
//! (training's and evaluation's AU and samples/s per epoch, checkpoints'
//! GB/s, which the figures' walk gives; its workload is compare's
//! `workload::of_dlio`): its own warnings (the AU threshold missed, the
//! page cache), the run in a few lines (its configuration, as written, is `details`' to list).

use crate::dlio::report::DlioReport;

/// Its own warnings: the workload's AU threshold missed, the dataset the
/// page cache can hold.
pub fn warnings(r: &DlioReport, out: &mut Vec<String>) {
    let Some(t) = &r.training else { return };
    if !t.train.meets_expectation && t.au_threshold > 0.0 {
        out.push(format!(
            "Training's AU {:.1} % (mean over the epochs) is under the workload's \
             threshold of {:.0} %: the storage did not keep the accelerators busy",
            t.train.au_mean,
            t.au_threshold * 100.0
        ));
    }
    out.extend(t.page_cache_warning.iter().cloned());
}

/// The run in a few lines.
pub fn about(r: &DlioReport) -> Vec<(&'static str, String)> {
    let mut about = vec![
        ("workload", r.workload.clone()),
        ("ranks", r.ranks.to_string()),
        ("output folder", r.output_folder.clone()),
    ];
    if let Some(t) = &r.training {
        about.push(("loader", format!("{} ({})", t.loader, t.format)));
        about.push((
            "training",
            format!(
                "{} epochs of {} steps of {} samples, {:.3} s",
                t.epochs, t.steps_per_epoch, t.batch_size, t.seconds
            ),
        ));
    }
    if let Some(g) = &r.generation {
        about.push((
            "generation",
            format!("{} files, {} bytes, {:.3} s", g.files, g.bytes, g.seconds),
        ));
    }
    about
}
