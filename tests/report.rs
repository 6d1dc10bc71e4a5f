//! `pario report`: one self-contained HTML page from fixed result files and
//! from real results of each tool: every figure charted, latency curves,
//! details, nothing fetched, no script.

mod common;

use common::pario;
use tempfile::tempdir;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/compare");

/// Charts, and what a browser would fetch (the SVG namespace is a name).
fn check_self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..100]);
    assert!(!html.contains("<script"), "no script");
    for attr in ["src=", "href=", "url(", "@import"] {
        assert!(!html.contains(attr), "{attr} in the page");
    }
    let fetched = html.matches("http").count();
    assert_eq!(fetched, html.matches("http://www.w3.org/2000/svg").count());
}

#[test]
fn fixed_results_give_one_chart_per_figure() {
    let dir = tempdir().unwrap();
    let out = dir.path().join("r.html");
    let (a, b) = (format!("{DATA}/a.json"), format!("{DATA}/b.json"));
    let r = pario(dir.path(), &["report", &a, &b, "-o", out.to_str().unwrap()]);
    r.ok();
    let html = std::fs::read_to_string(&out).unwrap();
    check_self_contained(&html);
    // Two figures (write, read): two charts, each with its bars.
    assert_eq!(html.matches("<svg").count(), 2);
    assert!(html.contains(">a.json</h2>") && html.contains(">b.json</h2>"));
    // Four repetitions per figure are drawn as four filled bars plus the
    // legend's two swatches.
    let write = html
        .split("<svg")
        .find(|s| s.contains("test 0 write"))
        .unwrap();
    assert!(write.matches("<rect").count() >= 6, "{write}");
    assert!(
        html.contains("<td>1260.000</td>"),
        "the table of b's repetitions"
    );
}

#[test]
fn real_results_chart_latency_and_details() {
    let dir = tempdir().unwrap();
    let d = dir.path();
    let ior = pario(
        d,
        &[
            "ior",
            "-a",
            "DUMMY",
            "-w",
            "-r",
            "-i",
            "2",
            "-O",
            "summaryFormat=JSON",
        ],
    );
    ior.ok();
    std::fs::write(d.join("ior.json"), &ior.stdout).unwrap();
    let mdw = pario(
        d,
        &[
            "md-workbench",
            "-a",
            "DUMMY",
            "-D=1",
            "-P=4",
            "-I=2",
            "-R=2",
            "--summaryFormat=JSON",
        ],
    );
    mdw.ok();
    std::fs::write(d.join("mdw.json"), &mdw.stdout).unwrap();
    let out = d.join("r.html");
    let r = pario(
        d,
        &[
            "report",
            "ior.json",
            "mdw.json",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    r.ok();
    let html = std::fs::read_to_string(&out).unwrap();
    check_self_contained(&html);
    assert!(html.contains("<h2>Latency percentiles</h2>"));
    assert!(
        html.contains("test 0 write: latency"),
        "ior's latency curve"
    );
    assert!(html.contains("benchmark read: latency"), "md-workbench's");
    assert!(html.contains("<h2>Details: ior.json</h2>"));
    assert!(html.contains("slowest task"));
}

#[test]
fn bad_arguments_are_one_line() {
    let dir = tempdir().unwrap();
    let a = format!("{DATA}/a.json");
    for (args, message) in [
        (vec!["report", a.as_str()], "no output file"),
        (vec!["report", "-o", "x.html"], "no result file"),
        (vec!["report", "nope.json", "-o", "x.html"], "nope.json"),
    ] {
        pario(dir.path(), &args).fails(2, message);
    }
    assert!(!dir.path().join("x.html").exists());
}

#[test]
fn images_are_written_as_svg_and_png_files() {
    let dir = tempdir().unwrap();
    let (a, b) = (format!("{DATA}/a.json"), format!("{DATA}/b.json"));
    let out = dir.path().join("r.html");
    let img = dir.path().join("img");
    let args = [
        "report",
        &a,
        &b,
        "-o",
        out.to_str().unwrap(),
        "--images",
        img.to_str().unwrap(),
    ];
    pario(dir.path(), &args).ok();
    let mut names: Vec<String> = common::entries(&img);
    names.sort();
    assert_eq!(
        names,
        [
            "01-test-0-read.png",
            "01-test-0-read.svg",
            "02-test-0-write.png",
            "02-test-0-write.svg"
        ]
    );
    // The PNG is the chart at twice its size: the bars in the first
    // result's colour, the axes and text in black, the rest white.
    let png = std::fs::read(img.join("02-test-0-write.png")).unwrap();
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).unwrap();
    assert_eq!((pixmap.width(), pixmap.height()), (1280, 560));
    let count = |want: fn(u8, u8, u8) -> bool| {
        let pixels = pixmap.pixels().iter();
        pixels
            .filter(|p| want(p.red(), p.green(), p.blue()))
            .count()
    };
    assert!(
        count(|r, g, b| (r, g, b) == (31, 119, 180)) > 10_000,
        "bars"
    );
    assert!(
        count(|r, g, b| r < 60 && g < 60 && b < 60) > 2_000,
        "axes and text"
    );
    // The title's text, drawn with the machine's fonts, above the plot.
    let title = (20..60)
        .flat_map(|y| (500..780).map(move |x| (x, y)))
        .filter(|&(x, y)| pixmap.pixel(x, y).is_some_and(|p| p.red() < 100))
        .count();
    assert!(title > 100, "the title is drawn ({title} dark pixels)");
    let svg = std::fs::read_to_string(img.join("02-test-0-write.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("test 0 write"),
        "{}",
        &svg[..200]
    );
}

/// A read served from the page cache: the report gives its share and the
/// warning the text output gives.
#[test]
fn page_cache_residency_and_its_warning_are_reported() {
    let dir = tempdir().unwrap();
    let d = dir.path();
    let file = d.join("f");
    let args = [
        "ior",
        "-w",
        "-r",
        "-t",
        "64k",
        "-b",
        "1m",
        "-O",
        "summaryFormat=JSON",
    ];
    let ior = pario(d, &[&args[..], &["-o", file.to_str().unwrap()]].concat());
    ior.ok();
    std::fs::write(d.join("ior.json"), &ior.stdout).unwrap();
    let out = d.join("r.html");
    pario(d, &["report", "ior.json", "-o", out.to_str().unwrap()]).ok();
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("<td>test 0 read #0</td>"), "{html}");
    let row = &html[html.find("<td>test 0 read #0</td>").unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(row.contains("<td>100.0%</td>"), "{row}");
    assert!(html.contains("<h2>Warnings: ior.json</h2>"));
    let warning =
        "<li>test 0 read #0: WARNING: 100% of the data read was in this node's page cache";
    assert!(html.contains(warning), "{html}");
}

/// io500's result: its score and parts in the run's lines, every phase in
/// the details with its score and validity.
#[test]
fn io500_score_and_phases_are_reported() {
    let dir = tempdir().unwrap();
    let out = dir.path().join("r.html");
    let result = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/report/io500.json");
    pario(dir.path(), &["report", result, "-o", out.to_str().unwrap()]).ok();
    let html = std::fs::read_to_string(&out).unwrap();
    let score = "<td>score</td><td>7.075161 (bandwidth 0.477568 GiB/s, metadata 104.818301 kIOPS), INVALID</td>";
    assert!(html.contains(score), "{html}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(result).unwrap()).unwrap();
    for phase in doc["phases"].as_array().unwrap() {
        let name = phase["name"].as_str().unwrap();
        assert!(html.contains(&format!("<tr><td>{name}</td>")), "{name}");
    }
}
