//! DLIO's command line, as Hydra reads it: overrides (`workload=NAME`,
//! `++workload.a.b=V`, `++hydra.run.dir=DIR`, `pario.as=dlio` ...) and the
//! Hydra flag DLIO users give, `--config-dir=DIR` (`-cd DIR`). pario adds
//! `--summaryFormat` and `--summaryFile` (its JSON document). Hydra's other
//! flags are refused in one line.

use std::collections::BTreeMap;

use crate::options::{long_value, set, ArgKind, Grammar, ModuleOptions, OptSpec, Setting};
use crate::output::Summary;

/// The command line, parsed but not composed.
#[derive(Debug, Clone, Default)]
pub struct DlioArgs {
    /// The overrides, as typed, in order.
    pub overrides: Vec<String>,
    pub config_dir: Option<String>,
    pub summary: Summary,
    /// Unused (no backend module options): the grammar's requirement.
    pub modules: BTreeMap<String, String>,
}

impl ModuleOptions for DlioArgs {
    fn module_options(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.modules
    }
}

/// Hydra's flags pario does not take.
const HYDRA_FLAGS: &[(&str, &str)] = &[
    (
        "config-path",
        "pario's primary config is DLIO's bundled one; use --config-dir",
    ),
    (
        "config-name",
        "pario's primary config is DLIO's bundled one; use --config-dir",
    ),
    ("cfg", "printing the config without a run is not supported"),
    (
        "package",
        "printing the config without a run is not supported",
    ),
    (
        "resolve",
        "printing the config without a run is not supported",
    ),
    ("info", "Hydra's --info is not supported"),
    ("multirun", "pario runs one job (no sweeps)"),
    ("run", "pario always runs"),
    ("shell-completion", "no shell completion"),
    ("hydra-help", "see -h"),
    ("experimental-rerun", "not supported"),
];

/// The grammar: `--config-dir`, pario's summary options, Hydra's refused
/// flags; everything else is an override.
pub fn grammar() -> Grammar<DlioArgs> {
    let mut specs: Vec<OptSpec<DlioArgs>> = vec![long_value(
        &["config-dir"],
        "a directory with workload/NAME.yaml files, searched after DLIO's own (as Hydra's --config-dir)",
        set(|a: &mut DlioArgs, s: Setting<'_>| {
            a.config_dir = Some(s.value().to_string());
            Ok(())
        }),
    )];
    specs.extend(Summary::options(|a: &mut DlioArgs| &mut a.summary, false));
    for (name, why) in HYDRA_FLAGS {
        let mut spec = long_value(
            &[name],
            format!("Hydra's --{name}: refused ({why})"),
            set(|_: &mut DlioArgs, _: Setting<'_>| Err("not supported by pario".into())),
        );
        if matches!(
            *name,
            "multirun" | "info" | "resolve" | "hydra-help" | "run"
        ) {
            spec.kind = ArgKind::Flag;
        }
        specs.push(spec);
    }
    let mut grammar = Grammar::new("dlio_benchmark", specs);
    grammar.operand = Some(|a, s| {
        a.overrides.push(s.value().to_string());
        Ok(())
    });
    grammar
}

/// Hydra's two-letter short flags, spelled long (the grammar's short
/// options are one letter).
pub fn long_spellings(args: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(args.len());
    for a in args {
        let long = match a.as_str() {
            "-cd" => "--config-dir",
            "-cp" | "-cn" | "-sc" | "-m" | "-c" | "-p" | "-i" | "-r" => {
                return Err(format!("Hydra's {a} is not supported by pario (see -h)"))
            }
            other => other,
        };
        out.push(long.to_string());
    }
    Ok(out)
}
