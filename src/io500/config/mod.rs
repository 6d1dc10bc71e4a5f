//! An IO500 ini configuration: the harness's sections and keys (one table),
//! the file's parsing and checks, lookups with the harness's precedence,
//! the effective `config.ini` and `--list`, and the configuration hash.
//!
//! The grammar is the official harness's (its `ini-parse.c`), so a file it
//! takes is taken here with the same values and the same hash:
//! - `[section]` names use `[0-9a-zA-Z_-]`, keys `[0-9a-zA-Z_.-]`, both
//!   case-insensitive; output uses the table's spelling.
//! - `#` or `;` starts a comment at the start of a line or after a blank;
//!   right after other text the harness matches nothing and refuses the
//!   line, so values cannot hold them.
//! - `key =` (empty) is skipped whole, as the harness does: the key keeps
//!   its default (or an earlier value), and nothing about it is checked.
//! - A key given twice: the later value wins (the harness's behaviour);
//!   sections may be reopened.
//! - Types are checked when read; booleans (`true`/`false`/`1`/`0`, any
//!   case) are stored as `TRUE`/`FALSE`, which is what config.ini shows and
//!   the hash covers.

use std::fmt;

use super::hash::hash_pair;
use crate::units::parse_size;

/// The type a key's value is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Str,
    /// A byte count passed on to ior (`64k`, `2m`): a string for the
    /// harness, checked here as pario's ior will read it.
    Size,
    /// `-?[0-9]+`, no suffix (the harness's own check).
    Int,
    /// `[0-9]+`, no suffix.
    Uint,
    Float,
    Bool,
}

/// A key: its name, type, default (`None`: unset; the harness hashes only
/// set keys, and a few default to the empty string) and help.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub name: &'static str,
    pub ty: Type,
    pub default: Option<&'static str>,
    pub help: &'static str,
}

/// What a section configures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The whole run: `[global]`, `[debug]`.
    Settings,
    /// A group's settings, shared by its phases (`[ior-easy]`): not a phase.
    Group,
    /// One phase (`[ior-easy-write]`).
    Phase,
    /// pario's own, outside IO500 (`[concurrent]`): left out of
    /// `config.ini` and of the configuration hash, so both stay what the
    /// harness would make of the file without it.
    Extension,
}

/// A section: its name, kind, whether it belongs to the extended mode only
/// (`--list-mandatory` leaves those out), and its keys in the harness's order.
#[derive(Debug, Clone, Copy)]
pub struct Section {
    pub name: &'static str,
    pub kind: Kind,
    pub extended: bool,
    pub keys: &'static [Key],
}

/// The table: one key per line, read down as the harness's `config.ini` reads.
#[rustfmt::skip]
mod schema;

pub use schema::SECTIONS;

fn section_index(name: &str) -> Option<usize> {
    SECTIONS
        .iter()
        .position(|s| s.name.eq_ignore_ascii_case(name))
}

fn key_index(section: usize, name: &str) -> Option<usize> {
    SECTIONS[section]
        .keys
        .iter()
        .position(|k| k.name.eq_ignore_ascii_case(name))
}

/// A configuration error: the file, the line and what is wrong, shown as
/// one line (`config.ini:7: unknown key 'blocksiz' in section [ior-easy]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// A key's value and the line that gave it (0: the default), for errors
/// that involve two keys.
#[derive(Debug, Clone)]
struct Slot {
    value: Option<String>,
    line: usize,
}

/// Two configurations are equal when their values are: where a value came
/// from is not part of it.
impl PartialEq for Slot {
    fn eq(&self, other: &Slot) -> bool {
        self.value == other.value
    }
}

/// The values of every key of every section: given, or the default.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    slots: Vec<Vec<Slot>>,
}

impl Default for Config {
    /// The harness's defaults, as if from an empty file.
    fn default() -> Config {
        let slot = |k: &Key| Slot {
            value: k.default.map(str::to_string),
            line: 0,
        };
        let slots = SECTIONS
            .iter()
            .map(|s| s.keys.iter().map(slot).collect())
            .collect();
        Config { slots }
    }
}

/// One line of the file, comment removed.
enum Line<'a> {
    Blank,
    Header(&'a str),
    Pair(&'a str, &'a str),
}

/// The line without its comment, or why the harness would refuse it.
fn strip_comment(line: &str) -> Result<&str, String> {
    let Some(at) = line.find(['#', ';']) else {
        return Ok(line);
    };
    let before = &line[..at];
    match before.trim().is_empty() || before.ends_with(char::is_whitespace) {
        true => Ok(before),
        false => Err(format!(
            "'{}': '{}' starts a comment only after a blank (values cannot hold '#' or ';')",
            line.trim(),
            &line[at..=at]
        )),
    }
}

fn is_name(text: &str, extra: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
}

fn classify(raw: &str) -> Result<Line<'_>, String> {
    let text = strip_comment(raw)?.trim();
    if text.is_empty() {
        return Ok(Line::Blank);
    }
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        if is_name(inner.trim(), "_-") {
            return Ok(Line::Header(inner.trim()));
        }
    } else if let Some((k, v)) = text.split_once('=') {
        if is_name(k.trim(), "_.-") {
            return Ok(Line::Pair(k.trim(), v.trim()));
        }
    }
    Err(format!("'{text}' is neither [section] nor key = value"))
}

impl Config {
    /// Parses `text` (the file `file`, named in errors): every line a
    /// section header, a `key = value`, a comment or blank; then the checks
    /// that involve several keys.
    pub fn parse(file: &str, text: &str) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        let mut section = None;
        for (i, raw) in text.lines().enumerate() {
            let fail = |message: String| ConfigError {
                file: file.to_string(),
                line: i + 1,
                message,
            };
            match classify(raw).map_err(fail)? {
                Line::Blank | Line::Pair(_, "") => {}
                Line::Header(name) => {
                    let found = section_index(name);
                    section = Some(found.ok_or_else(|| fail(format!("unknown section [{name}]")))?);
                }
                Line::Pair(k, v) => {
                    let s =
                        section.ok_or_else(|| fail(format!("'{k}' comes before any [section]")))?;
                    config.set(s, k, v, i + 1).map_err(fail)?;
                }
            }
        }
        config.check().map_err(|(line, message)| ConfigError {
            file: file.to_string(),
            line,
            message,
        })?;
        Ok(config)
    }

    fn set(&mut self, s: usize, name: &str, value: &str, line: usize) -> Result<(), String> {
        let section = &SECTIONS[s];
        let Some(k) = key_index(s, name) else {
            return Err(format!(
                "unknown key '{name}' in section [{}]",
                section.name
            ));
        };
        let key = section.keys[k];
        let value = checked(key.ty, value)
            .map_err(|why| format!("{why} (key {} in [{}])", key.name, section.name))?;
        self.slots[s][k] = Slot {
            value: Some(value),
            line,
        };
        Ok(())
    }

    /// What no single key shows: md-workbench's two sizes go together (the
    /// harness stops otherwise), and pario cannot put buffers on a GPU.
    fn check(&self) -> Result<(), (usize, String)> {
        let given = |s, k| self.slot(s, k).filter(|slot| slot.value.is_some());
        let pair = |slot: &Slot, has: &str, lacks: &str| {
            let why = format!("[mdworkbench] {has} needs {lacks} too (both or neither)");
            Err((slot.line, why))
        };
        let (precreate, files) = ("precreatePerSet", "filesPerProc");
        match (given("mdworkbench", precreate), given("mdworkbench", files)) {
            (Some(p), None) => return pair(p, precreate, files),
            (None, Some(f)) => return pair(f, files, precreate),
            _ => {}
        }
        if let Some(s) = self.slot("global", "io-buffers-on-gpu") {
            if s.value.as_deref() == Some("TRUE") {
                let why = "io-buffers-on-gpu = TRUE: pario has no GPU support";
                return Err((s.line, why.into()));
            }
        }
        self.concurrent_shares()?;
        self.concurrent_stonewall()?;
        self.concurrent_storage()
    }

    /// The concurrent phase's groups read ior-easy's files and run
    /// md-workbench on a file system: over S3 it is refused (not built yet).
    fn concurrent_storage(&self) -> Result<(), (usize, String)> {
        let on_s3 = crate::io500::storage::is_s3(self.value("global", "api"));
        match self.slot("concurrent", "run") {
            Some(run) if on_s3 && self.concurrent() => Err((
                run.line,
                "[concurrent] run = TRUE: not over S3 yet (a file system's datadir only)".into(),
            )),
            _ => Ok(()),
        }
    }

    /// `[concurrent]`'s shares of the tasks in whole percent: ior-easy
    /// write, random reads, md-workbench (the rest); or the line and why
    /// they are refused (each above 0, the first two below 1 together).
    pub fn concurrent_shares(&self) -> Result<[u32; 3], (usize, String)> {
        let share = |key: &str| {
            let slot = self.slot("concurrent", key).expect("a key of the table");
            let text = slot.value.as_deref().unwrap_or_default();
            let v: f64 = text.parse().unwrap_or(f64::NAN);
            let percent = (v * 100.0).round();
            match v > 0.0 && v < 1.0 && (v * 100.0 - percent).abs() < 1e-6 {
                true => Ok((percent as u32, slot.line)),
                false => Err((slot.line, format!(
                    "[concurrent] {key} = {text}: a share of the tasks above 0 and below 1, in whole percent (0.01 steps)"
                ))),
            }
        };
        let (write, at_write) = share("ratio-write")?;
        let (read, at_read) = share("ratio-read")?;
        if write + read >= 100 {
            return Err((at_write.max(at_read), format!(
                "[concurrent] ratio-write + ratio-read = {:.2}: they must leave md-workbench a share (below 1 together)",
                (write + read) as f64 / 100.0
            )));
        }
        Ok([write, read, 100 - write - read])
    }

    /// Whether `[concurrent] run = TRUE`.
    pub fn concurrent(&self) -> bool {
        self.flag("concurrent", "run")
    }

    /// The seconds every concurrent group runs: `[concurrent]
    /// stonewall-time`, else `[debug]`'s; 0 is refused when the phase runs
    /// (its groups would never stop).
    pub fn concurrent_stonewall(&self) -> Result<u64, (usize, String)> {
        let own = self.slot("concurrent", "stonewall-time");
        let own = own.filter(|s| s.value.is_some());
        let slot = own.or(self.slot("debug", "stonewall-time"));
        let seconds = self.get_uint("concurrent", "stonewall-time");
        let seconds = seconds.or(self.get_uint("debug", "stonewall-time"));
        match (seconds.unwrap_or_default(), self.concurrent()) {
            (0, true) => Err((
                slot.map_or(0, |s| s.line),
                "[concurrent] run = TRUE needs a stonewall time above 0 s (its groups stop only there)".into(),
            )),
            (s, _) => Ok(s),
        }
    }

    fn slot(&self, section: &str, key: &str) -> Option<&Slot> {
        let s = section_index(section)?;
        Some(&self.slots[s][key_index(s, key)?])
    }

    /// A key's effective value (given, else the default); `None` when unset
    /// or empty, and for a key the section does not have (`run` of
    /// `[timestamp]`), so callers can ask a phase and fall back to its group.
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.slot(section, key)?
            .value
            .as_deref()
            .filter(|v| !v.is_empty())
    }

    /// The value of a key the schema gives a default: the default is in
    /// the schema only, never repeated by a caller. (`""` for a key without
    /// a default that is unset.)
    pub fn value(&self, section: &str, key: &str) -> &str {
        self.get(section, key).unwrap_or_default()
    }

    /// A boolean key's value (`false` when it has no default and is unset).
    pub fn flag(&self, section: &str, key: &str) -> bool {
        self.get_bool(section, key).unwrap_or(false)
    }

    pub fn get_bool(&self, section: &str, key: &str) -> Option<bool> {
        self.get(section, key).and_then(parse_bool)
    }

    pub fn get_int(&self, section: &str, key: &str) -> Option<i64> {
        self.get(section, key)?.parse().ok()
    }

    pub fn get_uint(&self, section: &str, key: &str) -> Option<u64> {
        self.get(section, key)?.parse().ok()
    }

    pub fn get_float(&self, section: &str, key: &str) -> Option<f64> {
        self.get(section, key)?.parse().ok()
    }

    /// A size key in bytes (`64k` is 65536).
    pub fn get_size(&self, section: &str, key: &str) -> Option<u64> {
        parse_size(self.get(section, key)?).ok()
    }

    /// A phase's API: its own `API`, else its group's, else `[global] api`
    /// (which may carry backend options: `POSIX --posix.odirect`).
    pub fn api_for(&self, phase: &str, group: &str) -> String {
        let api = self.get(phase, "API").or_else(|| self.get(group, "API"));
        api.unwrap_or_else(|| self.value("global", "api"))
            .to_string()
    }

    /// Whether a phase runs: only if neither it nor its group says
    /// `run = FALSE` (the harness checks both).
    pub fn run_for(&self, phase: &str, group: &str) -> bool {
        self.get_bool(phase, "run").unwrap_or(true) && self.get_bool(group, "run").unwrap_or(true)
    }

    /// `collective`: the phase's, else its group's, else off.
    pub fn collective_for(&self, phase: &str, group: &str) -> bool {
        let given = self
            .get_bool(phase, "collective")
            .or_else(|| self.get_bool(group, "collective"));
        given.unwrap_or(false)
    }

    /// How many `-v` a group's tool gets: the group's `verbosity`, else 0.
    /// `[global] verbosity` is the harness's own and does not reach the
    /// tools; phase sections have none.
    pub fn verbosity_for(&self, group: &str) -> u32 {
        let v = self.get_int(group, "verbosity").unwrap_or(0);
        u32::try_from(v).unwrap_or(0)
    }

    /// The effective configuration, as the harness writes `config.ini`:
    /// every section and key in order, unset keys with an empty value, a
    /// blank line after each section.
    pub fn effective_ini(&self) -> String {
        self.layout(false, false)
    }

    /// `--list` (`--list-mandatory`: without the extended mode's sections):
    /// the harness's header comment, then each section with a `# help` line
    /// above each `key = value` (current values), so the output is itself
    /// a valid configuration.
    pub fn list(&self, mandatory_only: bool) -> String {
        let body = self.layout(true, mandatory_only);
        format!("# Supported and current values of the ini file:\n{body}")
    }

    fn layout(&self, help: bool, mandatory_only: bool) -> String {
        let mut out = String::new();
        for (section, slots) in SECTIONS.iter().zip(&self.slots) {
            let extension = section.kind == Kind::Extension;
            // `--list` shows the extensions; `config.ini` is the harness's.
            if (mandatory_only && section.extended) || (extension && (!help || mandatory_only)) {
                continue;
            }
            out.push_str(&format!("[{}]\n", section.name));
            for (key, slot) in section.keys.iter().zip(slots) {
                if help {
                    out.push_str(&format!("# {}\n", key.help));
                }
                out.push_str(&format!(
                    "{} = {}\n",
                    key.name,
                    slot.value.as_deref().unwrap_or_default()
                ));
            }
            out.push('\n');
        }
        out
    }

    /// IO500's configuration hash: the XOR of `hash_pair(key, value)` over
    /// every key with a value, defaults included (also the empty-string
    /// defaults of `external-*-args`), keys in the table's spelling, section
    /// names left out: so equal pairs of two sections cancel out, as they do
    /// in the harness's hash. pario's extensions are left out.
    pub fn config_hash(&self) -> u32 {
        let mut h = 0;
        for (section, slots) in SECTIONS.iter().zip(&self.slots) {
            if section.kind == Kind::Extension {
                continue;
            }
            for (key, slot) in section.keys.iter().zip(slots) {
                if let Some(v) = &slot.value {
                    h ^= hash_pair(key.name, v);
                }
            }
        }
        h
    }
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

fn is_digits(v: &str) -> bool {
    !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())
}

/// The value as stored (booleans as `TRUE`/`FALSE`), or why it is not of
/// its key's type.
fn checked(ty: Type, value: &str) -> Result<String, String> {
    let whole = |v: &str| is_digits(v.strip_prefix('-').unwrap_or(v));
    let (ok, wanted) = match ty {
        Type::Str => (true, ""),
        Type::Size => return parse_size(value).map(|_| value.to_string()),
        Type::Bool => {
            return parse_bool(value)
                .map(bool_text)
                .ok_or_else(|| format!("'{value}' is not TRUE, FALSE, 1 or 0"))
        }
        Type::Int => (
            whole(value) && value.parse::<i64>().is_ok(),
            "a whole number",
        ),
        Type::Uint => (
            is_digits(value) && value.parse::<u64>().is_ok(),
            "a whole number, 0 or more",
        ),
        Type::Float => (value.parse::<f64>().is_ok_and(f64::is_finite), "a number"),
    };
    match ok {
        true => Ok(value.to_string()),
        false => Err(format!("'{value}' is not {wanted}")),
    }
}

fn bool_text(b: bool) -> String {
    match b {
        true => "TRUE".into(),
        false => "FALSE".into(),
    }
}

#[cfg(test)]
mod tests;
