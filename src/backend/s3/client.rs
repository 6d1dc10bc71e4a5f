//! The S3 requests pario makes, over `ureq` (blocking HTTP/1.1 with
//! keep-alive connections, rustls for HTTPS) and SigV4 ([`super::sigv4`]).
//! Every failure names the bucket, the key, the HTTP status and S3's error
//! code; 500 and 503 (SlowDown) are retried with backoff, and each retry is
//! counted ([`Client::retries`]).

use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use base64::Engine;
use md5::{Digest, Md5};
use ureq::http;

pub use super::answers::{buckets, parts, uploads, Listed, ListedPart, Page};
use super::pieces::{self, Pieces};
use super::sigv4::{self, Credentials, Request, EMPTY_SHA256, UNSIGNED};
use super::{answers, xml};

/// Where requests go and how buckets are addressed.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// `http` or `https`.
    pub scheme: String,
    /// `host[:port]`, the port left out when it is the scheme's default.
    pub authority: String,
    /// Virtual-host addressing (`bucket.host/key`) instead of path-style
    /// (`host/bucket/key`).
    pub virtual_host: bool,
}

impl Endpoint {
    /// `http://HOST[:PORT]` or `https://...` (a trailing `/` allowed).
    pub fn parse(url: &str, virtual_host: bool) -> Result<Endpoint, String> {
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| format!("{url}: an endpoint is http://HOST[:PORT] or https://..."))?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(format!("{url}: the scheme must be http or https"));
        }
        let authority = rest.trim_end_matches('/');
        if authority.is_empty() || authority.contains('/') || authority.contains('@') {
            return Err(format!(
                "{url}: an endpoint is a scheme and a host[:port], without a path"
            ));
        }
        let default = if scheme == "http" { ":80" } else { ":443" };
        let authority = authority.strip_suffix(default).unwrap_or(authority);
        Ok(Endpoint {
            scheme,
            authority: authority.to_string(),
            virtual_host,
        })
    }

    pub fn url(&self) -> String {
        format!("{}://{}", self.scheme, self.authority)
    }
}

/// The server's answer to a request that failed: its status and S3's
/// error code as values, so that callers decide by them, not by the text.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub code: String,
    message: Option<String>,
    /// "bucket B, key K: ", "bucket B: " or nothing.
    place: String,
}

impl Answer {
    /// The answer a failure carries, when the server gave one.
    pub fn of(e: &io::Error) -> Option<&Answer> {
        e.get_ref()?.downcast_ref()
    }

    /// Whether `e` is the server's answer with S3 error code `code`.
    pub fn is(e: &io::Error, code: &str) -> bool {
        Answer::of(e).is_some_and(|a| a.code == code)
    }

    /// What the server said, without the bucket and key.
    pub fn said(&self) -> String {
        let message = self.message.as_ref().map(|m| format!(" ({m})"));
        format!(
            "HTTP {} {}{}",
            self.status,
            self.code,
            message.unwrap_or_default()
        )
    }
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.place, self.said())
    }
}

impl std::error::Error for Answer {}

/// A request's outcome that was not a success: `body` is the server's
/// answer (S3's `<Error>`, or anything).
pub fn s3_error(status: u16, body: &str, bucket: &str, key: &str) -> io::Error {
    let code = xml::first(body, "Code").map(xml::one_line);
    let code = code.unwrap_or_else(|| match status {
        404 => "NotFound".into(),
        403 => "Forbidden".into(),
        _ => "no S3 error code".into(),
    });
    let kind = match status {
        404 => io::ErrorKind::NotFound,
        403 => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Other,
    };
    let place = match (bucket.is_empty(), key.is_empty()) {
        (true, _) => String::new(),
        (false, true) => format!("bucket {bucket}: "),
        (false, false) => format!("bucket {bucket}, key {key}: "),
    };
    let message = xml::first(body, "Message")
        .map(xml::one_line)
        .filter(|m| !m.is_empty());
    io::Error::new(
        kind,
        Answer {
            status,
            code,
            message,
            place,
        },
    )
}

/// A failure to reach the server at all, naming `origin`: where the
/// request went, which under virtual-host addressing is the bucket's own
/// host (`http://BUCKET.HOST:PORT`), the name that may not resolve when
/// the endpoint's does.
fn transport_error(e: ureq::Error, origin: &str) -> io::Error {
    let kind = match &e {
        ureq::Error::Io(io) => io.kind(),
        ureq::Error::Timeout(_) => io::ErrorKind::TimedOut,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, format!("{origin}: {e}"))
}

/// What a request carries.
pub(super) enum Body<'a> {
    Empty,
    Bytes(&'a [u8], &'a str),
}

/// An S3 client: one connection pool, one signer.
pub struct Client {
    agent: ureq::Agent,
    pub endpoint: Endpoint,
    region: String,
    credentials: Credentials,
    retries: AtomicU64,
    /// The LocationConstraint sent with CreateBucket (IOR's
    /// `--S3-libs3.location`); none: the server's default.
    location: Option<String>,
}

/// Attempts of a request the server answered 500 or 503.
const ATTEMPTS: u32 = 8;

impl Client {
    pub fn new(
        endpoint: Endpoint,
        region: String,
        credentials: Credentials,
        tls: ureq::tls::TlsConfig,
        connections: usize,
    ) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .max_idle_connections(connections.max(4) * 2)
            .max_idle_connections_per_host(connections.max(4) * 2)
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_recv_response(Some(Duration::from_secs(300)))
            .user_agent(format!("pario/{}", env!("CARGO_PKG_VERSION")))
            .tls_config(tls)
            .build()
            .into();
        Client {
            agent,
            endpoint,
            region,
            credentials,
            retries: AtomicU64::new(0),
            location: None,
        }
    }

    /// Buckets this client creates are placed at `location`.
    pub fn with_location(mut self, location: Option<String>) -> Client {
        self.location = location;
        self
    }

    /// The key id that signs (shown in headers; never the secret).
    pub fn key_id(&self) -> &str {
        &self.credentials.key_id
    }

    /// Requests repeated after a 500 or 503 so far.
    pub fn retries(&self) -> u64 {
        self.retries.load(Ordering::Relaxed)
    }

    /// The URL and the signed path of `bucket`/`key`.
    fn target(&self, bucket: &str, key: &str) -> (String, String, String) {
        let key = sigv4::uri_encode(key, true);
        let e = &self.endpoint;
        if e.virtual_host && !bucket.is_empty() {
            let host = format!("{bucket}.{}", e.authority);
            let path = format!("/{key}");
            (format!("{}://{host}{path}", e.scheme), path, host)
        } else {
            let path = match bucket.is_empty() {
                true => "/".to_string(),
                false if key.is_empty() => format!("/{bucket}"),
                false => format!("/{bucket}/{key}"),
            };
            (
                format!("{}://{}{path}", e.scheme, e.authority),
                path,
                e.authority.clone(),
            )
        }
    }

    /// Signs and sends one request; retries 500 and 503 with backoff.
    pub(super) fn send(
        &self,
        method: &str,
        bucket: &str,
        key: &str,
        query: &[(&str, String)],
        headers: &[(&str, String)],
        body: Body<'_>,
    ) -> io::Result<http::Response<ureq::Body>> {
        let (url, path, host) = self.target(bucket, key);
        let query_text = sigv4::canonical_query(query);
        let url = match query_text.is_empty() {
            true => url,
            false => format!("{url}?{query_text}"),
        };
        let payload = match body {
            Body::Empty => EMPTY_SHA256,
            Body::Bytes(_, hash) => hash,
        };
        let mut attempt = 0;
        loop {
            let now = chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
            let request = Request {
                method,
                path: &path,
                query,
                host: &host,
                payload,
                headers,
            };
            let signed = sigv4::sign(&self.credentials, &self.region, &request, &now);
            let mut builder = http::Request::builder().method(method).uri(&url);
            for (k, v) in headers.iter().chain(signed.iter()) {
                builder = builder.header(*k, v);
            }
            let sent = match body {
                Body::Empty => builder
                    .body(())
                    .map_err(io::Error::other)
                    .and_then(|r| self.run(r, &host)),
                // In pieces: see `pieces` for the copy this avoids.
                Body::Bytes(data, _) => builder
                    .header("content-length", data.len())
                    .body(ureq::SendBody::from_reader(&mut Pieces::new(data)))
                    .map_err(io::Error::other)
                    .and_then(|r| self.run(r, &host)),
            };
            let mut response = sent?;
            let status = response.status().as_u16();
            if (status == 500 || status == 503) && attempt + 1 < ATTEMPTS {
                let _ = response.body_mut().read_to_vec();
                attempt += 1;
                self.retries.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(backoff(attempt));
                continue;
            }
            if status >= 300 {
                let text = response
                    .body_mut()
                    .with_config()
                    .limit(1 << 20)
                    .read_to_string()
                    .unwrap_or_default();
                return Err(s3_error(status, &text, bucket, key));
            }
            return Ok(response);
        }
    }

    fn run(
        &self,
        request: http::Request<impl ureq::AsSendBody>,
        host: &str,
    ) -> io::Result<http::Response<ureq::Body>> {
        self.agent
            .run(request)
            // The origin is written out only when it is named.
            .map_err(|e| transport_error(e, &format!("{}://{host}", self.endpoint.scheme)))
    }

    /// The body of a response as text (S3's XML).
    pub(super) fn text(response: http::Response<ureq::Body>) -> io::Result<String> {
        let mut body = response.into_body();
        body.with_config()
            .limit(64 << 20)
            .read_to_string()
            .map_err(io::Error::other)
    }

    /// ListBuckets: a signed request that needs no bucket (the endpoint
    /// answers, the credentials are accepted).
    pub fn list_buckets(&self) -> io::Result<Vec<String>> {
        let text = Self::text(self.send("GET", "", "", &[], &[], Body::Empty)?)?;
        Ok(answers::buckets(&text))
    }

    /// HEAD bucket: `Ok(())` when it exists and the keys may use it.
    pub fn head_bucket(&self, bucket: &str) -> io::Result<()> {
        self.send("HEAD", bucket, "", &[], &[], Body::Empty)
            .map(|_| ())
    }

    /// CreateBucket, with the client's LocationConstraint when it has one
    /// (the body AWS defines; without one the server's default region).
    pub fn create_bucket(&self, bucket: &str) -> io::Result<()> {
        let config = self.location.as_ref().map(|l| {
            format!(
                "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\
                 <LocationConstraint>{}</LocationConstraint></CreateBucketConfiguration>",
                xml::escape(l)
            )
        });
        let config = config.unwrap_or_default();
        let hash = sigv4::sha256_hex(config.as_bytes());
        let body = Body::Bytes(config.as_bytes(), &hash);
        match self.send("PUT", bucket, "", &[], &[], body) {
            Err(e) if Answer::is(&e, "BucketAlreadyOwnedByYou") => Ok(()),
            other => other.map(|_| ()),
        }
    }

    pub fn delete_bucket(&self, bucket: &str) -> io::Result<()> {
        self.send("DELETE", bucket, "", &[], &[], Body::Empty)
            .map(|_| ())
    }

    /// HEAD object: its size, or `None` when there is no such key.
    pub fn head(&self, bucket: &str, key: &str) -> io::Result<Option<u64>> {
        match self.send("HEAD", bucket, key, &[], &[], Body::Empty) {
            Ok(r) => Ok(Some(content_length(&r))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn put(&self, bucket: &str, key: &str, data: &[u8]) -> io::Result<()> {
        let hash = payload_hash(data);
        let r = self.send("PUT", bucket, key, &[], &[], Body::Bytes(data, hash))?;
        drain(r)
    }

    /// A ranged GET of `buf.len()` bytes at `offset`; the bytes received
    /// (fewer at the object's end).
    pub fn get(&self, bucket: &str, key: &str, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let range = format!("bytes={offset}-{}", offset + buf.len() as u64 - 1);
        let r = self.send("GET", bucket, key, &[], &[("range", range)], Body::Empty)?;
        let mut reader = r.into_body().into_reader();
        let got = pieces::read_into(&mut reader, buf)?;
        // Anything beyond (a server that ignored the range) is read off so
        // the connection can be reused, and is an error.
        let mut extra = [0u8; 1];
        if got == buf.len() && reader.read(&mut extra)? > 0 {
            return Err(io::Error::other(format!(
                "bucket {bucket}, key {key}: the server sent more than the {} bytes asked for",
                buf.len()
            )));
        }
        Ok(got)
    }

    pub fn delete(&self, bucket: &str, key: &str) -> io::Result<()> {
        drain(self.send("DELETE", bucket, key, &[], &[], Body::Empty)?)
    }

    /// Starts a multipart upload; its UploadId.
    pub fn create_upload(&self, bucket: &str, key: &str) -> io::Result<String> {
        let q = [("uploads", String::new())];
        let r = self.send("POST", bucket, key, &q, &[], Body::Bytes(&[], EMPTY_SHA256))?;
        let text = Self::text(r)?;
        xml::first(&text, "UploadId").ok_or_else(|| {
            io::Error::other(format!(
                "bucket {bucket}, key {key}: no UploadId in the answer to CreateMultipartUpload"
            ))
        })
    }

    /// Uploads part `number` (1-based); its ETag.
    pub fn upload_part(
        &self,
        bucket: &str,
        key: &str,
        upload: &str,
        number: u32,
        data: &[u8],
    ) -> io::Result<String> {
        let q = [
            ("partNumber", number.to_string()),
            ("uploadId", upload.to_string()),
        ];
        let hash = payload_hash(data);
        let r = self.send("PUT", bucket, key, &q, &[], Body::Bytes(data, hash))?;
        let etag = r
            .headers()
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        drain(r)?;
        etag.ok_or_else(|| {
            io::Error::other(format!(
                "bucket {bucket}, key {key}: no ETag for part {number}"
            ))
        })
    }

    /// The parts uploaded so far, in order.
    pub fn list_parts(&self, bucket: &str, key: &str, upload: &str) -> io::Result<Vec<ListedPart>> {
        let mut parts = Vec::new();
        let mut marker = String::from("0");
        loop {
            let q = [
                ("uploadId", upload.to_string()),
                ("part-number-marker", marker.clone()),
            ];
            let text = Self::text(self.send("GET", bucket, key, &q, &[], Body::Empty)?)?;
            let (page, next) = answers::parts(&text);
            parts.extend(page);
            match next {
                Some(next) if next != marker => marker = next,
                _ => break,
            }
        }
        parts.sort_by_key(|p| p.number);
        Ok(parts)
    }

    /// Completes an upload from `parts` (number, ETag); the object's ETag
    /// when the answer gives one.
    pub fn complete_upload(
        &self,
        bucket: &str,
        key: &str,
        upload: &str,
        parts: &[(u32, &str)],
    ) -> io::Result<Option<String>> {
        let mut body = String::from("<CompleteMultipartUpload>");
        for (n, etag) in parts {
            body.push_str(&format!(
                "<Part><PartNumber>{n}</PartNumber><ETag>{}</ETag></Part>",
                xml::escape(etag)
            ));
        }
        body.push_str("</CompleteMultipartUpload>");
        let q = [("uploadId", upload.to_string())];
        let hash = sigv4::sha256_hex(body.as_bytes());
        let r = self.send(
            "POST",
            bucket,
            key,
            &q,
            &[],
            Body::Bytes(body.as_bytes(), &hash),
        )?;
        // S3 may answer 200 with an error in the body.
        let text = Self::text(r)?;
        if text.contains("<Error>") {
            return Err(s3_error(200, &text, bucket, key));
        }
        Ok(xml::first(&text, "ETag"))
    }

    pub fn abort_upload(&self, bucket: &str, key: &str, upload: &str) -> io::Result<()> {
        let q = [("uploadId", upload.to_string())];
        match self.send("DELETE", bucket, key, &q, &[], Body::Empty) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => drain(other?),
        }
    }

    /// The multipart uploads in progress under `prefix` (key, UploadId).
    pub fn list_uploads(&self, bucket: &str, prefix: &str) -> io::Result<Vec<(String, String)>> {
        let q = [("uploads", String::new()), ("prefix", prefix.to_string())];
        let text = Self::text(self.send("GET", bucket, "", &q, &[], Body::Empty)?)?;
        Ok(answers::uploads(&text))
    }

    /// Deletes `keys` with DeleteObjects, 1,000 at a time; missing keys
    /// count as deleted, any other per-key error fails.
    pub fn delete_many(&self, bucket: &str, keys: &[String]) -> io::Result<()> {
        for batch in keys.chunks(1000) {
            let mut body = String::from("<Delete><Quiet>true</Quiet>");
            for k in batch {
                body.push_str(&format!("<Object><Key>{}</Key></Object>", xml::escape(k)));
            }
            body.push_str("</Delete>");
            let md5 =
                base64::engine::general_purpose::STANDARD.encode(Md5::digest(body.as_bytes()));
            let hash = sigv4::sha256_hex(body.as_bytes());
            let q = [("delete", String::new())];
            let h = [("content-md5", md5)];
            let r = self.send(
                "POST",
                bucket,
                "",
                &q,
                &h,
                Body::Bytes(body.as_bytes(), &hash),
            )?;
            if let Some((key, code)) = delete_failure(&Self::text(r)?) {
                return Err(io::Error::other(format!(
                    "bucket {bucket}, key {key}: DeleteObjects: {code}"
                )));
            }
        }
        Ok(())
    }
}

/// A DeleteObjects answer: the key and code of its first error other than
/// NoSuchKey (a missing key counts as deleted), each on one line.
pub fn delete_failure(text: &str) -> Option<(String, String)> {
    xml::elements(text, "Error").find_map(|e| {
        let code = xml::first(e, "Code").unwrap_or_default();
        let key = || xml::first(e, "Key").unwrap_or_default();
        (code != "NoSuchKey").then(|| (xml::one_line(key()), xml::one_line(code)))
    })
}

/// Data transfers are sent unsigned (as libs3 does): see [`UNSIGNED`].
fn payload_hash(_data: &[u8]) -> &'static str {
    UNSIGNED
}

fn content_length(r: &http::Response<ureq::Body>) -> u64 {
    r.headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Reads a response's body off, so its connection can be reused.
fn drain(r: http::Response<ureq::Body>) -> io::Result<()> {
    let mut body = r.into_body();
    io::copy(&mut body.as_reader(), &mut io::sink())?;
    Ok(())
}

/// 50 ms doubled per attempt up to 3.2 s, with jitter from the clock.
fn backoff(attempt: u32) -> Duration {
    let base = 50u64 << attempt.min(6);
    let jitter = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() as u64 % (base / 2 + 1));
    Duration::from_millis(base / 2 + jitter)
}

#[cfg(test)]
mod tests;
