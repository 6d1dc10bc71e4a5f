//! `-a S3`'s module options, the credentials and the endpoint, checked
//! before anything runs; [`S3Config::build`] makes each task's client and
//! checks that the endpoint answers and the credentials are accepted.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::client::{Client, Endpoint};
use super::object::Naming;
use super::parts::{self, Shape};
use super::per_file::PerFile;
use super::sigv4::{Credentials, Secret};
use super::{check_bucket, Layout, S3Names, S3};
use crate::backend::{Backend, BackendInfo, Capabilities, Config, Context, Demands, Typed};
use crate::options::{blank_keeps, given_text, long_flag, long_value, on, parsed, some, OptSpec};

const CAPABILITIES: Capabilities = Capabilities {
    collective: false,
    metadata: true,
    stores_data: true,
    posix_namespace: false,
};

pub const INFO: BackendInfo = BackendInfo {
    name: "S3",
    capabilities: CAPABILITIES,
    options: &Typed {
        table: options,
        configure: |o| Ok(Box::new(base(&o, "S3", None)?)),
    },
};

/// How a request names its bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addressing {
    /// `HOST/BUCKET/KEY`.
    Path,
    /// `BUCKET.HOST/KEY`.
    Virtual,
}

impl Addressing {
    fn parse(value: &str) -> Result<Addressing, String> {
        match value.trim() {
            "path" => Ok(Addressing::Path),
            "virtual" => Ok(Addressing::Virtual),
            _ => Err("path or virtual".into()),
        }
    }
}

impl fmt::Display for Addressing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Addressing::Path => "path",
            Addressing::Virtual => "virtual",
        })
    }
}

/// `-a S3`'s options (S3-libs3's and S3-curl's too). A blank value is one
/// not given.
#[derive(Debug, Clone)]
pub struct S3Options {
    /// Default: `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, else AWS's for
    /// the region.
    pub endpoint: Option<String>,
    /// Default: `AWS_REGION`, `AWS_DEFAULT_REGION`, else us-east-1.
    pub region: Option<String>,
    pub layout: Layout,
    /// Requests in flight per task.
    pub max_pending: usize,
    /// The bucket of plain paths.
    pub bucket: Option<String>,
    pub addressing: Addressing,
    pub ca_file: Option<PathBuf>,
    pub insecure: bool,
}

impl Default for S3Options {
    fn default() -> Self {
        S3Options {
            endpoint: None,
            region: None,
            layout: Layout::Object,
            max_pending: 1,
            bucket: None,
            addressing: Addressing::Path,
            ca_file: None,
            insecure: false,
        }
    }
}

/// `--s3.max-pending`: from 1 to 1024.
fn max_pending(value: &str) -> Result<usize, String> {
    match crate::units::parse_count(value) {
        Ok(n @ 1..=1024) => Ok(n as usize),
        _ => Err("from 1 to 1024".into()),
    }
}

/// `-a S3`'s module options.
pub fn options() -> Vec<OptSpec<S3Options>> {
    vec![
        long_value(
            &["s3.endpoint"],
            "http://HOST:PORT or https://... (default: AWS_ENDPOINT_URL, else AWS's for the region)",
            given_text(|o| &mut o.endpoint),
        ),
        long_value(
            &["s3.region"],
            "Region the requests are signed for (default: AWS_REGION, else us-east-1)",
            given_text(|o| &mut o.region),
        ),
        long_value(
            &["s3.layout"],
            "object: a file is one object (multipart upload, ranged GETs); fragments: one object per transfer",
            blank_keeps(parsed(|o| &mut o.layout, Layout::parse)),
        ),
        long_value(
            &["s3.max-pending"],
            "Requests in flight per task, each on its own connection (1: one at a time, as IOR)",
            blank_keeps(parsed(|o| &mut o.max_pending, max_pending)),
        ),
        long_value(
            &["s3.bucket"],
            "Bucket of plain paths (s3://BUCKET/KEY names its own)",
            given_text(|o| &mut o.bucket),
        ),
        long_value(
            &["s3.addressing"],
            "path (HOST/BUCKET/KEY) or virtual (BUCKET.HOST/KEY)",
            blank_keeps(parsed(|o| &mut o.addressing, Addressing::parse)),
        ),
        long_value(
            &["s3.ca-file"],
            "PEM file of the certificates that sign the server's (HTTPS)",
            blank_keeps(some(|o| &mut o.ca_file, |v| Ok(PathBuf::from(v.trim())))),
        ),
        long_flag(
            &["s3.insecure"],
            "Do not verify the server's certificate (HTTPS; warned)",
            on(|o| &mut o.insecure),
        ),
    ]
}

/// `-a S3`'s options, checked.
#[derive(Debug, Clone)]
pub struct S3Config {
    pub name: &'static str,
    pub endpoint: Endpoint,
    pub region: String,
    pub layout: Layout,
    pub naming: Naming,
    pub bucket: Option<String>,
    pub ca_file: Option<PathBuf>,
    pub insecure: bool,
    pub credentials: Credentials,
    pub max_pending: usize,
    /// More endpoints: task r uses endpoint r mod n (IOR's host list).
    pub hosts: Vec<Endpoint>,
    /// Keys are IOR's S3-libs3 names of the paths, in `bucket`.
    pub ior_keys: bool,
    /// The first task creates `bucket` when missing and removes it at the
    /// end when it made it (IOR's S3-libs3 does).
    pub make_bucket: bool,
    /// `--S3-libs3.bucket-per-file`: a bucket for each file and directory.
    pub per_file: Option<PerFile>,
    /// The LocationConstraint of the buckets the run creates
    /// (`--S3-libs3.location`).
    pub location: Option<String>,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// `-a S3`'s options checked; `keys` from the backend's own options (IOR's
/// `--S3-libs3.access-key`), else the environment's.
pub fn base(
    o: &S3Options,
    name: &'static str,
    keys: Option<Credentials>,
) -> Result<S3Config, String> {
    let region = o
        .region
        .clone()
        .or_else(|| env("AWS_REGION"))
        .or_else(|| env("AWS_DEFAULT_REGION"))
        .unwrap_or_else(|| "us-east-1".into());
    let url = o
        .endpoint
        .clone()
        .or_else(|| env("AWS_ENDPOINT_URL_S3"))
        .or_else(|| env("AWS_ENDPOINT_URL"))
        .unwrap_or_else(|| format!("https://s3.{region}.amazonaws.com"));
    let virtual_host = o.addressing == Addressing::Virtual;
    let endpoint = Endpoint::parse(&url, virtual_host).map_err(|e| format!("--s3.endpoint={e}"))?;
    if let Some(b) = &o.bucket {
        check_bucket(b).map_err(|e| format!("--s3.bucket: {e}"))?;
    }
    if let Some(f) = &o.ca_file {
        if !f.is_file() {
            return Err(format!("--s3.ca-file={}: no such file", f.display()));
        }
    }
    let credentials = match keys {
        Some(k) => k,
        None => credentials_from_env()?,
    };
    Ok(S3Config {
        name,
        endpoint,
        region,
        layout: o.layout,
        naming: Naming::Pario,
        bucket: o.bucket.clone(),
        ca_file: o.ca_file.clone(),
        insecure: o.insecure,
        credentials,
        max_pending: o.max_pending,
        hosts: Vec::new(),
        ior_keys: false,
        make_bucket: false,
        per_file: None,
        location: None,
    })
}

/// `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`),
/// else the profile `AWS_PROFILE` (or `default`) of the shared credentials
/// file (`AWS_SHARED_CREDENTIALS_FILE` or `~/.aws/credentials`).
pub fn credentials_from_env() -> Result<Credentials, String> {
    if let (Some(id), Some(secret)) = (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
        return Ok(Credentials {
            key_id: id,
            secret: Secret::new(secret),
            token: env("AWS_SESSION_TOKEN").map(Secret::new),
        });
    }
    let profile = env("AWS_PROFILE").unwrap_or_else(|| "default".into());
    let file = env("AWS_SHARED_CREDENTIALS_FILE")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".aws/credentials")));
    let missing = || {
        "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE \
         with a shared credentials file"
            .to_string()
    };
    let Some(file) = file else {
        return Err(missing());
    };
    let Ok(content) = std::fs::read_to_string(&file) else {
        return Err(missing());
    };
    let values = profile_values(&content, &profile);
    match (
        values.get("aws_access_key_id"),
        values.get("aws_secret_access_key"),
    ) {
        (Some(id), Some(secret)) => Ok(Credentials {
            key_id: id.clone(),
            secret: Secret::new(secret.clone()),
            token: values.get("aws_session_token").cloned().map(Secret::new),
        }),
        _ => Err(format!(
            "no S3 credentials: profile [{profile}] of {} has no aws_access_key_id and \
             aws_secret_access_key",
            file.display()
        )),
    }
}

/// The `key = value` lines of `[profile]` in an INI file.
fn profile_values(content: &str, profile: &str) -> HashMap<String, String> {
    let mut inside = false;
    let mut values = HashMap::new();
    for line in content.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = name.trim() == profile;
        } else if let (true, Some((k, v))) = (inside, line.split_once('=')) {
            values.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    values
}

impl S3Config {
    fn tls(&self) -> Result<ureq::tls::TlsConfig, String> {
        let mut tls = ureq::tls::TlsConfig::builder().disable_verification(self.insecure);
        if let Some(file) = &self.ca_file {
            let pem =
                std::fs::read(file).map_err(|e| format!("--s3.ca-file={}: {e}", file.display()))?;
            let certs: Vec<_> = ureq::tls::parse_pem(&pem)
                .filter_map(|item| match item {
                    Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
                    _ => None,
                })
                .collect();
            if certs.is_empty() {
                return Err(format!(
                    "--s3.ca-file={}: no certificate in it",
                    file.display()
                ));
            }
            tls = tls.root_certs(ureq::tls::RootCerts::new_with_certs(&certs));
        }
        Ok(tls.build())
    }
}

impl S3Config {
    /// The first task creates the bucket when it is missing; every task
    /// learns the outcome. The bucket's name when this task made it.
    fn make_bucket(
        &self,
        context: &Context<'_>,
        client: &Client,
    ) -> Result<Option<String>, String> {
        let bucket = self.bucket.clone().unwrap_or_default();
        let mut answer = Vec::new();
        let mut made = false;
        if context.comm.rank() == 0 {
            let outcome = match client.head_bucket(&bucket) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    made = true;
                    client.create_bucket(&bucket)
                }
                Err(e) => Err(e),
            };
            if let Err(e) = outcome {
                answer = format!("cannot create bucket {bucket}: {e}").into_bytes();
            }
        }
        context
            .comm
            .broadcast(0, &mut answer)
            .map_err(|e| e.to_string())?;
        match answer.is_empty() {
            true => Ok(made.then_some(bucket)),
            false => Err(String::from_utf8_lossy(&answer).into_owned()),
        }
    }
}

impl Config for S3Config {
    fn build(&self, context: &Context<'_>) -> Result<Box<dyn Backend>, String> {
        if self.insecure && context.comm.rank() == 0 {
            context.lines.print(format_args!(
                "WARNING: --s3.insecure: the certificate of {} is not verified",
                self.endpoint.url()
            ));
        }
        let endpoint = match self.hosts.len() {
            0 => self.endpoint.clone(),
            n => self.hosts[context.comm.rank() % n].clone(),
        };
        let client = Arc::new(
            Client::new(
                endpoint,
                self.region.clone(),
                self.credentials.clone(),
                self.tls()?,
                self.max_pending,
            )
            .with_location(self.location.clone()),
        );
        // One signed request before the header: the endpoint answers and
        // takes these credentials.
        if context.active {
            client.list_buckets().map_err(|e| {
                let url = client.endpoint.url();
                let e = e.to_string();
                // A transport error names the endpoint already.
                let said = e.strip_prefix(&format!("{url}: ")).unwrap_or(&e);
                format!(
                    "cannot use the S3 endpoint {url} with key id {}: {said}",
                    client.key_id()
                )
            })?;
        }
        let made = match self.make_bucket {
            true => self.make_bucket(context, &client)?,
            false => None,
        };
        let namespace = S3Names {
            client: client.clone(),
            layout: self.layout,
            naming: self.naming,
            bucket: self.bucket.clone(),
            ior_keys: self.ior_keys,
            per_file: self.per_file.clone(),
        };
        Ok(Box::new(S3 {
            name: self.name,
            client,
            layout: self.layout,
            naming: self.naming,
            bucket: self.bucket.clone(),
            max_pending: self.max_pending,
            ior_keys: self.ior_keys,
            per_file: self.per_file.clone(),
            made,
            lines: context.lines,
            reported: Default::default(),
            rank: context.comm.rank(),
            shared: Mutex::new(HashMap::new()),
            buckets: Mutex::new(Default::default()),
            namespace,
        }))
    }

    /// S3's multipart limits, for the `object` layout.
    fn refuse(&self, demands: &Demands) -> Result<(), String> {
        // Reading an object has no limits: ranged GETs of any size.
        if self.layout != Layout::Object || !demands.writes {
            return Ok(());
        }
        let tasks = demands.tasks.unwrap_or(1);
        let blocks = match demands.shared_file {
            true => demands.segments * tasks,
            false => demands.segments,
        };
        parts::plan(Shape {
            transfer: demands.transfer,
            block: demands.block,
            blocks,
            writers: if demands.shared_file { tasks } else { 1 },
            interleaved: demands.shared_file && demands.random_offsets && tasks > 1,
        })
        .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_read_from_the_credentials_file() {
        let ini = "[default]\naws_access_key_id = A\n[bench]\naws_access_key_id=B\n\
                   aws_secret_access_key = S\n";
        let v = profile_values(ini, "bench");
        assert_eq!(v["aws_access_key_id"], "B");
        assert_eq!(v["aws_secret_access_key"], "S");
        assert!(!profile_values(ini, "default").contains_key("aws_secret_access_key"));
    }
}
