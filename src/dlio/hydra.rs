//! The files Hydra writes into `<hydra.run.dir>/<hydra.output_subdir>/`
//! before DLIO runs: `config.yaml` (the composed `workload:` tree,
//! interpolations unresolved), `overrides.yaml` (the task's overrides as
//! typed) and `hydra.yaml` (Hydra's own configuration, as Hydra 1.3.2
//! writes it for DLIO). mlpstorage reads the first two back.

use std::path::{Path, PathBuf};

use super::config::compose::{Composed, Source};
use super::config::value::{Map, Value};
use super::config::yaml::{dump, quote};

const HYDRA_TEMPLATE: &str = include_str!("hydra.yaml.in");

/// The three files, named, with their text.
pub fn files(composed: &Composed, output_dir: &Path, cwd: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("config.yaml", dump(&composed.root)),
        ("hydra.yaml", hydra_yaml(composed, output_dir, cwd)),
        ("overrides.yaml", list(&composed.task_overrides, 0)),
    ]
}

/// A YAML list of strings at `indent`, or `[]`.
fn list(items: &[String], indent: usize) -> String {
    if items.is_empty() {
        return "[]\n".into();
    }
    let mut m = Map::default();
    m.insert(
        "x",
        Value::List(items.iter().map(|s| Value::Str(s.clone())).collect()),
    );
    // A list under a key is written at the key's indent: reuse that.
    let text = dump(&m);
    let pad = " ".repeat(indent);
    text.lines()
        .skip(1)
        .map(|l| format!("{pad}{l}\n"))
        .collect()
}

fn hydra_yaml(composed: &Composed, output_dir: &Path, cwd: &Path) -> String {
    let mut hydra_overrides = composed.hydra_overrides.clone();
    hydra_overrides.push("hydra.mode=RUN".into());
    let mut sorted = composed.task_overrides.clone();
    sorted.sort();
    let nested = |items: &[String]| match list(items, 4).as_str() {
        "[]\n" => " []".to_string(),
        text => format!("\n{}", text.trim_end_matches('\n')),
    };
    let config_dir = match &composed.source {
        Source::File(path) => {
            let dir = path.parent().and_then(Path::parent).unwrap_or(path);
            format!(
                "    - path: {}\n      schema: file\n      provider: command-line\n",
                quote(&dir.display().to_string())
            )
        }
        Source::Bundled | Source::BundledMlperf => String::new(),
    };
    let subdir = composed
        .hydra
        .output_subdir
        .as_deref()
        .map_or("null".to_string(), quote);
    HYDRA_TEMPLATE
        .replace("@RUN_DIR@", &quote(&composed.hydra.run_dir))
        .replace("@OUTPUT_SUBDIR@", &subdir)
        .replace("@OVERRIDES_HYDRA@", &nested(&hydra_overrides))
        .replace("@OVERRIDES_TASK@", &nested(&composed.task_overrides))
        .replace("@OVERRIDE_DIRNAME@", &quote(&sorted.join(",")))
        .replace("@CWD@", &quote(&cwd.display().to_string()))
        .replace("@CONFIG_DIR@", &config_dir)
        .replace("@OUTPUT_DIR@", &quote(&output_dir.display().to_string()))
        .replace("@WORKLOAD@", &quote(&composed.workload))
}

/// Where the files go: `<run_dir>/<output_subdir>`, or nowhere (a null
/// subdir).
pub fn dir(composed: &Composed, run_dir: &str) -> Option<PathBuf> {
    composed
        .hydra
        .output_subdir
        .as_ref()
        .map(|sub| Path::new(run_dir).join(sub))
}

/// An absolute path, as Hydra's `runtime.output_dir` (without resolving
/// links).
pub fn absolute(path: &str, cwd: &Path) -> PathBuf {
    let p = Path::new(path);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    };
    // Drop `.` components as os.path.abspath does.
    joined
        .components()
        .filter(|c| c.as_os_str() != ".")
        .collect()
}
