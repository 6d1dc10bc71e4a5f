//! Every key of DLIO's workload schema, in one table: how its value is
//! typed into [`Config`], and whether pario models it. A key outside the
//! table is refused in one line; so is a key pario does not model when it
//! leaves DLIO's default. Adding a key is one row.

use super::schema::*;
use super::typing::*;
use super::value::{Map, Value};

/// How far pario follows a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// pario does with it what DLIO does.
    Modelled,
    /// DLIO reads it and nothing follows from it (as in DLIO): accepted.
    NoEffect,
    /// Not modelled: accepted only at DLIO's default, refused otherwise.
    NotModelled(&'static str),
}

/// One key of the schema.
pub struct Key {
    /// Below `workload.`: `dataset.num_files_train`.
    pub path: &'static str,
    /// Takes a whole mapping (`train.computation_time: {mean: 1, stdev: 0.1}`)
    /// as well as a plain value.
    pub tree: bool,
    pub set: fn(&mut Config, &Value) -> Result<(), String>,
    pub support: Support,
}

const fn key(path: &'static str, set: fn(&mut Config, &Value) -> Result<(), String>) -> Key {
    Key {
        path,
        tree: false,
        set,
        support: Support::Modelled,
    }
}

const fn tree(path: &'static str, set: fn(&mut Config, &Value) -> Result<(), String>) -> Key {
    Key {
        tree: true,
        ..key(path, set)
    }
}

const fn no_effect(k: Key) -> Key {
    Key {
        support: Support::NoEffect,
        ..k
    }
}

const fn not_modelled(k: Key, why: &'static str) -> Key {
    Key {
        support: Support::NotModelled(why),
        ..k
    }
}

const CLASSES: &str = "Python classes cannot be loaded by pario";

/// The schema of M (utils/config.py `LoadConfig`), section by section.
pub static KEYS: &[Key] = &[
    key("model.name", |c, v| put(&mut c.model.name, text(v))),
    key("model.type", |c, v| {
        put(&mut c.model.r#type, optional_text(v))
    }),
    key("model.model_size_bytes", |c, v| {
        put(&mut c.model.model_size_bytes, count(v))
    }),
    key("model.model_size", |c, v| {
        put(&mut c.model.model_size, count(v).map(Some))
    }),
    key("model.model_datatype", |c, v| {
        put(&mut c.model.model_datatype, text(v))
    }),
    key("model.optimizer_datatype", |c, v| {
        put(&mut c.model.optimizer_datatype, text(v))
    }),
    key("model.num_layers", |c, v| {
        put(&mut c.model.num_layers, signed(v))
    }),
    key("model.optimization_groups", |c, v| {
        put(&mut c.model.optimization_groups, counts(v))
    }),
    key("model.layer_parameters", |c, v| {
        put(&mut c.model.layer_parameters, counts(v))
    }),
    key("model.parallelism.tensor", |c, v| {
        put(&mut c.model.parallelism.tensor, count(v))
    }),
    key("model.parallelism.pipeline", |c, v| {
        put(&mut c.model.parallelism.pipeline, count(v))
    }),
    key("model.parallelism.data", |c, v| {
        put(&mut c.model.parallelism.data, signed(v))
    }),
    key("model.parallelism.zero_stage", |c, v| {
        put(&mut c.model.parallelism.zero_stage, count(v))
    }),
    key("model.transformer.vocab_size", |c, v| {
        put(&mut c.model.transformer.vocab_size, count(v))
    }),
    key("model.transformer.hidden_size", |c, v| {
        put(&mut c.model.transformer.hidden_size, count(v))
    }),
    key("model.transformer.ffn_hidden_size", |c, v| {
        put(&mut c.model.transformer.ffn_hidden_size, count(v))
    }),
    key("model.transformer.num_attention_heads", |c, v| {
        put(&mut c.model.transformer.num_attention_heads, count(v))
    }),
    key("model.transformer.num_kv_heads", |c, v| {
        put(&mut c.model.transformer.num_kv_heads, count(v))
    }),
    key("framework", |c, v| {
        put(
            &mut c.framework,
            one_of(v, Framework::parse, Framework::NAMES),
        )
    }),
    key("workflow.generate_data", |c, v| {
        put(&mut c.workflow.generate_data, boolean(v))
    }),
    key("workflow.train", |c, v| {
        put(&mut c.workflow.train, boolean(v))
    }),
    key("workflow.evaluation", |c, v| {
        put(&mut c.workflow.evaluation, boolean(v))
    }),
    key("workflow.checkpoint", |c, v| {
        put(&mut c.workflow.checkpoint, boolean(v))
    }),
    key("workflow.profiling", |c, v| {
        put(&mut c.workflow.profiling, boolean(v))
    }),
    // DLIO's bert workload has it; DLIO reads nothing of it.
    no_effect(key("workflow.debug", |_, v| boolean(v).map(|_| ()))),
    key("dataset.record_length_bytes", |c, v| {
        put(&mut c.dataset.record_length_bytes, float(v))
    }),
    key("dataset.record_length_bytes_stdev", |c, v| {
        put(&mut c.dataset.record_length_bytes_stdev, float(v))
    }),
    key("dataset.record_length_bytes_resize", |c, v| {
        put(&mut c.dataset.record_length_bytes_resize, float(v))
    }),
    key("dataset.num_files_train", |c, v| {
        put(&mut c.dataset.num_files_train, count(v))
    }),
    key("dataset.num_files_eval", |c, v| {
        put(&mut c.dataset.num_files_eval, count(v))
    }),
    key("dataset.generation_buffer_size", |c, v| {
        put(&mut c.dataset.generation_buffer_size, count(v))
    }),
    key("dataset.num_samples_per_file", |c, v| {
        put(&mut c.dataset.num_samples_per_file, count(v))
    }),
    key("dataset.data_folder", |c, v| {
        put(
            &mut c.dataset.data_folder,
            text(v).map(|s| s.trim_end_matches('/').to_string()),
        )
    }),
    key("dataset.num_subfolders_train", |c, v| {
        put(&mut c.dataset.num_subfolders_train, count(v))
    }),
    key("dataset.num_subfolders_eval", |c, v| {
        put(&mut c.dataset.num_subfolders_eval, count(v))
    }),
    not_modelled(
        key("dataset.enable_chunking", |c, v| {
            put(&mut c.dataset.enable_chunking, boolean(v))
        }),
        "HDF5 chunking is not modelled",
    ),
    not_modelled(
        key("dataset.chunk_size", |c, v| {
            put(&mut c.dataset.chunk_size, count(v))
        }),
        "HDF5 chunking is not modelled",
    ),
    not_modelled(
        key("dataset.compression", |c, v| {
            put(
                &mut c.dataset.compression,
                one_of(v, Compression::parse, Compression::NAMES),
            )
        }),
        "compressed datasets are not modelled",
    ),
    key("dataset.compression_level", |c, v| {
        put(&mut c.dataset.compression_level, count(v))
    }),
    key("dataset.file_prefix", |c, v| {
        put(&mut c.dataset.file_prefix, text(v))
    }),
    key("dataset.format", |c, v| {
        put(
            &mut c.dataset.format,
            one_of(v, Format::parse, Format::NAMES),
        )
    }),
    key("dataset.keep_files", |c, v| {
        put(&mut c.dataset.keep_files, boolean(v))
    }),
    no_effect(key("reader.dont_use_mmap", |c, v| {
        put(&mut c.reader.dont_use_mmap, boolean(v))
    })),
    not_modelled(
        key("reader.reader_classname", |c, v| {
            put(&mut c.reader.reader_classname, optional_text(v))
        }),
        CLASSES,
    ),
    no_effect(key("reader.multiprocessing_context", |c, v| {
        put(&mut c.reader.multiprocessing_context, text(v))
    })),
    key("reader.data_loader", |c, v| {
        put(
            &mut c.reader.data_loader,
            one_of(v, DataLoader::parse, DataLoader::NAMES).map(Some),
        )
    }),
    not_modelled(
        key("reader.data_loader_classname", |c, v| {
            put(&mut c.reader.data_loader_classname, optional_text(v))
        }),
        CLASSES,
    ),
    key("reader.data_loader_sampler", |c, v| {
        put(
            &mut c.reader.data_loader_sampler,
            one_of(v, Sampler::parse, Sampler::NAMES).map(Some),
        )
    }),
    key("reader.read_threads", |c, v| {
        put(&mut c.reader.read_threads, count(v))
    }),
    key("reader.computation_threads", |c, v| {
        put(&mut c.reader.computation_threads, count(v))
    }),
    key("reader.batch_size", |c, v| {
        put(&mut c.reader.batch_size, count(v))
    }),
    key("reader.batch_size_eval", |c, v| {
        put(&mut c.reader.batch_size_eval, count(v))
    }),
    key("reader.prefetch_size", |c, v| {
        put(&mut c.reader.prefetch_size, count(v))
    }),
    key("reader.file_shuffle", |c, v| {
        c.reader.file_shuffle = shuffle(v)?;
        c.reader.file_shuffle_given = true;
        Ok(())
    }),
    key("reader.file_access", |c, v| {
        put(
            &mut c.reader.file_access,
            one_of(v, FileAccess::parse, FileAccess::NAMES),
        )
    }),
    key("reader.shuffle_size", |c, v| {
        put(&mut c.reader.shuffle_size, count(v))
    }),
    key("reader.sample_shuffle", |c, v| {
        put(&mut c.reader.sample_shuffle, shuffle(v))
    }),
    key("reader.read_type", |c, v| {
        c.reader.read_type = one_of(v, ReadType::parse, ReadType::NAMES)?;
        c.reader.read_type_given = true;
        Ok(())
    }),
    key("reader.transfer_size", |c, v| {
        put(
            &mut c.reader.transfer_size,
            match v {
                Value::Null => Ok(None),
                v => count(v).map(Some),
            },
        )
    }),
    tree("reader.preprocess_time", |c, v| {
        put(&mut c.reader.preprocess_time, draw(v))
    }),
    key("reader.preprocess_time_stdev", |c, v| {
        with_stdev(&mut c.reader.preprocess_time, v)
    }),
    key("reader.odirect", |c, v| {
        put(&mut c.reader.odirect, boolean(v))
    }),
    // No accelerator: pinned memory has no meaning here.
    no_effect(key("reader.pin_memory", |c, v| {
        put(&mut c.reader.pin_memory, boolean(v))
    })),
    key("train.epochs", |c, v| put(&mut c.train.epochs, count(v))),
    key("train.total_training_steps", |c, v| {
        put(&mut c.train.total_training_steps, signed(v))
    }),
    key("train.seed_change_epoch", |c, v| {
        put(&mut c.train.seed_change_epoch, boolean(v))
    }),
    tree("train.computation_time", |c, v| {
        put(&mut c.train.computation_time, draw(v))
    }),
    key("train.computation_time_stdev", |c, v| {
        with_stdev(&mut c.train.computation_time, v)
    }),
    key("train.seed", |c, v| put(&mut c.train.seed, count(v))),
    tree("evaluation.eval_time", |c, v| {
        put(&mut c.evaluation.eval_time, draw(v))
    }),
    key("evaluation.eval_time_stdev", |c, v| {
        with_stdev(&mut c.evaluation.eval_time, v)
    }),
    key("evaluation.eval_after_epoch", |c, v| {
        put(&mut c.evaluation.eval_after_epoch, count(v))
    }),
    key("evaluation.epochs_between_evals", |c, v| {
        put(&mut c.evaluation.epochs_between_evals, count(v))
    }),
    key("checkpoint.checkpoint_folder", |c, v| {
        put(
            &mut c.checkpoint.checkpoint_folder,
            text(v).map(|s| s.trim_end_matches('/').to_string()),
        )
    }),
    key("checkpoint.checkpoint_after_epoch", |c, v| {
        put(&mut c.checkpoint.checkpoint_after_epoch, count(v))
    }),
    key("checkpoint.epochs_between_checkpoints", |c, v| {
        put(&mut c.checkpoint.epochs_between_checkpoints, count(v))
    }),
    key("checkpoint.steps_between_checkpoints", |c, v| {
        put(&mut c.checkpoint.steps_between_checkpoints, signed(v))
    }),
    // Read into DLIO's arguments and never used (M).
    no_effect(key("checkpoint.type", |c, v| {
        put(
            &mut c.checkpoint.r#type,
            one_of(v, CheckpointType::parse, CheckpointType::NAMES),
        )
    })),
    not_modelled(
        key("checkpoint.checkpoint_mechanism_classname", |c, v| {
            put(
                &mut c.checkpoint.checkpoint_mechanism_classname,
                optional_text(v),
            )
        }),
        CLASSES,
    ),
    key("checkpoint.fsync", |c, v| {
        put(&mut c.checkpoint.fsync, boolean(v))
    }),
    key("checkpoint.time_between_checkpoints", |c, v| {
        put(&mut c.checkpoint.time_between_checkpoints, float(v))
    }),
    key("checkpoint.num_checkpoints_write", |c, v| {
        put(&mut c.checkpoint.num_checkpoints_write, signed(v))
    }),
    key("checkpoint.num_checkpoints_read", |c, v| {
        put(&mut c.checkpoint.num_checkpoints_read, signed(v))
    }),
    key("checkpoint.recovery_rank_shift", |c, v| {
        put(&mut c.checkpoint.recovery_rank_shift, boolean(v))
    }),
    key("checkpoint.rank_sync", |c, v| {
        put(&mut c.checkpoint.rank_sync, boolean(v))
    }),
    key("checkpoint.mode", |c, v| {
        put(
            &mut c.checkpoint.mode,
            one_of(v, CheckpointMode::parse, CheckpointMode::NAMES),
        )
    }),
    key("checkpoint.randomize_tensor", |c, v| {
        put(&mut c.checkpoint.randomize_tensor, boolean(v))
    }),
    not_modelled(
        tree("checkpoint.ksm", ksm),
        "KSM memory merging is not modelled",
    ),
    key("output.folder", |c, v| {
        put(&mut c.output.folder, optional_text(v))
    }),
    key("output.log_file", |c, v| {
        put(&mut c.output.log_file, text(v))
    }),
    key("output.metric.exclude_start_steps", |c, v| {
        put(&mut c.output.exclude_start_steps, count(v))
    }),
    key("output.metric.exclude_end_steps", |c, v| {
        put(&mut c.output.exclude_end_steps, count(v))
    }),
    key("profiling.profiler", |c, v| {
        put(
            &mut c.profiling.profiler,
            one_of(v, Profiler::parse, Profiler::NAMES),
        )
    }),
    key("profiling.iostat_devices", |c, v| {
        put(
            &mut c.profiling.iostat_devices,
            match v {
                Value::List(items) => items.iter().map(text).collect(),
                v => text(v).map(|s| vec![s]),
            },
        )
    }),
    key("metric.au", |c, v| put(&mut c.au, float(v))),
    key("storage.storage_type", |c, v| {
        put(
            &mut c.storage.storage_type,
            one_of(v, StorageType::parse, StorageType::NAMES),
        )
    }),
    key("storage.storage_root", |c, v| {
        put(&mut c.storage.storage_root, text(v))
    }),
];

/// The row of a dotted path: the key itself, or a `tree` key above it.
pub fn find(path: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| {
        k.path == path
            || (k.tree
                && path
                    .strip_prefix(k.path)
                    .is_some_and(|rest| rest.starts_with('.')))
    })
}

/// The keys older DLIO releases spelled otherwise, with today's name.
fn renamed(path: &str) -> Option<&'static str> {
    match path {
        "dataset.record_length" => Some("dataset.record_length_bytes"),
        "dataset.record_length_stdev" => Some("dataset.record_length_bytes_stdev"),
        "dataset.record_length_resize" => Some("dataset.record_length_bytes_resize"),
        "checkpoint.model_size" => Some("model.model_size_bytes"),
        "model" => Some("model.name"),
        _ => None,
    }
}

/// Types the workload tree (below `workload:`) into a config: every key
/// known, every value of its type, every unmodelled key at its default.
pub fn typed(workload: &Map) -> Result<Config, String> {
    let mut tree = workload.clone();
    if let Some(alias) = tree.remove("data_reader") {
        // DLIO reads `data_reader` and then ignores `reader`.
        if tree.get("reader").is_some() {
            return Err("workload.data_reader and workload.reader are both given; DLIO reads only data_reader: keep one".into());
        }
        tree.insert("reader", alias);
    }
    for (path, _) in tree.leaves() {
        if find(&path).is_none() {
            let hint = renamed(&path)
                .map(|n| format!(" (this DLIO names it workload.{n})"))
                .unwrap_or_default();
            return Err(format!("unknown key workload.{path}{hint}"));
        }
    }
    let mut config = Config::default();
    for k in KEYS {
        let parts: Vec<&str> = k.path.split('.').collect();
        let Some(value) = tree.at(&parts) else {
            continue;
        };
        let shown = || format!("workload.{}={}", k.path, value);
        if !k.tree && matches!(value, Value::Map(m) if !m.0.is_empty()) {
            return Err(format!("workload.{} is a mapping, not a value", k.path));
        }
        (k.set)(&mut config, value).map_err(|e| format!("{}: {e}", shown()))?;
        if let Support::NotModelled(why) = k.support {
            let mut probe = Config::default();
            (k.set)(&mut probe, value).map_err(|e| format!("{}: {e}", shown()))?;
            if probe != Config::default() {
                return Err(format!("{}: not modelled by pario ({why})", shown()));
            }
        }
    }
    Ok(config)
}
