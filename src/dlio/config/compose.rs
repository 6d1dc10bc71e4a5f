//! Hydra's composition, as DLIO's `@hydra.main(config_name="config")` gets
//! it: the bundled `config.yaml` chooses `workload: default`; the workload
//! file is looked up in the search path (DLIO's bundled files, then
//! `--config-dir`, then MLPerf Storage's files pario also ships); the
//! overrides apply in order; `${...}` interpolations are resolved when the
//! values are read, and written unresolved, as Hydra writes them.

use std::path::{Path, PathBuf};

use super::overrides::{Action, Override};
use super::value::{Map, Value};
use super::yaml;
use crate::dlio::workloads;

/// DLIO's `hydra.run.dir` default (its bundled config.yaml).
pub const DEFAULT_RUN_DIR: &str =
    "./hydra_log/${workload.model.name}/${now:%Y-%m-%d}-${now:%H-%M-%S}";

/// Where the workload file came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// One of DLIO's own, shipped with pario.
    Bundled,
    /// A file of `--config-dir`.
    File(PathBuf),
    /// One of MLPerf Storage's that DLIO lacks, shipped with pario.
    BundledMlperf,
}

/// Hydra's own settings a run uses.
#[derive(Debug, Clone, PartialEq)]
pub struct HydraSettings {
    /// `hydra.run.dir`, unresolved.
    pub run_dir: String,
    /// `hydra.output_subdir`: `None` (null) writes no files.
    pub output_subdir: Option<String>,
}

/// The composed configuration and what made it.
#[derive(Debug, Clone)]
pub struct Composed {
    pub workload: String,
    pub source: Source,
    /// The task configuration: `{workload: {...}}`, interpolations kept.
    pub root: Map,
    pub hydra: HydraSettings,
    /// The overrides Hydra records as the task's (`overrides.yaml`).
    pub task_overrides: Vec<String>,
    /// The `hydra.*` overrides (in `hydra.yaml`).
    pub hydra_overrides: Vec<String>,
    /// pario's own settings (`pario.*`).
    pub pario: Vec<Override>,
}

/// Finds the workload file `name` along the search path.
fn find_workload(name: &str, config_dir: Option<&Path>) -> Result<(String, Source), String> {
    let valid = !name.is_empty()
        && !name
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == "..")
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "_-./".contains(c));
    if !valid {
        return Err(format!("'{name}' is not a workload name"));
    }
    if let Some((_, text)) = workloads::DLIO.iter().find(|(n, _)| *n == name) {
        return Ok((text.to_string(), Source::Bundled));
    }
    if let Some(dir) = config_dir {
        let path = dir.join("workload").join(format!("{name}.yaml"));
        match std::fs::read_to_string(&path) {
            Ok(text) => return Ok((text, Source::File(path))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        }
    }
    if let Some((_, text)) = workloads::MLPERF.iter().find(|(n, _)| *n == name) {
        return Ok((text.to_string(), Source::BundledMlperf));
    }
    let mut known: Vec<&str> = workloads::DLIO
        .iter()
        .chain(workloads::MLPERF)
        .map(|(n, _)| *n)
        .collect();
    known.sort_unstable();
    let searched = config_dir
        .map(|d| format!(" or {}/workload", d.display()))
        .unwrap_or_default();
    Err(format!(
        "no workload '{name}' in pario's{searched} (pario ships: {})",
        known.join(", ")
    ))
}

/// Composes the configuration from the command line's overrides.
pub fn compose(overrides: &[Override], config_dir: Option<&Path>) -> Result<Composed, String> {
    if let Some(dir) = config_dir {
        if !dir.is_dir() {
            return Err(format!("--config-dir {}: not a directory", dir.display()));
        }
    }
    let mut choice = "default".to_string();
    let mut rest = Vec::new();
    for o in overrides {
        if o.key == ["workload"] {
            match (&o.action, &o.value) {
                (Action::Change, Some(Value::Str(name))) => choice = name.clone(),
                _ => return Err(format!("'{}': give the workload as workload=NAME", o.text)),
            }
        } else {
            rest.push(o);
        }
    }
    let (text, source) = find_workload(&choice, config_dir)?;
    let workload = match yaml::load(&text).map_err(|e| format!("workload '{choice}': {e}"))? {
        Value::Map(m) => m,
        other => {
            return Err(format!(
                "workload '{choice}' is {}, not a mapping",
                other.kind()
            ))
        }
    };
    let mut root = Map::default();
    root.insert("workload", Value::Map(workload));
    let mut composed = Composed {
        workload: choice,
        source,
        root,
        hydra: HydraSettings {
            run_dir: DEFAULT_RUN_DIR.into(),
            output_subdir: Some(".hydra".into()),
        },
        task_overrides: overrides
            .iter()
            .filter(|o| o.key[0] != "hydra")
            .map(|o| o.text.clone())
            .collect(),
        hydra_overrides: Vec::new(),
        pario: Vec::new(),
    };
    for o in rest {
        match o.key[0].as_str() {
            "workload" => apply(&mut composed.root, o)?,
            "hydra" => hydra_setting(&mut composed, o)?,
            "pario" => composed.pario.push(o.clone()),
            other => {
                return Err(format!(
                    "'{}': '{other}' is not read (DLIO reads workload.*; Hydra's hydra.*; pario's own settings are pario.*)",
                    o.text
                ))
            }
        }
    }
    Ok(composed)
}

/// `hydra.run.dir`, `hydra.output_subdir` and the settings that change
/// nothing pario does.
fn hydra_setting(composed: &mut Composed, o: &Override) -> Result<(), String> {
    composed.hydra_overrides.push(o.text.clone());
    let value = o.value.clone().unwrap_or(Value::Null);
    match (o.dotted().as_str(), &value) {
        ("hydra.run.dir", Value::Str(s)) => composed.hydra.run_dir = s.clone(),
        ("hydra.run.dir", v) => composed.hydra.run_dir = v.to_string(),
        ("hydra.output_subdir", Value::Null) => composed.hydra.output_subdir = None,
        ("hydra.output_subdir", v) => composed.hydra.output_subdir = Some(v.to_string()),
        ("hydra.job.chdir", Value::Bool(false) | Value::Null) => {}
        ("hydra.verbose", Value::Bool(false)) => {}
        ("hydra.mode", Value::Str(m)) if m == "RUN" => {}
        (key, _) => {
            return Err(format!(
                "'{}': pario takes hydra.run.dir and hydra.output_subdir, not {key}",
                o.text
            ))
        }
    }
    Ok(())
}

/// Applies one `workload.*` override to the tree, with Hydra's rules.
fn apply(root: &mut Map, o: &Override) -> Result<(), String> {
    let (last, parents) = o.key.split_last().expect("a key has a part");
    let mut node = root;
    for (depth, part) in parents.iter().enumerate() {
        let create = matches!(o.action, Action::Add | Action::Force);
        if node.get(part).is_none() {
            if !create {
                return Err(missing(o));
            }
            node.insert(part, Value::Map(Map::default()));
        }
        node = match node.get_mut(part) {
            Some(Value::Map(m)) => m,
            _ => {
                let at = o.key[..=depth].join(".");
                return Err(format!("'{}': {at} is a value, not a mapping", o.text));
            }
        };
    }
    let exists = node.get(last).is_some();
    match o.action {
        Action::Change if !exists => return Err(missing(o)),
        Action::Add if exists => {
            return Err(format!(
                "could not append '{}': {} exists (use ++{0} to replace it)",
                o.text,
                o.dotted()
            ))
        }
        Action::Delete => {
            let current = node.get(last).ok_or_else(|| missing(o))?;
            if o.value.as_ref().is_some_and(|v| v != current) {
                return Err(format!("'{}': {} is {current}", o.text, o.dotted()));
            }
            node.remove(last);
            return Ok(());
        }
        _ => {}
    }
    node.insert(last, o.value.clone().expect("only a deletion has no value"));
    Ok(())
}

fn missing(o: &Override) -> String {
    let value = o.text.split_once('=').map(|(_, v)| v).unwrap_or("V");
    format!(
        "could not override '{}': {} is not in the config (to add it, use +{}={value})",
        o.text,
        o.dotted(),
        o.dotted()
    )
}

/// The tree with every `${...}` resolved: `${workload.a.b}` (absolute
/// paths), `${now:FORMAT}` and `${oc.env:NAME[,default]}`.
pub fn resolved(root: &Map, now: &chrono::DateTime<chrono::Local>) -> Result<Map, String> {
    let mut out = root.clone();
    resolve_map(&mut out, root, now)?;
    Ok(out)
}

fn resolve_map(
    map: &mut Map,
    root: &Map,
    now: &chrono::DateTime<chrono::Local>,
) -> Result<(), String> {
    for (_, v) in map.0.iter_mut() {
        *v = resolve_value(v, root, now, 0)?;
    }
    Ok(())
}

fn resolve_value(
    v: &Value,
    root: &Map,
    now: &chrono::DateTime<chrono::Local>,
    depth: usize,
) -> Result<Value, String> {
    if depth > 16 {
        return Err("interpolations nest too deep (a cycle?)".into());
    }
    Ok(match v {
        Value::Str(s) if s.contains("${") => interpolate(s, root, now, depth)?,
        Value::List(items) => Value::List(
            items
                .iter()
                .map(|i| resolve_value(i, root, now, depth))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) => {
            let mut m = m.clone();
            for (_, v) in m.0.iter_mut() {
                *v = resolve_value(v, root, now, depth)?;
            }
            Value::Map(m)
        }
        other => other.clone(),
    })
}

/// One string with interpolations: a lone `${x}` takes x's type.
pub fn interpolate(
    s: &str,
    root: &Map,
    now: &chrono::DateTime<chrono::Local>,
    depth: usize,
) -> Result<Value, String> {
    let mut out = String::new();
    let mut rest = s;
    let mut lone = None;
    while let Some(start) = rest.find("${") {
        let end = rest[start..]
            .find('}')
            .ok_or_else(|| format!("unclosed interpolation in '{s}'"))?;
        let inner = &rest[start + 2..start + end];
        let value = match inner.split_once(':') {
            Some(("now", format)) => Value::Str(now.format(format).to_string()),
            Some(("oc.env", args)) => {
                let (name, default) = match args.split_once(',') {
                    Some((n, d)) => (n.trim(), Some(d.trim())),
                    None => (args.trim(), None),
                };
                match (std::env::var(name), default) {
                    (Ok(v), _) => Value::Str(v),
                    (Err(_), Some(d)) => Value::Str(d.trim_matches(['\'', '"']).to_string()),
                    (Err(_), None) => return Err(format!("'{s}': the environment has no {name}")),
                }
            }
            Some((resolver, _)) => {
                return Err(format!("'{s}': the resolver {resolver} is not supported"))
            }
            None => {
                let parts: Vec<&str> = inner.split('.').collect();
                let target = root
                    .at(&parts)
                    .ok_or_else(|| format!("'{s}': {inner} is not in the config"))?;
                resolve_value(target, root, now, depth + 1)?
            }
        };
        if start == 0 && end + 1 == rest.len() && out.is_empty() {
            lone = Some(value.clone());
        }
        out.push_str(&rest[..start]);
        out.push_str(&value.to_string());
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    Ok(lone.unwrap_or(Value::Str(out)))
}

#[cfg(test)]
mod tests;
