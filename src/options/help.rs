//! The `-h` text of a grammar, laid out like IOR's, with each option's
//! default from the tool's own defaults.

use super::{ArgKind, Grammar, OptSpec};

impl<T: Default> Grammar<T> {
    /// The options as a plain list (`  -l, --list    help`), for a command
    /// whose help is not laid out like IOR's (io500).
    pub fn options_text(&self) -> String {
        let mut out = String::from("Options:\n");
        let lines = self.specs.iter().map(|spec| {
            let short = spec.short.map(|c| format!("-{c}, ")).unwrap_or_default();
            let long = spec
                .names
                .first()
                .map(|n| format!("--{n}"))
                .unwrap_or_default();
            let value = match spec.kind {
                ArgKind::Flag => String::new(),
                _ => format!("={}", spec.shown.text()),
            };
            (format!("{short}{long}{value}"), spec.help.to_string())
        });
        for (left, help) in lines.chain([("-h, --help".into(), "this help".into())]) {
            out.push_str(&format!("  {left:<24} {help}\n"));
        }
        out
    }

    /// The `-h` text, laid out like IOR's.
    pub fn help_text(&self) -> String {
        let mut out = format!("Synopsis {}\n", self.tool);
        let mut modules: Vec<&str> = Vec::new();
        for spec in &self.specs {
            if !modules.contains(&spec.module) {
                modules.push(spec.module);
            }
        }
        for module in modules {
            let in_module = |s: &&OptSpec<T>| s.module == module;
            if !module.is_empty() {
                out.push_str(&format!("\n\nModule {module}\n"));
            }
            let flags: Vec<_> = self
                .specs
                .iter()
                .filter(in_module)
                .filter(|s| s.kind == ArgKind::Flag)
                .collect();
            let values: Vec<_> = self
                .specs
                .iter()
                .filter(in_module)
                .filter(|s| s.kind != ArgKind::Flag)
                .collect();
            if !flags.is_empty() {
                out.push_str("\nFlags\n");
                for s in flags {
                    out.push_str(&help_line(s, false));
                }
            }
            if !values.is_empty() {
                out.push_str("\nOptional arguments\n");
                for s in values {
                    out.push_str(&help_line(s, true));
                }
            }
        }
        out
    }
}

fn help_line<T: Default>(spec: &OptSpec<T>, with_value: bool) -> String {
    // md-workbench's -G and -o have no long name.
    let name = spec.names.first().copied().unwrap_or_default();
    let default = spec.shown.text();
    let left = match spec.short {
        Some(c) if with_value => format!("-{c}={}", default),
        Some(c) => format!("-{c}"),
        None if spec.directive_only => format!("-O {name}={}", default),
        None if with_value => format!("--{name}={}", default),
        None => format!("--{name}"),
    };
    format!("  {left:<30}{}\n", spec.help)
}
