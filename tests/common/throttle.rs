//! A throttling proxy for the S3 tests: a loopback TCP listener in front
//! of the real server that answers some requests with S3's own
//! `503 SlowDown` error (as a busy AWS or Ceph gateway does) and forwards
//! the others unchanged. SeaweedFS cannot be made to throttle, so this is
//! how a test meets real 503 answers on the wire. It can instead lose the
//! requests it picks ([`Answer::Lost`]): an upload's part answered as taken
//! and never forwarded, as a part lost between client and server would be;
//! or forward them and change the server's answer ([`Answer::Rewritten`]):
//! a list of parts that names fewer, another ETag. Standard library only.
//!
//! Each client connection carries one request: the proxy adds
//! `Connection: close` to the request it forwards, so the server closes
//! the connection after its answer, and the proxy copies that answer back
//! to the client byte for byte until the end (HEAD, chunked and sized
//! answers alike). Its 503 answers say `Connection: close` too.
//!
//! It also keeps each request line it saw with the request's body (bodies
//! of up to 64 KiB; larger ones, data, as empty), so a test can check what
//! was sent on the wire.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Request lines with their (small) bodies, in the order they came.
type Seen = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// S3's answer when a client sends too fast.
const SLOW_DOWN: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>\
<Message>Please reduce your request rate.</Message></Error>";

/// Which requests get the proxy's own answer (a 503, unless told
/// otherwise): those whose request line (`PUT /bucket/key?... HTTP/1.1`)
/// starts with `prefix`, the first `first` of them.
#[derive(Clone)]
pub struct Rule {
    pub prefix: String,
    pub first: usize,
}

/// What the proxy answers the requests its rule picks, without forwarding
/// them.
#[derive(Clone, Copy)]
pub enum Answer {
    /// S3's `503 SlowDown`.
    SlowDown,
    /// `200 OK` with an ETag, as a server that took an upload's part
    /// answers: the part is lost, and its writer cannot tell.
    Lost,
    /// The server's own answer (head and body, as text) changed by the
    /// function; its `Content-Length` is made the new body's.
    Rewritten(fn(&str) -> String),
}

/// A running proxy; it stops accepting when dropped (the listener thread
/// ends at its next connection, which the drop makes).
pub struct Proxy {
    pub endpoint: String,
    addr: SocketAddr,
    /// The proxy's own answers given so far.
    throttled: Arc<AtomicUsize>,
    stop: Arc<AtomicUsize>,
    seen: Seen,
}

impl Proxy {
    /// A proxy in front of `upstream` (`http://127.0.0.1:PORT`) that
    /// answers 503 SlowDown to the requests `rule` picks.
    pub fn start(upstream: &str, rule: Rule) -> Proxy {
        Proxy::answering(upstream, rule, Answer::SlowDown)
    }

    /// A proxy in front of `upstream` that gives `answer` to the requests
    /// `rule` picks.
    pub fn answering(upstream: &str, rule: Rule, answer: Answer) -> Proxy {
        let upstream: SocketAddr = upstream
            .trim_start_matches("http://")
            .parse()
            .expect("an http://IP:PORT endpoint");
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let addr = listener.local_addr().unwrap();
        let throttled = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicUsize::new(0));
        let seen = Seen::default();
        let (count, halt, log) = (throttled.clone(), stop.clone(), seen.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if halt.load(Ordering::Relaxed) > 0 {
                    break;
                }
                let Ok(client) = client else { continue };
                let (rule, count, log) = (rule.clone(), count.clone(), log.clone());
                std::thread::spawn(move || {
                    let _ = serve(client, upstream, (&rule, answer), &count, &log);
                });
            }
        });
        Proxy {
            endpoint: format!("http://{addr}"),
            addr,
            throttled,
            stop,
            seen,
        }
    }

    /// The requests seen so far: request line (`PUT /bucket HTTP/1.1`) and
    /// body (empty when over 64 KiB).
    pub fn requests(&self) -> Vec<(String, Vec<u8>)> {
        self.seen.lock().unwrap().clone()
    }

    /// The proxy's own answers (503s, lost parts) given so far.
    pub fn throttled(&self) -> usize {
        self.throttled.load(Ordering::Relaxed)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(1, Ordering::Relaxed);
        let _ = TcpStream::connect(self.addr);
    }
}

/// One request of `client`: answered by the proxy or forwarded.
fn serve(
    client: TcpStream,
    upstream: SocketAddr,
    (rule, answer): (&Rule, Answer),
    count: &AtomicUsize,
    seen: &Mutex<Vec<(String, Vec<u8>)>>,
) -> io::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let mut head = Vec::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
        // The client's own keep-alive wish is replaced by ours.
        if !lower.starts_with("connection:") {
            head.push(line);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let kept = if length <= 64 << 10 {
        body.clone()
    } else {
        Vec::new()
    };
    let line = head.first().map_or("", |l| l.trim_end()).to_string();
    seen.lock().unwrap().push((line, kept));
    let mut client = client;
    let throttle = head.first().is_some_and(|l| l.starts_with(&rule.prefix))
        && count
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < rule.first).then_some(n + 1)
            })
            .is_ok();
    if throttle && matches!(answer, Answer::Lost) {
        // An ETag of the form S3 gives, for bytes the server never saw.
        let lost = "HTTP/1.1 200 OK\r\nETag: \"0123456789abcdef0123456789abcdef\"\r\n\
                    Content-Length: 0\r\nConnection: close\r\n\r\n";
        return client.write_all(lost.as_bytes());
    }
    if throttle && matches!(answer, Answer::SlowDown) {
        let answer = format!(
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/xml\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{SLOW_DOWN}",
            SLOW_DOWN.len()
        );
        return client.write_all(answer.as_bytes());
    }
    let mut server = TcpStream::connect(upstream)?;
    let mut request = head.concat();
    request.push_str("Connection: close\r\n\r\n");
    server.write_all(request.as_bytes())?;
    server.write_all(&body)?;
    match answer {
        Answer::Rewritten(change) if throttle => {
            let mut text = String::new();
            server.read_to_string(&mut text)?;
            client.write_all(sized(&change(&text)).as_bytes())
        }
        _ => io::copy(&mut server, &mut client).map(drop),
    }
}

/// An answer whose `Content-Length` is its body's length.
fn sized(answer: &str) -> String {
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((answer, ""));
    let lines = head.split("\r\n").map(|line| {
        match line.to_ascii_lowercase().starts_with("content-length:") {
            true => format!("Content-Length: {}", body.len()),
            false => line.to_string(),
        }
    });
    format!("{}\r\n\r\n{body}", lines.collect::<Vec<_>>().join("\r\n"))
}
