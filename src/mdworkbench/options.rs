//! md-workbench's options (IOR 4.1's table: short and long names, defaults),
//! and the checks made before anything is created.

use crate::backend::{self, registry, Choice};
use crate::error::UsageError;
use crate::options::{
    count, flag, long_flag, long_value, module_specs, on, on_value, parsed, set, shown, some, text,
    value, Grammar, OptSpec, Setting,
};
use crate::output::Summary;
use crate::pattern::PacketType;
use crate::units::{parse_count, parse_int, parse_non_negative, parse_seconds};

use super::params::MdwParams;

fn no_gpu(s: Setting<'_>) -> Result<(), String> {
    match s {
        Setting::Value(v) if matches!(v.trim(), "" | "0" | "-1") => Ok(()),
        _ => Err("pario has no GPU support".into()),
    }
}

/// The table, in md-workbench's help order.
pub fn grammar() -> Grammar<MdwParams> {
    let mut specs: Vec<OptSpec<MdwParams>> = vec![
        value('O', &["offset"], "Offset in o.i.rank to use for the selection of the rank", parsed(|p| &mut p.offset, parse_int)),
        value('a', &["api"], format!("The API (plugin) to use for the benchmark [{}]", registry::api_list(|c| c.metadata)), text(|p| &mut p.api, "API name")),
        value('I', &["obj-per-proc"], "Number of I/O operations per data set", parsed(|p| &mut p.objects, parse_count)),
        value('L', &["latency"], "Measure the latency for individual operations, prefix the result files with the provided filename", set(|p, s| {
            let v = s.value().trim();
            p.latency_prefix = (!v.is_empty()).then(|| v.to_string());
            Ok(())
        })),
        long_flag(&["latency-all"], "Keep the latency files from all ranks", on(|p| &mut p.latency_all)),
        value('P', &["precreate-per-set"], "Number of object to precreate per data set", parsed(|p| &mut p.precreate, parse_count)),
        value('D', &["data-sets"], "Number of data sets covered per process and iteration", parsed(|p| &mut p.data_sets, parse_count)),
        value('G', &[], "Offset for the data in the read/write buffer, if not set, a random value is used", shown("-1", set(|p, s| {
            let g = parse_int(s.value())?;
            p.seed = (g != -1).then_some(g);
            Ok(())
        }))),
        value('o', &[], "Output directory", text(|p| &mut p.prefix, "output directory")),
        flag('q', &["quiet"], "Avoid irrelevant printing", on(|p| &mut p.quiet)),
        value('S', &["object-size"], "Size for the create and read operations", parsed(|p| &mut p.object_size, parse_count)),
        value('R', &["iterations"], "Number of times to rerun the main phase", parsed(|p| &mut p.iterations, parse_count)),
        value('t', &["waiting-time"], "Waiting time relative to runtime (1.0 is 100%)", parsed(|p| &mut p.waiting_factor, |v| {
            parse_seconds(v).map_err(|_| format!("'{v}' must be a factor, 0 or more"))
        })),
        flag('T', &["adaptive-waiting"], "Compute an adaptive waiting time", on(|p| &mut p.adaptive_waiting)),
        flag('1', &["run-precreate"], "Run precreate phase", on(|p| &mut p.phases.precreate)),
        flag('2', &["run-benchmark"], "Run benchmark phase", on(|p| &mut p.phases.benchmark)),
        flag('3', &["run-cleanup"], "Run cleanup phase (only run explicit phases)", on(|p| &mut p.phases.cleanup)),
        value('w', &["stonewall-timer"], "Stop each benchmark iteration after the specified seconds (if not used with -W this leads to process-specific progress!)", parsed(|p| &mut p.stonewall, parse_non_negative)),
        flag('W', &["stonewall-wear-out"], "Stop with stonewall after specified time and use a soft wear-out phase -- all processes perform the same number of iterations", on(|p| &mut p.wear_out)),
        flag('X', &["verify-read"], "Verify the data on read", on(|p| &mut p.verify)),
        long_value(&["dataPacketType"], "type of packet that will be created [offset|incompressible|timestamp|random|o|i|t|r]", parsed(|p| &mut p.packet, PacketType::parse)),
        long_value(&["start-item"], "The iteration number of the item to start with, allowing to offset the operations", shown("0", some(|p| &mut p.start_item, parse_count))),
        long_flag(&["print-detailed-stats"], "Print detailed machine parsable statistics.", on(|p| &mut p.detailed)),
        long_flag(&["read-only"], "Run read-only during benchmarking phase (no deletes/writes), probably use with -2", on(|p| &mut p.read_only)),
        long_flag(&["ignore-precreate-errors"], "Ignore errors occuring during the pre-creation phase", on(|p| &mut p.ignore_precreate_errors)),
        long_flag(&["process-reports"], "Independent report per process/rank", on(|p| &mut p.process_reports)),
        flag('v', &["verbose"], "Increase the verbosity level", count(|p| &mut p.verbose)),
        long_value(&["run-info-file"], "The log file for resuming a previous run", text(|p| &mut p.run_info_file, "run-info file name")),
        long_value(&["allocateBufferOnGPU"], "Allocate the buffer on the GPU (CUDA builds)", shown("0", set(|_, s| no_gpu(s)))),
        long_value(&["GPUid"], "Select the GPU to use (CUDA builds)", shown("-1", set(|_, s| no_gpu(s)))),
        long_flag(&["gpuDirect"], "Use GPUDirect storage (GPUDirect builds)", set(|_, s| match s.flag_bool()? {
            true => Err("pario has no GPU support".into()),
            false => Ok(()),
        })),
        long_value(&["recordLatency"], "pario: time every operation (0: no quantiles, op-max, percentiles or -L files; measures pario's own cost)", on_value(|p| &mut p.record_latency)),
    ];
    specs.extend(Summary::options(|p: &mut MdwParams| &mut p.summary, false));
    specs.extend(module_specs(backend::all_module_options()));
    Grammar::new("md-workbench", specs)
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

/// `-L`, `-T` and `-t` need every operation's time: not with
/// `--recordLatency=0`. (Whether `-L`'s files can be made is the outputs'
/// business, before the run.)
fn check_latency(p: &MdwParams) -> Result<(), String> {
    if p.record_latency {
        return Ok(());
    }
    let needs = [
        (p.latency_prefix.is_some(), "-L"),
        (p.waiting_factor > 1e-9, "-t"),
        (p.adaptive_waiting, "-T"),
    ];
    match needs.iter().find(|(given, _)| *given) {
        Some((_, opt)) => Err(format!(
            "{opt} needs every operation's time: drop --recordLatency=0"
        )),
        None => Ok(()),
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
