//! The client's URLs and error texts.

use super::*;

#[test]
fn endpoints_parse() {
    let e = Endpoint::parse("http://127.0.0.1:8333/", false).unwrap();
    assert_eq!(e.url(), "http://127.0.0.1:8333");
    assert_eq!(
        Endpoint::parse("https://s3:443", false).unwrap().authority,
        "s3"
    );
    assert!(Endpoint::parse("127.0.0.1:8333", false).is_err());
    assert!(Endpoint::parse("ftp://x", false).is_err());
    assert!(Endpoint::parse("http://x/path", false).is_err());
}

#[test]
fn virtual_host_addressing_puts_the_bucket_in_the_host() {
    let client = |virtual_host| {
        let credentials = Credentials {
            key_id: "K".into(),
            secret: sigv4::Secret::new("S".into()),
            token: None,
        };
        let e = Endpoint::parse("https://s3.example:9000", virtual_host).unwrap();
        let tls = ureq::tls::TlsConfig::default();
        Client::new(e, "us-east-1".into(), credentials, tls, 1)
    };
    let (url, path, host) = client(true).target("bench", "a b/c");
    assert_eq!(url, "https://bench.s3.example:9000/a%20b/c");
    assert_eq!(
        (path.as_str(), host.as_str()),
        ("/a%20b/c", "bench.s3.example:9000")
    );
    // ListBuckets names no bucket: the endpoint's own host.
    let (url, _, host) = client(true).target("", "");
    assert_eq!(
        (url.as_str(), host.as_str()),
        ("https://s3.example:9000/", "s3.example:9000")
    );
    let (url, path, host) = client(false).target("bench", "k");
    assert_eq!(url, "https://s3.example:9000/bench/k");
    assert_eq!(
        (path.as_str(), host.as_str()),
        ("/bench/k", "s3.example:9000")
    );
}

#[test]
fn a_transport_error_names_the_host_the_request_went_to() {
    let e = transport_error(ureq::Error::HostNotFound, "http://bench.s3.example:9000");
    assert!(
        e.to_string().starts_with("http://bench.s3.example:9000: "),
        "{e}"
    );
}

#[test]
fn errors_name_bucket_key_status_and_code() {
    let body = "<Error><Code>NoSuchKey</Code><Message>gone</Message></Error>";
    let e = s3_error(404, body, "b", "k");
    assert_eq!(e.to_string(), "bucket b, key k: HTTP 404 NoSuchKey (gone)");
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
    let answer = Answer::of(&e).expect("the server's answer");
    assert_eq!((answer.status, answer.code.as_str()), (404, "NoSuchKey"));
    assert_eq!(answer.said(), "HTTP 404 NoSuchKey (gone)");
    assert!(Answer::is(&e, "NoSuchKey") && !Answer::is(&e, "NoSuchBucket"));
    assert!(Answer::of(&io::Error::other("HTTP 404 in a text")).is_none());
}

/// The server's text may hold line breaks: the error stays one line.
#[test]
fn errors_are_one_line_whatever_the_server_wrote() {
    let body = "<Error><Code>Bad\nCode</Code><Message>two\r\nlines&#10;</Message></Error>";
    let e = s3_error(400, body, "b", "");
    assert_eq!(e.to_string(), "bucket b: HTTP 400 Bad Code (two  lines )");
    let e = s3_error(503, "<html>busy</html>", "", "");
    assert_eq!(e.to_string(), "HTTP 503 no S3 error code");
}

#[test]
fn a_delete_fails_on_its_first_error_but_a_missing_key() {
    let answer = |errors: &str| format!("<DeleteResult>{errors}</DeleteResult>");
    let missing = "<Error><Key>a</Key><Code>NoSuchKey</Code></Error>";
    let denied = "<Error><Key>b&lt;</Key><Code>AccessDenied</Code></Error>";
    assert_eq!(delete_failure(&answer(missing)), None);
    assert_eq!(delete_failure(&answer("")), None);
    let failed = Some(("b<".to_string(), "AccessDenied".to_string()));
    assert_eq!(
        delete_failure(&answer(&format!("{missing}{denied}"))),
        failed
    );
}
