//! `pario dlio datasize`: the dataset MLPerf Storage's rules ask for, as
//! `mlpstorage training datasize` computes it (rules.py
//! `calculate_training_data_size`): at least five times the clients'
//! memory, and at least 500 steps of every accelerator's batches.
//!
//! `pario dlio datasize --model unet3d --accelerator-type h100
//! --max-accelerators 8 --client-host-memory-in-gb 128
//! [--num-client-hosts 1] [--hosts H ...] [--params KEY=VALUE ...]
//! [--data-dir DIR] [--config-dir DIR]`: mlpstorage's options; the
//! workload is `<model>_<accelerator>` with the params as
//! `++workload.KEY=VALUE`. Without `--num-client-hosts` the hosts are
//! counted (mlpstorage 2.0 fails there on a misspelt attribute).

use std::process::ExitCode;

use super::config::{self, schema::Config};

/// mlpstorage's inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    pub model: String,
    pub accelerator: String,
    pub accelerators: u64,
    pub memory_gib: u64,
    pub client_hosts: u64,
    pub params: Vec<String>,
    pub data_dir: Option<String>,
    pub config_dir: Option<String>,
    pub hosts: Vec<String>,
}

/// The rules' sizing of a workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizing {
    pub files: u64,
    pub by_memory: u64,
    pub by_steps: u64,
    pub bytes: u64,
}

/// `calculate_training_data_size`: files for five times the memory, and
/// for 500 steps of every accelerator's batch; the larger.
pub fn size(config: &Config, accelerators: u64, memory_bytes: u64) -> Sizing {
    let spf = config.dataset.num_samples_per_file;
    let file_bytes = spf as f64 * config.dataset.record_length_bytes;
    let by_memory = ((5 * memory_bytes) as f64 / file_bytes).floor() as u64;
    let by_steps = 500 * accelerators * config.reader.batch_size / spf;
    let files = by_memory.max(by_steps);
    Sizing {
        files,
        by_memory,
        by_steps,
        bytes: (files as f64 * file_bytes) as u64,
    }
}

const MODELS: &[&str] = &["cosmoflow", "resnet50", "unet3d"];
const ACCELERATORS: &[&str] = &["h100", "a100"];

fn value<'a>(rest: &mut impl Iterator<Item = &'a String>, name: &str) -> Result<String, String> {
    rest.next()
        .cloned()
        .ok_or_else(|| format!("{name} needs a value"))
}

fn number(text: &str, name: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| format!("{name} {text}: expected an integer"))
}

/// Parses mlpstorage's options (long and short, `--x=v` or `--x v`).
pub fn parse(args: &[String]) -> Result<Inputs, String> {
    let mut input = Inputs {
        model: String::new(),
        accelerator: String::new(),
        accelerators: 0,
        memory_gib: 0,
        client_hosts: 0,
        params: Vec::new(),
        data_dir: None,
        config_dir: None,
        hosts: vec!["127.0.0.1".into()],
    };
    let split: Vec<String> = args
        .iter()
        .flat_map(
            |a| match a.split_once('=').filter(|_| a.starts_with("--")) {
                Some((k, v)) => vec![k.to_string(), v.to_string()],
                None => vec![a.clone()],
            },
        )
        .collect();
    let mut rest = split.iter().peekable();
    while let Some(arg) = rest.next() {
        let name = arg.as_str();
        match name {
            "--model" | "-m" => input.model = value(&mut rest, name)?,
            "--accelerator-type" | "-g" => input.accelerator = value(&mut rest, name)?,
            "--max-accelerators" | "-ma" => {
                input.accelerators = number(&value(&mut rest, name)?, name)?
            }
            "--client-host-memory-in-gb" | "-cm" => {
                input.memory_gib = number(&value(&mut rest, name)?, name)?
            }
            "--num-client-hosts" | "-nc" => {
                input.client_hosts = number(&value(&mut rest, name)?, name)?
            }
            "--data-dir" | "-dd" => input.data_dir = Some(value(&mut rest, name)?),
            "--config-dir" => input.config_dir = Some(value(&mut rest, name)?),
            "--hosts" | "-s" | "--params" | "-p" => {
                let mut items = Vec::new();
                while let Some(next) = rest.next_if(|a| !a.starts_with('-')) {
                    items.extend(
                        next.split(',')
                            .filter(|s| !s.is_empty())
                            .map(str::to_string),
                    );
                }
                if items.is_empty() {
                    return Err(format!("{name} needs a value"));
                }
                if matches!(name, "--hosts" | "-s") {
                    input.hosts = items;
                } else {
                    input.params.extend(items);
                }
            }
            other => return Err(format!("datasize: unknown option '{other}'")),
        }
    }
    if !MODELS.contains(&input.model.as_str()) {
        return Err(format!("--model: one of {}", MODELS.join(", ")));
    }
    if !ACCELERATORS.contains(&input.accelerator.as_str()) {
        return Err(format!(
            "--accelerator-type: one of {}",
            ACCELERATORS.join(", ")
        ));
    }
    if input.accelerators == 0 || input.memory_gib == 0 {
        return Err(
            "--max-accelerators and --client-host-memory-in-gb are required (above 0)".into(),
        );
    }
    if input.client_hosts == 0 {
        input.client_hosts = input.hosts.len() as u64;
    }
    Ok(input)
}

/// The workload with the params, typed.
pub fn workload(input: &Inputs) -> Result<Config, String> {
    let mut overrides = vec![format!("workload={}_{}", input.model, input.accelerator)];
    overrides.extend(input.params.iter().map(|p| format!("++workload.{p}")));
    let dir = input.config_dir.as_deref().map(std::path::Path::new);
    Ok(config::load(&overrides, dir, &chrono::Local::now())?.config)
}

/// mlpstorage's result lines and the datagen command it suggests.
pub fn text(input: &Inputs, s: &Sizing) -> String {
    let mut out = String::new();
    if s.by_memory > s.by_steps {
        out.push_str("RESULT: Minimum file count dictated by dataset size to memory size ratio.\n");
    } else {
        out.push_str("RESULT: Minimum file count dictated by 500 step requirement of given accelerator count and batch size.\n");
    }
    out.push_str(&format!("RESULT: Number of training files: {}\n", s.files));
    out.push_str("RESULT: Number of training subfolders: 0\n");
    out.push_str(&format!(
        "RESULT: Total disk space required for training: {:.2} GB\n",
        s.bytes as f64 / (1u64 << 30) as f64
    ));
    if s.files > 10000 {
        out.push_str(&format!(
            "WARNING: The number of files required may be excessive for some filesystems. You can use the num_subfolders_train parameter to shard the dataset. To keep near 10,000 files per folder use \"{}x\" subfolders by adding \"--param dataset.num_subfolders_train={}\"\n",
            s.files / 10000,
            s.files / 10000
        ));
    }
    let data_dir = input.data_dir.as_deref().unwrap_or("<INSERT_DATA_DIR>");
    out.push_str(&format!(
        "RESULT: Run the following command to generate data: \nmlpstorage training datagen --hosts={} --model={} --exec-type=mpi --param dataset.num_files_train={} --num-processes={} --results-dir=<RESULTS_DIR> --data-dir={data_dir}\n",
        input.hosts.join(","),
        input.model,
        s.files,
        input.accelerators
    ));
    out
}

/// `pario dlio datasize ...`.
pub fn main(args: &[String]) -> ExitCode {
    let sized = parse(args).and_then(|input| {
        let config = workload(&input)?;
        let memory = input.memory_gib * input.client_hosts * (1 << 30);
        Ok(text(&input, &size(&config, input.accelerators, memory)))
    });
    match sized {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("dlio_benchmark datasize: error: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests;
