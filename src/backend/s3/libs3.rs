//! IOR's S3 command lines on pario's S3 client. `-a S3-libs3` takes every
//! `--S3-libs3.*` option with IOR's name and default, and by default lays
//! objects out as IOR does (one bucket `ior<N>`, its key mangling, one
//! object per transfer named `KEY-OFFSET-LENGTH`), so figures compare with
//! published IOR S3 results; but a failed request is an error, sizes are
//! real, and certificates are verified. `-a S3-curl` takes IOR's
//! `--S3-curl.*` options and runs on pario's own mapping (the path is the
//! key in `--S3-curl.bucket`): IOR's S3-curl backend is not usable as
//! written (see docs/s3.md).

use super::client::Endpoint;
use super::config::{base, S3Config};
use super::object::Naming;
use super::per_file::PerFile;
use super::sigv4::{Credentials, Secret};
use super::{check_bucket, Layout};
use crate::backend::{BackendInfo, Capabilities, Config, ModuleOption, Settings};

const CAPABILITIES: Capabilities = Capabilities {
    collective: false,
    metadata: true,
    stores_data: true,
    posix_namespace: false,
};

const fn option(
    name: &'static str,
    flag: bool,
    default: &'static str,
    help: &'static str,
) -> ModuleOption {
    ModuleOption {
        name,
        flag,
        default,
        help,
    }
}

pub const LIBS3_INFO: BackendInfo = BackendInfo {
    name: "S3-libs3",
    capabilities: CAPABILITIES,
    options: &[
        option(
            "S3-libs3.bucket-per-file",
            true,
            "",
            "Use one bucket to map one file/directory (its name made valid: docs/s3.md)",
        ),
        option(
            "S3-libs3.bucket-name-prefix",
            false,
            "ior",
            "The prefix of the bucket(s)",
        ),
        option(
            "S3-libs3.dont-suffix-bucket",
            true,
            "",
            "Use the prefix as the bucket's name, without the number derived from the access key",
        ),
        option(
            "S3-libs3.s3-compatible",
            true,
            "",
            "Accepted (IOR: hides errors; pario never does)",
        ),
        option(
            "S3-libs3.use-ssl",
            true,
            "",
            "HTTPS (pario verifies the certificate: --s3.ca-file, --s3.insecure)",
        ),
        option(
            "S3-libs3.host",
            false,
            "",
            "host[:port]; a list (space, comma or semicolon) gives task r host r mod n",
        ),
        option(
            "S3-libs3.secret-key",
            false,
            "",
            "The secret key (default: AWS_SECRET_ACCESS_KEY); never shown",
        ),
        option(
            "S3-libs3.access-key",
            false,
            "",
            "The access key (default: AWS_ACCESS_KEY_ID)",
        ),
        option(
            "S3-libs3.region",
            false,
            "",
            "Region the requests are signed for (us-east-1)",
        ),
        option(
            "S3-libs3.location",
            false,
            "",
            "LocationConstraint sent with CreateBucket (default: none, the server's own)",
        ),
    ],
    configure: configure_libs3,
};

pub const CURL_INFO: BackendInfo = BackendInfo {
    name: "S3-curl",
    capabilities: CAPABILITIES,
    options: &[
        option(
            "S3-curl.bucket",
            false,
            "test-bucket",
            "The bucket (never created)",
        ),
        option(
            "S3-curl.access-key",
            false,
            "",
            "The access key (default: AWS_ACCESS_KEY_ID)",
        ),
        option(
            "S3-curl.secret-key",
            false,
            "",
            "The secret key (default: AWS_SECRET_ACCESS_KEY); never shown",
        ),
        option(
            "S3-curl.host",
            false,
            "",
            "host[:port] (default: s3.REGION.amazonaws.com)",
        ),
        option(
            "S3-curl.region",
            false,
            "us-east-1",
            "Region the requests are signed for",
        ),
        option("S3-curl.use-ssl", true, "", "HTTPS"),
        option(
            "S3-curl.timeout",
            false,
            "5",
            "Accepted (IOR: seconds per request; pario waits for the server)",
        ),
        option(
            "S3-curl.verify-ssl",
            true,
            "",
            "Accepted: pario always verifies certificates (--s3.insecure does not)",
        ),
    ],
    configure: configure_curl,
};

/// An option's value, its name matched without case (IOR's own match is
/// exact; pario's module options are found either way).
fn get<'a>(settings: &'a Settings<'_>, name: &str) -> Option<&'a str> {
    settings
        .values
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

fn flag(settings: &Settings<'_>, name: &str) -> Result<bool, String> {
    match get(settings, name) {
        None => Ok(false),
        Some(v) => v
            .parse::<i64>()
            .map(|n| n != 0)
            .map_err(|_| format!("--{name}={v}: expected 0 or 1")),
    }
}

/// Keys from the backend's options when both are given.
fn keys(settings: &Settings<'_>, prefix: &str) -> Option<Credentials> {
    let id = get(settings, &format!("{prefix}.access-key"))?;
    let secret = get(settings, &format!("{prefix}.secret-key"))?;
    Some(Credentials {
        key_id: id.to_string(),
        secret: Secret::new(secret.to_string()),
        token: None,
    })
}

fn endpoints(hosts: &str, https: bool) -> Result<Vec<Endpoint>, String> {
    let scheme = if https { "https" } else { "http" };
    hosts
        .split([' ', ',', ';'])
        .filter(|h| !h.is_empty())
        .map(|h| Endpoint::parse(&format!("{scheme}://{h}"), false))
        .collect()
}

fn configure_libs3(settings: &Settings<'_>) -> Result<Box<dyn Config>, String> {
    let credentials = keys(settings, "S3-libs3");
    let key_id = credentials.as_ref().map(|c| c.key_id.clone());
    let mut c: S3Config = base(settings, "S3-libs3", credentials)?;
    if let Some(r) = get(settings, "S3-libs3.region") {
        c.region = r.to_string();
    }
    if let Some(h) = get(settings, "S3-libs3.host") {
        c.hosts = endpoints(h, flag(settings, "S3-libs3.use-ssl")?)?;
        c.endpoint = c.hosts[0].clone();
    }
    c.location = get(settings, "S3-libs3.location").map(str::to_string);
    let prefix = get(settings, "S3-libs3.bucket-name-prefix").unwrap_or("ior");
    let key_id = key_id.unwrap_or_else(|| c.credentials.key_id.clone());
    let bucket = match flag(settings, "S3-libs3.dont-suffix-bucket")? {
        true => prefix.to_string(),
        false => format!("{prefix}{}", suffix(&key_id)),
    };
    // IOR's layout unless one is asked for (io500 asks per phase).
    if get(settings, "s3.layout").is_none() {
        c.layout = Layout::Fragments;
    }
    c.ior_keys = true;
    // A bucket per file and directory, named after IOR's names made valid
    // (IOR's hold `_`, which S3 refuses); no bucket of the prefix's own.
    if flag(settings, "S3-libs3.bucket-per-file")? {
        c.naming = Naming::IorBucket;
        c.per_file = Some(PerFile { prefix: bucket });
        return Ok(Box::new(c));
    }
    check_bucket(&bucket).map_err(|e| format!("--S3-libs3.bucket-name-prefix: {e}"))?;
    c.bucket = Some(bucket);
    c.naming = Naming::Ior;
    c.make_bucket = true;
    Ok(Box::new(c))
}

fn configure_curl(settings: &Settings<'_>) -> Result<Box<dyn Config>, String> {
    let mut c: S3Config = base(settings, "S3-curl", keys(settings, "S3-curl"))?;
    if let Some(r) = get(settings, "S3-curl.region") {
        c.region = r.to_string();
    }
    let https = flag(settings, "S3-curl.use-ssl")?;
    if let Some(h) = get(settings, "S3-curl.host") {
        c.endpoint = endpoints(h, https)?
            .into_iter()
            .next()
            .ok_or("--S3-curl.host: empty")?;
    }
    let bucket = get(settings, "S3-curl.bucket").unwrap_or("test-bucket");
    check_bucket(bucket).map_err(|e| format!("--S3-curl.bucket: {e}"))?;
    c.bucket = Some(bucket.to_string());
    if let Some(t) = get(settings, "S3-curl.timeout") {
        t.parse::<u64>()
            .map_err(|_| format!("--S3-curl.timeout={t}: seconds"))?;
    }
    flag(settings, "S3-curl.verify-ssl")?;
    Ok(Box::new(c))
}

/// IOR's bucket suffix: each byte of the access key times 10^i, summed in
/// 64 bits as IOR's C does (wrapping), modulo 1000.
pub fn suffix(access_key: &str) -> u64 {
    let mut sum = 0u64;
    let mut pos = 1u64;
    for b in access_key.bytes() {
        sum = sum.wrapping_add((b as i8 as i64 as u64).wrapping_mul(pos));
        pos = pos.wrapping_mul(10);
    }
    sum % 1000
}

/// IOR's S3-libs3 key of a file path: letters and digits kept (capitals
/// lowered), `/` as `_`, any other byte as two letters, then `b`.
pub fn file_key(path: &str) -> String {
    let mut key = String::with_capacity(path.len() + 8);
    for b in path.bytes() {
        match b {
            b'a'..=b'z' | b'0'..=b'9' => key.push(b as char),
            b'A'..=b'Z' => key.push(b.to_ascii_lowercase() as char),
            b'/' => key.push('_'),
            _ => {
                key.push((b'a' + b / 26) as char);
                key.push((b'a' + b % 26) as char);
            }
        }
    }
    key.push('b');
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_buckets_as_ior_names_them() {
        assert_eq!(file_key("/tmp/test.00000003"), "_tmp_testbu00000003b");
        assert_eq!(file_key("a-b_C"), "abtbdrcb");
        assert_eq!(suffix(""), 0);
        // 'A' (65) + 10·'B' (66) + 100·'C' (67) = 7425 → 425.
        assert_eq!(suffix("ABC"), 425);
    }
}
