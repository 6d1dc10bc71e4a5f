//! The option grammar shared by every pario tool.
//!
//! A tool describes its options once, as a table of [`OptSpec`]. The same table
//! serves the command line (`-wrk`, `-b16m`, `-t=1m`, `--posix.odirect`,
//! `--dataPacketType=t`), `-O key=value[,key=value]` directives (long names,
//! case-insensitive) and `-f` script files (`IOR START` … `RUN` … `IOR STOP`).
//! Parsing never touches the file system except to read a script.

mod field;
mod help;
mod reference;
pub mod script;

pub use field::{
    blank_keeps, count, given_text, non_empty, on, on_value, parsed, set, shown, some, some_text,
    text, trimmed, Field, Set, Setter, Shown,
};
pub use reference::Documented;

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::error::UsageError;

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// A flag; on the command line each occurrence counts (`-v -v`), in a
    /// directive it takes an integer (`-O verbose=2`, `fsync=0`).
    Flag,
    /// Takes a value: `-b 16m`, `-b16m`, `-b=16m`, `--name=value`, `name=value`.
    Value,
    /// `-O`: the value is itself a list of directives.
    Directives,
}

/// How an option was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting<'a> {
    /// A flag met once on the command line.
    Repeat,
    /// A value, from the command line, a directive or a script.
    Value(&'a str),
}

impl<'a> Setting<'a> {
    /// The new count of a flag whose current count is `current`.
    pub fn flag_count(self, current: u32) -> Result<u32, String> {
        match self {
            Setting::Repeat => Ok(current + 1),
            Setting::Value(v) => {
                let n = crate::units::parse_int(v)?;
                u32::try_from(n).map_err(|_| format!("'{v}' must be 0 or a positive count"))
            }
        }
    }

    /// A flag as on/off.
    pub fn flag_bool(self) -> Result<bool, String> {
        self.flag_count(0).map(|n| n > 0)
    }

    /// The value of a value option (a flag occurrence never reaches here).
    pub fn value(self) -> &'a str {
        match self {
            Setting::Value(v) => v,
            Setting::Repeat => "",
        }
    }
}

/// Where a setting is stored.
pub enum Store<T> {
    /// A field of the tool's parameters, set by this.
    Field(Set<T>),
    /// A backend module option (`posix.odirect`), kept as text for the backend
    /// to interpret when it is built.
    Module,
}

/// One option of a tool.
pub struct OptSpec<T> {
    /// Short letter, if any.
    pub short: Option<char>,
    /// Long names: the first is the canonical one (shown in help, used as the
    /// `-O` directive); the others are accepted aliases. Matched ignoring case.
    pub names: Vec<&'static str>,
    pub kind: ArgKind,
    /// Default shown in help (`-t=262144`).
    pub shown: Shown<T>,
    pub help: Cow<'static, str>,
    /// Help section ("" for the tool's own options, else a module name).
    pub module: &'static str,
    /// Documented as `-O name=value` rather than `--name` (IOR's directive-only
    /// options such as `stoneWallingWearOut`); both spellings are accepted.
    pub directive_only: bool,
    /// Takes a comma-separated list: in `-O` directives, the items after it
    /// without a `=` continue its value (`-O summaryFormat=JSON,CSV`).
    pub list: bool,
    pub store: Store<T>,
}

impl<T> OptSpec<T> {
    /// How the option is named in messages: `-b` or `--posix.odirect`.
    pub fn display_name(&self) -> String {
        match (self.short, self.names.first()) {
            (Some(c), _) => format!("-{c}"),
            (None, Some(n)) if self.directive_only => format!("-O {n}"),
            (None, Some(n)) => format!("--{n}"),
            (None, None) => "?".into(),
        }
    }

    /// Whether `name` is one of its long names (matched ignoring case).
    pub fn takes(&self, name: &str) -> bool {
        self.names.iter().any(|n| n.eq_ignore_ascii_case(name))
    }

    /// Sets the field it stores to (a module option's text is kept by
    /// the grammar instead: see [`Grammar::parse_command_line`]); a refusal
    /// names the option and the value.
    pub fn set_field(&self, target: &mut T, how: Setting<'_>) -> Result<(), UsageError> {
        let Store::Field(set) = &self.store else {
            return Ok(());
        };
        let shown = self.display_name();
        set(target, how).map_err(|reason| match how {
            Setting::Value(v) if self.directive_only || self.short.is_none() => {
                UsageError(format!("{shown}={v}: {reason}"))
            }
            Setting::Value(v) => UsageError(format!("{shown} {v}: {reason}")),
            Setting::Repeat => UsageError(format!("{shown}: {reason}")),
        })
    }
}

/// An option of the tool's own (not a module option).
pub fn spec<T>(
    short: Option<char>,
    names: &[&'static str],
    kind: ArgKind,
    help: impl Into<Cow<'static, str>>,
    field: Field<T>,
) -> OptSpec<T> {
    let Field { set, shown } = field;
    OptSpec {
        short,
        names: names.to_vec(),
        kind,
        shown,
        help: help.into(),
        module: "",
        directive_only: false,
        list: false,
        store: Store::Field(set),
    }
}

/// A short flag (`-w`), counted on the command line.
pub fn flag<T>(
    short: char,
    names: &[&'static str],
    help: impl Into<Cow<'static, str>>,
    field: Field<T>,
) -> OptSpec<T> {
    spec(Some(short), names, ArgKind::Flag, help, field)
}

/// A short option with a value (`-b 16m`).
pub fn value<T>(
    short: char,
    names: &[&'static str],
    help: impl Into<Cow<'static, str>>,
    field: Field<T>,
) -> OptSpec<T> {
    spec(Some(short), names, ArgKind::Value, help, field)
}

/// A flag with only a long name (`--dryRun`).
pub fn long_flag<T>(
    names: &[&'static str],
    help: impl Into<Cow<'static, str>>,
    field: Field<T>,
) -> OptSpec<T> {
    spec(None, names, ArgKind::Flag, help, field)
}

/// A value option with only a long name (`--random-offset-seed=3`).
pub fn long_value<T>(
    names: &[&'static str],
    help: impl Into<Cow<'static, str>>,
    field: Field<T>,
) -> OptSpec<T> {
    spec(None, names, ArgKind::Value, help, field)
}

/// A value documented as `-O name=value` (IOR's directive-only options).
pub fn directive<T>(
    names: &[&'static str],
    help: impl Into<Cow<'static, str>>,
    field: Field<T>,
) -> OptSpec<T> {
    OptSpec {
        directive_only: true,
        ..spec(None, names, ArgKind::Value, help, field)
    }
}

/// The option, taking a comma-separated list (see [`OptSpec::list`]).
pub fn listed<T>(spec: OptSpec<T>) -> OptSpec<T> {
    OptSpec { list: true, ..spec }
}

/// A backend's module option as the tools' grammars take it
/// (`--posix.odirect`, `-O aio.max-pending=16`), described by the backend's
/// own table: the grammars keep its value as text for the backend, which
/// reads it with that table when it is chosen.
#[derive(Debug, Clone)]
pub struct ModuleOption {
    /// Full name including the module prefix: `posix.odirect`.
    pub name: &'static str,
    pub kind: ArgKind,
    pub help: Cow<'static, str>,
    /// Its default as the help shows it: the field's value in the default
    /// of the backend's options type (or the placeholder its table shows).
    pub shown: String,
}

impl<O: Default> OptSpec<O> {
    /// The option as the tools' grammars list it.
    pub fn described(&self) -> ModuleOption {
        ModuleOption {
            name: self.names.first().copied().unwrap_or_default(),
            kind: self.kind,
            help: self.help.clone(),
            shown: self.shown.text(),
        }
    }
}

/// One option per module option (`--posix.odirect`, `-O
/// mmap.madv_pattern=1`), each given with its module's name, stored as text
/// for the module to interpret.
pub fn module_specs<T>(
    modules: impl Iterator<Item = (&'static str, ModuleOption)>,
) -> impl Iterator<Item = OptSpec<T>> {
    modules.map(|(module, o)| OptSpec {
        short: None,
        names: vec![o.name],
        kind: o.kind,
        shown: Shown::Text(o.shown.into()),
        help: o.help,
        module,
        directive_only: false,
        list: false,
        store: Store::Module,
    })
}

/// Rejects a feature pario lacks when it is switched on: the flag given on
/// the command line, or any value but `0` (or nothing), so that scripts and
/// directives spelling the default still parse.
pub fn unsupported(s: Setting<'_>, why: &str) -> Result<(), String> {
    match s {
        Setting::Value(v) if matches!(v.trim(), "" | "0") => Ok(()),
        _ => Err(why.to_string()),
    }
}

/// Something that can hold backend module options as text.
pub trait ModuleOptions {
    fn module_options(&mut self) -> &mut BTreeMap<String, String>;
}

/// Result of parsing a command line.
pub struct CommandLine<T> {
    /// The defaults assembled from every command-line option.
    pub params: T,
    /// `-h` was given.
    pub help: bool,
}

/// One `key=value` item of a directive text: the option, its key as given,
/// and its value.
type Directive<'g, 't, T> = (&'g OptSpec<T>, &'t str, String);

/// The parser for one tool's table.
pub struct Grammar<T> {
    pub tool: &'static str,
    pub specs: Vec<OptSpec<T>>,
    /// What takes an argument that is not an option (io500's `CONFIG.ini`);
    /// without one, such an argument is refused.
    pub operand: Option<Setter<T>>,
}

impl<T> Grammar<T> {
    /// A grammar of options only.
    pub fn new(tool: &'static str, specs: Vec<OptSpec<T>>) -> Grammar<T> {
        Grammar {
            tool,
            specs,
            operand: None,
        }
    }
}

impl<T: ModuleOptions> Grammar<T> {
    fn find_short(&self, c: char) -> Option<&OptSpec<T>> {
        self.specs.iter().find(|s| s.short == Some(c))
    }

    fn find_long(&self, name: &str) -> Option<&OptSpec<T>> {
        self.specs.iter().find(|s| s.takes(name))
    }

    fn apply(&self, spec: &OptSpec<T>, target: &mut T, how: Setting<'_>) -> Result<(), UsageError> {
        let Store::Module = spec.store else {
            return spec.set_field(target, how);
        };
        let key = spec.names[0].to_string();
        let value = match (spec.kind, how) {
            (ArgKind::Flag, h) => {
                let current = target
                    .module_options()
                    .get(&key)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                h.flag_count(current)
                    .map_err(|r| UsageError(format!("{}: {r}", spec.display_name())))?
                    .to_string()
            }
            (_, h) => h.value().to_string(),
        };
        target.module_options().insert(key, value);
        Ok(())
    }

    /// Parses command-line arguments (without the program name).
    pub fn parse_command_line(
        &self,
        args: &[String],
        mut params: T,
    ) -> Result<CommandLine<T>, UsageError> {
        let mut help = false;
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            if arg == "-h" || arg == "--help" {
                help = true;
            } else if let Some(long) = arg.strip_prefix("--") {
                self.long_option(long, &mut rest, &mut params)?;
            } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
                help |= self.short_options(cluster, &mut rest, &mut params)?;
            } else if let Some(operand) = self.operand {
                operand(&mut params, Setting::Value(arg)).map_err(UsageError)?;
            } else {
                return Err(UsageError(format!(
                    "unexpected argument '{arg}' (options start with '-'; see '{} -h')",
                    self.tool
                )));
            }
        }
        Ok(CommandLine { params, help })
    }

    /// `--name`, `--name=value` or `--name value` (the value taken from
    /// `rest`).
    fn long_option<'a>(
        &self,
        long: &str,
        rest: &mut impl Iterator<Item = &'a String>,
        params: &mut T,
    ) -> Result<(), UsageError> {
        if long.is_empty() {
            return Err(UsageError::new(
                "unexpected '--': pario takes no file arguments",
            ));
        }
        let (name, inline) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (long, None),
        };
        let spec = self.find_long(name).ok_or_else(|| {
            UsageError(format!(
                "unknown option '--{name}' (see '{} -h')",
                self.tool
            ))
        })?;
        match (spec.kind, inline) {
            (ArgKind::Flag, None) => self.apply(spec, params, Setting::Repeat),
            (ArgKind::Flag, Some(v)) => self.apply(spec, params, Setting::Value(v)),
            (_, Some(v)) => self.apply_value(spec, params, v),
            (_, None) => {
                let v = rest
                    .next()
                    .ok_or_else(|| UsageError(format!("--{name} needs a value")))?;
                self.apply_value(spec, params, v)
            }
        }
    }

    /// A cluster of short options: flags until one that takes a value,
    /// which takes the rest of the cluster (after an optional '=') or the
    /// next argument. Returns whether `-h` was among them.
    fn short_options<'a>(
        &self,
        cluster: &str,
        rest: &mut impl Iterator<Item = &'a String>,
        params: &mut T,
    ) -> Result<bool, UsageError> {
        let mut help = false;
        for (pos, c) in cluster.char_indices() {
            if c == 'h' {
                help = true;
                continue;
            }
            if c == '-' {
                // A stray dash between flags, as IOR's parser allows:
                // `-z-k` is `-z -k`.
                continue;
            }
            let spec = self.find_short(c).ok_or_else(|| {
                UsageError(format!("unknown option '-{c}' (see '{} -h')", self.tool))
            })?;
            let after = &cluster[pos + c.len_utf8()..];
            if spec.kind == ArgKind::Flag {
                if after.starts_with('=') {
                    return Err(UsageError(format!("-{c} takes no value")));
                }
                self.apply(spec, params, Setting::Repeat)?;
                continue;
            }
            let value = match after {
                "" => rest
                    .next()
                    .ok_or_else(|| UsageError(format!("-{c} needs a value")))?,
                _ => after.strip_prefix('=').unwrap_or(after),
            };
            self.apply_value(spec, params, value)?;
            break;
        }
        Ok(help)
    }

    fn apply_value(
        &self,
        spec: &OptSpec<T>,
        params: &mut T,
        value: &str,
    ) -> Result<(), UsageError> {
        if spec.kind == ArgKind::Directives {
            self.apply_directives(value, params)
        } else {
            self.apply(spec, params, Setting::Value(value))
        }
    }

    /// Applies `key=value[,key=value]` (from `-O` or a script line). Text after
    /// `#` is a comment.
    pub fn apply_directives(&self, text: &str, params: &mut T) -> Result<(), UsageError> {
        let text = text.split('#').next().unwrap_or("");
        for (spec, key, value) in self.directives(text)? {
            if spec.kind == ArgKind::Directives {
                return Err(UsageError(format!("directive '{key}' cannot be nested")));
            }
            self.apply(spec, params, Setting::Value(&value))?;
        }
        Ok(())
    }

    /// The `key=value` items of a directive text, with the options they name;
    /// an item without `=` after a list option continues its value.
    fn directives<'t>(&self, text: &'t str) -> Result<Vec<Directive<'_, 't, T>>, UsageError> {
        let mut found: Vec<Directive<'_, 't, T>> = Vec::new();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let Some((key, value)) = item.split_once('=') else {
                match found.last_mut() {
                    Some((spec, _, value)) if spec.list => {
                        value.push(',');
                        value.push_str(item);
                        continue;
                    }
                    _ => {
                        return Err(UsageError(format!(
                            "directive '{item}' is not of the form key=value"
                        )))
                    }
                }
            };
            let key = key.trim();
            let key = key.strip_prefix("--").unwrap_or(key);
            let spec = self.find_long(key).ok_or_else(|| {
                UsageError(format!(
                    "unknown directive '{key}' (see '{} -h')",
                    self.tool
                ))
            })?;
            found.push((spec, key, value.trim().to_string()));
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests;

/// The command line as echoed in reports, with the value of every option
/// that carries a secret (`--S3-libs3.secret-key=...`) replaced: a secret
/// never reaches a text, a document or a log.
pub fn redacted(args: &[String]) -> Vec<String> {
    let secret = |a: &str| {
        let name = a.trim_start_matches('-');
        let name = name.split('=').next().unwrap_or(name);
        name.to_ascii_lowercase().ends_with("secret-key")
    };
    let mut out = Vec::with_capacity(args.len());
    let mut hide_next = false;
    for a in args {
        if hide_next {
            out.push("(secret)".to_string());
            hide_next = false;
        } else if a.starts_with("--") && secret(a) {
            match a.split_once('=') {
                Some((name, _)) => out.push(format!("{name}=(secret)")),
                None => {
                    out.push(a.clone());
                    hide_next = true;
                }
            }
        } else {
            out.push(a.clone());
        }
    }
    out
}
