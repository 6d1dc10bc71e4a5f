//! `pario report` opened in a real headless browser (Debian's chromium,
//! driven through the DevTools protocol on a pipe): the page loads with no
//! console error, requests nothing but itself, and every chart is there with
//! marks in it. A screenshot is kept in the temp dir (its path is printed).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Value};

/// A result of each tool (ior with a sweep), checked in.
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/report");
const RESULTS: [&str; 4] = [
    "ior-sweep.json",
    "mdtest.json",
    "md-workbench.json",
    "io500.json",
];

/// The marks of a chart drawn in the results' colours (bars, curves, their
/// points, legend swatches), its title, and its width on screen.
const MARKS: &str = "JSON.stringify([...document.querySelectorAll('svg')].map(s => [\
    [...s.querySelectorAll('rect,circle,polyline,path')].filter(e => \
        /^#(1F77B4|FF7F0E|2CA02C|D62728|9467BD|8C564B)$/i.test(e.getAttribute('fill') || '') || \
        /^#(1F77B4|FF7F0E|2CA02C|D62728|9467BD|8C564B)$/i.test(e.getAttribute('stroke') || '')).length, \
    (s.querySelector('text') || {}).textContent || '', \
    s.getBoundingClientRect().width]))";

/// A browser and the pipe the DevTools protocol runs on (fd 3 in, fd 4 out).
struct Browser {
    child: Child,
    to: std::fs::File,
    from: BufReader<std::fs::File>,
    next_id: u64,
    session: Option<String>,
    /// Every event seen, in order.
    events: Vec<Value>,
}

fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors, which are then owned here.
    unsafe {
        assert_eq!(libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC), 0, "a pipe");
        (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
    }
}

impl Browser {
    fn start(profile: &Path) -> Browser {
        let (cmd_read, cmd_write) = pipe();
        let (out_read, out_write) = pipe();
        let (r, w) = (cmd_read.as_raw_fd(), out_write.as_raw_fd());
        let mut cmd = Command::new("chromium");
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-pipe",
        ])
        .args(["--no-first-run", "--disable-background-networking"])
        .args([
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        // SAFETY: between fork and exec only fcntl and dup2, async-signal-safe;
        // it puts the protocol's pipe ends where chromium expects them.
        unsafe {
            cmd.pre_exec(move || {
                // Out of the way first: a pipe end may itself be fd 3 or 4,
                // and dup2 onto the same fd would keep its close-on-exec.
                let (r, w) = (
                    libc::fcntl(r, libc::F_DUPFD, 10),
                    libc::fcntl(w, libc::F_DUPFD, 10),
                );
                if r < 0 || w < 0 || libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("start chromium");
        drop((cmd_read, out_write));
        Browser {
            child,
            to: std::fs::File::from(cmd_write),
            from: BufReader::new(std::fs::File::from(out_read)),
            next_id: 0,
            session: None,
            events: Vec::new(),
        }
    }

    /// The next message (NUL-terminated JSON).
    fn receive(&mut self) -> Value {
        let mut raw = Vec::new();
        self.from
            .read_until(0, &mut raw)
            .expect("read from chromium");
        assert_eq!(raw.pop(), Some(0), "chromium closed its pipe");
        serde_json::from_slice(&raw).expect("a JSON message")
    }

    /// Sends a command (to the page once attached) and returns its result,
    /// keeping the events that arrive meanwhile.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let mut message = json!({ "id": self.next_id, "method": method, "params": params });
        if let Some(s) = &self.session {
            message["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.to.write_all(&bytes).expect("write to chromium");
        loop {
            let m = self.receive();
            if m["id"] == self.next_id {
                assert!(m["error"].is_null(), "{method}: {m}");
                return m["result"].clone();
            }
            self.events.push(m);
        }
    }

    /// Waits for the event `method`, keeping the others.
    fn wait_for(&mut self, method: &str) {
        while !self.events.iter().any(|e| e["method"] == method) {
            let m = self.receive();
            self.events.push(m);
        }
    }

    fn events(&self, method: &str) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["method"] == method)
            .collect()
    }

    /// Evaluates `expression` in the page; its value.
    fn evaluate(&mut self, expression: &str) -> Value {
        let params = json!({ "expression": expression, "returnByValue": true });
        self.call("Runtime.evaluate", params)["result"]["value"].clone()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn chromium_here() -> bool {
    Command::new("chromium")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn the_report_loads_in_a_browser_with_every_chart_and_nothing_fetched() {
    if !chromium_here() {
        eprintln!(
            "skipped: chromium is not installed (scripts/test.sh installs it as root on Debian)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    let mut args = vec!["report".to_string()];
    args.extend(RESULTS.iter().map(|r| format!("{DATA}/{r}")));
    args.extend(["-o".to_string(), html.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::pario(dir.path(), &args).ok();
    let charts = std::fs::read_to_string(&html)
        .unwrap()
        .matches("<svg")
        .count();

    let profile = tempfile::tempdir().unwrap();
    let mut browser = Browser::start(profile.path());
    // A hung browser fails the test instead of stalling it.
    let pid = browser.child.id();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(120));
        // SAFETY: a plain kill(2); the browser may be gone already.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    });
    let target = browser.call("Target.createTarget", json!({ "url": "about:blank" }));
    let attach = json!({ "targetId": target["targetId"], "flatten": true });
    let session = browser.call("Target.attachToTarget", attach)["sessionId"].clone();
    browser.session = Some(session.as_str().unwrap().to_string());
    for domain in ["Page", "Network", "Runtime", "Log"] {
        browser.call(&format!("{domain}.enable"), json!({}));
    }
    let url = format!("file://{}", html.display());
    browser.call("Page.navigate", json!({ "url": url }));
    browser.wait_for("Page.loadEventFired");

    // Nothing requested but the page itself.
    let requests: Vec<String> = browser
        .events("Network.requestWillBeSent")
        .iter()
        .map(|e| {
            e["params"]["request"]["url"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(requests, [url], "the page's requests");
    // No console error, no exception.
    let errors: Vec<&Value> = browser
        .events("Log.entryAdded")
        .into_iter()
        .filter(|e| e["params"]["entry"]["level"] == "error")
        .chain(browser.events("Runtime.exceptionThrown"))
        .chain(
            browser
                .events("Runtime.consoleAPICalled")
                .into_iter()
                .filter(|e| e["params"]["type"] == "error"),
        )
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // Every chart of the page drawn, each with marks in the results'
    // colours (a legend swatch and at least one bar, curve or point).
    let marks = browser.evaluate(MARKS);
    let marks: Vec<(u64, String, f64)> = serde_json::from_str(marks.as_str().unwrap()).unwrap();
    assert_eq!(marks.len(), charts, "{marks:?}");
    for (count, title, width) in &marks {
        assert!(
            *count >= 2 && *width > 100.0,
            "{title}: {count} marks, {width} px wide"
        );
    }
    let titles: Vec<&str> = marks.iter().map(|(_, t, _)| t.as_str()).collect();
    for expected in [
        "Scaling: bandwidth",
        "File creation",
        "benchmark",
        "ior-easy-write",
    ] {
        assert!(
            titles.iter().any(|t| t.contains(expected)),
            "{expected} in {titles:?}"
        );
    }
    let title = browser.evaluate("document.title");
    assert_eq!(title, "pario report");

    let shot = json!({ "format": "png", "captureBeyondViewport": true });
    let shot = browser.call("Page.captureScreenshot", shot)["data"].clone();
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot.as_str().unwrap())
        .unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    let kept = std::env::temp_dir().join("pario-report-screenshot.png");
    std::fs::write(&kept, &png).unwrap();
    eprintln!("screenshot: {}", kept.display());
    browser.session = None;
    let _ = browser.call("Browser.close", json!({}));
    let mut rest = Vec::new();
    let _ = browser.from.read_to_end(&mut rest);
}
