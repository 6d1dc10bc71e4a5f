//! `pario report RESULT.json... -o report.html`: results of any of pario's
//! tools in one self-contained HTML page, compared side by side: each
//! figure's repetitions, latency percentile curves on a log axis, and each
//! tool's details. [`model`] reads the documents, [`charts`] draws the
//! SVG, [`html`] writes the page.

pub mod charts;
pub mod html;
pub mod images;
pub mod model;
pub mod scaling;
pub mod sidefiles;

use std::process::ExitCode;

pub const HELP: &str =
    "Usage: pario report RESULT.json [SIDE.csv ...] [RESULT.json ...] -o report.html [--images DIR]

One self-contained HTML page (inline SVG, no script, nothing fetched) for
results of ior (-O summaryFormat=JSON), mdtest and md-workbench
(--summaryFormat=JSON) and io500 (result.json): the run's parameters, each
figure's repetitions with mean, min and max, latency percentiles on a log
axis, the fastest and slowest task of each repetition, the page cache
before each read, stonewall counts, io500's phases and score. Several
results are compared side by side.

CSV files given after a result add to it: a latency histogram file
(ior -O latencyHistogramFile=F, mdtest --latencyHistogramFile=F) gives
each figure's full percentile curve, every repetition merged; ior's task
file (-O saveRankPerformanceDetailsCSV=F) charts every task's open,
transfer and close in the phase whose tasks differ most.

--images DIR also writes each chart there as SVG and PNG
(01-<title>.svg, 01-<title>.png, ...), for papers and slides.
";

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

fn run(args: &[String]) -> Result<String, String> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return Ok(HELP.trim_end().into());
    }
    let mut out = None;
    let mut images = None;
    let mut inputs = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" => out = Some(it.next().ok_or("-o needs a file name")?.clone()),
            "--images" => images = Some(it.next().ok_or("--images needs a directory")?.clone()),
            s if s.starts_with('-') => {
                return Err(format!("unknown option '{s}' (see pario report -h)"))
            }
            _ => inputs.push(a.clone()),
        }
    }
    let out = out.ok_or("no output file: -o report.html")?;
    if inputs.is_empty() {
        return Err("no result file (pario report RESULT.json... -o report.html)".into());
    }
    let mut loaded: Vec<model::Loaded> = Vec::new();
    for path in &inputs {
        if path.ends_with(".csv") {
            let side = sidefiles::read(path)?;
            let owner = loaded
                .last_mut()
                .ok_or_else(|| format!("{path}: a CSV file goes after the result it belongs to"))?;
            owner.attach(side);
        } else {
            loaded.push(model::Loaded::read(path)?);
        }
    }
    let (page, charts) = html::page(&loaded);
    std::fs::write(&out, &page).map_err(|e| format!("{out}: {e}"))?;
    if let Some(dir) = &images {
        images::write(dir, &charts)?;
    }
    Ok(format!(
        "wrote {out} ({} bytes, {} result(s))",
        page.len(),
        loaded.len()
    ))
}
