//! An IO500 ini configuration: the harness's sections and keys (one table),
//! the file's parsing and checks, lookups with the harness's precedence,
//! the effective `config.ini` and `--list`, and the configuration hash.

use std::fmt;

use super::hash::hash_pair;

/// The type a key's value is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Str,
    Int,
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

const fn key(
    name: &'static str,
    ty: Type,
    default: Option<&'static str>,
    help: &'static str,
) -> Key {
    Key {
        name,
        ty,
        default,
        help,
    }
}

use Type::*;

const API: Key = key(
    "API",
    Str,
    None,
    "the API (and its options) of this phase; default: [global] api",
);
const RUN: Key = key("run", Bool, Some("TRUE"), "run this phase");
const VERBOSITY: Key = key("verbosity", Int, None, "verbosity of the tool");
const COLLECTIVE: Key = key("collective", Bool, None, "collective I/O (-c)");

const GLOBAL: &[Key] = &[
    key(
        "datadir",
        Str,
        Some("./datafiles"),
        "the directory the benchmarks write in",
    ),
    key(
        "timestamp-datadir",
        Bool,
        Some("TRUE"),
        "append the timestamp to datadir",
    ),
    key(
        "resultdir",
        Str,
        Some("./results"),
        "the directory of the result files",
    ),
    key(
        "timestamp-resultdir",
        Bool,
        Some("TRUE"),
        "append the timestamp to resultdir",
    ),
    key(
        "api",
        Str,
        Some("POSIX"),
        "the default API, with its options (POSIX --posix.odirect)",
    ),
    key(
        "drop-caches",
        Bool,
        Some("FALSE"),
        "run drop-caches-cmd before each phase, once per node",
    ),
    key(
        "drop-caches-cmd",
        Str,
        Some("sudo -n bash -c \"echo 3 > /proc/sys/vm/drop_caches\""),
        "the command that drops the caches",
    ),
    key(
        "io-buffers-on-gpu",
        Bool,
        Some("FALSE"),
        "I/O buffers on the GPU (refused: pario has no GPU support)",
    ),
    key("verbosity", Int, Some("1"), "the harness's verbosity"),
    key(
        "scc",
        Bool,
        Some("FALSE"),
        "a student cluster competition run (30 s minimum phases)",
    ),
    key(
        "dataPacketType",
        Str,
        Some("timestamp"),
        "the data pattern of every tool",
    ),
];
const DEBUG: &[Key] = &[
    key(
        "stonewall-time",
        Uint,
        Some("300"),
        "seconds of the write phases (300 for a valid run)",
    ),
    key(
        "pause-dir",
        Str,
        None,
        "a directory whose file pauses the run between phases",
    ),
];
const IOR_EASY: &[Key] = &[
    API,
    key("transferSize", Str, Some("2m"), "ior-easy's transfer size"),
    key(
        "blockSize",
        Str,
        Some("9920000m"),
        "ior-easy's block size (the stonewall stops it)",
    ),
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
    key(
        "waitingTime",
        Float,
        Some("0.0"),
        "md-workbench's waiting factor (-t)",
    ),
    key(
        "precreatePerSet",
        Uint,
        None,
        "objects precreated per dataset (-P)",
    ),
    key(
        "filesPerProc",
        Uint,
        None,
        "objects per dataset and iteration (-I)",
    ),
    RUN,
    VERBOSITY,
];
const FIND: &[Key] = &[
    key(
        "external-script",
        Str,
        None,
        "a script to run instead of the built-in find",
    ),
    key(
        "external-mpi-args",
        Str,
        Some(""),
        "launcher arguments of the script",
    ),
    key(
        "external-extra-args",
        Str,
        Some(""),
        "further arguments of the script",
    ),
    key("nproc", Uint, None, "tasks of the external script"),
    RUN,
    key(
        "pfind-queue-length",
        Int,
        Some("10000"),
        "pfind's queue length",
    ),
    key(
        "pfind-steal-next",
        Bool,
        Some("FALSE"),
        "pfind's work stealing option",
    ),
    key(
        "pfind-parallelize-single-dir-access-using-hashing",
        Bool,
        Some("FALSE"),
        "pfind's hashing option",
    ),
];
const IOR_HARD: &[Key] = &[
    API,
    key(
        "segmentCount",
        Uint,
        Some("10000000"),
        "ior-hard's segments (the stonewall stops it)",
    ),
    COLLECTIVE,
    RUN,
    VERBOSITY,
];
const IOR_HARD_PHASE: &[Key] = &[API, COLLECTIVE, RUN];
const MDTEST_HARD: &[Key] = &[
    API,
    key("n", Uint, Some("1000000"), "files per task"),
    key(
        "files-per-dir",
        Uint,
        None,
        "files per directory (invalidates the run)",
    ),
    RUN,
];

/// Whether a section is a phase of either mode, or configures phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Settings,
    /// Mandatory phase, or the group of mandatory phases.
    Mandatory,
    /// Extended mode only.
    Optional,
}

/// Every section, in the harness's order.
pub const SECTIONS: &[(&str, Role, &[Key])] = &[
    ("global", Role::Settings, GLOBAL),
    ("debug", Role::Settings, DEBUG),
    ("ior-easy", Role::Mandatory, IOR_EASY),
    ("ior-easy-write", Role::Mandatory, API_RUN),
    ("mdtest-easy", Role::Mandatory, MDTEST_EASY),
    ("mdtest-easy-write", Role::Mandatory, API_RUN),
    ("mdworkbench", Role::Optional, MDWORKBENCH),
    ("mdworkbench-create", Role::Optional, ONLY_RUN),
    ("timestamp", Role::Mandatory, &[]),
    ("find-easy", Role::Optional, FIND),
    ("ior-hard", Role::Mandatory, IOR_HARD),
    ("ior-hard-write", Role::Mandatory, IOR_HARD_PHASE),
    ("mdtest-hard", Role::Mandatory, MDTEST_HARD),
    ("mdtest-hard-write", Role::Mandatory, API_RUN),
    ("find", Role::Mandatory, FIND),
    ("find-hard", Role::Optional, FIND),
    ("mdworkbench-bench", Role::Optional, ONLY_RUN),
    ("ior-easy-read", Role::Mandatory, API_RUN),
    ("mdtest-easy-stat", Role::Mandatory, API_RUN),
    ("ior-hard-read", Role::Mandatory, IOR_HARD_PHASE),
    ("mdtest-hard-stat", Role::Mandatory, API_RUN),
    ("mdworkbench-delete", Role::Optional, ONLY_RUN),
    ("mdtest-easy-delete", Role::Mandatory, API_RUN),
    ("mdtest-hard-read", Role::Mandatory, API_RUN),
    ("mdtest-hard-delete", Role::Mandatory, API_RUN),
    ("ior-rnd4K-easy-read", Role::Mandatory, API_RUN),
];

/// A configuration error: the file, the line and what is wrong.
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

/// The values of every key of every section: given, or the default.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    values: Vec<Vec<Option<String>>>,
}

fn section_index(name: &str) -> Option<usize> {
    SECTIONS
        .iter()
        .position(|(n, ..)| n.eq_ignore_ascii_case(name))
}

fn key_index(section: usize, name: &str) -> Option<usize> {
    SECTIONS[section]
        .2
        .iter()
        .position(|k| k.name.eq_ignore_ascii_case(name))
}

impl Default for Config {
    fn default() -> Config {
        let values = SECTIONS
            .iter()
            .map(|(_, _, keys)| keys.iter().map(|k| k.default.map(str::to_string)).collect())
            .collect();
        Config { values }
    }
}

impl Config {
    /// Parses `text` (the file `file`): every line a section header, a
    /// `key = value`, a comment (`#`, `;`) or blank.
    pub fn parse(file: &str, text: &str) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        let mut section = None;
        for (i, raw) in text.lines().enumerate() {
            let fail = |message: String| ConfigError {
                file: file.to_string(),
                line: i + 1,
                message,
            };
            let line = raw.split(['#', ';']).next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                let name = name.trim();
                section = Some(
                    section_index(name).ok_or_else(|| fail(format!("unknown section [{name}]")))?,
                );
                continue;
            }
            let Some((k, v)) = line.split_once('=') else {
                return Err(fail(format!(
                    "'{line}' is neither [section] nor key = value"
                )));
            };
            let Some(s) = section else {
                return Err(fail(format!("'{}' comes before any [section]", k.trim())));
            };
            config.set(s, k.trim(), v.trim()).map_err(fail)?;
        }
        Ok(config)
    }

    fn set(&mut self, s: usize, name: &str, value: &str) -> Result<(), String> {
        let (section, _, keys) = SECTIONS[s];
        let Some(k) = key_index(s, name) else {
            return Err(format!("unknown key '{name}' in section [{section}]"));
        };
        if !value.is_empty() {
            check_type(keys[k], value)
                .map_err(|why| format!("[{section}] {name} = {value}: {why}"))?;
        }
        self.values[s][k] = (!value.is_empty()).then(|| value.to_string());
        Ok(())
    }

    fn raw(&self, section: &str, key: &str) -> Option<&str> {
        let s = section_index(section)?;
        self.values[s][key_index(s, key)?].as_deref()
    }

    /// A key's value, `None` when unset or empty.
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.raw(section, key).filter(|v| !v.is_empty())
    }

    pub fn get_bool(&self, section: &str, key: &str) -> Option<bool> {
        self.get(section, key).and_then(parse_bool)
    }

    pub fn get_uint(&self, section: &str, key: &str) -> Option<u64> {
        self.get(section, key).and_then(|v| v.parse().ok())
    }

    /// A phase's API: its own, its group's, or `[global] api`.
    pub fn api_for(&self, phase: &str, group: &str) -> String {
        self.get(phase, "API")
            .or_else(|| self.get(group, "API"))
            .or_else(|| self.get("global", "api"))
            .unwrap_or("POSIX")
            .to_string()
    }

    /// Whether a phase runs: neither it nor its group says `run = FALSE`.
    pub fn run_for(&self, phase: &str, group: &str) -> bool {
        self.get_bool(phase, "run").unwrap_or(true) && self.get_bool(group, "run").unwrap_or(true)
    }

    /// `collective`: the phase's, else its group's.
    pub fn collective_for(&self, phase: &str, group: &str) -> bool {
        self.get_bool(phase, "collective")
            .or_else(|| self.get_bool(group, "collective"))
            .unwrap_or(false)
    }

    /// The effective configuration, as the harness writes `config.ini`.
    pub fn effective_ini(&self) -> String {
        let mut out = String::new();
        for (s, (name, _, keys)) in SECTIONS.iter().enumerate() {
            out.push_str(&format!("[{name}]\n"));
            for (k, key) in keys.iter().enumerate() {
                let v = self.values[s][k].as_deref().unwrap_or_default();
                out.push_str(&format!("{} = {v}\n", key.name));
            }
            out.push('\n');
        }
        out
    }

    /// `--list`: each section with its keys' help and current values
    /// (`mandatory`: without the extended mode's sections).
    pub fn list(&self, mandatory: bool) -> String {
        let mut out = String::new();
        for (s, (name, role, keys)) in SECTIONS.iter().enumerate() {
            if mandatory && *role == Role::Optional {
                continue;
            }
            out.push_str(&format!("[{name}]\n"));
            for (k, key) in keys.iter().enumerate() {
                let v = self.values[s][k].as_deref().unwrap_or_default();
                out.push_str(&format!("# {}\n{} = {v}\n", key.help, key.name));
            }
            out.push('\n');
        }
        out
    }

    /// IO500's configuration hash: the XOR of every set key's hash (empty
    /// defaults included, section names not).
    pub fn config_hash(&self) -> u32 {
        let mut h = 0;
        for (s, (_, _, keys)) in SECTIONS.iter().enumerate() {
            for (k, key) in keys.iter().enumerate() {
                if let Some(v) = &self.values[s][k] {
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

fn check_type(key: Key, value: &str) -> Result<(), &'static str> {
    let ok = match key.ty {
        Str => true,
        Int => value.parse::<i64>().is_ok(),
        Uint => value.parse::<u64>().is_ok(),
        Float => value.parse::<f64>().is_ok(),
        Bool => parse_bool(value).is_some(),
    };
    match (ok, key.ty) {
        (true, _) => Ok(()),
        (false, Int) => Err("not a whole number"),
        (false, Uint) => Err("not a whole number, 0 or more"),
        (false, Float) => Err("not a number"),
        (false, _) => Err("not TRUE or FALSE"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIG: &str = include_str!("../../tests/data/io500/config-orig.ini");
    const EFFECTIVE: &str = include_str!("../../tests/data/io500/config.ini");

    #[test]
    fn the_effective_configuration_and_hash_are_the_harness() {
        let c = Config::parse("config-orig.ini", ORIG).unwrap();
        assert_eq!(c.effective_ini(), EFFECTIVE);
        assert_eq!(c.config_hash(), 0xD5E32655);
        assert_eq!(c.get_uint("debug", "stonewall-time"), Some(2));
        assert_eq!(c.api_for("ior-easy-write", "ior-easy"), "POSIX");
    }

    #[test]
    fn lookups_follow_the_harness_precedence() {
        let text = "[global]\napi = POSIX --posix.odirect\n[ior-hard]\nAPI = MPIIO\ncollective = TRUE\n\
                    [ior-hard-read]\napi = MMAP ; a comment\ncollective = false\n[MDTEST-EASY]\nRUN = false\n";
        let c = Config::parse("c.ini", text).unwrap();
        assert_eq!(
            c.api_for("ior-easy-write", "ior-easy"),
            "POSIX --posix.odirect"
        );
        assert_eq!(c.api_for("ior-hard-write", "ior-hard"), "MPIIO");
        assert_eq!(c.api_for("ior-hard-read", "ior-hard"), "MMAP");
        assert!(c.collective_for("ior-hard-write", "ior-hard"));
        assert!(!c.collective_for("ior-hard-read", "ior-hard"));
        assert!(!c.run_for("mdtest-easy-stat", "mdtest-easy"));
        assert!(c.run_for("mdtest-hard-stat", "mdtest-hard"));
    }

    #[test]
    fn errors_name_the_file_line_and_key() {
        let cases = [
            (
                "[global]\ndatadir = x\n[ior-easy]\nblockSiz = 1m\n",
                "c.ini:4: unknown key 'blockSiz' in section [ior-easy]",
            ),
            ("[nosuch]\n", "c.ini:1: unknown section [nosuch]"),
            (
                "datadir = x\n",
                "c.ini:1: 'datadir' comes before any [section]",
            ),
            (
                "[debug]\nstonewall-time = -3\n",
                "c.ini:2: [debug] stonewall-time = -3: not a whole number, 0 or more",
            ),
            (
                "[global]\nscc = maybe\n",
                "c.ini:2: [global] scc = maybe: not TRUE or FALSE",
            ),
            (
                "[global]\njust words\n",
                "c.ini:2: 'just words' is neither [section] nor key = value",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(
                Config::parse("c.ini", text).unwrap_err().to_string(),
                message
            );
        }
    }
}
