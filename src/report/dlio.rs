//! What the page says of a dlio_benchmark result besides its figures
//! (training's and evaluation's AU and samples/s per epoch, checkpoints'
//! GB/s, which the figures' walk gives): its workload in words, its own
//! warnings (the AU threshold missed, the page cache), the run in a few
//! lines (its configuration, as written, is `details`' to list).

use serde_json::Value;

use crate::dlio::report::DlioReport;

/// A value of the typed configuration (`dataset.format`) as text.
fn setting(r: &DlioReport, section: &str, key: &str) -> Option<String> {
    match &r.config[section][key] {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// The workload as (aspect, words): the workload's name, its files and
/// samples, the batch and readers, the ranks, the storage.
pub fn workload(r: &DlioReport) -> Vec<(&'static str, String)> {
    let mut out = vec![("mode", format!("{} workload", r.workload))];
    let files = setting(r, "dataset", "num_files_train");
    let format = setting(r, "dataset", "format").unwrap_or_default();
    let per_file = setting(r, "dataset", "num_samples_per_file");
    let record = r.config["dataset"]["record_length_bytes"].as_f64();
    if let (Some(files), Some(per_file), Some(record)) = (files, per_file, record) {
        let record = super::human::bytes(record as u64);
        let samples = match per_file.as_str() {
            "1" => "1 sample".to_string(),
            n => format!("{n} samples"),
        };
        out.push((
            "data",
            format!("{files} {format} files, {samples} of {record} each"),
        ));
    }
    if let Some(batch) = setting(r, "reader", "batch_size") {
        let threads = setting(r, "reader", "read_threads").unwrap_or_else(|| "0".into());
        out.push(("transfer", format!("batches of {batch}, {threads} readers")));
    }
    let ranks = match r.ranks {
        1 => "1 rank".to_string(),
        n => format!("{n} ranks"),
    };
    out.push(("tasks", ranks));
    if let Some(storage) = setting(r, "storage", "storage_type") {
        out.push(("api", storage));
    }
    out
}

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
