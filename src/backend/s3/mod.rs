//! S3: object storage behind the S3 API (`-a S3`). A path is
//! `s3://BUCKET/KEY` (a plain path is a key in `--s3.bucket`); the endpoint
//! comes from `--s3.endpoint` or `AWS_ENDPOINT_URL`, the credentials from
//! the `AWS_*` environment or the shared credentials file. Two layouts, as
//! S3 has no partial writes: `object` (an IOR file is one object, written
//! by a multipart upload whose parts the writing tasks share, read by
//! ranged GETs; see [`parts`]) and `fragments` (one object per transfer).
//! `-a S3-libs3` maps paths to IOR's keys in one bucket, or with
//! `--S3-libs3.bucket-per-file` to a bucket per file and directory
//! (`per_file`).

mod answers;
pub mod client;
mod config;
mod libs3;
mod list;
mod names;
pub mod object;
pub mod parts;
mod pending;
mod per_file;
mod pieces;
mod place;
pub mod sigv4;
pub mod upload;
pub mod xml;

use std::collections::{HashMap, HashSet};
use std::ffi::CStr;
use std::io;
use std::sync::{Arc, Mutex};

use client::Client;
use names::{target_of, text, S3Names};
use object::{Fragments, InFlight, Naming, ObjectReader, ObjectWriter, Whole};
use parts::{Plan, Shape};
use per_file::PerFile;
use upload::SentParts;

use super::namespace::Namespace;
use super::{Access, Backend, CreateSpec, File, OpenSpec, Status};
use crate::comm::Comm;

pub use config::{Addressing, S3Options, INFO};
pub use libs3::{suffix as libs3_suffix, CurlOptions, Libs3Options, CURL_INFO, LIBS3_INFO};

/// How an IOR file is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Object,
    Fragments,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Object => "object",
            Layout::Fragments => "fragments",
        }
    }

    /// `--s3.layout`'s value.
    pub fn parse(value: &str) -> Result<Layout, String> {
        match value.trim() {
            "object" => Ok(Layout::Object),
            "fragments" => Ok(Layout::Fragments),
            _ => Err("object or fragments".into()),
        }
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A bucket and a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub bucket: String,
    pub key: String,
}

/// The multipart upload of a shared object, as one task holds it open.
struct SharedUpload {
    id: String,
    target: Target,
    /// The parts this task sent.
    sent: SentParts,
}

/// `s3://BUCKET/KEY` (also `s3:/BUCKET/KEY`, as a path may be normalised);
/// a plain path is a key in `default` (its leading `/` dropped).
pub fn parse_target(path: &str, default: Option<&str>) -> io::Result<Target> {
    let invalid = |why: String| io::Error::new(io::ErrorKind::InvalidInput, why);
    if let Some(rest) = path.strip_prefix("s3:") {
        let rest = rest.trim_start_matches('/');
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        check_bucket(bucket).map_err(invalid)?;
        return Ok(Target {
            bucket: bucket.to_string(),
            key: key.to_string(),
        });
    }
    let bucket = default.ok_or_else(|| {
        invalid(format!(
            "{path}: an S3 path is s3://BUCKET/KEY (or give --s3.bucket for plain paths)"
        ))
    })?;
    Ok(Target {
        bucket: bucket.to_string(),
        key: path.trim_start_matches('/').to_string(),
    })
}

/// S3's bucket naming rules: 3 to 63 lowercase letters, digits, `.` and
/// `-`, starting and ending with a letter or digit.
pub fn check_bucket(name: &str) -> Result<(), String> {
    let ok_chars = name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
    let ends = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if (3..=63).contains(&name.len())
        && ok_chars
        && ends(name.bytes().next())
        && ends(name.bytes().last())
    {
        Ok(())
    } else {
        Err(format!(
            "'{name}' is not a valid bucket name (3 to 63 lowercase letters, digits, '.' and '-')"
        ))
    }
}

/// The S3 backend of a run.
pub struct S3 {
    name: &'static str,
    client: Arc<Client>,
    layout: Layout,
    naming: Naming,
    bucket: Option<String>,
    /// Requests in flight per task (`--s3.max-pending`).
    max_pending: usize,
    ior_keys: bool,
    /// `--S3-libs3.bucket-per-file`: a bucket for each file and directory.
    per_file: Option<PerFile>,
    /// The bucket this task created (S3-libs3), removed at the end if empty.
    made: Option<String>,
    /// Where the count of retried requests is told at the end.
    lines: crate::console::TaskLines,
    /// Retried requests the tool has reported (in its phases' rows).
    reported: std::sync::atomic::AtomicU64,
    rank: usize,
    /// The multipart uploads of shared objects this task has open, by path.
    shared: Mutex<HashMap<String, SharedUpload>>,
    /// Buckets found to exist (pario never creates one under `-a S3`).
    buckets: Mutex<HashSet<String>>,
    namespace: S3Names,
}

impl S3 {
    /// The bucket and key of `path`, once its bucket is known to exist (a
    /// server may otherwise create it on the first PUT, and pario would
    /// write where it was not asked to).
    fn target(&self, path: &CStr) -> io::Result<Target> {
        let t = target_of(
            path,
            self.bucket.as_deref(),
            self.ior_keys,
            self.per_file.as_ref(),
        )?;
        let mut known = self.buckets.lock().expect("no panic holds it");
        if !known.contains(&t.bucket) {
            place::check_bucket(&self.client, &t.bucket)?;
            known.insert(t.bucket.clone());
        }
        Ok(t)
    }

    /// The plan of an object written as `spec` says.
    fn plan(spec: &OpenSpec) -> io::Result<Plan> {
        let blocks = match spec.blocks {
            Some(view) => spec.file_size / view.block.max(1),
            None => spec.file_size / spec.segment.max(1),
        };
        let block = match spec.blocks {
            Some(view) => view.block,
            None => spec.segment,
        };
        let shape = Shape {
            transfer: spec.transfer,
            block,
            blocks,
            writers: spec.blocks.map_or(1, |v| v.tasks),
            interleaved: spec.blocks.is_some_and(|v| v.tasks > 1) && !spec.sequential,
        };
        parts::plan(shape).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
    }

    /// A writer of `target`; `shared`: the upload of a shared object it
    /// adds its parts to.
    fn writer(
        &self,
        target: Target,
        spec: &OpenSpec,
        shared: Option<&SharedUpload>,
    ) -> io::Result<Box<dyn File>> {
        let plan = Self::plan(spec)?;
        let upload = match (shared, plan.single()) {
            (Some(s), _) => Some(s.id.clone()),
            (None, true) => None,
            (None, false) => Some(self.client.create_upload(&target.bucket, &target.key)?),
        };
        Ok(Box::new(ObjectWriter::new(
            self.client.clone(),
            target,
            plan,
            upload,
            shared.is_some(),
            shared.map_or_else(SentParts::default, |s| s.sent.clone()),
            InFlight::new(self.max_pending),
        )))
    }
}

impl Drop for S3 {
    /// A bucket this task made is removed when empty (`-k` leaves it). It
    /// is listed first: some servers delete a bucket with its objects.
    fn drop(&mut self) {
        // Retries are never hidden: a request the server answered 500 or
        // 503 and that was sent again is counted and told, in a phase's
        // row by the tool or here.
        let reported = self.reported.load(std::sync::atomic::Ordering::Relaxed);
        let retries = self.client.retries().saturating_sub(reported);
        if retries > 0 {
            self.lines.print(format_args!(
                "WARNING: task {}: {retries} S3 requests were retried after HTTP 500 or 503 \
                 and are in no phase's row",
                self.rank
            ));
        }
        if let Some(bucket) = &self.made {
            let empty = self
                .client
                .list(bucket, "", None, Some(1))
                .is_ok_and(|(objects, _)| objects.is_empty());
            if empty {
                let _ = self.client.delete_bucket(bucket);
            }
        }
    }
}

impl Backend for S3 {
    fn name(&self) -> &'static str {
        self.name
    }

    fn object_client(&self) -> Option<String> {
        Some(self.version())
    }

    /// The client library, the layout and the addressing, for the header.
    fn version(&self) -> String {
        let e = &self.client.endpoint;
        format!(
            "ureq 3 + SigV4, layout {}, {}-style, max-pending {}, {}",
            self.layout.name(),
            if e.virtual_host {
                "virtual-host"
            } else {
                "path"
            },
            self.max_pending,
            e.url()
        ) + if self.per_file.is_some() {
            ", a bucket per file"
        } else {
            ""
        }
    }

    fn open(&self, path: &CStr, spec: &OpenSpec) -> io::Result<Box<dyn File>> {
        let target = match (&self.per_file, spec.access) {
            (Some(pf), Access::Write) => self.file_bucket_made(pf, &text(path))?,
            _ => self.target(path)?,
        };
        let client = self.client.clone();
        match (self.layout, spec.access) {
            (Layout::Fragments, _) => Ok(Box::new(Fragments {
                client,
                target,
                naming: self.naming,
                in_flight: InFlight::new(self.max_pending),
            })),
            (Layout::Object, Access::Read) => Ok(Box::new(ObjectReader {
                client,
                target,
                in_flight: InFlight::new(self.max_pending),
            })),
            (Layout::Object, Access::Write) => self.writer(target, spec, None),
        }
    }

    /// An object: one DELETE. Fragments: a listing, then `DeleteObjects`
    /// of the file's fragments and of the key itself (an item mdtest made).
    fn remove(&self, path: &CStr) -> io::Result<()> {
        if let Some(pf) = &self.per_file {
            return self.bucket_remove(pf, &text(path));
        }
        let t = self.target(path)?;
        match self.layout {
            Layout::Object => self.client.delete(&t.bucket, &t.key),
            Layout::Fragments => {
                let mut keys: Vec<String> = self
                    .namespace
                    .fragments(&t)?
                    .into_iter()
                    .map(|f| f.0)
                    .collect();
                if !keys.contains(&t.key) {
                    keys.push(t.key.clone());
                }
                self.client.delete_many(&t.bucket, &keys)
            }
        }
    }

    fn namespace(&self) -> &dyn Namespace {
        &self.namespace
    }

    /// mdtest's create: the item is one object, PUT at close; an
    /// exclusive create looks first (S3 would overwrite).
    fn create(&self, path: &CStr, spec: &CreateSpec) -> io::Result<Box<dyn File>> {
        if let Some(pf) = &self.per_file {
            return Ok(Box::new(Whole {
                client: self.client.clone(),
                target: self.bucket_create(pf, &text(path), spec.exclusive)?,
                data: Vec::new(),
            }));
        }
        let target = self.target(path)?;
        if spec.exclusive && self.client.head(&target.bucket, &target.key)?.is_some() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("bucket {}, key {}: exists", target.bucket, target.key),
            ));
        }
        Ok(Box::new(Whole {
            client: self.client.clone(),
            target,
            data: Vec::new(),
        }))
    }

    /// One ranged GET (a HEAD when nothing is read); a shorter object is an
    /// error.
    fn open_read_close(&self, path: &CStr, buf: &mut [u8], _rank: usize) -> io::Result<()> {
        let t = self.target(path)?;
        if buf.is_empty() {
            return match self.client.head(&t.bucket, &t.key)? {
                Some(_) => Ok(()),
                None => Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("bucket {}, key {}: no such object", t.bucket, t.key),
                )),
            };
        }
        let got = self.client.get(&t.bucket, &t.key, 0, buf)?;
        match got == buf.len() {
            true => Ok(()),
            false => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "bucket {}, key {}: {got} of {} bytes",
                    t.bucket,
                    t.key,
                    buf.len()
                ),
            )),
        }
    }

    /// HEAD of the object, else of the directory's marker.
    fn stat(&self, path: &CStr) -> io::Result<Status> {
        if let Some(pf) = &self.per_file {
            return self.bucket_stat(pf, &text(path));
        }
        let t = self.target(path)?;
        if let Some(size) = self.client.head(&t.bucket, &t.key)? {
            return Ok(Status {
                size,
                is_dir: false,
            });
        }
        match self.namespace.is_dir(path)? {
            true => Ok(Status {
                size: 0,
                is_dir: true,
            }),
            false => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("bucket {}, key {}: no such object", t.bucket, t.key),
            )),
        }
    }

    /// S3 has no rename (a copy and a delete are not one).
    fn renames(&self) -> bool {
        false
    }

    fn opens_together(&self) -> bool {
        self.layout == Layout::Object
    }

    /// Nothing to flush: an object is stored when its PUT is answered.
    fn sync_fs(&self, _path: &CStr) -> io::Result<()> {
        Ok(())
    }

    /// With a bucket per file there is no one tree to list.
    fn listing(&self) -> Option<&dyn crate::backend::listing::Listing> {
        if self.per_file.is_some() {
            return None;
        }
        Some(&self.namespace)
    }

    fn retries(&self) -> Option<u64> {
        Some(self.client.retries())
    }

    fn retries_reported(&self, n: u64) {
        self.reported
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }

    /// The bucket exists (HEAD) and, for a run that writes, takes writes
    /// (a PUT the server must refuse either way: see [`place`]); nothing
    /// under bucket-per-file, whose buckets the run makes.
    fn check_place(&self, path: &CStr, writes: bool) -> io::Result<()> {
        if self.per_file.is_some() {
            // Its buckets are made by the run, file by file.
            return Ok(());
        }
        let t = self.target(path)?;
        match writes {
            true => place::check_writes(&self.client, &t.bucket, &t.key),
            false => Ok(()),
        }
    }

    /// A shared object written in the `object` layout: the first task starts
    /// the multipart upload and every task adds its parts to it.
    fn open_together(
        &self,
        comm: &dyn Comm,
        path: &CStr,
        spec: &OpenSpec,
    ) -> io::Result<Box<dyn File>> {
        if spec.access == Access::Read || Self::plan(spec)?.single() {
            return self.open(path, spec);
        }
        let target = match &self.per_file {
            Some(pf) => self.file_bucket_made(pf, &text(path))?,
            None => self.target(path)?,
        };
        let mut answer = match comm.rank() {
            0 => match self.client.create_upload(&target.bucket, &target.key) {
                Ok(id) => format!("ok {id}"),
                Err(e) => format!("error {e}"),
            },
            _ => String::new(),
        }
        .into_bytes();
        comm.broadcast(0, &mut answer).map_err(io::Error::other)?;
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let id = match answer.split_once(' ') {
            Some(("ok", id)) => id.to_string(),
            Some((_, why)) => return Err(io::Error::other(why.to_string())),
            None => return Err(io::Error::other("no multipart upload was started")),
        };
        let upload = SharedUpload {
            id,
            target: target.clone(),
            sent: SentParts::default(),
        };
        let writer = self.writer(target, spec, Some(&upload))?;
        let mut open = self.shared.lock().expect("no panic holds it");
        open.insert(text(path), upload);
        Ok(writer)
    }

    /// Every task sends its last parts; then the first completes the upload
    /// from the parts every task sent (or aborts it when a task failed).
    fn close_together(&self, comm: &dyn Comm, path: &CStr, file: Box<dyn File>) -> io::Result<()> {
        let upload = self
            .shared
            .lock()
            .expect("no panic holds it")
            .remove(&text(path));
        let closed = file.close();
        let Some(u) = upload else {
            return closed;
        };
        let failed = closed.is_err();
        let outcome = upload::close_shared(&self.client, comm, &u.target, &u.id, failed, &u.sent);
        closed.and(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_from_paths() {
        let t = parse_target("s3://bench/dir/file.00000001", None).unwrap();
        assert_eq!(
            (t.bucket.as_str(), t.key.as_str()),
            ("bench", "dir/file.00000001")
        );
        let t = parse_target("s3:/bench/f", None).unwrap();
        assert_eq!(t.key, "f");
        let t = parse_target("/tmp/f", Some("bench")).unwrap();
        assert_eq!((t.bucket.as_str(), t.key.as_str()), ("bench", "tmp/f"));
        assert!(parse_target("/tmp/f", None).is_err());
        assert!(parse_target("s3://Bad_Name/f", None).is_err());
    }
}
