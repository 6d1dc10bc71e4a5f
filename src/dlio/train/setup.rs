//! From the typed configuration to a training plan: the loader, reader and
//! sampler DLIO would use, with pario's settings deciding each departure;
//! what pario does not model is refused in one line naming the key.

use super::plan::{CheckpointPlan, EvalPlan, Reading, TrainPlan};
use super::read::{ReadOptions, SampleFormat};
use super::sampler::{self, Loader, Sharding, Shuffle};
use crate::dlio::config::schema::{self, Config, DataLoader, Format, ReadType};
use crate::dlio::metrics::Window;
use crate::dlio::options::{Departure, Follow, ParioOptions};

/// tf.data's TFRecord buffer when `transfer_size` is not given.
pub const TF_DEFAULT_BUFFER: u64 = 256 * 1024;

fn loader_of(config: &Config) -> Result<Loader, String> {
    match config.reader.data_loader {
        Some(DataLoader::Pytorch) => Ok(Loader::PyTorch),
        Some(DataLoader::Tensorflow) => Ok(Loader::TensorFlow),
        Some(other) => Err(format!(
            "workload.reader.data_loader={}: not modelled by pario (pytorch and tensorflow are)",
            other.name()
        )),
        None => Err("workload.reader.data_loader: not set (DLIO's default matches no loader: set pytorch or tensorflow)".into()),
    }
}

/// The per-sample reader of a PyTorch run.
fn sample_format(config: &Config) -> Result<SampleFormat, String> {
    let format = config.dataset.format;
    let f = match format {
        Format::Npz => SampleFormat::Npz,
        Format::Npy => SampleFormat::Npy,
        Format::Jpeg => SampleFormat::Jpeg,
        Format::Png => SampleFormat::Png,
        Format::Csv => SampleFormat::Csv,
        Format::IndexedBinary => SampleFormat::IndexedBinary,
        Format::MmapIndexedBinary => SampleFormat::MmapIndexedBinary,
        _ => {
            return Err(format!(
                "workload.dataset.format={}: training on it is not modelled by pario yet",
                format.name()
            ))
        }
    };
    if config.reader.odirect && !matches!(f, SampleFormat::Npz | SampleFormat::Npy) {
        return Err(format!(
            "workload.reader.odirect=True: DLIO has no O_DIRECT reader of {} (npz and npy only)",
            format.name()
        ));
    }
    Ok(f)
}

fn shuffle(s: schema::Shuffle) -> Shuffle {
    match s {
        schema::Shuffle::Off => Shuffle::Off,
        schema::Shuffle::Seed => Shuffle::Seed,
        schema::Shuffle::Random => Shuffle::Random,
    }
}

/// How one split is spread over `ranks`.
fn sharding(
    config: &Config,
    options: &ParioOptions,
    files: u64,
    batch: u64,
    ranks: usize,
) -> Result<Sharding, String> {
    let r = &config.reader;
    let dlio = |d| options.follows(d) == Follow::Dlio;
    let file_shuffle = r.file_shuffle != schema::Shuffle::Off
        || (dlio(Departure::FileShuffle) && r.file_shuffle_given);
    let seed = u32::try_from(config.train.seed).map_err(|_| {
        format!(
            "workload.train.seed={}: numpy takes seeds below 2^32",
            config.train.seed
        )
    })?;
    Ok(Sharding {
        loader: loader_of(config)?,
        files: files as usize,
        samples_per_file: config.dataset.num_samples_per_file as usize,
        batch: batch as usize,
        ranks,
        file_shuffle,
        sample_shuffle: shuffle(r.sample_shuffle),
        seed,
        seed_change_epoch: config.train.seed_change_epoch,
        pytorch_shuffles: !dlio(Departure::PytorchShuffle),
        tf_sorts: dlio(Departure::TfFileOrder),
    })
}

fn reading(
    config: &Config,
    options: &ParioOptions,
    loader: Loader,
    block: usize,
) -> Result<Reading, String> {
    let r = &config.reader;
    if loader == Loader::TensorFlow {
        if config.dataset.format != Format::Tfrecord {
            return Err(format!(
                "workload.dataset.format={} with the tensorflow loader: DLIO's generator path, not modelled by pario (tfrecord is)",
                config.dataset.format.name()
            ));
        }
        if r.odirect {
            return Err(
                "workload.reader.odirect=True: DLIO has no O_DIRECT reader of tfrecord".into(),
            );
        }
        let shuffle_size = match r.sample_shuffle {
            schema::Shuffle::Off => 0,
            _ => r.shuffle_size.max(1) as usize,
        };
        return Ok(Reading::TensorFlow {
            read_threads: r.read_threads.max(1) as usize,
            transfer: r.transfer_size.unwrap_or(TF_DEFAULT_BUFFER) as usize,
            shuffle_size,
            prefetch_size: r.prefetch_size as usize,
            computation_threads: r.computation_threads as usize,
        });
    }
    let keep_files = match options.follows(Departure::ReadType) {
        Follow::Dlio => r.read_type_given,
        Follow::Rules => r.read_type == ReadType::Memory,
    };
    Ok(Reading::PyTorch {
        options: ReadOptions {
            format: sample_format(config)?,
            odirect: r.odirect,
            block,
            reopen: !keep_files,
        },
        read_threads: r.read_threads as usize,
        prefetch_size: r.prefetch_size as usize,
    })
}

/// The checkpoints during training pario saves: a non-transformer model's.
fn checkpoint(config: &Config) -> Result<Option<CheckpointPlan>, String> {
    if !config.workflow.checkpoint {
        return Ok(None);
    }
    let m = &config.model;
    let transformer = m.r#type.as_deref() == Some("transformer") || m.num_layers > 0;
    if transformer || !m.optimization_groups.is_empty() || !m.layer_parameters.is_empty() {
        return Err("workload.workflow.checkpoint=True during training: only a non-transformer model's checkpoint (model.model_size) is modelled yet".into());
    }
    let c = &config.checkpoint;
    Ok(Some(CheckpointPlan {
        after_epoch: c.checkpoint_after_epoch as usize,
        every_epochs: c.epochs_between_checkpoints.max(1) as usize,
        every_steps: c.steps_between_checkpoints,
    }))
}

/// The plan of `config` on `ranks` ranks; `block`: Python's buffer (the
/// data's file system block size).
pub fn plan(
    config: &Config,
    options: &ParioOptions,
    ranks: usize,
    block: usize,
) -> Result<TrainPlan, String> {
    let d = &config.dataset;
    let r = &config.reader;
    let train = sharding(
        config,
        options,
        d.num_files_train,
        r.batch_size.max(1),
        ranks,
    )?;
    if r.batch_size == 0 {
        return Err("workload.reader.batch_size=0: a batch holds at least one sample".into());
    }
    let steps = sampler::steps(&train, config.train.total_training_steps)?;
    train.check(steps, "workload.dataset")?;
    let eval = if config.workflow.evaluation {
        let e = sharding(
            config,
            options,
            d.num_files_eval,
            r.batch_size_eval.max(1),
            ranks,
        )?;
        let steps = e.max_steps();
        e.check(steps, "workload.dataset (evaluation)")?;
        Some(EvalPlan {
            sharding: e,
            steps,
            time: config.evaluation.eval_time.clone(),
            after_epoch: config.evaluation.eval_after_epoch as usize,
            every: config.evaluation.epochs_between_evals.max(1) as usize,
        })
    } else {
        None
    };
    if !d.keep_files {
        return Err("workload.dataset.keep_files=False: deleting the dataset after training is not modelled by pario (it removes only what a run created)".into());
    }
    if r.odirect && config.storage.storage_type == schema::StorageType::S3 {
        return Err(
            "workload.reader.odirect=True with workload.storage.storage_type=s3: no O_DIRECT on S3"
                .into(),
        );
    }
    if config.reader.preprocess_time != schema::Draw::None {
        return Err("workload.reader.preprocess_time: not modelled by pario yet".into());
    }
    Ok(TrainPlan {
        throughput: options.follows(Departure::Throughput),
        epochs: config.train.epochs as usize,
        steps,
        steps_overridden: config.train.total_training_steps > 0,
        reading: reading(config, options, train.loader, block)?,
        train,
        computation: config.train.computation_time.clone(),
        window: Window {
            exclude_start: config.output.exclude_start_steps as i64,
            exclude_end: config.output.exclude_end_steps as i64,
        },
        eval,
        checkpoint: checkpoint(config)?,
    })
}
