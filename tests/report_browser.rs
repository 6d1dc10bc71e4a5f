//! `pario report` opened in a real browser: Debian's chromium, headless,
//! driven over the DevTools protocol (`devtools`). The report of the fixed
//! results in `tests/data/report` must load without a console error and
//! fetch nothing (the page's own requests hold only itself, and a proxy that
//! records every request the browser sends gets none; a page that does
//! fetch and log an error shows the checks see both). It must open with
//! the overview, above the first chart, holding every result's headline
//! figures and every warning of the documents; every chart must have two
//! data marks or more and formatted ticks (no `.0` tails, integer task
//! ticks); every link to an anchor must resolve. Printed to PDF by chromium,
//! its first page must show the overview (`pdftotext`, and the page
//! rendered by `pdftoppm`) and hold ten results' rows (the printed
//! overview: a line per result, its warnings as notes under it). Eleven
//! results: eleven distinct marks (colour and shape), the eleventh not the
//! first in the chart they share; a chart over time per phase of the
//! results with a timeline, with formatted ticks; io500's unscored phase
//! marked; the O_DIRECT read not suspect; mdtest's task file and
//! md-workbench's -L files accepted. The screenshot and the first printed
//! page are kept in `target/tmp/report_browser` for people to look at.
//! Skipped with one line when chromium (or, for the PDF, poppler-utils) is
//! not installed.

use crate::common;
#[path = "report_browser/devtools.rs"]
mod devtools;

use std::path::Path;
use std::process::{Command, Stdio};

use devtools::{
    base64, chromium, errors, have, host, is_root, requests, Browser, BROWSER_SERVICES,
};

use pario::report::charts::{hex, PALETTE};
use serde_json::{json, Value};
use tempfile::tempdir;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/report");

/// Each chart: its title, its SVG's size on the page, its tick labels
/// and its data marks: points, bars (a chart over time draws a task's
/// bars as one path) and curves (polylines of three points or more)
/// drawn in one of the results' colours (`PALETTE`) inside the plot,
/// above its x axis (the lowest horizontal line in the axis grey); the
/// legends under the axis, the background, the axes and the grid (white,
/// black, grey) are none. The tick labels: the text centred under
/// the x axis, and the text left of the y axis (set right of it).
const CHARTS: &str = "JSON.stringify([...document.querySelectorAll('figure.chart')].map(f => {
  const palette = PALETTE;
  const colour = e => ['fill', 'stroke'].some(a => palette.includes((e.getAttribute(a) || '').toUpperCase()));
  const s = f.querySelector('svg'); const r = s.getBoundingClientRect();
  const lines = [...s.querySelectorAll('polyline')];
  const axis = Math.max(...lines.filter(l => l.getAttribute('stroke') === '#A0A0A0')
    .map(l => l.getAttribute('points').trim().split(/[ ,]+/).map(Number))
    .filter(p => p.length === 4 && p[1] === p[3]).map(p => p[1]));
  const plotted = e => { const b = e.getBBox(); return b.y <= axis + 0.5; };
  const long = l => l.getAttribute('points').trim().split(' ').length >= 3;
  const marks = [...s.querySelectorAll('circle, rect, polyline, polygon, path')]
    .filter(e => colour(e) && plotted(e) && (e.tagName !== 'polyline' || long(e)));
  const texts = [...s.querySelectorAll('text')];
  const words = t => t.textContent.trim();
  const under = texts.filter(t => t.getAttribute('text-anchor') === 'middle' && t.getBBox().y > axis);
  const left = texts.filter(t => t.getAttribute('text-anchor') === 'end');
  const paint = e => ['fill', 'stroke'].map(a => (e.getAttribute(a) || '').toUpperCase()).find(c => palette.includes(c));
  const kinds = [...new Set(marks.map(e => e.tagName + ' ' + paint(e)))];
  return {title: f.dataset.chart, width: r.width, height: r.height, marks: marks.length, kinds,
    xticks: under.map(words), yticks: left.map(words), texts: texts.map(words)};
}))";

/// The overview: per result its name, its figures' rows (figure, median)
/// and its warnings; where the overview and the first chart are.
const OVERVIEW: &str = "JSON.stringify({
  top: document.querySelector('table.overview').getBoundingClientRect().bottom,
  firstChart: document.querySelector('figure.chart').getBoundingClientRect().top,
  results: [...document.querySelectorAll('table.overview tbody.result')].map(b => ({
    name: b.querySelector('.who a').textContent,
    mark: b.querySelector('.swatch').dataset.colour + ' ' + b.querySelector('.swatch').dataset.shape,
    figures: [...b.querySelectorAll('tr:not(.warning)')].map(tr => {
      const cells = [...tr.querySelectorAll('td')].filter(td => !td.hasAttribute('rowspan'));
      return [cells[0].textContent, cells[1].querySelector('b').textContent];
    }),
    warnings: [...b.querySelectorAll('tr.warning td')].map(td => td.textContent)
  }))
})";

/// Every link to an anchor of the page, and whether it leads somewhere.
const LINKS: &str = "JSON.stringify([...document.querySelectorAll('a[href^=\"#\"]')]
  .map(a => [a.getAttribute('href'), !!document.getElementById(a.getAttribute('href').slice(1))]))";

/// The eleven results the page is made of: ior (16 KiB transfers, 3
/// repetitions, its histogram and task files), ior again (4 KiB, 5
/// repetitions), mdtest with its histograms and task file
/// (`--saveRankPerformanceDetails`), md-workbench with two of its `-L`
/// files, io500, an ior sweep (4, 2 and 1 tasks), and five ior results
/// with their throughput over time (1 to 64 KiB transfers, the last
/// O_DIRECT).
const INPUTS: [&str; 17] = [
    "ior.json",
    "ior-latency.csv",
    "ior-tasks.csv",
    "ior-4k.json",
    "mdtest.json",
    "mdtest-latency.csv",
    "mdtest-ranks.csv",
    "md-workbench.json",
    "md-workbench-0.00-0-read.csv",
    "md-workbench-0.00-1-read.csv",
    "io500.json",
    "sweep.json",
    "ior-1k.json",
    "ior-2k.json",
    "ior-8k.json",
    "ior-32k.json",
    "ior-64k-direct.json",
];

/// The result documents, in the page's order: the inputs but the CSV
/// files that follow their result.
fn documents() -> impl Iterator<Item = &'static str> {
    INPUTS.into_iter().filter(|f| f.ends_with(".json"))
}

/// Where the pictures are kept for people to look at.
fn kept(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The report of `INPUTS` in `dir`.
fn make_report(dir: &Path) -> std::path::PathBuf {
    let report = dir.join("report.html");
    let mut args: Vec<String> = vec!["report".into()];
    args.extend(INPUTS.iter().map(|f| format!("{DATA}/{f}")));
    args.extend(["-o".into(), report.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::pario(dir, &args).ok();
    report
}

fn read_json(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(format!("{DATA}/{name}")).unwrap()).unwrap()
}

/// The warnings a result document holds itself (without `WARNING:`), as
/// the overview must show them: ior's per test, mdtest's, io500's invalid
/// phases.
fn own_warnings(doc: &Value) -> Vec<String> {
    let strip = |w: &Value| {
        let t = w.as_str().unwrap().trim();
        t.strip_prefix("WARNING")
            .unwrap_or(t)
            .trim_start_matches([':', ' '])
            .to_string()
    };
    let mut out: Vec<String> = Vec::new();
    for t in doc["tests"].as_array().into_iter().flatten() {
        out.extend(t["warnings"].as_array().into_iter().flatten().map(strip));
    }
    out.extend(doc["warnings"].as_array().into_iter().flatten().map(strip));
    for p in doc["phases"].as_array().into_iter().flatten() {
        out.extend(p["invalid"].as_array().into_iter().flatten().map(strip));
    }
    out
}

/// A figure as the overview writes it (`705 MiB/s`, `1.23 GiB/s`,
/// `109 k ops/s`) in the figure's own unit (MiB/s or ops/s).
fn value_of(text: &str) -> f64 {
    let (number, unit) = text.split_once(' ').unwrap();
    let v: f64 = number.replace('\u{2009}', "").parse().unwrap();
    let factor = match unit {
        "KiB/s" => 1.0 / 1024.0,
        "MiB/s" | "ops/s" => 1.0,
        "GiB/s" => 1024.0,
        "k ops/s" => 1e3,
        "M ops/s" => 1e6,
        other => panic!("a unit the report does not use: {other}"),
    };
    v * factor
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n % 2 {
        1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[test]
fn the_report_loads_in_chromium_complete_and_offline() {
    let Some(exe) = chromium() else {
        eprintln!("skipped: chromium is not installed (scripts/test.sh installs it as root)");
        return;
    };
    let dir = tempdir().unwrap();
    let d = dir.path();
    let report = make_report(d);
    let html = std::fs::read_to_string(&report).unwrap();
    let expected: Vec<&str> = html
        .split("data-chart=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();

    let mut browser = Browser::start(&exe, &d.join("profile"));
    let url = format!("file://{}", report.display());
    let events = browser.open(&url);
    assert_eq!(errors(&events), Vec::<String>::new(), "console errors");
    assert_eq!(
        requests(&events),
        std::slice::from_ref(&url),
        "the page fetched more than itself"
    );
    let resources = browser.eval("performance.getEntriesByType('resource').length");
    assert_eq!(resources, json!(0), "resources the page loaded");

    check_overview(&mut browser);
    check_charts(&mut browser, &expected);
    let links: Vec<(String, bool)> =
        serde_json::from_str(browser.eval(LINKS).as_str().unwrap()).unwrap();
    assert!(links.len() >= 8, "{links:?}");
    for (href, found) in &links {
        assert!(found, "{href} leads nowhere");
    }

    let shot = browser.call(
        "Page.captureScreenshot",
        json!({"format": "png", "captureBeyondViewport": true}),
    );
    let png = base64(shot["data"].as_str().unwrap());
    let kept = kept("screenshot.png");
    std::fs::write(&kept, &png).unwrap();
    println!("screenshot: {}", kept.display());
    let (width, height, _) = decode(&png);
    assert!(
        width >= 1100 && height > 2000,
        "the whole page, not the window: {width} x {height}"
    );
    let page_made: Vec<&String> = browser
        .proxied
        .iter()
        .filter(|l| !BROWSER_SERVICES.contains(&host(l)))
        .collect();
    assert_eq!(page_made, Vec::<&String>::new(), "requests at the proxy");

    // The checks see a page that fetches and fails.
    let bad = d.join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><html><body><img src=\"http://example.invalid/x.png\">\
         <script>console.error('seen')</script></body></html>",
    )
    .unwrap();
    let events = browser.open(&format!("file://{}", bad.display()));
    assert!(
        errors(&events).iter().any(|e| e.contains("seen")),
        "{events:?}"
    );
    assert!(requests(&events).contains(&"http://example.invalid/x.png".to_string()));
    assert!(
        browser
            .proxied
            .iter()
            .any(|l| l.contains("example.invalid")),
        "{:?}",
        browser.proxied
    );
}

/// The overview is above the first chart and holds every result's
/// headline figures (ior's medians checked against the documents) and
/// every warning the documents hold.
fn check_overview(browser: &mut Browser) {
    let o: Value = serde_json::from_str(browser.eval(OVERVIEW).as_str().unwrap()).unwrap();
    assert!(o["top"].as_f64() < o["firstChart"].as_f64(), "{o}");
    let results = o["results"].as_array().unwrap();
    let names: Vec<&str> = results
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    // The two single-test ior results are named by what tells them apart.
    assert_eq!(names.len(), 11, "{names:?}");
    assert!(names[0].starts_with("ior 16 KiB transfers") && names[1].starts_with("ior 4 KiB"));
    // Eleven results, eleven marks: the eleventh is not the first.
    let mut marks: Vec<&str> = results
        .iter()
        .map(|r| r["mark"].as_str().unwrap())
        .collect();
    assert_ne!(marks[10], marks[0]);
    marks.sort_unstable();
    marks.dedup();
    assert_eq!(marks.len(), 11, "{marks:?}");
    let figures = [2, 2, 10, 3, 3, 2, 2, 2, 2, 2, 2];
    for ((r, file), count) in results.iter().zip(documents()).zip(figures) {
        let rows = r["figures"].as_array().unwrap();
        assert_eq!(rows.len(), count, "{file}: {r}");
        let warnings: Vec<&str> = r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        for w in own_warnings(&read_json(file)) {
            let w = &w[1..];
            assert!(
                warnings.iter().any(|shown| shown.contains(w)),
                "{file}: '{w}' not in {warnings:?}"
            );
        }
    }
    for (file, r) in [("ior.json", &results[0]), ("ior-4k.json", &results[1])] {
        let doc = read_json(file);
        for (k, access) in ["write", "read"].iter().enumerate() {
            let rows = doc["tests"][0]["Results"].as_array().unwrap();
            let values = rows
                .iter()
                .filter(|x| x["access"] == *access)
                .map(|x| x["bwMiB"].as_f64().unwrap());
            let m = median(values.collect());
            let row = &r["figures"][k];
            assert_eq!(row[0], *access);
            let shown = value_of(row[1].as_str().unwrap());
            assert!(
                (shown / m - 1.0).abs() < 0.01,
                "{file} {access}: {shown} shown, median {m}"
            );
        }
    }
    // A sweep's headline is its largest step.
    assert_eq!(results[5]["figures"][0][0], "write, 4 tasks");
    assert_eq!(results[5]["figures"][1][0], "read, 4 tasks");
    // Warnings the report finds itself: these phases last milliseconds.
    assert!(results[0]["warnings"]
        .to_string()
        .contains("Phases under a second"));
}

/// Every chart is drawn, wide enough, with two data marks or more, its
/// ticks formatted; a sweep's task axis has integer ticks on a log₂ scale.
fn check_charts(browser: &mut Browser, expected: &[&str]) {
    let palette: Vec<String> = (0..PALETTE.len()).map(|i| hex(i).to_uppercase()).collect();
    let js = CHARTS.replace("PALETTE", &serde_json::to_string(&palette).unwrap());
    let charts: Vec<Value> = serde_json::from_str(browser.eval(&js).as_str().unwrap()).unwrap();
    let titles: Vec<&str> = charts
        .iter()
        .map(|c| c["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, expected);
    for title in [
        "ior write, 256 KiB blocks, shared file, 2 tasks on 1 node",
        "ior read, 256 KiB blocks, shared file, 2 tasks on 1 node",
        "mdtest File creation, 10 items per task, 2 tasks on 1 node, POSIX",
        "md-workbench benchmark, 1 data set of 2 objects (4 precreated)",
        "io500 bandwidth phases",
        "io500 metadata phases",
        "ior write scaling, 64 KiB transfers, file per process",
        "ior write latency, 256 KiB blocks, shared file, 2 tasks on 1 node",
        "mdtest latency, 10 items per task, 2 tasks on 1 node, POSIX",
        "md-workbench latency, 1 data set of 2 objects (4 precreated)",
        "ior write latency by step, 64 KiB transfers, 1 MiB blocks, file per process",
        "ior write: fastest to slowest task, 256 KiB blocks, shared file, 2 tasks",
        "ior write: fastest to slowest task by step, 64 KiB transfers, 1 MiB blocks",
        "ior 16 KiB transfers: every task, write #1",
        "mdtest fastest to slowest task, 10 items per task, 2 tasks on 1 node, POSIX",
        "Page cache before each read",
    ] {
        assert!(titles.contains(&title), "no chart '{title}' in {titles:?}");
    }
    assert_eq!(titles.len(), 41, "{titles:?}");
    let number = |t: &str| t.starts_with(|c: char| c.is_ascii_digit());
    for c in &charts {
        assert!(c["width"].as_f64().unwrap() >= 450.0, "{c}");
        assert!(c["height"].as_f64().unwrap() >= 100.0, "{c}");
        assert!(
            c["marks"].as_u64().unwrap() >= 2,
            "a chart with one data mark or none: {c}"
        );
        let ticks = c["xticks"]
            .as_array()
            .unwrap()
            .iter()
            .chain(c["yticks"].as_array().unwrap());
        for t in ticks.map(|t| t.as_str().unwrap()).filter(|t| number(t)) {
            let digits: String = t
                .split(' ')
                .next()
                .unwrap()
                .chars()
                .filter(char::is_ascii_digit)
                .collect();
            assert!(
                !t.contains(".0 ") && !t.ends_with(".0") && digits.len() <= 5,
                "tick '{t}' in {c}"
            );
        }
    }
    let chart = |t: &str| charts.iter().find(|c| c["title"] == t).unwrap();
    // Two results of the ior write: five repetitions and three, a point each.
    let write = chart("ior write, 256 KiB blocks, shared file, 2 tasks on 1 node");
    assert!(write["marks"].as_u64() >= Some(8), "{write}");
    let scaling = chart("ior write scaling, 64 KiB transfers, file per process");
    let xticks: Vec<&str> = scaling["xticks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .filter(|t| number(t))
        .collect();
    assert_eq!(xticks, ["1", "2", "4"], "{scaling}");
    assert!(scaling["texts"].to_string().contains("tasks (log₂ scale)"));
    // io500: a bar per bandwidth phase (five), the unscored one marked.
    let io500 = chart("io500 bandwidth phases");
    assert_eq!(io500["marks"], 5);
    assert!(io500["texts"]
        .to_string()
        .contains("ior-rnd4K-easy-read (not scored)"));
    // Seven results in one chart, seven looks: the eleventh result (a
    // square) is not the first (a circle), though they share a colour.
    let kinds: Vec<&str> = write["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    let first = hex(0).to_uppercase();
    for kind in [format!("circle {first}"), format!("rect {first}")] {
        assert!(kinds.contains(&kind.as_str()), "{kind} not in {kinds:?}");
    }
    assert!(kinds.len() >= 7, "{kinds:?}");
    // Throughput over time: a chart per phase of the results that have it,
    // the rate a line over time in seconds, each task's bars under it.
    let over: Vec<&Value> = charts
        .iter()
        .filter(|c| c["title"].as_str().unwrap().contains("over time"))
        .collect();
    assert_eq!(over.len(), 10, "{titles:?}");
    for c in over {
        let texts = c["texts"].to_string();
        assert!(
            texts.contains("s from the phase") && texts.contains("task 1"),
            "{c}"
        );
        assert!(texts.contains("MiB/s") || texts.contains("GiB/s"), "{c}");
        assert!(c["xticks"].as_array().unwrap().len() >= 4, "{c}");
    }
    // The page cache: io500's reads are in, the O_DIRECT read is not suspect.
    let cache = chart("Page cache before each read")["texts"].to_string();
    assert!(
        cache.contains("ior-easy-read") && cache.contains("(O_DIRECT)"),
        "{cache}"
    );
}

/// A PNG's width, height and pixels (RGB or RGBA, 8 bits).
fn decode(png: &[u8]) -> (u32, u32, Vec<[u8; 3]>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buf).unwrap();
    let step = frame.color_type.samples();
    assert!(
        step >= 3 && frame.bit_depth == png::BitDepth::Eight,
        "{frame:?}"
    );
    let pixels = buf[..frame.buffer_size()]
        .chunks(step)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (frame.width, frame.height, pixels)
}

/// Printed to PDF by chromium (`--print-to-pdf`), the first page shows
/// the overview: its text (`pdftotext`) holds the heading, the first
/// results' names and the first warning, and its picture (`pdftoppm`,
/// kept in target/tmp) holds the results' swatches and the warnings'
/// shade, which only the overview has.
#[test]
fn the_report_prints_to_pdf_with_the_overview_first() {
    let Some(exe) = chromium() else {
        eprintln!("skipped: chromium is not installed (scripts/test.sh installs it as root)");
        return;
    };
    if !have("pdftoppm") || !have("pdftotext") {
        eprintln!("skipped: poppler-utils is not installed (scripts/test.sh installs it as root)");
        return;
    }
    let dir = tempdir().unwrap();
    let d = dir.path();
    let report = make_report(d);
    let pdf = d.join("report.pdf");
    let mut cmd = Command::new(&exe);
    cmd.args([
        "--headless",
        "--disable-gpu",
        "--no-pdf-header-footer",
        "--no-first-run",
    ])
    .arg(format!("--user-data-dir={}", d.join("profile").display()))
    .arg(format!("--print-to-pdf={}", pdf.display()))
    .arg(format!("file://{}", report.display()))
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    if is_root() {
        cmd.arg("--no-sandbox");
    }
    assert!(cmd.status().unwrap().success());
    let bytes = std::fs::read(&pdf).unwrap();
    assert!(bytes.starts_with(b"%PDF"), "not a PDF");

    let text = Command::new("pdftotext")
        .args(["-f", "1", "-l", "1"])
        .arg(&pdf)
        .arg("-")
        .output()
        .unwrap();
    let first = String::from_utf8_lossy(&text.stdout);
    let first = first.split_whitespace().collect::<Vec<_>>().join(" ");
    for words in [
        "pario report",
        "Overview",
        "ior 16 KiB",
        "ior 4 KiB",
        "of the data read was in this node's page cache",
    ] {
        assert!(
            first.contains(words),
            "'{words}' not on the first page:\n{first}"
        );
    }
    assert!(
        !first.contains("Contents"),
        "the contents are for the screen"
    );
    let stem = d.join("page");
    let status = Command::new("pdftoppm")
        .args(["-f", "1", "-l", "1", "-r", "80", "-png", "-singlefile"])
        .arg(&pdf)
        .arg(&stem)
        .status()
        .unwrap();
    assert!(status.success());
    let png = std::fs::read(stem.with_extension("png")).unwrap();
    let kept = kept("print-page1.png");
    std::fs::write(&kept, &png).unwrap();
    println!("first printed page: {}", kept.display());
    let (width, height, pixels) = decode(&png);
    assert!(height > width, "a portrait page: {width} x {height}");
    let rgb = |h: &str| {
        let v = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).unwrap();
        [v(1), v(3), v(5)]
    };
    let near = |p: &[u8; 3], c: [u8; 3]| p.iter().zip(c).all(|(a, b)| a.abs_diff(b) <= 6);
    let count = |c: [u8; 3]| pixels.iter().filter(|p| near(p, c)).count();
    // The warnings' shade (style.css's --warnbg), a band of rows.
    assert!(
        count(rgb("#fff4de")) > 2000,
        "no warning rows on the first page"
    );
    for i in 0..2 {
        assert!(
            count(rgb(&hex(i))) > 10,
            "result {i}'s swatch is not on the first page"
        );
    }
    // Ten results' rows on the first page (issue 41): their names as the
    // page has them, whitespace aside (a name may wrap in its cell). The
    // printed overview is a line per result, its warnings numbered notes.
    let html = std::fs::read_to_string(&report).unwrap();
    let names: Vec<String> = html
        .split("<tbody class=\"result\"")
        .skip(1)
        .map(|b| {
            let name = &b[b.find("<a href=\"#run-").unwrap()..];
            let name = &name[name.find('>').unwrap() + 1..name.find("</a>").unwrap()];
            name.replace("&amp;", "&")
        })
        .collect();
    assert_eq!(names.len(), 11);
    let bare = |t: &str| t.split_whitespace().collect::<String>();
    // The table: from its head to the legend under it.
    let page = bare(&first);
    let table = page
        .find("Medianofeachfigure")
        .zip(page.find("Eachfigure'smedian"));
    let Some((start, end)) = table else {
        panic!("no printed overview on the first page:\n{first}")
    };
    let page = &page[start..end];
    let on_page = names.iter().filter(|n| page.contains(&bare(n))).count();
    assert!(
        on_page >= 10,
        "{on_page} of {names:?} on the first printed page:\n{first}"
    );
}
