//! md-workbench's options (IOR 4.1's table: short and long names, defaults),
//! and the checks made before anything is created.

use crate::backend::{self, registry, Choice};
use crate::error::UsageError;
use crate::options::{flag, long_flag, long_value, module_specs, value, Grammar, OptSpec, Setting};
use crate::pattern::PacketType;
use crate::units::{parse_count, parse_int, parse_seconds};

use super::params::MdwParams;

type Set = Result<(), String>;

fn text(s: Setting<'_>, what: &str) -> Result<String, String> {
    match s.value().trim() {
        "" => Err(format!("the {what} is empty")),
        v => Ok(v.to_string()),
    }
}

fn no_gpu(s: Setting<'_>) -> Set {
    match s {
        Setting::Value(v) if matches!(v.trim(), "" | "0" | "-1") => Ok(()),
        _ => Err("pario has no GPU support".into()),
    }
}

/// The table, in md-workbench's help order.
pub fn grammar() -> Grammar<MdwParams> {
    let mut specs: Vec<OptSpec<MdwParams>> = vec![
        value('O', &["offset"], "1", "Offset in o.i.rank to use for the selection of the rank", |p, s| {
            p.offset = parse_int(s.value())?;
            Ok(())
        }),
        value('a', &["api"], "POSIX", format!("The API (plugin) to use for the benchmark [{}]", registry::names_with(|c| c.metadata).join("|")), |p, s| {
            p.api = text(s, "API name")?;
            Ok(())
        }),
        value('I', &["obj-per-proc"], "1000", "Number of I/O operations per data set", |p, s| {
            p.objects = parse_count(s.value())?;
            Ok(())
        }),
        value('L', &["latency"], "", "Measure the latency for individual operations, prefix the result files with the provided filename", |p, s| {
            let v = s.value().trim();
            p.latency_prefix = (!v.is_empty()).then(|| v.to_string());
            Ok(())
        }),
        long_flag(&["latency-all"], "Keep the latency files from all ranks", |p, s| {
            p.latency_all = s.flag_bool()?;
            Ok(())
        }),
        value('P', &["precreate-per-set"], "3000", "Number of object to precreate per data set", |p, s| {
            p.precreate = parse_count(s.value())?;
            Ok(())
        }),
        value('D', &["data-sets"], "10", "Number of data sets covered per process and iteration", |p, s| {
            p.data_sets = parse_count(s.value())?;
            Ok(())
        }),
        value('G', &[], "-1", "Offset for the data in the read/write buffer, if not set, a random value is used", |p, s| {
            let g = parse_int(s.value())?;
            p.seed = (g != -1).then_some(g);
            Ok(())
        }),
        value('o', &[], "./out", "Output directory", |p, s| {
            p.prefix = text(s, "output directory")?;
            Ok(())
        }),
        flag('q', &["quiet"], "Avoid irrelevant printing", |p, s| {
            p.quiet = s.flag_bool()?;
            Ok(())
        }),
        value('S', &["object-size"], "3901", "Size for the create and read operations", |p, s| {
            p.object_size = parse_count(s.value())?;
            Ok(())
        }),
        value('R', &["iterations"], "3", "Number of times to rerun the main phase", |p, s| {
            p.iterations = parse_count(s.value())?;
            Ok(())
        }),
        value('t', &["waiting-time"], "0", "Waiting time relative to runtime (1.0 is 100%)", |p, s| {
            p.waiting_factor = parse_seconds(s.value()).map_err(|_| format!("'{}' must be a factor, 0 or more", s.value()))?;
            Ok(())
        }),
        flag('T', &["adaptive-waiting"], "Compute an adaptive waiting time", |p, s| {
            p.adaptive_waiting = s.flag_bool()?;
            Ok(())
        }),
        flag('1', &["run-precreate"], "Run precreate phase", |p, s| {
            p.phases.precreate = s.flag_bool()?;
            Ok(())
        }),
        flag('2', &["run-benchmark"], "Run benchmark phase", |p, s| {
            p.phases.benchmark = s.flag_bool()?;
            Ok(())
        }),
        flag('3', &["run-cleanup"], "Run cleanup phase (only run explicit phases)", |p, s| {
            p.phases.cleanup = s.flag_bool()?;
            Ok(())
        }),
        value('w', &["stonewall-timer"], "0", "Stop each benchmark iteration after the specified seconds (if not used with -W this leads to process-specific progress!)", |p, s| {
            p.stonewall = crate::units::parse_non_negative(s.value())?;
            Ok(())
        }),
        flag('W', &["stonewall-wear-out"], "Stop with stonewall after specified time and use a soft wear-out phase -- all processes perform the same number of iterations", |p, s| {
            p.wear_out = s.flag_bool()?;
            Ok(())
        }),
        flag('X', &["verify-read"], "Verify the data on read", |p, s| {
            p.verify = s.flag_bool()?;
            Ok(())
        }),
        long_value(&["dataPacketType"], "t", "type of packet that will be created [offset|incompressible|timestamp|random|o|i|t|r]", |p, s| {
            p.packet = PacketType::parse(s.value())?;
            Ok(())
        }),
        long_value(&["start-item"], "0", "The iteration number of the item to start with, allowing to offset the operations", |p, s| {
            p.start_item = Some(parse_count(s.value())?);
            Ok(())
        }),
        long_flag(&["print-detailed-stats"], "Print detailed machine parsable statistics.", |p, s| {
            p.detailed = s.flag_bool()?;
            Ok(())
        }),
        long_flag(&["read-only"], "Run read-only during benchmarking phase (no deletes/writes), probably use with -2", |p, s| {
            p.read_only = s.flag_bool()?;
            Ok(())
        }),
        long_flag(&["ignore-precreate-errors"], "Ignore errors occuring during the pre-creation phase", |p, s| {
            p.ignore_precreate_errors = s.flag_bool()?;
            Ok(())
        }),
        long_flag(&["process-reports"], "Independent report per process/rank", |p, s| {
            p.process_reports = s.flag_bool()?;
            Ok(())
        }),
        flag('v', &["verbose"], "Increase the verbosity level", |p, s| {
            p.verbose = s.flag_count(p.verbose)?;
            Ok(())
        }),
        long_value(&["run-info-file"], "md-workbench.status", "The log file for resuming a previous run", |p, s| {
            p.run_info_file = text(s, "run-info file name")?;
            Ok(())
        }),
        long_value(&["allocateBufferOnGPU"], "0", "Allocate the buffer on the GPU (CUDA builds)", |_, s| no_gpu(s)),
        long_value(&["GPUid"], "-1", "Select the GPU to use (CUDA builds)", |_, s| no_gpu(s)),
        long_flag(&["gpuDirect"], "Use GPUDirect storage (GPUDirect builds)", |_, s| match s.flag_bool()? {
            true => Err("pario has no GPU support".into()),
            false => Ok(()),
        }),
        long_value(&["summaryFormat"], "default", "pario: also write the results as JSON or CSV (one row per phase), or several to --summaryFile [default|JSON|CSV|pario-CSV, or a list]", |p, s| {
            p.summary.set_formats(s.value())
        }),
        long_value(&["recordLatency"], "1", "pario: time every operation (0: no quantiles, op-max, percentiles or -L files; measures pario's own cost)", |p, s| {
            p.record_latency = s.flag_bool()?;
            Ok(())
        }),
        long_value(&["summaryFile"], "", "pario: write the JSON to this file (default: stdout, and the text goes away)", |p, s| {
            p.summary.file = Some(text(s, "summary file name")?);
            Ok(())
        }),
    ];
    specs.extend(module_specs(backend::all_module_options()));
    Grammar {
        tool: "md-workbench",
        specs,
    }
}

/// Parses and checks a command line: `None` for `-h`.
pub fn parse(args: &[String]) -> Result<Option<(MdwParams, Choice)>, UsageError> {
    let command_line = grammar().parse_command_line(args, MdwParams::default())?;
    if command_line.help {
        return Ok(None);
    }
    let p = command_line.params;
    let backend = validate(&p)?;
    Ok(Some((p, backend)))
}

/// The checks that need no task count.
pub fn validate(p: &MdwParams) -> Result<Choice, UsageError> {
    let err = |m: String| Err(UsageError(m));
    check_latency(p).map_err(UsageError)?;
    let backend = backend::configure(&p.api, &p.module_options).map_err(UsageError)?;
    if !backend.capabilities().metadata {
        return err(format!(
            "-a {}: md-workbench runs on {} only, the APIs with the metadata calls it makes",
            p.api,
            registry::either(&registry::names_with(|c| c.metadata))
        ));
    }
    if p.data_sets == 0 {
        return err("-D 0: at least one data set per process".into());
    }
    let ph = p.effective_phases();
    if ph.precreate && p.precreate == 0 {
        return err("-P 0: the precreate phase needs at least one object per data set".into());
    }
    if ph.benchmark && (p.objects == 0 || p.iterations == 0) {
        return err("-I/-R: the benchmark phase needs at least one iteration and object".into());
    }
    if p.verify && !backend.capabilities().stores_data {
        return err(format!("-X: -a {} does not store data to verify", p.api));
    }
    p.summary.check().map_err(UsageError)?;
    Ok(backend)
}

/// `-L`, `-T`, `-t` and `--recordLatency=0` together; `-L`'s directory
/// must exist (a file that cannot be written would end the run late).
fn check_latency(p: &MdwParams) -> Result<(), String> {
    if !p.record_latency {
        let needs = [
            (p.latency_prefix.is_some(), "-L"),
            (p.waiting_factor > 1e-9, "-t"),
            (p.adaptive_waiting, "-T"),
        ];
        if let Some((_, opt)) = needs.iter().find(|(given, _)| *given) {
            return Err(format!(
                "{opt} needs every operation's time: drop --recordLatency=0"
            ));
        }
    }
    let Some(prefix) = &p.latency_prefix else {
        return Ok(());
    };
    let dir = match std::path::Path::new(prefix).parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    match dir.is_dir() {
        true => Ok(()),
        false => Err(format!(
            "-L {prefix}: the directory {} does not exist",
            dir.display()
        )),
    }
}

/// Totals that must fit 64 bits: every object the run makes, and the bytes
/// of the working set.
pub fn validate_tasks(p: &MdwParams, tasks: usize) -> Result<(), UsageError> {
    let total = p
        .objects
        .checked_mul(p.iterations)
        .and_then(|v| v.checked_add(p.precreate))
        .and_then(|v| v.checked_mul(p.data_sets))
        .and_then(|v| v.checked_mul(tasks as u64))
        .and_then(|v| v.checked_mul(p.object_size.max(1)));
    match total {
        Some(_) => Ok(()),
        None => Err(UsageError(format!(
            "-D {} -P {} -I {} -R {} -S {} with {tasks} tasks: more objects or bytes than 64 bits can count",
            p.data_sets, p.precreate, p.objects, p.iterations, p.object_size
        ))),
    }
}
