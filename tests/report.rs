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
    assert!(html.contains("test 0 write: fastest to slowest task"));
    assert!(html.contains("<h2>Task times (stragglers)</h2>"));
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
fn images_are_written_as_svg_and_png() {
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
    let svg = std::fs::read_to_string(img.join("02-test-0-write.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("test 0 write"),
        "{}",
        &svg[..200]
    );
    for name in ["01-test-0-read.png", "02-test-0-write.png"] {
        check_png(&std::fs::read(img.join(name)).unwrap());
    }
}

/// A PNG of the chart's size at twice the SVG's (640 x 280): its header,
/// its pixels (decoded) and that they are not all one colour.
fn check_png(bytes: &[u8]) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((frame.width, frame.height), (1280, 560));
    let pixels = &pixels[..frame.buffer_size()];
    let step = frame.color_type.samples();
    let first = &pixels[..step];
    let other = pixels.chunks(step).filter(|p| *p != first).count();
    // Bars, axes and text: far more than a few stray pixels.
    assert!(other > 10_000, "{other} pixels differ from the background");
}
