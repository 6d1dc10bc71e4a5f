//! `pario report RESULT.json... -o report.html`: results of any of pario's
//! tools in one self-contained HTML page, compared side by side: each
//! figure's repetitions, latency percentile curves on a log axis, and each
//! tool's details, sweeps' scaling. [`model`] reads the documents,
//! [`charts`] and [`scaling`] draw the SVG, [`html`] writes the page.

pub mod charts;
pub mod html;
pub mod model;
pub mod png;
pub mod scaling;

use std::process::ExitCode;

pub const HELP: &str =
    "Usage: pario report RESULT.json [RESULT.json ...] -o report.html [--images DIR]

One self-contained HTML page (inline SVG, no script, nothing fetched) for
results of ior (-O summaryFormat=JSON), mdtest and md-workbench
(--summaryFormat=JSON) and io500 (result.json): each figure's repetitions
with mean, min and max, latency percentiles on a log axis, each tool's
details (ior's slowest task, page cache and stonewall; io500's phases).
Several results are compared side by side. --images DIR also writes each
chart as SVG and PNG files there (01-<figure>.svg, 01-<figure>.png, ...),
for papers and slides.
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
    let loaded = inputs
        .iter()
        .map(|p| model::Loaded::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let (page, charts) = html::page(&loaded);
    std::fs::write(&out, &page).map_err(|e| format!("{out}: {e}"))?;
    if let Some(dir) = &images {
        write_images(dir, &charts)?;
    }
    Ok(format!(
        "wrote {out} ({} bytes, {} result(s))",
        page.len(),
        loaded.len()
    ))
}

/// Each chart as `NN-<title>.svg` and `NN-<title>.png` in `dir` (made if
/// needed).
fn write_images(dir: &str, charts: &[(String, String)]) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
    let renderer = png::Renderer::new();
    if !renderer.has_fonts() {
        eprintln!("report: warning: no fonts found: the PNG images have no text (install fonts-dejavu-core)");
    }
    for (i, (title, svg)) in charts.iter().enumerate() {
        let slug: String = title
            .chars()
            .map(|c| match c.is_ascii_alphanumeric() {
                true => c.to_ascii_lowercase(),
                false => '-',
            })
            .collect();
        let stem = format!("{dir}/{:02}-{}", i + 1, slug.trim_matches('-'));
        let path = format!("{stem}.svg");
        std::fs::write(&path, svg).map_err(|e| format!("{path}: {e}"))?;
        let path = format!("{stem}.png");
        let png = renderer.png(svg).map_err(|e| format!("{path}: {e}"))?;
        std::fs::write(&path, png).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(())
}
