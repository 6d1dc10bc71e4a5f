//! AWS Signature Version 4 for S3 requests (header-based authentication).
//! The secret key is used here only, to derive the signing key; it never
//! appears in a header, a message or a `Debug` output ([`Secret`]).

use std::fmt;

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// A value that is never shown: `Debug` prints a placeholder.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: String) -> Secret {
        Secret(value)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(secret)")
    }
}

/// Who signs: the key id (shown in headers) and its secret.
#[derive(Debug, Clone)]
pub struct Credentials {
    pub key_id: String,
    pub secret: Secret,
    /// `AWS_SESSION_TOKEN`, sent as `x-amz-security-token`.
    pub token: Option<Secret>,
}

impl Credentials {
    /// The session token's value for its header.
    pub fn token_header(&self) -> Option<&str> {
        self.token.as_ref().map(Secret::expose)
    }
}

/// The hash of an empty body.
pub const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/// What is sent instead of the body's hash for data transfers (as libs3
/// does): hashing every byte would cost the client CPU at GB/s.
pub const UNSIGNED: &str = "UNSIGNED-PAYLOAD";

pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

/// URI-encodes `s` as SigV4 wants: unreserved characters kept, `/` kept
/// when `path` (key segments), everything else `%XX`.
pub fn uri_encode(s: &str, path: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b'/' if path => out.push('/'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// One request to sign.
pub struct Request<'a> {
    pub method: &'a str,
    /// The encoded path (`/bucket/key` or `/key`).
    pub path: &'a str,
    /// Query parameters, not yet encoded.
    pub query: &'a [(&'a str, String)],
    /// `host[:port]` as the Host header carries it.
    pub host: &'a str,
    /// Hex SHA-256 of the body, or [`UNSIGNED`].
    pub payload: &'a str,
    /// Extra headers to sign (lowercase names).
    pub headers: &'a [(&'a str, String)],
}

/// The encoded query string, parameters sorted as SigV4 wants.
pub fn canonical_query(query: &[(&str, String)]) -> String {
    let mut pairs: Vec<(String, String)> = query
        .iter()
        .map(|(k, v)| (uri_encode(k, false), uri_encode(v, false)))
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// The headers to send with `request`: `x-amz-date`,
/// `x-amz-content-sha256`, the token if any, and `authorization`.
/// `now` is `YYYYMMDDTHHMMSSZ`.
pub fn sign(
    credentials: &Credentials,
    region: &str,
    request: &Request<'_>,
    now: &str,
) -> Vec<(&'static str, String)> {
    let date = &now[..8];
    let mut headers: Vec<(String, String)> = vec![
        ("host".into(), request.host.to_string()),
        ("x-amz-content-sha256".into(), request.payload.to_string()),
        ("x-amz-date".into(), now.to_string()),
    ];
    if let Some(token) = credentials.token_header() {
        headers.push(("x-amz-security-token".into(), token.to_string()));
    }
    for (k, v) in request.headers {
        headers.push((k.to_string(), v.trim().to_string()));
    }
    headers.sort();
    let signed: Vec<&str> = headers.iter().map(|(k, _)| k.as_str()).collect();
    let signed = signed.join(";");
    let canonical_headers: String = headers.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
    let canonical = format!(
        "{}\n{}\n{}\n{canonical_headers}\n{signed}\n{}",
        request.method,
        request.path,
        canonical_query(request.query),
        request.payload
    );
    let scope = format!("{date}/{region}/s3/aws4_request");
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{now}\n{scope}\n{}",
        sha256_hex(canonical.as_bytes())
    );
    let mut key = hmac(
        format!("AWS4{}", credentials.secret.expose()).as_bytes(),
        date.as_bytes(),
    );
    for part in [region, "s3", "aws4_request"] {
        key = hmac(&key, part.as_bytes());
    }
    let signature = hex(&hmac(&key, to_sign.as_bytes()));
    let mut out = vec![
        ("x-amz-date", now.to_string()),
        ("x-amz-content-sha256", request.payload.to_string()),
        (
            "authorization",
            format!(
                "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed}, Signature={signature}",
                credentials.key_id
            ),
        ),
    ];
    if let Some(token) = credentials.token_header() {
        out.push(("x-amz-security-token", token.to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// AWS's documented example (GET Object with a range, from the S3 API
    /// reference's "Signature Calculations for the Authorization Header").
    #[test]
    fn matches_the_aws_example() {
        let credentials = Credentials {
            key_id: "AKIAIOSFODNN7EXAMPLE".into(),
            secret: Secret::new("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into()),
            token: None,
        };
        let request = Request {
            method: "GET",
            path: "/test.txt",
            query: &[],
            host: "examplebucket.s3.amazonaws.com",
            payload: EMPTY_SHA256,
            headers: &[("range", "bytes=0-9".into())],
        };
        let headers = sign(&credentials, "us-east-1", &request, "20130524T000000Z");
        let auth = &headers
            .iter()
            .find(|(k, _)| *k == "authorization")
            .unwrap()
            .1;
        assert_eq!(
            auth,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, \
             SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, \
             Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        );
        assert!(!format!("{credentials:?}").contains("wJalr"));
    }

    #[test]
    fn encodes_keys_and_queries() {
        assert_eq!(uri_encode("a b/c+d", true), "a%20b/c%2Bd");
        assert_eq!(uri_encode("a/b", false), "a%2Fb");
        let q = [("uploadId", "x y".to_string()), ("partNumber", "2".into())];
        assert_eq!(canonical_query(&q), "partNumber=2&uploadId=x%20y");
    }
}
