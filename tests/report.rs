//! `pario report`: one self-contained HTML page from fixed result files and
//! from real results of each tool: every figure charted, latency curves,
//! details, nothing fetched, no script.

use crate::common;
use crate::common::pario;
use tempfile::tempdir;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/compare");

/// Charts, and what a browser would fetch (the SVG namespace is a name;
/// links go to anchors of the page).
fn check_self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..100]);
    assert!(!html.contains("<script"), "no script");
    for attr in ["src=", "url(", "@import"] {
        assert!(!html.contains(attr), "{attr} in the page");
    }
    assert_eq!(
        html.matches("href=").count(),
        html.matches("href=\"#").count()
    );
    let fetched = html.matches("http").count();
    assert_eq!(fetched, html.matches("http://www.w3.org/2000/svg").count());
}

/// The overview's rows of the result named `name`.
fn overview_of<'a>(html: &'a str, name: &str) -> &'a str {
    let overview = &html[html.find("<table class=\"overview\"").unwrap()..];
    let overview = &overview[..overview.find("</table>").unwrap()];
    let at = overview.find(&format!(">{name}</a>")).unwrap();
    let rows = &overview[at..];
    &rows[..rows.find("</tbody>").unwrap()]
}

#[test]
fn fixed_results_are_compared_in_the_overview_and_charted_per_figure() {
    let dir = tempdir().unwrap();
    let out = dir.path().join("r.html");
    let (a, b) = (format!("{DATA}/a.json"), format!("{DATA}/b.json"));
    let r = pario(dir.path(), &["report", &a, &b, "-o", out.to_str().unwrap()]);
    r.ok();
    let html = std::fs::read_to_string(&out).unwrap();
    check_self_contained(&html);
    // The overview comes first, each result named by its file (their
    // workloads are the same), b against a as compare says: write 1260
    // against a median of 1050, but two repetitions a side cannot tell.
    let overview = html.find("<table class=\"overview\"").unwrap();
    assert!(overview < html.find("<svg").unwrap());
    assert!(overview_of(&html, "a").contains("baseline"));
    let b_rows = overview_of(&html, "b");
    let write = &b_rows[b_rows.find("<td>write</td>").unwrap()..];
    let write = &write[..write.find("</tr>").unwrap()];
    assert!(write.contains("<b>1.23 GiB/s</b>"), "{write}");
    assert!(
        write.contains("<b>×1.20</b> too few repetitions to tell"),
        "{write}"
    );
    let read = &b_rows[b_rows.find("<td>read</td>").unwrap()..];
    assert!(read.contains("<b>×1.01</b> too few"), "{read}");
    assert!(read.contains("cv 1.37 %, 2 repetitions"), "{read}");
    // Two figures: two charts, each with both results' repetitions.
    assert_eq!(html.matches("<figure class=\"chart\"").count(), 2);
    let write = html
        .split("<figure class=\"chart\"")
        .skip(1)
        .find(|s| s.contains("ior write"))
        .unwrap();
    assert_eq!(write.matches("<circle").count(), 4, "{write}");

    // One result is compared with nothing.
    pario(dir.path(), &["report", &a, "-o", out.to_str().unwrap()]).ok();
    let alone = std::fs::read_to_string(&out).unwrap();
    assert!(!alone.contains("baseline") && alone.contains("<td>write</td>"));

    // Labels name the results, and another baseline turns the ratios.
    let args = [
        "report",
        "--label",
        "before",
        &a,
        "--label",
        "after",
        &b,
        "-o",
        out.to_str().unwrap(),
        "--baseline",
        "after",
    ];
    pario(dir.path(), &args).ok();
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(overview_of(&html, "after").contains("baseline"));
    let before = overview_of(&html, "before");
    assert!(
        before.contains("<b>×0.83</b> too few repetitions to tell"),
        "{before}"
    );
}

#[test]
fn four_repetitions_a_side_get_the_verdict_compare_gives() {
    let dir = tempdir().unwrap();
    let d = dir.path();
    let out = d.join("r.html");
    let a = crate::compare::four_repetitions(d, "a");
    let b = crate::compare::four_repetitions(d, "b");
    pario(d, &["report", &a, &b, "-o", out.to_str().unwrap()]).ok();
    let html = std::fs::read_to_string(&out).unwrap();
    let b_rows = overview_of(&html, "b4");
    let write = &b_rows[b_rows.find("<td>write</td>").unwrap()..];
    let write = &write[..write.find("</tr>").unwrap()];
    assert!(
        write.contains("<b>×1.20</b> faster, beyond the noise <small"),
        "{write}"
    );
    assert!(write.contains("95 %: ×1.12–×1.29"), "{write}");
    let read = &b_rows[b_rows.find("<td>read</td>").unwrap()..];
    assert!(read.contains("<b>×1.01</b> within the noise"), "{read}");
}

#[test]
fn the_overview_as_csv() {
    let dir = tempdir().unwrap();
    let d = dir.path();
    let a = crate::compare::four_repetitions(d, "a");
    let b = crate::compare::four_repetitions(d, "b");
    let r = pario(d, &["report", &a, &b, "--csv", "o.csv"]);
    r.ok();
    assert!(r.stdout.starts_with("wrote o.csv ("), "{}", r.stdout);
    let text = std::fs::read_to_string(d.join("o.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "result,tool,file,workload,figure,unit,repetitions,median,min,max,cv,\
         ratio_to_baseline,interval_low,interval_high,verdict"
    );
    // Two results of two figures each; the baseline compared with nothing.
    assert_eq!(lines.len(), 5, "{text}");
    let write_b = lines
        .iter()
        .find(|l| l.starts_with("b4,") && l.contains(",test 0 write,"));
    let cells: Vec<&str> = write_b.unwrap().rsplitn(5, ',').collect();
    assert_eq!(cells[0], "faster");
    assert_eq!(&cells[1][..5], "1.285");
    assert_eq!(&cells[2][..5], "1.122");
    assert_eq!(&cells[3][..5], "1.200");
    assert!(lines[1].ends_with(",,,,"), "{}", lines[1]);
    // With -o too, both are written; without either, one line and exit 2.
    let r = pario(d, &["report", &a, "-o", "r.html", "--csv", "o.csv"]);
    assert!(r.stdout.contains("; wrote o.csv ("), "{}", r.stdout);
    pario(d, &["report", &a]).fails(2, "no output file");
    std::fs::remove_file(d.join("r.html")).unwrap();
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
    for section in ["overview", "figures", "latency", "tasks", "runs"] {
        assert!(
            html.contains(&format!("<section id=\"{section}\">")),
            "{section}"
        );
        assert!(
            html.contains(&format!("<a href=\"#{section}\">")),
            "{section}"
        );
    }
    // One result has the ior figures: their curves share a chart.
    assert!(
        html.contains("data-chart=\"ior latency"),
        "ior's latency curves"
    );
    assert!(
        html.contains("data-chart=\"md-workbench latency"),
        "md-workbench's"
    );
    assert!(html.contains("data-chart=\"ior fastest to slowest task"));
    // The runs' details are folded.
    assert_eq!(html.matches("<details class=\"run\"").count(), 2);
    // DUMMY's phases last microseconds: the overview says so.
    assert!(html.contains("Phases under a second"));
}

#[test]
fn bad_arguments_are_one_line() {
    let dir = tempdir().unwrap();
    let a = format!("{DATA}/a.json");
    for (args, message) in [
        (vec!["report", a.as_str()], "no output file"),
        (vec!["report", "-o", "x.html"], "no result file"),
        (vec!["report", "nope.json", "-o", "x.html"], "nope.json"),
        (
            vec![
                "report", "--label", "x", &a, "--label", "x", &a, "-o", "x.html",
            ],
            "--label x is given twice",
        ),
    ] {
        pario(dir.path(), &args).fails(2, message);
    }
    assert!(!dir.path().join("x.html").exists());
}

/// The SVG of the chart whose title begins with `title`.
fn chart<'a>(html: &'a str, title: &str) -> &'a str {
    let at = html.find(&format!("data-chart=\"{title}")).expect(title);
    let svg = &html[at..];
    &svg[..svg.find("</figure>").unwrap()]
}

#[test]
fn results_one_parameter_apart_are_named_by_it_and_charted_against_it() {
    let dir = tempdir().unwrap();
    let d = dir.path();
    let mut files = Vec::new();
    for t in ["4k", "16k", "64k"] {
        let args = [
            "ior",
            "-a",
            "DUMMY",
            "-w",
            "-r",
            "-i",
            "2",
            "-b",
            "64k",
            "-t",
            t,
            "-O",
            "summaryFormat=JSON",
        ];
        let r = pario(d, &args);
        r.ok();
        let name = format!("t{t}.json");
        std::fs::write(d.join(&name), &r.stdout).unwrap();
        files.push(name);
    }
    // The page of `args` and `files`, each after its own words.
    let page = |words: &[&str], out: &str| {
        let mut args = vec!["report"];
        for (file, w) in files.iter().zip(words) {
            args.extend(w.split_whitespace());
            args.push(file.as_str());
        }
        args.extend(["-o", out]);
        pario(d, &args).ok();
        std::fs::read_to_string(d.join(out)).unwrap()
    };
    let html = page(&["", "", ""], "r.html");
    // Named by the transfer size alone; the shared workload said once,
    // above the table, each row saying only its own.
    let rows = overview_of(&html, "ior 16 KiB transfers");
    assert!(
        rows.contains("workloads differ: transfer 4 KiB vs 16 KiB"),
        "{rows}"
    );
    let shared = "<p class=\"shared\"><b>ior, 3 results:</b> 64 KiB blocks, shared file, 1 \
                  task on 1 node, DUMMY, 2 repetitions</p>";
    assert_eq!(html.matches(shared).count(), 1, "{html}");
    assert!(html.find(shared) < html.find("<table class=\"overview\""));
    // Bandwidth, IOPS and p99 latency against the transfer size: a log₂
    // axis with the sizes as ticks, a point per repetition.
    for what in ["bandwidth", "IOPS", "p99 latency"] {
        let svg = chart(&html, &format!("ior {what} by transfer, 64 KiB blocks"));
        for tick in [
            "4 KiB",
            "16 KiB",
            "64 KiB",
            "transfer (log₂ scale)",
            "write",
            "read",
        ] {
            assert!(svg.contains(&format!(">{tick}<")), "{what}: {tick}");
        }
    }
    // The names say what differs: no workload column repeats it; labels
    // do not, and the column says it.
    assert!(!html.contains("<th>Workload</th>"));
    let l = page(&["--label a", "--label b", "--label c"], "l.html");
    let rows = overview_of(&l, "b");
    assert!(
        rows.contains("class=\"workload\">16 KiB transfers</td>"),
        "{rows}"
    );
    let bandwidth = chart(&html, "ior bandwidth by transfer");
    assert_eq!(
        bandwidth.matches("<circle").count(),
        12,
        "3 sizes, 2 figures, 2 each"
    );
    assert!(bandwidth.contains(">GiB/s<") || bandwidth.contains(">MiB/s<"));
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
    // Each chart named by its title: the figure and the workload both
    // results share.
    let shared = "1-mib-transfers-4-mib-blocks-shared-file-2-tasks";
    let charts = [
        format!("01-ior-write-{shared}"),
        format!("02-ior-read-{shared}"),
    ];
    let files: Vec<String> = charts
        .iter()
        .flat_map(|c| [format!("{c}.png"), format!("{c}.svg")])
        .collect();
    assert_eq!(names, files);
    for chart in charts {
        let svg = std::fs::read_to_string(img.join(format!("{chart}.svg"))).unwrap();
        assert!(svg.starts_with("<svg width=\"580\""), "{}", &svg[..200]);
        let height: u32 = svg["<svg width=\"580\" height=\"".len()..]
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        check_png(
            &std::fs::read(img.join(format!("{chart}.png"))).unwrap(),
            2 * height,
        );
    }
}

/// A PNG at twice the SVG's size (580 pixels wide): its header, its
/// pixels (decoded) and that they are not all one colour.
fn check_png(bytes: &[u8], height: u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((frame.width, frame.height), (1160, height));
    let pixels = &pixels[..frame.buffer_size()];
    let step = frame.color_type.samples();
    let first = &pixels[..step];
    let other = pixels.chunks(step).filter(|p| *p != first).count();
    // Points, axes and text: far more than a few stray pixels.
    assert!(other > 5_000, "{other} pixels differ from the background");
}

/// What makes the tiny unet3d of `dlio_train` one run: generated and
/// trained (8 npz files of 40 KB, 2 epochs, a 10 KiB checkpoint).
const DLIO_ONE_RUN: &[&str] = &[
    "++workload.workflow.generate_data=True",
    "++hydra.run.dir=out",
    "--summaryFormat=JSON",
    "--summaryFile=a.json",
];

/// dlio_benchmark's result is a row of the overview (AU, samples/s,
/// checkpoint GB/s), its figures are charted and its details shown; its
/// JSON records where it ran, and the report names what differs between
/// two results' systems (one edited to another kernel).
#[test]
fn dlio_results_are_reported_with_their_systems() {
    let scratch = common::scratch("report-dlio");
    let d = scratch.path();
    let run = std::process::Command::new(common::bin("pario"))
        .arg("dlio")
        .args(crate::dlio_train::UNET3D)
        .args(DLIO_ONE_RUN)
        .current_dir(d)
        .env("PARIO_TASKS", "2")
        .output()
        .unwrap();
    common::finish(run).ok();
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("a.json")).unwrap()).unwrap();
    crate::system_record::check_system(&doc["system"], d);
    doc["system"]["clients"][0]["kernel"] = "6.99.0-test x86_64".into();
    std::fs::write(d.join("b.json"), doc.to_string()).unwrap();
    let r = pario(
        d,
        &[
            "report", "--label", "A", "a.json", "--label", "B", "b.json", "-o", "r.html",
        ],
    );
    r.ok();
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    check_self_contained(&html);
    let row = overview_of(&html, "A");
    assert!(row.contains("dlio_benchmark · a.json"), "{row}");
    for figure in ["train AU", "train throughput", "checkpoint save"] {
        assert!(row.contains(figure), "{figure}: {row}");
        let chart = format!("data-chart=\"dlio_benchmark {figure}");
        assert!(html.contains(&chart), "{chart}");
    }
    // The workload both share is said once, above the table.
    let overview = &html[..html.find("<figure").unwrap_or(html.len())];
    assert!(overview.contains("unet3d_h100, npz"), "{overview}");
    let systems = &html[html.find("<p class=\"note system\">").unwrap()..];
    let systems = &systems[..systems.find("</p>").unwrap()];
    let kernel = rustix::system::uname()
        .release()
        .to_string_lossy()
        .into_owned();
    assert!(
        systems.contains(&format!("<b>Systems differ:</b> kernel {kernel}")),
        "{systems}"
    );
    assert!(systems.contains(" vs 6.99.0-test x86_64."), "{systems}");
    assert_eq!(html.matches("<h4>System</h4>").count(), 2);
    assert!(html.contains("<td>file system</td>"));
}
