//! `pario report RESULT.json... -o report.html`: results of any of pario's
//! tools in one self-contained HTML page, compared: an overview first (a
//! row per result with its workload, headline figures, the ratio to the
//! baseline with compare's verdict, and its warnings), then a chart per
//! figure with every result in it, scaling, latency, the tasks' times, the
//! page cache, io500's phases, and each run's details. [`args`] reads the
//! command line, [`model`] the documents, [`overview`], [`html`] and
//! [`sections`] write the page, [`charts`], [`timeline`] and [`scaling`]
//! draw the SVG, [`human`] says the numbers.

pub mod args;
pub mod cache;
pub mod charts;
pub mod csv;
pub mod curves;
pub mod details;
pub mod dlio;
pub mod elements;
pub mod html;
pub mod human;
pub mod images;
pub mod io500;
pub mod marks;
pub mod model;
pub mod overtime;
pub mod overview;
pub mod printed;
pub mod scaling;
pub mod sections;
pub mod sidefiles;
pub mod system;
pub mod tidy;
pub mod timeline;
pub mod warnings;
pub mod workload;

use std::process::ExitCode;

/// The exit status (2 for bad arguments or unreadable files).
pub fn main(args: &[String]) -> ExitCode {
    match run(args) {
        Ok(message) => {
            println!("{message}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("report: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(words: &[String]) -> Result<String, String> {
    let a = args::parse(words).map_err(|e| e.0)?;
    if a.help {
        return Ok(args::help().trim_end().into());
    }
    if (a.out.is_none() && a.csv.is_none()) || a.results.is_empty() {
        return Err("no output file or no result (see pario report -h)".into());
    }
    let mut loaded = Vec::new();
    for input in &a.results {
        let mut r = model::Loaded::read(&input.path)?;
        for side in sidefiles::read_all(&input.sides)? {
            r.attach(side);
        }
        loaded.push(r);
    }
    name(&mut loaded, &a.results);
    let baseline = match &a.baseline {
        Some(b) => args::baseline_of(&a.results, b)?,
        None => 0,
    };
    let mut message = String::new();
    if let Some(out) = &a.out {
        let (page, charts) = html::page(&loaded, baseline, a.images.is_some());
        std::fs::write(out, &page).map_err(|e| format!("{out}: {e}"))?;
        if let Some(dir) = &a.images {
            images::write(dir, &charts)?;
        }
        let (bytes, n) = (page.len(), loaded.len());
        message = format!("wrote {out} ({bytes} bytes, {n} result(s))");
    }
    if let Some(path) = &a.csv {
        let text = csv::overview(&loaded, baseline);
        std::fs::write(path, &text).map_err(|e| format!("{path}: {e}"))?;
        let (bytes, n) = (text.len(), loaded.len());
        message = match message.is_empty() {
            true => format!("wrote {path} ({bytes} bytes, {n} result(s))"),
            false => format!("{message}; wrote {path} ({bytes} bytes)"),
        };
    }
    Ok(message)
}

/// Each result's name: its `--label`, else what tells it apart.
fn name(loaded: &mut [model::Loaded], inputs: &[args::Input]) {
    let named: Vec<_> = loaded
        .iter()
        .map(|r| (r.tool, &r.workload, r.file.as_str()))
        .collect();
    let names = workload::names(&named);
    for ((r, input), name) in loaded.iter_mut().zip(inputs).zip(names) {
        r.name = input.label.clone().unwrap_or(name);
    }
}
