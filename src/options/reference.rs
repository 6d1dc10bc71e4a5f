//! An option as its reference documents it (man pages, the guide's option
//! chapter, shell completions): read from the same table that parses it, so
//! the reference cannot drift from the parser.

use super::{ArgKind, Grammar};

/// One option of a table, as documented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Documented {
    pub short: Option<char>,
    /// Long names, the canonical one first.
    pub names: Vec<&'static str>,
    pub kind: ArgKind,
    /// The default as the help shows it ("" when there is none to show).
    pub default: String,
    pub help: String,
    /// "" for the tool's own options, else the backend (module) it belongs to.
    pub module: &'static str,
    /// Documented as `-O name=value` (IOR's directive-only options).
    pub directive_only: bool,
    /// Takes a comma-separated list.
    pub list: bool,
}

impl Documented {
    /// Whether it is given as `-O name=value` too: every long-named option
    /// of a grammar that has `-O` is.
    pub fn is_directive(&self) -> bool {
        self.kind != ArgKind::Directives && !self.names.is_empty()
    }

    /// The spellings a user types: `-b`, `--blockSize` (or `-O
    /// stoneWallingWearOut` for a directive-only option).
    pub fn spellings(&self) -> Vec<String> {
        let mut all: Vec<String> = self.short.map(|c| format!("-{c}")).into_iter().collect();
        for name in &self.names {
            all.push(match self.directive_only {
                true => format!("-O {name}"),
                false => format!("--{name}"),
            });
        }
        all
    }

    /// Its value as the help shows it (`-t=262144`): the default, or a
    /// placeholder (`FILE`); `VALUE` when the table shows nothing.
    pub fn value_shown(&self) -> Option<String> {
        match self.kind {
            ArgKind::Flag => None,
            ArgKind::Directives => Some("KEY=VALUE[,KEY=VALUE...]".into()),
            ArgKind::Value if self.default.is_empty() => Some("VALUE".into()),
            ArgKind::Value => Some(self.default.clone()),
        }
    }
}

impl<T: Default> Grammar<T> {
    /// Every option of the table, in its order, as documented.
    pub fn documented(&self) -> Vec<Documented> {
        let row = |spec: &super::OptSpec<T>| Documented {
            short: spec.short,
            names: spec.names.clone(),
            kind: spec.kind,
            default: spec.shown.text(),
            help: spec.help.to_string(),
            module: spec.module,
            directive_only: spec.directive_only,
            list: spec.list,
        };
        self.specs.iter().map(row).collect()
    }
}
