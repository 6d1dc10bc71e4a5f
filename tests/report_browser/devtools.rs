//! Debian's chromium, headless, driven over the DevTools protocol on a
//! pipe (`--remote-debugging-pipe`: JSON messages ending in a NUL byte,
//! commands on its fd 3, answers and events on its fd 4), all its traffic
//! through a proxy that records each request (names resolve to nothing).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long any one step may take before the test gives up: generous, a
/// guard against a hung browser, not a measure.
const PATIENCE: Duration = Duration::from_secs(120);

pub fn chromium() -> Option<String> {
    let found = ["chromium", "chromium-browser"].into_iter().find(|c| {
        Command::new("sh")
            .args(["-c", &format!("command -v {c}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    found.map(str::to_string)
}

/// The browser, and its DevTools session with one page.
pub struct Browser {
    child: Child,
    commands: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
    session: String,
    /// Events seen so far (console, exceptions, log entries, requests).
    pub events: Vec<Value>,
    proxy: TcpListener,
    /// The request lines the proxy received.
    pub proxied: Vec<String>,
}

impl Browser {
    pub fn start(exe: &str, profile: &Path) -> Browser {
        let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
        proxy.set_nonblocking(true).unwrap();
        let port = proxy.local_addr().unwrap().port();
        let mut args = vec![
            "--headless".to_string(),
            "--remote-debugging-pipe".into(),
            format!("--user-data-dir={}", profile.display()),
            format!("--proxy-server=http://127.0.0.1:{port}"),
            // Loopback too goes through the proxy, and no name resolves.
            "--proxy-bypass-list=<-loopback>".into(),
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1".into(),
            "--no-first-run".into(),
            "--no-default-browser-check".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--disable-extensions".into(),
            "--disable-gpu".into(),
            "--disable-domain-reliability".into(),
            "--disable-client-side-phishing-detection".into(),
            "--disable-default-apps".into(),
            "--no-pings".into(),
            "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter".into(),
            "--window-size=1200,900".into(),
        ];
        // Chromium's sandbox refuses to run as root.
        if is_root() {
            args.push("--no-sandbox".into());
        }
        args.push("about:blank".into());
        // The shell gives chromium our pipes as its fds 3 and 4.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" 3<&0 4>&1 0</dev/null 1>/dev/null")
            .arg(exe)
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let commands = child.stdin.take().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            while out.read_until(0, &mut buf).is_ok_and(|n| n > 0) {
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                if let Ok(v) = serde_json::from_slice::<Value>(&buf) {
                    if tx.send(v).is_err() {
                        break;
                    }
                }
                buf.clear();
            }
        });
        let mut b = Browser {
            child,
            commands,
            messages,
            next_id: 0,
            session: String::new(),
            events: Vec::new(),
            proxy,
            proxied: Vec::new(),
        };
        let target = b.call("Target.createTarget", json!({"url": "about:blank"}));
        let id = target["targetId"].clone();
        let attached = b.call(
            "Target.attachToTarget",
            json!({"targetId": id, "flatten": true}),
        );
        b.session = attached["sessionId"].as_str().unwrap().to_string();
        for domain in ["Page", "Runtime", "Log", "Network"] {
            b.call(&format!("{domain}.enable"), json!({}));
        }
        b
    }

    /// Sends a command to the page's session (the browser's before there
    /// is one) and returns its result; events meanwhile are kept.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            msg["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        self.commands.write_all(&bytes).unwrap();
        self.commands.flush().unwrap();
        let reply = self.wait(|m| m["id"] == id, method);
        assert!(reply["error"].is_null(), "{method}: {reply}");
        reply["result"].clone()
    }

    /// Reads messages until one satisfies `done` (returned); every event
    /// is kept, the proxy drained as it goes.
    fn wait(&mut self, done: impl Fn(&Value) -> bool, what: &str) -> Value {
        let start = Instant::now();
        loop {
            self.drain_proxy();
            match self.messages.recv_timeout(Duration::from_millis(50)) {
                Ok(m) if done(&m) => return m,
                Ok(m) => {
                    if m["method"].is_string() {
                        self.events.push(m);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => panic!("chromium closed its pipe ({what})"),
            }
            assert!(start.elapsed() < PATIENCE, "no answer to {what}");
        }
    }

    /// Records the first line of each connection the proxy got, and closes
    /// it (so the browser's request fails at once).
    fn drain_proxy(&mut self) {
        while let Ok((mut conn, _)) = self.proxy.accept() {
            conn.set_nonblocking(false).unwrap();
            conn.set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut head = [0u8; 512];
            let n = conn.read(&mut head).unwrap_or(0);
            let line = String::from_utf8_lossy(&head[..n]);
            self.proxied
                .push(line.lines().next().unwrap_or("").to_string());
        }
    }

    /// Opens `url` and waits for its load event; the events it caused.
    pub fn open(&mut self, url: &str) -> Vec<Value> {
        self.events.clear();
        self.call("Page.navigate", json!({"url": url}));
        let session = self.session.clone();
        self.wait(
            |m| m["method"] == "Page.loadEventFired" && m["sessionId"] == session.as_str(),
            url,
        );
        std::mem::take(&mut self.events)
    }

    pub fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        );
        r["result"]["value"].clone()
    }
}

impl Drop for Browser {
    /// Asks chromium to close (it takes its helper processes with it),
    /// and kills it if it has not within the patience.
    fn drop(&mut self) {
        let close = b"{\"id\":0,\"method\":\"Browser.close\"}\0";
        let _ = self.commands.write_all(close);
        let _ = self.commands.flush();
        let start = Instant::now();
        while self.child.try_wait().is_ok_and(|s| s.is_none()) && start.elapsed() < PATIENCE {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// The console errors, exceptions and error log entries among `events`.
pub fn errors(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| {
            let m = e["method"].as_str().unwrap_or("");
            (m == "Runtime.consoleAPICalled" && e["params"]["type"] == "error")
                || m == "Runtime.exceptionThrown"
                || (m == "Log.entryAdded" && e["params"]["entry"]["level"] == "error")
        })
        .map(Value::to_string)
        .collect()
}

/// The URLs the page requested.
pub fn requests(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["method"] == "Network.requestWillBeSent")
        .map(|e| {
            e["params"]["request"]["url"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

/// Hosts chromium calls by itself whatever page it shows (sign-in, its
/// updater, its network clock), flags notwithstanding: not the page's.
/// Hosts a page could fetch fonts or scripts from (fonts.googleapis.com,
/// fonts.gstatic.com, CDNs) are not among them.
pub const BROWSER_SERVICES: [&str; 3] = [
    "accounts.google.com",
    "update.googleapis.com",
    "clients2.google.com",
];

/// The host a proxy request line names (`CONNECT host:443 ...`, `GET
/// http://host/path ...`).
pub fn host(line: &str) -> &str {
    let target = line.split(' ').nth(1).unwrap_or("");
    let target = target.split_once("://").map_or(target, |(_, rest)| rest);
    target.split([':', '/']).next().unwrap_or("")
}

pub fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text.bytes().filter(|c| *c != b'=').map(value).collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let n = chunk.iter().fold(0u32, |n, d| n << 6 | u32::from(*d)) << (6 * (4 - chunk.len()));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// Whether `tool` is on the PATH.
pub fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
