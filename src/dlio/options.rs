//! pario's own settings of a DLIO run, given as `pario.NAME=VALUE` beside
//! DLIO's overrides (real DLIO would add them to its config and read
//! nothing of them). One table: the places where DLIO's
//! `mlperf_storage_v2.0` code departs from its own workload files or from
//! MLPerf Storage's rules (pario follows the workload and the rules unless
//! told `dlio`), and the other choices pario makes.

use serde::Serialize;

use super::config::overrides::Override;
use super::config::value::Value;

/// A place where DLIO's code does not do what its workload or the rules say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Departure {
    /// unet3d's `model.model_size` (476 MiB) is not read: DLIO saves a
    /// 10 KiB model (`model_size_bytes`' default).
    ModelSize,
    /// `checkpoint.fsync: True` is stored under another name: DLIO never
    /// fsyncs a checkpoint, though the rules say it is enforced.
    CheckpointFsync,
    /// The PyTorch path ignores `sample_shuffle`: every epoch reads each
    /// rank's samples in ascending order.
    PytorchShuffle,
    /// Any `file_shuffle` given (even `off`) turns file shuffling on.
    FileShuffle,
    /// Any `read_type` given (even `on_demand`) loads each file once per
    /// reader and keeps it.
    ReadType,
    /// `checkpoint.recovery_rank_shift` is stored under another name and
    /// never applies.
    RecoveryRankShift,
    /// Training throughput leaves out the steps the AU leaves out
    /// (`(steps − 2)` over the windowed time); the rules count them.
    Throughput,
    /// TensorFlow's `list_files` sorts the shuffled file list back: the
    /// TFRecord path reads its files in name order whatever `file_shuffle`.
    TfFileOrder,
    /// A checkpoint's save or load takes rank 0's time, where the rules
    /// take the slowest rank's.
    CheckpointDuration,
}

/// Which one pario follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Follow {
    /// What the workload file and MLPerf Storage's rules say (default).
    Rules,
    /// What DLIO's `mlperf_storage_v2.0` code does.
    Dlio,
}

/// How generated files are filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Content {
    /// Incompressible bytes at memory speed (default).
    Fast,
    /// DLIO's own bytes: numpy's `randint(255)` stream from seed 10, per
    /// rank, so files equal DLIO's byte for byte for the same rank count.
    Exact,
}

/// One row of the table: a `pario.NAME` setting.
pub struct Setting {
    pub name: &'static str,
    pub values: &'static str,
    pub default: &'static str,
    pub help: &'static str,
    /// The departure it chooses for, if it is one.
    pub departure: Option<Departure>,
}

const fn departure(name: &'static str, d: Departure, help: &'static str) -> Setting {
    Setting {
        name,
        values: "rules|dlio",
        default: "rules",
        help,
        departure: Some(d),
    }
}

/// Every `pario.*` setting.
pub static SETTINGS: &[Setting] = &[
    Setting {
        name: "as",
        values: "rules|dlio",
        default: "rules",
        help: "every departure below at once: follow the workload and MLPerf's rules, or DLIO's mlperf_storage_v2.0 code (to compare with published results)",
        departure: None,
    },
    departure(
        "model_size",
        Departure::ModelSize,
        "rules: the model is model.model_size bytes when the workload gives it (unet3d: 476 MiB); dlio: model.model_size_bytes only (10 KiB)",
    ),
    departure(
        "checkpoint_fsync",
        Departure::CheckpointFsync,
        "rules: checkpoint.fsync fsyncs each checkpoint file; dlio: never",
    ),
    departure(
        "pytorch_shuffle",
        Departure::PytorchShuffle,
        "rules: sample_shuffle shuffles the PyTorch path's samples each epoch; dlio: ascending order",
    ),
    departure(
        "file_shuffle",
        Departure::FileShuffle,
        "rules: file_shuffle: off means off; dlio: any file_shuffle given shuffles",
    ),
    departure(
        "read_type",
        Departure::ReadType,
        "rules: read_type: on_demand reads each sample when asked; dlio: any read_type given keeps each file in memory once read",
    ),
    departure(
        "recovery_rank_shift",
        Departure::RecoveryRankShift,
        "rules: checkpoint.recovery_rank_shift shifts the ranks that read back; dlio: never applies",
    ),
    departure(
        "throughput",
        Departure::Throughput,
        "rules: training samples/s count every step over the whole epoch, as the rules define them; dlio: (steps - 2) over the time without the excluded steps",
    ),
    departure(
        "tf_file_order",
        Departure::TfFileOrder,
        "rules: file_shuffle shuffles the TFRecord files (numpy seeded seed+1); dlio: tf.data's list_files sorts them back into name order",
    ),
    departure(
        "checkpoint_duration",
        Departure::CheckpointDuration,
        "rules: a checkpoint's save or load lasts until its slowest rank is done; dlio: rank 0's own time",
    ),
    Setting {
        name: "keep_checkpoints",
        values: "auto|true|false",
        default: "auto",
        help: "checkpoints left on storage at the end: auto keeps them when the run writes and reads none (the read may be another run, as MLPerf's rules have it), else removes them; an interrupted run removes what it wrote",
        departure: None,
    },
    Setting {
        name: "checkpoint_cache",
        values: "evict|keep|refuse",
        default: "evict",
        help: "before a checkpoint load, the files' pages in this node's page cache: evict drops them (and marks the load when they stay: tmpfs), keep leaves them (and marks the load), refuse drops them and stops the run when they stay",
        departure: None,
    },
    Setting {
        name: "checkpoint_requests",
        values: "torch|SIZE",
        default: "torch",
        help: "torch: the write and read requests torch.save and torch.load make (one per tensor, up to Linux's 2 GiB); SIZE: the same, none above SIZE bytes (less memory per rank)",
        departure: None,
    },
    Setting {
        name: "checkpoint_odirect",
        values: "true|false",
        default: "false",
        help: "checkpoint files written and read with O_DIRECT (a file system), in aligned requests of checkpoint_requests (16 MiB unless given), each file padded to 4 KiB: pario's pattern, DLIO has no O_DIRECT for checkpoints",
        departure: None,
    },
    Setting {
        name: "checkpoint_read_shift",
        values: "N",
        default: "0",
        help: "rank r loads the checkpoint files rank r+N wrote (0: its own; checkpoint.recovery_rank_shift: the ranks of one node, to read from another node)",
        departure: None,
    },
    Setting {
        name: "content",
        values: "fast|exact",
        default: "fast",
        help: "generated bytes: fast, incompressible at memory speed; exact, DLIO's numpy stream (seed 10), byte for byte DLIO's files for the same rank count",
        departure: None,
    },
];

/// The settings of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParioOptions {
    /// Per departure, which one is followed.
    pub follow: Vec<(Departure, Follow)>,
    pub content: Content,
    /// The checkpoint workload's (`keep_checkpoints`, `checkpoint_*`).
    pub checkpoint: CheckpointOptions,
}

/// pario's settings of checkpoint runs.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct CheckpointOptions {
    /// `None`: auto.
    pub keep: Option<bool>,
    pub cache: String,
    /// `None`: torch's requests; else the largest request.
    pub max_request: Option<u64>,
    /// `None`: from `checkpoint.recovery_rank_shift`.
    pub read_shift: Option<u64>,
    pub odirect: bool,
}

impl Default for ParioOptions {
    fn default() -> ParioOptions {
        ParioOptions {
            follow: SETTINGS
                .iter()
                .filter_map(|s| s.departure)
                .map(|d| (d, Follow::Rules))
                .collect(),
            content: Content::Fast,
            checkpoint: CheckpointOptions {
                cache: "evict".into(),
                ..CheckpointOptions::default()
            },
        }
    }
}

/// Whether `value` is one `values` allows: a word of them, or a size
/// (`SIZE`) or count (`N`) where they say so.
fn allowed(values: &str, value: &str) -> bool {
    values.split('|').any(|v| match v {
        "SIZE" => crate::units::parse_size(value).is_ok_and(|n| n > 0),
        "N" => value.parse::<u64>().is_ok(),
        _ => v == value,
    })
}

impl ParioOptions {
    /// Which one pario follows at `d`.
    pub fn follows(&self, d: Departure) -> Follow {
        self.follow
            .iter()
            .find(|(x, _)| *x == d)
            .map_or(Follow::Rules, |(_, f)| *f)
    }

    /// The settings from `pario.*` overrides, in order (a later one wins).
    pub fn from_overrides(overrides: &[Override]) -> Result<ParioOptions, String> {
        let mut options = ParioOptions::default();
        for o in overrides {
            let name = o.key[1..].join(".");
            let setting = SETTINGS.iter().find(|s| s.name == name).ok_or_else(|| {
                let names: Vec<_> = SETTINGS.iter().map(|s| s.name).collect();
                format!(
                    "'{}': pario has no setting {name} (pario.{})",
                    o.text,
                    names.join(", pario.")
                )
            })?;
            let value = match &o.value {
                Some(Value::Str(s)) => s.clone(),
                Some(Value::Int(i)) => i.to_string(),
                Some(Value::Bool(b)) => b.to_string(),
                _ => String::new(),
            };
            let value = value.as_str();
            if !allowed(setting.values, value) {
                return Err(format!(
                    "'{}': pario.{name} takes {}",
                    o.text, setting.values
                ));
            }
            options.set(setting, value);
        }
        Ok(options)
    }

    fn set(&mut self, setting: &Setting, value: &str) {
        let follow = if value == "dlio" {
            Follow::Dlio
        } else {
            Follow::Rules
        };
        let ck = &mut self.checkpoint;
        match (setting.name, setting.departure) {
            ("keep_checkpoints", _) => ck.keep = value.parse().ok(),
            ("checkpoint_cache", _) => ck.cache = value.into(),
            ("checkpoint_requests", _) => {
                ck.max_request = crate::units::parse_size(value).ok();
            }
            ("checkpoint_read_shift", _) => ck.read_shift = value.parse().ok(),
            ("checkpoint_odirect", _) => ck.odirect = value == "true",
            ("content", _) => {
                self.content = if value == "exact" {
                    Content::Exact
                } else {
                    Content::Fast
                }
            }
            (_, Some(d)) => {
                for (x, f) in &mut self.follow {
                    if *x == d {
                        *f = follow;
                    }
                }
            }
            _ => {
                for (_, f) in &mut self.follow {
                    *f = follow;
                }
            }
        }
    }

    /// One line saying which side this run follows where DLIO departs
    /// from its workload files and the rules.
    pub fn describe(&self) -> String {
        let name = |d: Departure| {
            SETTINGS
                .iter()
                .find(|s| s.departure == Some(d))
                .map_or("?", |s| s.name)
        };
        let dlio: Vec<&str> = self
            .follow
            .iter()
            .filter(|(_, f)| *f == Follow::Dlio)
            .map(|(d, _)| name(*d))
            .collect();
        match dlio.len() {
            0 => "follows the workload and MLPerf Storage's rules where DLIO's code departs from them (pario.as=dlio: DLIO's behaviour)".into(),
            n if n == self.follow.len() => "follows DLIO mlperf_storage_v2.0's code where it departs from its workload files and MLPerf Storage's rules (pario.as=dlio)".into(),
            _ => format!(
                "follows DLIO mlperf_storage_v2.0's code for {} and the workload and MLPerf Storage's rules elsewhere",
                dlio.join(", ")
            ),
        }
    }
}

/// The table as help text.
pub fn help() -> String {
    let mut out = String::from("pario's own settings (pario.NAME=VALUE; DLIO ignores them):\n");
    for s in SETTINGS {
        out.push_str(&format!(
            "  pario.{}={} (default {})\n      {}\n",
            s.name, s.values, s.default, s.help
        ));
    }
    out
}
