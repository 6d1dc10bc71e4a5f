//! DLIO's configuration: Hydra's composition of the bundled `config.yaml`,
//! a workload file and the command line's overrides ([`compose`]), typed
//! by DLIO's schema ([`keys::KEYS`] into [`schema::Config`]), checked as
//! DLIO's `validate` checks it ([`validate`]).

pub mod compose;
pub mod keys;
pub mod overrides;
pub mod schema;
mod typing;
pub mod value;
pub mod yaml;

use std::path::Path;

use chrono::{DateTime, Local};

use super::options::ParioOptions;
use compose::Composed;
use schema::{Config, DataLoader, Format, Framework, StorageType};
use value::{Map, Value};

/// A composed, typed and checked configuration.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub composed: Composed,
    pub config: Config,
    pub options: ParioOptions,
    /// `hydra.run.dir`, resolved (at `now`).
    pub run_dir: String,
}

/// Composes, resolves and types the configuration; `now` is the time
/// `${now:...}` shows.
pub fn load(
    args: &[String],
    config_dir: Option<&Path>,
    now: &DateTime<Local>,
) -> Result<Loaded, String> {
    let overrides: Vec<_> = args
        .iter()
        .map(|a| overrides::parse(a))
        .collect::<Result<_, _>>()?;
    let composed = compose::compose(&overrides, config_dir)?;
    let resolved = compose::resolved(&composed.root, now)?;
    let mut workload = match resolved.get("workload") {
        Some(Value::Map(m)) => m.clone(),
        _ => Map::default(),
    };
    // pario's settings in the workload (`++workload.pario.as=dlio`, as
    // mlpstorage's --params passes them), then on the command line.
    let mut settings: Vec<overrides::Override> = Vec::new();
    if let Some(Value::Map(own)) = workload.remove("pario") {
        for (path, value) in own.leaves() {
            settings.push(overrides::Override {
                action: overrides::Action::Force,
                key: std::iter::once("pario".to_string())
                    .chain(path.split('.').map(str::to_string))
                    .collect(),
                value: Some(value.clone()),
                text: format!("workload.pario.{path}={value}"),
            });
        }
    }
    settings.extend(composed.pario.iter().cloned());
    let options = ParioOptions::from_overrides(&settings)?;
    let config = keys::typed(&workload)?;
    let mut hydra_root = resolved.clone();
    hydra_root.insert("hydra", Value::Map(Map::default()));
    let run_dir = match compose::interpolate(&composed.hydra.run_dir, &hydra_root, now, 0)? {
        Value::Str(s) => s,
        other => other.to_string(),
    };
    Ok(Loaded {
        composed,
        config,
        options,
        run_dir,
    })
}

/// DLIO's own checks (`ConfigArguments.validate`, those that need no
/// files) and the workflows and formats pario runs: one line each.
pub fn validate(config: &Config) -> Result<(), String> {
    let reader = &config.reader;
    let loader = reader.data_loader;
    if config.dataset.format == Format::Tfrecord && loader == Some(DataLoader::Pytorch) {
        return Err(
            "workload.dataset.format=tfrecord with workload.reader.data_loader=pytorch: DLIO has no PyTorch reader of TFRecords".into(),
        );
    }
    let clash = matches!(
        (config.framework, loader),
        (Framework::Tensorflow, Some(DataLoader::Pytorch))
            | (Framework::Pytorch, Some(DataLoader::Tensorflow))
    );
    if clash {
        return Err(format!(
            "workload.framework={} does not go with workload.reader.data_loader={} (DLIO: incompatible)",
            config.framework.name(),
            loader.map_or("", |l| l.name())
        ));
    }
    let m = &config.model;
    if m.num_layers > 0 && (m.num_layers as u64) < m.parallelism.pipeline {
        return Err(format!(
            "workload.model.num_layers={} must be at least workload.model.parallelism.pipeline={}",
            m.num_layers, m.parallelism.pipeline
        ));
    }
    if m.parallelism.pipeline > 1 && m.parallelism.zero_stage == 3 {
        return Err(
            "ZeRO stage 3 does not go with pipeline parallelism (workload.model.parallelism)"
                .into(),
        );
    }
    let d = &config.dataset;
    if d.record_length_bytes.is_nan() || d.record_length_bytes <= 0.0 {
        return Err(format!(
            "workload.dataset.record_length_bytes={}: must be above 0",
            d.record_length_bytes
        ));
    }
    if d.record_length_bytes_stdev < 0.0 {
        return Err("workload.dataset.record_length_bytes_stdev: must be 0 or more".into());
    }
    if d.num_samples_per_file == 0 {
        return Err("workload.dataset.num_samples_per_file: must be at least 1".into());
    }
    if config.storage.storage_type == StorageType::ParallelFs {
        return Err("workload.storage.storage_type=parallel_fs: DLIO's storage factory refuses it (use local_fs)".into());
    }
    workflows(config)
}

/// The workflows this build runs.
fn workflows(config: &Config) -> Result<(), String> {
    let w = &config.workflow;
    if w.profiling {
        return Err("workload.workflow.profiling=True: not modelled by this pario yet".into());
    }
    if !w.generate_data && !w.train && !w.checkpoint {
        return Err(
            "nothing to do: workload.workflow.generate_data, train and checkpoint are all False"
                .into(),
        );
    }
    if w.generate_data {
        generated(config)?;
    }
    Ok(())
}

/// The formats pario generates, and where.
fn generated(config: &Config) -> Result<(), String> {
    let format = config.dataset.format.name();
    match config.dataset.format {
        Format::Hdf5Opt => Err(format!(
            "workload.dataset.format={format}: DLIO has no generator for it (hdf5 has one)"
        )),
        Format::Hdf5 if !cfg!(feature = "hdf5") => Err(format!(
            "workload.dataset.format={format}: generating HDF5 needs pario built with --features hdf5"
        )),
        Format::Hdf5 if config.storage.storage_type == StorageType::S3 => Err(format!(
            "workload.dataset.format={format}: HDF5 files are written by the HDF5 library on a file system, not on storage_type s3 (h5py's neither)"
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
