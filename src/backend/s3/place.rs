//! Where a run's objects go, checked before the header: the bucket exists
//! and, when the run writes, the keys may write to it. Nothing is created
//! (a server may create a missing bucket on the first PUT, and pario would
//! then write where it was not asked to).

use std::io;

use base64::Engine;
use md5::{Digest, Md5};

use super::client::{Answer, Body, Client};
use super::sigv4::UNSIGNED;

/// The one line for a bucket that cannot be used, naming the endpoint,
/// the bucket and what the server said (without the bucket and the key:
/// the line names the bucket, and the key is the probe's), or why it could
/// not be reached.
fn refused(client: &Client, bucket: &str, what: &str, e: &io::Error) -> io::Error {
    let said = Answer::of(e).map_or_else(|| e.to_string(), Answer::said);
    io::Error::new(
        e.kind(),
        format!(
            "S3 endpoint {}, bucket {bucket}: {what} ({said})",
            client.endpoint.url()
        ),
    )
}

/// HEAD bucket: it exists and the keys may use it.
pub fn check_bucket(client: &Client, bucket: &str) -> io::Result<()> {
    client.head_bucket(bucket).map_err(|e| match e.kind() {
        // A HEAD answer has no body, so no S3 code: name the one S3 uses.
        io::ErrorKind::NotFound => refused(
            client,
            bucket,
            "no such bucket",
            &io::Error::new(e.kind(), "HTTP 404 NoSuchBucket"),
        ),
        io::ErrorKind::PermissionDenied => refused(
            client,
            bucket,
            &format!("key id {} may not use it", client.key_id()),
            &e,
        ),
        // Another answer: the server was reached, and said no.
        _ if Answer::of(&e).is_some() => refused(client, bucket, "cannot be used", &e),
        _ => refused(client, bucket, "cannot be reached", &e),
    })
}

/// Whether the keys may write to `bucket`, creating nothing: a PUT whose
/// `Content-MD5` cannot match its body. A server that may write answers
/// `BadDigest` and stores nothing; one that may not answers `AccessDenied`
/// (authorisation comes before the body is read). A server that ignores
/// `Content-MD5` stores the probe, which is then deleted at once.
pub fn check_writes(client: &Client, bucket: &str, near: &str) -> io::Result<()> {
    let key = probe_key(near);
    let body = b"pario write probe";
    let wrong = base64::engine::general_purpose::STANDARD.encode(Md5::digest(b"not the body"));
    let headers = [("content-md5", wrong)];
    match client.send(
        "PUT",
        bucket,
        &key,
        &[],
        &headers,
        Body::Bytes(body, UNSIGNED),
    ) {
        Err(e) if Answer::is(&e, "BadDigest") => Ok(()),
        Err(e) => Err(refused(
            client,
            bucket,
            &format!("key id {} may not write to it", client.key_id()),
            &e,
        )),
        Ok(_) => client.delete(bucket, &key),
    }
}

/// A key beside `near` (in its "directory") that no one else uses.
fn probe_key(near: &str) -> String {
    let dir = near.rfind('/').map_or("", |i| &near[..=i]);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{dir}.pario-write-probe-{}-{nanos:x}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_lies_beside_the_run() {
        assert!(probe_key("dir/sub/file").starts_with("dir/sub/.pario-write-probe-"));
        assert!(probe_key("file").starts_with(".pario-write-probe-"));
    }
}
