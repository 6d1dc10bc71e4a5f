//! IO500's phases, in the order it runs them, and the command line each one
//! gives pario's own tool: the same arguments the official harness builds,
//! so that a phase's `exe` line can be rerun by hand.

use super::config::Config;
use super::hash::phase_seed;
use super::storage::is_s3;

/// What a phase runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ior,
    Mdtest,
    MdWorkbench,
    Find,
    Timestamp,
}

/// Which score a phase counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scored {
    /// The bandwidth score (GiB/s).
    Bandwidth,
    /// The metadata score (kIOPS), in both modes.
    Metadata,
    /// The metadata score of extended mode only.
    ExtendedMetadata,
    /// Not scored (printed with `[      ]`).
    No,
}

/// One phase of the workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phase {
    pub name: &'static str,
    /// Its parent section (`ior-easy` for `ior-easy-write`), whose keys it
    /// inherits.
    pub group: &'static str,
    pub kind: Kind,
    /// Extended mode only.
    pub optional: bool,
    pub scored: Scored,
    /// Whether a short run of it makes the run invalid (the write phases).
    pub write: bool,
}

const fn phase(
    name: &'static str,
    group: &'static str,
    kind: Kind,
    optional: bool,
    scored: Scored,
) -> Phase {
    Phase {
        name,
        group,
        kind,
        optional,
        scored,
        write: false,
    }
}

const fn write(p: Phase) -> Phase {
    Phase { write: true, ..p }
}

use Kind::*;
use Scored::*;

/// Every phase, in IO500's order.
pub const PHASES: [Phase; 19] = [
    write(phase("ior-easy-write", "ior-easy", Ior, false, Bandwidth)),
    write(phase(
        "mdtest-easy-write",
        "mdtest-easy",
        Mdtest,
        false,
        Metadata,
    )),
    phase("mdworkbench-create", "mdworkbench", MdWorkbench, true, No),
    phase("timestamp", "timestamp", Timestamp, false, No),
    phase("find-easy", "find-easy", Find, true, ExtendedMetadata),
    write(phase("ior-hard-write", "ior-hard", Ior, false, Bandwidth)),
    write(phase(
        "mdtest-hard-write",
        "mdtest-hard",
        Mdtest,
        false,
        Metadata,
    )),
    phase("find", "find", Find, false, Metadata),
    phase("find-hard", "find-hard", Find, true, ExtendedMetadata),
    phase(
        "mdworkbench-bench",
        "mdworkbench",
        MdWorkbench,
        true,
        ExtendedMetadata,
    ),
    phase("ior-easy-read", "ior-easy", Ior, false, Bandwidth),
    phase("mdtest-easy-stat", "mdtest-easy", Mdtest, false, Metadata),
    phase("ior-hard-read", "ior-hard", Ior, false, Bandwidth),
    phase("mdtest-hard-stat", "mdtest-hard", Mdtest, false, Metadata),
    phase("mdworkbench-delete", "mdworkbench", MdWorkbench, true, No),
    phase("mdtest-easy-delete", "mdtest-easy", Mdtest, false, Metadata),
    phase("mdtest-hard-read", "mdtest-hard", Mdtest, false, Metadata),
    phase("mdtest-hard-delete", "mdtest-hard", Mdtest, false, Metadata),
    phase("ior-rnd4K-easy-read", "ior-easy", Ior, false, No),
];

/// The phase called `name`.
pub fn by_name(name: &str) -> Option<&'static Phase> {
    PHASES.iter().find(|p| p.name == name)
}

impl Phase {
    /// Whether it counts in the score of `extended` or standard mode.
    pub fn counts(&self, extended: bool) -> bool {
        match self.scored {
            Bandwidth | Metadata => true,
            ExtendedMetadata => extended,
            No => false,
        }
    }

    /// Whether it runs in this mode at all.
    pub fn in_mode(&self, extended: bool) -> bool {
        extended || !self.optional
    }

    /// The unit of its score.
    pub fn unit(&self) -> &'static str {
        match self.kind {
            Ior => "GiB/s",
            _ => "kIOPS",
        }
    }
}

/// The S3 layout of a phase (docs/s3.md): ior-hard's 47,008-byte
/// transfers, interleaved between the tasks, cannot be multipart parts, so
/// they are fragments (one object per transfer); every other phase's file
/// or item is one object (ior-easy's a multipart upload per task, which
/// ior-rnd4K-easy-read reads back by ranged GETs of 4 KiB).
pub fn s3_layout(p: &Phase) -> &'static str {
    match p.group {
        "ior-hard" => "fragments",
        _ => "object",
    }
}

/// What the arguments of a phase depend on besides the configuration.
#[derive(Debug, Clone)]
pub struct Setting<'a> {
    pub config: &'a Config,
    /// The data and result directories of this run.
    pub data: String,
    pub results: String,
    /// The run's timestamp string (the seeds' input).
    pub timestamp: String,
    /// `[debug] stonewall-time`.
    pub stonewall: u64,
    /// md-workbench's objects per dataset (from mdtest-easy-write's rate
    /// unless configured).
    pub mdw_objects: u64,
}

impl Setting<'_> {
    fn get(&self, section: &str, key: &str) -> Option<String> {
        self.config.get(section, key).map(str::to_string)
    }

    fn flag(&self, section: &str, key: &str) -> bool {
        self.config.flag(section, key)
    }

    /// The API words of a phase: the phase's, its group's, or `[global] api`
    /// (which may carry backend options: `POSIX --posix.odirect`).
    fn api(&self, p: &Phase) -> Vec<String> {
        let api = self.config.api_for(p.name, p.group);
        let mut words = api.split_whitespace().map(str::to_string);
        let mut out = vec!["-a".to_string()];
        out.extend(words.next());
        out.extend(words);
        if is_s3(&api) && !api.contains("--s3.layout") {
            out.push(format!("--s3.layout={}", s3_layout(p)));
        }
        out
    }

    pub(super) fn packet(&self) -> String {
        let t = self.config.value("global", "dataPacketType");
        format!("--dataPacketType={t}")
    }

    pub(super) fn seed(&self, group: &str) -> i32 {
        phase_seed(group, &self.timestamp)
    }
}

/// The command line of phase `p` for its tool (without the program name).
pub fn arguments(p: &Phase, s: &Setting<'_>) -> Vec<String> {
    let mut args = match p.kind {
        Ior if p.group == "ior-hard" => ior_hard(p, s),
        Ior if p.name == "ior-rnd4K-easy-read" => ior_random(p, s),
        Ior => ior_easy(p, s),
        Mdtest => mdtest(p, s),
        MdWorkbench => md_workbench(p, s),
        Find => find(p, s),
        Timestamp => Vec::new(),
    };
    args.retain(|a| !a.is_empty());
    args
}

pub(super) fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

fn ior_easy(p: &Phase, s: &Setting<'_>) -> Vec<String> {
    let (d, r) = (&s.data, &s.results);
    let mut a = vec![s.packet()];
    a.extend(words(&format!(
        "-g -G {} -k -e -o {d}/ior-easy/ior_file_easy -C -Q 1 -O stoneWallingStatusFile={r}/ior-easy.stonewall",
        s.seed("ior-easy")
    )));
    a.extend(ior_easy_sizes(s));
    match p.name {
        "ior-easy-write" => {
            a.extend(words(&format!(
                "-w -D {} -O stoneWallingWearOut=1",
                s.stonewall
            )));
        }
        _ => a.extend(words("-r -R")),
    }
    a.extend(s.api(p));
    a.push(format!(
        "-O saveRankPerformanceDetailsCSV={r}/{}.csv",
        p.name
    ));
    split_directives(a)
}

/// `-t`, `-b`, `-u` and `-F` of the ior-easy phases.
pub(super) fn ior_easy_sizes(s: &Setting<'_>) -> Vec<String> {
    let mut a = vec![
        "-t".into(),
        s.config.value("ior-easy", "transferSize").into(),
        "-b".into(),
        s.config.value("ior-easy", "blockSize").into(),
    ];
    if s.flag("ior-easy", "uniqueDir") {
        a.push("-u".into());
    }
    if s.config.flag("ior-easy", "filePerProc") {
        a.push("-F".into());
    }
    a
}

fn ior_hard(p: &Phase, s: &Setting<'_>) -> Vec<String> {
    let (d, r) = (&s.data, &s.results);
    let segments = s.config.value("ior-hard", "segmentCount");
    let mut a = vec![s.packet()];
    a.extend(words(&format!(
        "-C -Q 1 -g -G={} -k -e -o {d}/ior-hard/file -O stoneWallingStatusFile={r}/ior-hard.stonewall -t 47008 -b 47008 -s {segments}",
        s.seed("ior-hard")
    )));
    let write = p.name == "ior-hard-write";
    match write {
        true => a.extend(words(&format!("-w -D {}", s.stonewall))),
        false => a.extend(words("-r -R")),
    }
    if s.config.collective_for(p.name, p.group) {
        a.push("-c".into());
    }
    a.extend(s.api(p));
    a.push(format!(
        "-O saveRankPerformanceDetailsCSV={r}/{}.csv",
        p.name
    ));
    if write {
        a.push("-O stoneWallingWearOut=1".into());
    }
    split_directives(a)
}

fn ior_random(p: &Phase, s: &Setting<'_>) -> Vec<String> {
    let (d, r) = (&s.data, &s.results);
    let mut a = vec![s.packet()];
    a.extend(words(&format!(
        "-g -G {} -k -e -o {d}/ior-easy/ior_file_easy",
        s.seed("ior-easy")
    )));
    if s.config.flag("ior-easy", "filePerProc") {
        a.push("-F".into());
    }
    a.extend(words(&format!("-r -D {} -z -z", s.stonewall)));
    a.extend(s.api(p));
    a.push(format!(
        "-O saveRankPerformanceDetailsCSV={r}/{}.csv",
        p.name
    ));
    a.extend(words(
        "-t=4096 -b=4096 -s=10000000 -O stoneWallingWearOut=1 -C -Q 2",
    ));
    split_directives(a)
}

/// `-O key=value` kept as two words, as a shell would pass them.
pub(super) fn split_directives(args: Vec<String>) -> Vec<String> {
    args.into_iter()
        .flat_map(|a| match a.strip_prefix("-O ") {
            Some(rest) => vec!["-O".to_string(), rest.to_string()],
            None => vec![a],
        })
        .collect()
}

fn mdtest(p: &Phase, s: &Setting<'_>) -> Vec<String> {
    let (d, r, g) = (&s.data, &s.results, p.group);
    let n = s.config.value(g, "n");
    let mut a = vec![s.packet()];
    let seed = s.seed(g);
    a.extend(match g {
        "mdtest-easy" => words(&format!("-n {n} -u -L -F -P -G {seed} -N 1")),
        _ => {
            let per_dir = s.get(g, "files-per-dir").map(|f| format!("-I {f}"));
            words(&format!(
                "-n {n} {} -t -w 3901 -e 3901 -P -G={seed} -N 1 -F",
                per_dir.unwrap_or_default()
            ))
        }
    });
    a.extend(words(&format!("-d {d}/{g} -x {r}/{g}.stonewall")));
    let step = p.name.rsplit('-').next().unwrap_or_default();
    a.extend(words(match step {
        "write" => "-C -Y -W",
        "stat" => "-T",
        "read" => "-E -X",
        _ => "-r",
    }));
    if step == "write" {
        a.push(s.stonewall.to_string());
    }
    a.push(format!("--saveRankPerformanceDetails={r}/{}.csv", p.name));
    a.extend(s.api(p));
    a
}

fn md_workbench(p: &Phase, s: &Setting<'_>) -> Vec<String> {
    let (d, r) = (&s.data, &s.results);
    let waiting = s
        .config
        .get_float("mdworkbench", "waitingTime")
        .unwrap_or_default();
    let mut a = vec![s.packet(), "--process-reports".into()];
    a.extend(s.api(p));
    let n = s.mdw_objects;
    a.extend(words(&format!(
        "-o={d}/mdworkbench -t={waiting:.6} -O=1 --run-info-file={r}/mdworkbench.status -D=10 -G={} -P={n} -I={n}",
        s.seed("mdworkbench")
    )));
    a.extend(words(match p.name {
        "mdworkbench-create" => "-1",
        "mdworkbench-bench" => "-2 -R=2 -X",
        _ => "-3",
    }));
    a
}

/// pfind's arguments, for the `exe` line (pario's find runs in-process).
fn find(p: &Phase, s: &Setting<'_>) -> Vec<String> {
    let (d, r) = (&s.data, &s.results);
    let q = s.config.value(p.group, "pfind-queue-length");
    let newer = format!("-newer {r}/timestampfile -size 3901c");
    words(&match p.name {
        "find-easy" => format!("{d}/mdtest-easy/ -name *01* -C -q {q}"),
        "find-hard" => format!("{d}/mdtest-hard/ {newer} -name *01* -C -q {q}"),
        _ => format!("{d} {newer} -name *01* -C -q {q}"),
    })
}

/// The program a phase's `exe` line names.
pub fn program(kind: Kind) -> &'static str {
    match kind {
        Ior => "ior",
        Mdtest => "mdtest",
        MdWorkbench => "md-workbench",
        Find => "pfind",
        Timestamp => "",
    }
}
