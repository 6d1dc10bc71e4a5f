//! DLIO's workload schema, typed, with the defaults of its
//! `mlperf_storage_v2.0` branch (utils/config.py, `ConfigArguments`). The
//! keys that set these fields are [`super::keys::KEYS`].

use serde::Serialize;

use super::value::Value;

/// An enumeration whose YAML spelling is its name.
macro_rules! named {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }

            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
    };
}

named!(Framework { Tensorflow => "tensorflow", Pytorch => "pytorch" });

named!(
    /// `dataset.format`.
    Format {
        Tfrecord => "tfrecord",
        Hdf5 => "hdf5",
        Csv => "csv",
        Npz => "npz",
        Npy => "npy",
        Hdf5Opt => "hdf5_opt",
        Jpeg => "jpeg",
        Png => "png",
        IndexedBinary => "indexed_binary",
        MmapIndexedBinary => "mmap_indexed_binary",
        Synthetic => "synthetic",
    }
);

named!(
    /// `reader.data_loader`.
    DataLoader {
        Tensorflow => "tensorflow",
        Pytorch => "pytorch",
        Dali => "dali",
        NativeDali => "native_dali",
        Custom => "custom",
        None => "none",
        Synthetic => "synthetic",
    }
);

named!(Sampler { Iterative => "iterative", Index => "index", None => "none" });
named!(Shuffle { Off => "off", Seed => "seed", Random => "random" });
named!(ReadType { Memory => "memory", OnDemand => "on_demand" });
named!(FileAccess {
    Multi => "multi",
    Shared => "shared",
    Collective => "collective",
    Mpio => "mpio",
    Posix => "posix",
});
named!(Compression {
    None => "none",
    Gzip => "gzip",
    Lzf => "lzf",
    Bz2 => "bz2",
    Zip => "zip",
    Xz => "xz",
});
named!(Profiler {
    None => "none",
    Iostat => "iostat",
    Darshan => "darshan",
    Tensorboard => "tensorboard",
});
named!(StorageType { LocalFs => "local_fs", ParallelFs => "parallel_fs", S3 => "s3" });
named!(CheckpointType { RankZero => "rank_zero", AllRanks => "all_ranks" });
named!(CheckpointMode { Default => "default", Subset => "subset" });

/// A duration DLIO sleeps (`train.computation_time`, `evaluation.eval_time`,
/// `reader.preprocess_time`): a number, or a mapping with `mean`/`stdev`
/// or a `type` and its parameters (utility.py `sleep`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Draw {
    /// Nothing given: no sleep.
    #[default]
    None,
    /// `mean` alone: exactly that.
    Fixed {
        mean: f64,
    },
    /// `mean` and `stdev`, or `type: normal`: `|normal(mean, stdev)|`.
    Normal {
        mean: f64,
        stdev: f64,
    },
    Uniform {
        min: f64,
        max: f64,
    },
    Gamma {
        shape: f64,
        scale: f64,
    },
    Exponential {
        scale: f64,
    },
    Poisson {
        lam: f64,
    },
}

impl Draw {
    /// The seconds to sleep, drawn as DLIO draws them from numpy's global
    /// state, absolute value taken.
    pub fn seconds(&self, rs: &mut crate::dlio::random_state::RandomState) -> f64 {
        let t = match *self {
            Draw::None => 0.0,
            Draw::Fixed { mean } => mean,
            Draw::Normal { mean, stdev } => rs.normal(mean, stdev),
            Draw::Uniform { min, max } => rs.uniform(min, max),
            Draw::Gamma { shape, scale } => rs.gamma(shape, scale),
            Draw::Exponential { scale } => rs.exponential(scale),
            Draw::Poisson { lam } => rs.poisson(lam) as f64,
        };
        t.abs()
    }

    /// The mean, as DLIO reports it (`computation_time` of `GetConfig`).
    pub fn mean(&self) -> f64 {
        match *self {
            Draw::None => 0.0,
            Draw::Fixed { mean } | Draw::Normal { mean, .. } => mean,
            Draw::Uniform { min, max } => (min + max) / 2.0,
            Draw::Gamma { shape, scale } => shape * scale,
            Draw::Exponential { scale } => scale,
            Draw::Poisson { lam } => lam,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Parallelism {
    pub tensor: u64,
    pub pipeline: u64,
    /// -1: derived from the ranks.
    pub data: i64,
    pub zero_stage: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transformer {
    pub vocab_size: u64,
    pub hidden_size: u64,
    pub ffn_hidden_size: u64,
    pub num_attention_heads: u64,
    pub num_kv_heads: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Model {
    pub name: String,
    pub r#type: Option<String>,
    pub model_size_bytes: u64,
    /// `model.model_size`: the key the unet3d workloads use, which DLIO
    /// does not read (see `Departure::ModelSize`).
    pub model_size: Option<u64>,
    pub model_datatype: String,
    pub optimizer_datatype: String,
    pub num_layers: i64,
    pub optimization_groups: Vec<u64>,
    pub layer_parameters: Vec<u64>,
    pub parallelism: Parallelism,
    pub transformer: Transformer,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Workflow {
    pub generate_data: bool,
    pub train: bool,
    pub evaluation: bool,
    pub checkpoint: bool,
    pub profiling: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dataset {
    /// A number in bytes; a float in the resnet50 workloads (114660.07).
    pub record_length_bytes: f64,
    pub record_length_bytes_stdev: f64,
    pub record_length_bytes_resize: f64,
    pub num_files_train: u64,
    pub num_files_eval: u64,
    pub num_samples_per_file: u64,
    /// Without a trailing '/' (DLIO strips it).
    pub data_folder: String,
    pub num_subfolders_train: u64,
    pub num_subfolders_eval: u64,
    pub format: Format,
    pub file_prefix: String,
    pub compression: Compression,
    pub compression_level: u64,
    pub enable_chunking: bool,
    pub chunk_size: u64,
    pub generation_buffer_size: u64,
    pub keep_files: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reader {
    /// `None`: not set (DLIO's default is a string no loader matches).
    pub data_loader: Option<DataLoader>,
    pub batch_size: u64,
    pub batch_size_eval: u64,
    pub read_threads: u64,
    pub computation_threads: u64,
    pub prefetch_size: u64,
    pub file_shuffle: Shuffle,
    /// Whether the workload set `file_shuffle` at all (DLIO shuffles files
    /// whenever it is set, even to `off`: `Departure::FileShuffle`).
    pub file_shuffle_given: bool,
    pub sample_shuffle: Shuffle,
    pub shuffle_size: u64,
    pub read_type: ReadType,
    /// Whether the workload set `read_type` at all (`Departure::ReadType`).
    pub read_type_given: bool,
    pub file_access: FileAccess,
    /// `None`: TensorFlow's default (256 KiB).
    pub transfer_size: Option<u64>,
    pub preprocess_time: Draw,
    pub odirect: bool,
    pub pin_memory: bool,
    pub multiprocessing_context: String,
    pub dont_use_mmap: bool,
    pub data_loader_sampler: Option<Sampler>,
    /// Python classes DLIO would import: not modelled.
    pub reader_classname: Option<String>,
    pub data_loader_classname: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Train {
    pub epochs: u64,
    /// -1: every step of an epoch.
    pub total_training_steps: i64,
    pub seed_change_epoch: bool,
    pub computation_time: Draw,
    pub seed: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    pub eval_time: Draw,
    pub eval_after_epoch: u64,
    pub epochs_between_evals: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ksm {
    pub madv_mergeable_id: u64,
    pub high_ram_trigger: f64,
    pub low_ram_exit: f64,
    pub await_time: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checkpoint {
    /// Without a trailing '/'.
    pub checkpoint_folder: String,
    pub checkpoint_after_epoch: u64,
    pub epochs_between_checkpoints: u64,
    pub steps_between_checkpoints: i64,
    pub r#type: CheckpointType,
    /// What the YAML says; DLIO never applies it (`Departure::CheckpointFsync`).
    pub fsync: bool,
    pub time_between_checkpoints: f64,
    pub num_checkpoints_write: i64,
    pub num_checkpoints_read: i64,
    pub recovery_rank_shift: bool,
    pub rank_sync: bool,
    pub mode: CheckpointMode,
    pub randomize_tensor: bool,
    /// Present when the workload has a `ksm` section.
    pub ksm: Option<Ksm>,
    /// A Python class DLIO would import: not modelled.
    pub checkpoint_mechanism_classname: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    /// `None`: Hydra's run directory.
    pub folder: Option<String>,
    pub log_file: String,
    pub exclude_start_steps: u64,
    pub exclude_end_steps: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profiling {
    pub profiler: Profiler,
    pub iostat_devices: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Storage {
    pub storage_type: StorageType,
    pub storage_root: String,
}

/// A workload, every key typed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    pub model: Model,
    pub framework: Framework,
    pub workflow: Workflow,
    pub dataset: Dataset,
    pub reader: Reader,
    pub train: Train,
    pub evaluation: Evaluation,
    pub checkpoint: Checkpoint,
    pub output: Output,
    pub profiling: Profiling,
    /// `metric.au`: the AU a run must reach (a fraction).
    pub au: f64,
    pub storage: Storage,
}

impl Default for Model {
    fn default() -> Model {
        Model {
            name: "default".into(),
            r#type: None,
            model_size_bytes: 10240,
            model_size: None,
            model_datatype: "fp16".into(),
            optimizer_datatype: "fp32".into(),
            num_layers: -1,
            optimization_groups: vec![],
            layer_parameters: vec![],
            parallelism: Parallelism {
                tensor: 1,
                pipeline: 1,
                data: -1,
                zero_stage: 0,
            },
            transformer: Transformer {
                vocab_size: 32000,
                hidden_size: 2048,
                ffn_hidden_size: 8192,
                num_attention_heads: 32,
                num_kv_heads: 8,
            },
        }
    }
}

impl Default for Dataset {
    fn default() -> Dataset {
        Dataset {
            record_length_bytes: 65536.0,
            record_length_bytes_stdev: 0.0,
            record_length_bytes_resize: 0.0,
            num_files_train: 8,
            num_files_eval: 0,
            num_samples_per_file: 1,
            data_folder: "./data".into(),
            num_subfolders_train: 0,
            num_subfolders_eval: 0,
            format: Format::Tfrecord,
            file_prefix: "img".into(),
            compression: Compression::None,
            compression_level: 4,
            enable_chunking: false,
            chunk_size: 0,
            generation_buffer_size: 2 * 1024 * 1024 * 1024,
            keep_files: true,
        }
    }
}

impl Default for Reader {
    fn default() -> Reader {
        Reader {
            data_loader: None,
            batch_size: 1,
            batch_size_eval: 1,
            read_threads: 1,
            computation_threads: 1,
            prefetch_size: 2,
            file_shuffle: Shuffle::Off,
            file_shuffle_given: false,
            sample_shuffle: Shuffle::Off,
            shuffle_size: 1024,
            read_type: ReadType::OnDemand,
            read_type_given: false,
            file_access: FileAccess::Multi,
            transfer_size: None,
            preprocess_time: Draw::None,
            odirect: false,
            pin_memory: true,
            multiprocessing_context: "fork".into(),
            dont_use_mmap: false,
            data_loader_sampler: None,
            reader_classname: None,
            data_loader_classname: None,
        }
    }
}

impl Default for Checkpoint {
    fn default() -> Checkpoint {
        Checkpoint {
            checkpoint_folder: "./checkpoints".into(),
            checkpoint_after_epoch: 1,
            epochs_between_checkpoints: 1,
            steps_between_checkpoints: -1,
            r#type: CheckpointType::RankZero,
            fsync: false,
            time_between_checkpoints: -1.0,
            num_checkpoints_write: -1,
            num_checkpoints_read: -1,
            recovery_rank_shift: false,
            rank_sync: false,
            mode: CheckpointMode::Default,
            randomize_tensor: true,
            ksm: None,
            checkpoint_mechanism_classname: None,
        }
    }
}

impl Default for Config {
    /// M's defaults (config.py:44-171).
    fn default() -> Config {
        Config {
            model: Model::default(),
            framework: Framework::Tensorflow,
            workflow: Workflow {
                generate_data: false,
                train: true,
                evaluation: false,
                checkpoint: false,
                profiling: false,
            },
            dataset: Dataset::default(),
            reader: Reader::default(),
            train: Train {
                epochs: 1,
                total_training_steps: -1,
                seed_change_epoch: true,
                computation_time: Draw::None,
                seed: 123,
            },
            evaluation: Evaluation {
                eval_time: Draw::None,
                eval_after_epoch: 1,
                epochs_between_evals: 1,
            },
            checkpoint: Checkpoint::default(),
            output: Output {
                folder: None,
                log_file: "dlio.log".into(),
                exclude_start_steps: 1,
                exclude_end_steps: 0,
            },
            profiling: Profiling {
                profiler: Profiler::Iostat,
                iostat_devices: vec![],
            },
            au: 0.90,
            storage: Storage {
                storage_type: StorageType::LocalFs,
                storage_root: "./".into(),
            },
        }
    }
}

impl Config {
    /// `dim = int(sqrt(record_length))` (config.py:312).
    pub fn dimension(&self) -> u64 {
        self.dataset.record_length_bytes.sqrt() as u64
    }

    /// `dstd = stdev / 2 / sqrt(record_length)` (config.py:313).
    pub fn dimension_stdev(&self) -> f64 {
        self.dataset.record_length_bytes_stdev / 2.0 / self.dataset.record_length_bytes.sqrt()
    }

    /// `max_dimension`: from `record_length_bytes_resize` when set.
    pub fn max_dimension(&self) -> u64 {
        if self.dataset.record_length_bytes_resize > 0.0 {
            self.dataset.record_length_bytes_resize.sqrt() as u64
        } else {
            self.dimension()
        }
    }
}

/// A value of a number key as a float (YAML ints and floats).
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(x) if x.is_finite() => Some(*x),
        _ => None,
    }
}
