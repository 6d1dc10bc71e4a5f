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
mod schema {
    use super::{Key, Kind::*, Section, Type::*};

    const fn key(name: &'static str, ty: super::Type, default: Option<&'static str>, help: &'static str) -> Key {
        Key { name, ty, default, help }
    }

    const fn section(name: &'static str, kind: super::Kind, extended: bool, keys: &'static [Key]) -> Section {
        Section { name, kind, extended, keys }
    }

    const API: Key = key("API", Str, None, "the API (and its options) of this phase; default: [global] api");
    const RUN: Key = key("run", Bool, Some("TRUE"), "run this phase (FALSE scores 0 and invalidates a mandatory phase)");
    const VERBOSITY: Key = key("verbosity", Int, None, "the tool's verbosity (one -v each)");
    const COLLECTIVE: Key = key("collective", Bool, None, "collective I/O (-c)");

    const GLOBAL: &[Key] = &[
        key("datadir", Str, Some("./datafiles"), "the directory the benchmarks write in"),
        key("timestamp-datadir", Bool, Some("TRUE"), "append the timestamp to datadir"),
        key("resultdir", Str, Some("./results"), "the directory of the result files"),
        key("timestamp-resultdir", Bool, Some("TRUE"), "append the timestamp to resultdir"),
        key("api", Str, Some("POSIX"), "the default API, with its options (POSIX --posix.odirect)"),
        key("drop-caches", Bool, Some("FALSE"), "run drop-caches-cmd before each phase, once per node"),
        key("drop-caches-cmd", Str, Some("sudo -n bash -c \"echo 3 > /proc/sys/vm/drop_caches\""), "the command that drops the caches"),
        key("io-buffers-on-gpu", Bool, Some("FALSE"), "I/O buffers on the GPU (refused: pario has no GPU support)"),
        key("verbosity", Uint, Some("1"), "the harness's verbosity"),
        key("scc", Bool, Some("FALSE"), "a student cluster competition run (30 s minimum phases)"),
        key("dataPacketType", Str, Some("timestamp"), "the data pattern of every tool"),
    ];
    const DEBUG: &[Key] = &[
        key("stonewall-time", Uint, Some("300"), "seconds of the write phases (300 for a valid run)"),
        key("pause-dir", Str, None, "a directory whose file pauses the run between phases"),
    ];
    const IOR_EASY: &[Key] = &[
        API,
        key("transferSize", Size, Some("2m"), "ior-easy's transfer size"),
        key("blockSize", Size, Some("9920000m"), "ior-easy's block size (the stonewall stops it)"),
        key("filePerProc", Bool, Some("TRUE"), "a file per task"),
        key("uniqueDir", Bool, Some("FALSE"), "a directory per task"),
        RUN,
        VERBOSITY,
    ];
    const API_RUN: &[Key] = &[API, RUN];
    const ONLY_RUN: &[Key] = &[RUN];
    const MDTEST_EASY: &[Key] = &[API, key("n", Uint, Some("1000000"), "files per task"), RUN];
    const MDWORKBENCH: &[Key] = &[
        API,
        key("waitingTime", Float, Some("0.0"), "md-workbench's waiting factor (-t)"),
        key("precreatePerSet", Uint, None, "objects precreated per dataset (-P); with filesPerProc"),
        key("filesPerProc", Uint, None, "objects per dataset and iteration (-I); with precreatePerSet"),
        RUN,
        VERBOSITY,
    ];
    const FIND: &[Key] = &[
        key("external-script", Str, None, "a script to run instead of the built-in find"),
        key("external-mpi-args", Str, Some(""), "launcher arguments of the script"),
        key("external-extra-args", Str, Some(""), "further arguments of the script"),
        key("nproc", Uint, None, "tasks of the external script"),
        RUN,
        key("pfind-queue-length", Int, Some("10000"), "pfind's queue length"),
        key("pfind-steal-next", Bool, Some("FALSE"), "pfind's work stealing option"),
        key("pfind-parallelize-single-dir-access-using-hashing", Bool, Some("FALSE"), "pfind's hashing option"),
    ];
    const IOR_HARD: &[Key] = &[
        API,
        key("segmentCount", Uint, Some("10000000"), "ior-hard's segments (the stonewall stops it)"),
        COLLECTIVE,
        RUN,
        VERBOSITY,
    ];
    const IOR_HARD_PHASE: &[Key] = &[API, COLLECTIVE, RUN];
    const MDTEST_HARD: &[Key] = &[
        API,
        key("n", Uint, Some("1000000"), "files per task"),
        key("files-per-dir", Uint, None, "files per directory (invalidates the run)"),
        RUN,
    ];

    /// Every section, in the harness's order (that of its `config.ini`).
    pub const SECTIONS: &[Section] = &[
        section("global", Settings, false, GLOBAL),
        section("debug", Settings, false, DEBUG),
        section("ior-easy", Group, false, IOR_EASY),
        section("ior-easy-write", Phase, false, API_RUN),
        section("mdtest-easy", Group, false, MDTEST_EASY),
        section("mdtest-easy-write", Phase, false, API_RUN),
        section("mdworkbench", Group, true, MDWORKBENCH),
        section("mdworkbench-create", Phase, true, ONLY_RUN),
        section("timestamp", Phase, false, &[]),
        section("find-easy", Phase, true, FIND),
        section("ior-hard", Group, false, IOR_HARD),
        section("ior-hard-write", Phase, false, IOR_HARD_PHASE),
        section("mdtest-hard", Group, false, MDTEST_HARD),
        section("mdtest-hard-write", Phase, false, API_RUN),
        section("find", Phase, false, FIND),
        section("find-hard", Phase, true, FIND),
        section("mdworkbench-bench", Phase, true, ONLY_RUN),
        section("ior-easy-read", Phase, false, API_RUN),
        section("mdtest-easy-stat", Phase, false, API_RUN),
        section("ior-hard-read", Phase, false, IOR_HARD_PHASE),
        section("mdtest-hard-stat", Phase, false, API_RUN),
        section("mdworkbench-delete", Phase, true, ONLY_RUN),
        section("mdtest-easy-delete", Phase, false, API_RUN),
        section("mdtest-hard-read", Phase, false, API_RUN),
        section("mdtest-hard-delete", Phase, false, API_RUN),
        section("ior-rnd4K-easy-read", Phase, false, API_RUN),
    ];
}

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
        match self.slot("global", "io-buffers-on-gpu") {
            Some(s) if s.value.as_deref() == Some("TRUE") => Err((
                s.line,
                "io-buffers-on-gpu = TRUE: pario has no GPU support".into(),
            )),
            _ => Ok(()),
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
        api.or_else(|| self.get("global", "api"))
            .unwrap_or("POSIX")
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
            if mandatory_only && section.extended {
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
    /// in the harness's hash.
    pub fn config_hash(&self) -> u32 {
        let mut h = 0;
        for (section, slots) in SECTIONS.iter().zip(&self.slots) {
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
mod tests {
    use super::*;

    const ORIG: &str = include_str!("../../tests/data/io500/config-orig.ini");
    const EFFECTIVE: &str = include_str!("../../tests/data/io500/config.ini");

    fn parsed(text: &str) -> Config {
        Config::parse("c.ini", text).unwrap()
    }

    fn error(text: &str) -> String {
        Config::parse("c.ini", text).unwrap_err().to_string()
    }

    #[test]
    fn the_effective_configuration_and_hash_are_the_harness() {
        let c = Config::parse("config-orig.ini", ORIG).unwrap();
        assert_eq!(c.effective_ini(), EFFECTIVE);
        assert_eq!(c.config_hash(), 0xD5E32655);
        // Its own effective file reads back to the same values.
        assert_eq!(parsed(EFFECTIVE), c);
        assert_eq!(c.get_uint("debug", "stonewall-time"), Some(2));
        assert_eq!(c.get_size("ior-easy", "transferSize"), Some(65536));
        assert_eq!(c.get_float("mdworkbench", "waitingTime"), Some(0.0));
        assert_eq!(c.get("mdtest-hard", "files-per-dir"), None);
        assert_eq!(c.api_for("ior-easy-write", "ior-easy"), "POSIX");
    }

    #[test]
    fn the_hash_sees_values_as_the_harness_stores_them() {
        let base = parsed(ORIG).config_hash();
        // Names in any case, booleans in any spelling, empty values and
        // comments change nothing.
        let same = format!(
            "{ORIG}\n[IOR-EASY]\nFILEPERPROC = 1 # as before\nrun =\n; note\n[Global]\napi = POSIX\t\n"
        );
        assert_eq!(parsed(&same).config_hash(), base);
        assert_ne!(
            parsed(&format!("{ORIG}\n[find]\nrun = false\n")).config_hash(),
            base
        );
        assert_eq!(
            parsed("[find]\nrun = false\n").get("find", "run"),
            Some("FALSE")
        );
        // The later of two values wins.
        assert_eq!(
            parsed("[mdtest-easy]\nn = 5\nn = 7\n").get_uint("mdtest-easy", "n"),
            Some(7)
        );
    }

    #[test]
    fn lookups_follow_the_harness_precedence() {
        let text =
            "[global]\napi = POSIX --posix.odirect\n[ior-hard]\nAPI = MPIIO\ncollective = TRUE\n\
                    verbosity = 2\n[ior-hard-read]\napi = MMAP ; a comment\ncollective = false\n\
                    [MDTEST-EASY]\nRUN = false\n[mdtest-hard-read]\nrun = 0\n";
        let c = parsed(text);
        assert_eq!(
            c.api_for("ior-easy-write", "ior-easy"),
            "POSIX --posix.odirect"
        );
        assert_eq!(c.api_for("ior-hard-write", "ior-hard"), "MPIIO");
        assert_eq!(c.api_for("ior-hard-read", "ior-hard"), "MMAP");
        assert!(c.collective_for("ior-hard-write", "ior-hard"));
        assert!(!c.collective_for("ior-hard-read", "ior-hard"));
        assert!(!c.collective_for("ior-easy-write", "ior-easy"));
        assert!(!c.run_for("mdtest-easy-stat", "mdtest-easy"));
        assert!(!c.run_for("mdtest-hard-read", "mdtest-hard"));
        assert!(c.run_for("mdtest-hard-stat", "mdtest-hard"));
        assert_eq!(c.verbosity_for("ior-hard"), 2);
        assert_eq!(c.verbosity_for("ior-easy"), 0);
    }

    #[test]
    fn errors_name_the_file_line_and_key() {
        // One case a line: the file (`|` for a line break) => the error.
        const CASES: &str = "\
[global]|datadir = x|[ior-easy]|blockSiz = 1m => c.ini:4: unknown key 'blockSiz' in section [ior-easy]
# c|[nosuch] => c.ini:2: unknown section [nosuch]
datadir = x => c.ini:1: 'datadir' comes before any [section]
[debug]|stonewall-time = -3 => c.ini:2: '-3' is not a whole number, 0 or more (key stonewall-time in [debug])
[find]|pfind-queue-length = 1k => c.ini:2: '1k' is not a whole number (key pfind-queue-length in [find])
[global]|scc = maybe => c.ini:2: 'maybe' is not TRUE, FALSE, 1 or 0 (key scc in [global])
[mdworkbench]|waitingTime = abc => c.ini:2: 'abc' is not a number (key waitingTime in [mdworkbench])
[ior-easy]|transferSize = 64x => c.ini:2: '64x' has an unknown size suffix 'x' (use k, m, g, t, p or e) (key transferSize in [ior-easy])
[global]|just words => c.ini:2: 'just words' is neither [section] nor key = value
[ior easy] => c.ini:1: '[ior easy]' is neither [section] nor key = value
[global]|datadir = /a#b => c.ini:2: 'datadir = /a#b': '#' starts a comment only after a blank (values cannot hold '#' or ';')
[mdworkbench]||filesPerProc = 20 => c.ini:3: [mdworkbench] filesPerProc needs precreatePerSet too (both or neither)
[global]|io-buffers-on-gpu = true => c.ini:2: io-buffers-on-gpu = TRUE: pario has no GPU support
";
        for case in CASES.lines() {
            let (text, message) = case.split_once(" => ").unwrap();
            assert_eq!(error(&text.replace('|', "\n")), message, "{text}");
        }
        // What the harness skips is skipped: an empty value, even of an
        // unknown key or before any section.
        parsed("nosuch =\n[global]\nnosuch = ; empty\n\n   # indented comment\n");
    }

    #[test]
    fn the_list_has_help_and_leaves_out_extended_sections_when_asked() {
        let c = parsed(ORIG);
        let all = c.list(false);
        assert!(all.starts_with("# Supported and current values of the ini file:\n[global]\n# "));
        assert!(all.contains("\n# ior-easy's transfer size\ntransferSize = 64k\n"));
        assert!(all.contains("[find-hard]") && all.contains("[mdworkbench]"));
        let mandatory = c.list(true);
        assert!(mandatory.contains("[find]") && mandatory.contains("[ior-rnd4K-easy-read]"));
        assert!(!mandatory.contains("[find-hard]") && !mandatory.contains("[mdworkbench"));
        // The list is itself a configuration with the same values.
        assert_eq!(parsed(&all), c);
    }

    #[test]
    fn the_table_has_one_spelling_per_name() {
        for (i, s) in SECTIONS.iter().enumerate() {
            assert!(is_name(s.name, "_-"), "{}", s.name);
            assert_eq!(section_index(s.name), Some(i), "{}", s.name);
            for (k, key) in s.keys.iter().enumerate() {
                assert!(is_name(key.name, "_.-"), "{}", key.name);
                assert_eq!(key_index(i, key.name), Some(k), "[{}] {}", s.name, key.name);
                if let Some(d) = key.default.filter(|d| !d.is_empty()) {
                    assert_eq!(
                        checked(key.ty, d).as_deref(),
                        Ok(d),
                        "[{}] {}",
                        s.name,
                        key.name
                    );
                }
            }
        }
    }
}
