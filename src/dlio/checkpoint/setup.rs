//! From DLIO's typed configuration and pario's settings to a checkpoint
//! run: the model, where and how files are written, the plan of the
//! checkpoint-only workflow, and the checks before anything is created
//! (DLIO's, and whether the target can hold the checkpoints).

use std::path::Path;

use super::engine::{bytes_per_checkpoint, checkpoint_dir, files_of, Pattern, Settings};
use super::model::{Dtype, Mode, Model, Parallelism, Transformer};
use super::plan::{CachePolicy, RunPlan};
use super::report::DurationRule;
use super::requests::MAX_RW_COUNT;
use crate::backend::Choice;
use crate::dlio::config::schema::{CheckpointMode, Config, Framework, StorageType};
use crate::dlio::generate::full_path;
use crate::dlio::options::{Departure, Follow, ParioOptions};
use crate::units::human_bytes;

/// The part size of an object store's uploads.
pub const PART: u64 = 64 << 20;
/// O_DIRECT requests when no size is given.
pub const DIRECT_CHUNK: u64 = 16 << 20;

fn rules(options: &ParioOptions, d: Departure) -> bool {
    options.follows(d) == Follow::Rules
}

/// The model as DLIO reads it (`model.*`, `checkpoint.mode`).
pub fn model_of(config: &Config, options: &ParioOptions) -> Result<Model, String> {
    let m = &config.model;
    let dtype =
        |key: &str, v: &str| Dtype::parse(v).map_err(|e| format!("workload.model.{key}: {e}"));
    // unet3d's `model.model_size` is not DLIO's key; the rules take it.
    let size = match m.model_size {
        Some(s) if rules(options, Departure::ModelSize) => s,
        _ => m.model_size_bytes,
    };
    let signed = |v: &[u64]| v.iter().map(|&n| n.min(i64::MAX as u64) as i64).collect();
    let p = &m.parallelism;
    let t = &m.transformer;
    Ok(Model {
        kind: m.r#type.clone(),
        size_bytes: size.min(i64::MAX as u64) as i64,
        model_dtype: dtype("model_datatype", &m.model_datatype)?,
        optimizer_dtype: dtype("optimizer_datatype", &m.optimizer_datatype)?,
        num_layers: m.num_layers,
        optimization_groups: signed(&m.optimization_groups),
        layer_parameters: signed(&m.layer_parameters),
        parallelism: Parallelism {
            tensor: p.tensor,
            pipeline: p.pipeline,
            data: p.data,
            zero_stage: p.zero_stage,
        },
        transformer: Transformer {
            vocab_size: t.vocab_size,
            hidden_size: t.hidden_size,
            ffn_hidden_size: t.ffn_hidden_size,
            num_attention_heads: t.num_attention_heads,
            num_kv_heads: t.num_kv_heads,
        },
        mode: match config.checkpoint.mode {
            CheckpointMode::Default => Mode::Default,
            CheckpointMode::Subset => Mode::Subset,
        },
    })
}

/// The nearest existing directory at or above `path` (where the file
/// system's block size and free space are read).
fn existing(path: &str) -> Option<&Path> {
    let mut p = Some(Path::new(path));
    while let Some(dir) = p {
        if dir.as_os_str().is_empty() {
            return Some(Path::new("."));
        }
        if dir.is_dir() {
            return Some(dir);
        }
        p = dir.parent();
    }
    None
}

/// `st_blksize` where the checkpoints go: the buffer Python's `open` gives.
fn block_size(folder: &str) -> u64 {
    use std::os::unix::fs::MetadataExt;
    existing(folder)
        .and_then(|d| std::fs::metadata(d).ok())
        .map(|m| m.blksize())
        .filter(|&b| b > 1)
        .unwrap_or(8192)
}

/// The backend checkpoints use: the run's, or POSIX with O_DIRECT
/// (`pario.checkpoint_odirect`).
pub fn backend_choice(
    config: &Config,
    options: &ParioOptions,
    run: &Choice,
) -> Result<Choice, String> {
    if !options.checkpoint.odirect {
        return Ok(run.clone());
    }
    if config.storage.storage_type == StorageType::S3 {
        return Err("pario.checkpoint_odirect=true: O_DIRECT needs a file system (storage.storage_type=local_fs)".into());
    }
    let modules = [("posix.odirect".to_string(), "1".to_string())]
        .into_iter()
        .collect();
    crate::backend::configure("POSIX", &modules)
        .map_err(|e| format!("pario.checkpoint_odirect: {e}"))
}

/// Where and how the files are written and read.
pub fn settings_of(
    config: &Config,
    options: &ParioOptions,
    backend: &Choice,
    root: Option<&str>,
) -> Result<Settings, String> {
    let folder = full_path(root, &config.checkpoint.checkpoint_folder);
    let max = options.checkpoint.max_request;
    let backend = backend_choice(config, options, backend)?;
    let pattern = match backend.alignment() {
        Some(align) => Pattern::Direct {
            align,
            chunk: max.unwrap_or(DIRECT_CHUNK).div_ceil(align) * align,
        },
        None => Pattern::Torch {
            block: block_size(&folder),
            max_request: max.unwrap_or(MAX_RW_COUNT).min(MAX_RW_COUNT),
        },
    };
    Ok(Settings {
        model: model_of(config, options)?,
        fsync: config.checkpoint.fsync && rules(options, Departure::CheckpointFsync),
        folder,
        pattern,
        part: PART,
    })
}

/// The checkpoint-only workflow's plan; `per_node`: the ranks of rank 0's
/// node (DLIO's `npernode`).
pub fn plan_of(config: &Config, options: &ParioOptions, per_node: usize) -> RunPlan {
    let c = &config.checkpoint;
    let (writes, reads) = (
        c.num_checkpoints_write.max(0) as u64,
        c.num_checkpoints_read.max(0) as u64,
    );
    let o = &options.checkpoint;
    let shift = match o.read_shift {
        Some(n) => n as usize,
        None if c.recovery_rank_shift && rules(options, Departure::RecoveryRankShift) => per_node,
        None => 0,
    };
    RunPlan {
        writes,
        reads,
        // DLIO's sleep takes the absolute value: -1 sleeps a second.
        pause: c.time_between_checkpoints.abs(),
        rank_sync: c.rank_sync,
        shift,
        cache: CachePolicy::parse(&o.cache).unwrap_or_default(),
        keep: o.keep.unwrap_or(writes > 0 && reads == 0),
        rule: match rules(options, Departure::CheckpointDuration) {
            true => DurationRule::Slowest,
            false => DurationRule::RankZero,
        },
    }
}

/// A run that only loads: every file it reads is there, whole (a file
/// system; on S3 the run looks before its first load).
fn check_present(
    config: &Config,
    settings: &Settings,
    plan: &RunPlan,
    ranks: usize,
) -> Result<(), String> {
    if plan.writes > 0 || plan.reads == 0 || config.storage.storage_type == StorageType::S3 {
        return Ok(());
    }
    for rank in 0..ranks {
        let source = (rank + plan.shift) % ranks;
        for k in 1..=plan.reads {
            let dir = checkpoint_dir(&settings.folder, 1, k);
            for (stem, size) in files_of(settings, source, ranks) {
                let path = format!("{dir}/{stem}.pt");
                match std::fs::metadata(&path) {
                    Ok(m) if m.len() == size => {}
                    _ => {
                        return Err(format!(
                            "{path} is missing or not {size} bytes: {} checkpoint(s) to read and none to write (write them first, keeping them: pario.keep_checkpoints=true)",
                            plan.reads
                        ))
                    }
                }
            }
        }
    }
    Ok(())
}

/// DLIO's checks of a checkpoint run on `ranks` ranks (`per_node` of them
/// on this node), and pario's: the checkpoints a run reads are there, and
/// the target holds every checkpoint the run writes (a file system's free
/// space; not known on S3). One line each.
pub fn check(
    config: &Config,
    options: &ParioOptions,
    backend: &Choice,
    root: Option<&str>,
    ranks: usize,
    per_node: usize,
) -> Result<(), String> {
    if !config.workflow.checkpoint {
        return Ok(());
    }
    if config.framework == Framework::Tensorflow {
        return Err("workload.framework=tensorflow with workload.workflow.checkpoint=True: DLIO saves with tf.train.Checkpoint, which pario does not model (framework=pytorch: torch.save)".into());
    }
    let settings = settings_of(config, options, backend, root)?;
    settings
        .model
        .check(ranks as u64)
        .map_err(|e| format!("workload.{e}"))?;
    let c = &config.checkpoint;
    if c.num_checkpoints_write > 0 && c.num_checkpoints_read > c.num_checkpoints_write {
        return Err(format!(
            "workload.checkpoint.num_checkpoints_read={} is more than num_checkpoints_write={}",
            c.num_checkpoints_read, c.num_checkpoints_write
        ));
    }
    if !config.workflow.train {
        check_present(
            config,
            &settings,
            &plan_of(config, options, per_node),
            ranks,
        )?;
    }
    // Training's checkpoints are counted by the training side.
    let writes = match config.workflow.train {
        true => 0,
        false => c.num_checkpoints_write.max(0) as u64,
    };
    if writes == 0 || config.storage.storage_type == StorageType::S3 {
        return Ok(());
    }
    let (bytes, files) = bytes_per_checkpoint(&settings, ranks);
    let need = bytes.saturating_mul(writes);
    let Some(dir) = existing(&settings.folder) else {
        return Ok(());
    };
    let free = rustix::fs::statvfs(dir).map(|s| s.f_bavail * s.f_frsize);
    match free {
        Ok(free) if free < need => Err(format!(
            "workload {}: {writes} checkpoint(s) of {} ({files} files, {ranks} ranks) need {}, and {} has {} free",
            config.model.name,
            human_bytes(bytes),
            human_bytes(need),
            dir.display(),
            human_bytes(free)
        )),
        _ => Ok(()),
    }
}
