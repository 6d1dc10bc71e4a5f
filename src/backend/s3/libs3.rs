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
use super::config::{self, base, S3Config, S3Options};
use super::object::Naming;
use super::per_file::PerFile;
use super::sigv4::{Credentials, Secret};
use super::{check_bucket, Layout};
use crate::backend::{BackendInfo, Capabilities, Config, Typed};
use crate::options::{
    blank_keeps, given_text, long_flag, long_value, on, parsed, trimmed, OptSpec,
};

const CAPABILITIES: Capabilities = Capabilities {
    collective: false,
    metadata: true,
    stores_data: true,
    posix_namespace: false,
};

pub const LIBS3_INFO: BackendInfo = BackendInfo {
    name: "S3-libs3",
    capabilities: CAPABILITIES,
    options: &Typed {
        table: libs3_options,
        configure: configure_libs3,
    },
};

pub const CURL_INFO: BackendInfo = BackendInfo {
    name: "S3-curl",
    capabilities: CAPABILITIES,
    options: &Typed {
        table: curl_options,
        configure: configure_curl,
    },
};

/// `-a S3-libs3`'s options: S3's, and IOR's S3-libs3 options with its
/// defaults. A blank value is one not given.
#[derive(Debug, Clone)]
pub struct Libs3Options {
    /// S3's, with IOR's layout (`fragments`) unless one is given.
    pub s3: S3Options,
    pub bucket_per_file: bool,
    pub bucket_name_prefix: String,
    pub dont_suffix_bucket: bool,
    /// Accepted (IOR hides errors with it; pario never does).
    pub s3_compatible: bool,
    pub use_ssl: bool,
    /// `host[:port]`, or a list of them.
    pub host: Option<String>,
    pub secret_key: Option<String>,
    pub access_key: Option<String>,
    pub region: Option<String>,
    pub location: Option<String>,
}

impl Default for Libs3Options {
    fn default() -> Self {
        Libs3Options {
            s3: S3Options {
                layout: Layout::Fragments,
                ..S3Options::default()
            },
            bucket_per_file: false,
            bucket_name_prefix: "ior".into(),
            dont_suffix_bucket: false,
            s3_compatible: false,
            use_ssl: false,
            host: None,
            secret_key: None,
            access_key: None,
            region: None,
            location: None,
        }
    }
}

/// S3's options (held by `get`), then a backend's `own`.
fn with_s3<O: 'static>(get: fn(&mut O) -> &mut S3Options, own: Vec<OptSpec<O>>) -> Vec<OptSpec<O>> {
    let s3 = config::options().into_iter();
    s3.map(|spec| spec.lifted(get)).chain(own).collect()
}

fn libs3_options() -> Vec<OptSpec<Libs3Options>> {
    let own: Vec<OptSpec<Libs3Options>> = vec![
        long_flag(
            &["S3-libs3.bucket-per-file"],
            "Use one bucket to map one file/directory (its name made valid: docs/s3.md)",
            on(|o| &mut o.bucket_per_file),
        ),
        long_value(
            &["S3-libs3.bucket-name-prefix"],
            "The prefix of the bucket(s)",
            blank_keeps(parsed(|o| &mut o.bucket_name_prefix, trimmed)),
        ),
        long_flag(
            &["S3-libs3.dont-suffix-bucket"],
            "Use the prefix as the bucket's name, without the number derived from the access key",
            on(|o| &mut o.dont_suffix_bucket),
        ),
        long_flag(
            &["S3-libs3.s3-compatible"],
            "Accepted (IOR: hides errors; pario never does)",
            on(|o| &mut o.s3_compatible),
        ),
        long_flag(
            &["S3-libs3.use-ssl"],
            "HTTPS (pario verifies the certificate: --s3.ca-file, --s3.insecure)",
            on(|o| &mut o.use_ssl),
        ),
        long_value(
            &["S3-libs3.host"],
            "host[:port]; a list (space, comma or semicolon) gives task r host r mod n",
            given_text(|o| &mut o.host),
        ),
        long_value(
            &["S3-libs3.secret-key"],
            "The secret key (default: AWS_SECRET_ACCESS_KEY); never shown",
            given_text(|o| &mut o.secret_key),
        ),
        long_value(
            &["S3-libs3.access-key"],
            "The access key (default: AWS_ACCESS_KEY_ID)",
            given_text(|o| &mut o.access_key),
        ),
        long_value(
            &["S3-libs3.region"],
            "Region the requests are signed for (default: --s3.region's)",
            given_text(|o| &mut o.region),
        ),
        long_value(
            &["S3-libs3.location"],
            "LocationConstraint sent with CreateBucket (default: none, the server's own)",
            given_text(|o| &mut o.location),
        ),
    ];
    with_s3(|o| &mut o.s3, own)
}

/// `-a S3-curl`'s options: S3's, and IOR's S3-curl options with its
/// defaults. A blank value is one not given.
#[derive(Debug, Clone)]
pub struct CurlOptions {
    pub s3: S3Options,
    pub bucket: String,
    pub access_key: Option<String>,
    pub secret_key: Option<String>,
    pub host: Option<String>,
    /// Default: S3's region.
    pub region: Option<String>,
    pub use_ssl: bool,
    /// Accepted (IOR: seconds per request).
    pub timeout: u64,
    /// Accepted (pario always verifies certificates).
    pub verify_ssl: bool,
}

impl Default for CurlOptions {
    fn default() -> Self {
        CurlOptions {
            s3: S3Options::default(),
            bucket: "test-bucket".into(),
            access_key: None,
            secret_key: None,
            host: None,
            region: None,
            use_ssl: false,
            timeout: 5,
            verify_ssl: false,
        }
    }
}

fn curl_options() -> Vec<OptSpec<CurlOptions>> {
    let own: Vec<OptSpec<CurlOptions>> = vec![
        long_value(
            &["S3-curl.bucket"],
            "The bucket (never created)",
            blank_keeps(parsed(|o| &mut o.bucket, trimmed)),
        ),
        long_value(
            &["S3-curl.access-key"],
            "The access key (default: AWS_ACCESS_KEY_ID)",
            given_text(|o| &mut o.access_key),
        ),
        long_value(
            &["S3-curl.secret-key"],
            "The secret key (default: AWS_SECRET_ACCESS_KEY); never shown",
            given_text(|o| &mut o.secret_key),
        ),
        long_value(
            &["S3-curl.host"],
            "host[:port] (default: s3.REGION.amazonaws.com)",
            given_text(|o| &mut o.host),
        ),
        long_value(
            &["S3-curl.region"],
            "Region the requests are signed for (default: --s3.region's)",
            given_text(|o| &mut o.region),
        ),
        long_flag(&["S3-curl.use-ssl"], "HTTPS", on(|o| &mut o.use_ssl)),
        long_value(
            &["S3-curl.timeout"],
            "Accepted (IOR: seconds per request; pario waits for the server)",
            blank_keeps(parsed(
                |o| &mut o.timeout,
                |v| v.trim().parse().map_err(|_| "seconds".to_string()),
            )),
        ),
        long_flag(
            &["S3-curl.verify-ssl"],
            "Accepted: pario always verifies certificates (--s3.insecure does not)",
            on(|o| &mut o.verify_ssl),
        ),
    ];
    with_s3(|o| &mut o.s3, own)
}

/// Keys from the backend's options when both are given.
fn keys(access: &Option<String>, secret: &Option<String>) -> Option<Credentials> {
    Some(Credentials {
        key_id: access.clone()?,
        secret: Secret::new(secret.clone()?),
        token: None,
    })
}

/// The endpoints of a host list (`option` names it in the refusal).
fn endpoints(option: &str, hosts: &str, https: bool) -> Result<Vec<Endpoint>, String> {
    let scheme = if https { "https" } else { "http" };
    let endpoints = hosts
        .split([' ', ',', ';'])
        .filter(|h| !h.is_empty())
        .map(|h| Endpoint::parse(&format!("{scheme}://{h}"), false))
        .collect::<Result<Vec<_>, _>>()?;
    match endpoints.is_empty() {
        true => Err(format!("--{option}: empty")),
        false => Ok(endpoints),
    }
}

fn configure_libs3(o: Libs3Options) -> Result<Box<dyn Config>, String> {
    let credentials = keys(&o.access_key, &o.secret_key);
    let key_id = credentials.as_ref().map(|c| c.key_id.clone());
    let mut c: S3Config = base(&o.s3, "S3-libs3", credentials)?;
    if let Some(r) = &o.region {
        c.region = r.clone();
    }
    if let Some(h) = &o.host {
        c.hosts = endpoints("S3-libs3.host", h, o.use_ssl)?;
        c.endpoint = c.hosts[0].clone();
    }
    c.location = o.location;
    let prefix = o.bucket_name_prefix;
    let key_id = key_id.unwrap_or_else(|| c.credentials.key_id.clone());
    let bucket = match o.dont_suffix_bucket {
        true => prefix,
        false => format!("{prefix}{}", suffix(&key_id)),
    };
    c.ior_keys = true;
    // A bucket per file and directory, named after IOR's names made valid
    // (IOR's hold `_`, which S3 refuses); no bucket of the prefix's own.
    if o.bucket_per_file {
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

fn configure_curl(o: CurlOptions) -> Result<Box<dyn Config>, String> {
    let mut c: S3Config = base(&o.s3, "S3-curl", keys(&o.access_key, &o.secret_key))?;
    if let Some(r) = o.region {
        c.region = r;
    }
    if let Some(h) = &o.host {
        c.endpoint = endpoints("S3-curl.host", h, o.use_ssl)?.remove(0);
    }
    check_bucket(&o.bucket).map_err(|e| format!("--S3-curl.bucket: {e}"))?;
    c.bucket = Some(o.bucket);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::config::given;

    fn configured(info: &BackendInfo, pairs: &[(&str, &str)]) -> Result<Box<dyn Config>, String> {
        info.options.configure(&given(pairs))
    }

    #[test]
    fn a_host_list_without_a_host_is_refused() {
        let keys = [("S3-libs3.access-key", "a"), ("S3-libs3.secret-key", "s")];
        for hosts in [",", " ; ,", ";;"] {
            let pairs = [&keys[..], &[("S3-libs3.host", hosts)]].concat();
            let e = configured(&LIBS3_INFO, &pairs).unwrap_err();
            assert_eq!(e, "--S3-libs3.host: empty");
        }
        // Blank: not given (the endpoint's default).
        let pairs = [&keys[..], &[("S3-libs3.host", " ")]].concat();
        assert!(configured(&LIBS3_INFO, &pairs).is_ok());
        let keys = [("S3-curl.access-key", "a"), ("S3-curl.secret-key", "s")];
        let pairs = [&keys[..], &[("S3-curl.host", ",")]].concat();
        let e = configured(&CURL_INFO, &pairs).unwrap_err();
        assert_eq!(e, "--S3-curl.host: empty");
    }

    #[test]
    fn defaults_are_ior_s() {
        let libs3 = Typed {
            table: libs3_options,
            configure: configure_libs3,
        };
        let o = libs3.read(&Default::default()).unwrap();
        assert_eq!(o.s3.layout, Layout::Fragments);
        assert_eq!(o.bucket_name_prefix, "ior");
        // A blank value is one not given; a layout given is kept.
        let blank = given(&[("S3.LAYOUT", " "), ("S3-libs3.bucket-name-prefix", "")]);
        let o = libs3.read(&blank).unwrap();
        assert_eq!(
            (o.s3.layout, o.bucket_name_prefix.as_str()),
            (Layout::Fragments, "ior")
        );
        let object = given(&[("s3.layout", "object")]);
        assert_eq!(libs3.read(&object).unwrap().s3.layout, Layout::Object);
        let curl = Typed {
            table: curl_options,
            configure: configure_curl,
        };
        let o = curl.read(&Default::default()).unwrap();
        assert_eq!(o.s3.layout, Layout::Object);
        assert_eq!((o.bucket.as_str(), o.timeout), ("test-bucket", 5));
    }

    #[test]
    fn buckets_as_ior_names_them() {
        assert_eq!(suffix(""), 0);
        // 'A' (65) + 10·'B' (66) + 100·'C' (67) = 7425 → 425.
        assert_eq!(suffix("ABC"), 425);
    }
}
