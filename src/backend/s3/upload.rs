//! Completing a multipart upload. It is completed from the parts its
//! writers sent and were answered for (number, ETag, size), gathered from
//! every task of a shared object; never from the server's listing, which
//! under load may name fewer parts than were sent (SeaweedFS once listed 3
//! of 8, and the object was stored short as if whole). Before completing,
//! the parts must leave no hole (S3 joins parts end to end, so a part
//! missing below the last would move every later one), and the server's
//! list of parts must be the parts sent: a part it lacks, holds with
//! another ETag or size, or holds unsent fails the upload rather than
//! leave the outcome to the server. After, the object's size, and its ETag
//! where it is S3's MD5 of the parts' MD5s, must be those of the parts
//! sent (an object completed otherwise is removed). Each failure is one
//! line naming the object and the parts.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Arc, Mutex};

use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use super::client::{Client, ListedPart};
use super::{xml, Target};
use crate::comm::Comm;

/// A part a writer sent and the server took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    pub number: u32,
    /// The ETag the server answered, as it wrote it.
    pub etag: String,
    pub size: u64,
}

/// The parts one writer sent, from its own thread or its request threads,
/// in the order their answers came.
pub type SentParts = Arc<Mutex<Vec<Sent>>>;

/// A part of the upload: as it was sent, and by which task (a shared
/// object's; `None`: the object's one writer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub sent: Sent,
    pub task: Option<usize>,
}

impl Part {
    fn name(&self) -> String {
        match self.task {
            Some(task) => format!("part {} (task {task})", self.sent.number),
            None => format!("part {}", self.sent.number),
        }
    }
}

/// The parts of an upload in order, from each writer's list (its task and
/// its parts in the order sent). A part sent again counts as sent last;
/// one sent by two tasks is an error (the plan gives each part one writer,
/// and which copy the server kept would be unknown).
pub fn merge(lists: Vec<(Option<usize>, Vec<Sent>)>) -> Result<Vec<Part>, String> {
    let mut parts: BTreeMap<u32, Part> = BTreeMap::new();
    for (task, sent) in lists {
        for sent in sent {
            let number = sent.number;
            if let Some(old) = parts.insert(number, Part { sent, task }) {
                if old.task != task {
                    let of = |t: Option<usize>| t.map_or("?".into(), |t| t.to_string());
                    return Err(format!(
                        "part {number} was sent by task {} and by task {}",
                        of(old.task),
                        of(task)
                    ));
                }
            }
        }
    }
    Ok(parts.into_values().collect())
}

/// The part numbers below the last part sent that no writer sent.
pub fn holes(parts: &[Part]) -> Vec<u32> {
    let mut holes = Vec::new();
    let mut next = 1;
    for p in parts {
        holes.extend(next..p.sent.number);
        next = p.sent.number + 1;
    }
    holes
}

/// Part numbers as runs: `2-40, 42, 44-45`.
pub fn runs(numbers: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let mut j = i;
        while j + 1 < numbers.len() && numbers[j + 1] == numbers[j] + 1 {
            j += 1;
        }
        out.push(match i == j {
            true => numbers[i].to_string(),
            false => format!("{}-{}", numbers[i], numbers[j]),
        });
        i = j + 1;
    }
    out.join(", ")
}

/// An ETag without its quotes, in lower case (servers differ in both).
fn bare(etag: &str) -> String {
    etag.trim().trim_matches('"').to_ascii_lowercase()
}

/// An ETag as the server wrote it, on one line.
fn shown(etag: &str) -> String {
    xml::one_line(etag.trim().to_string())
}

/// How the server's list differs from the parts sent: each part it lacks,
/// holds with another ETag or size, or holds and no task sent; `None` when
/// it holds the parts sent and no other.
pub fn listed_otherwise(parts: &[Part], listed: &[ListedPart]) -> Option<String> {
    let on_server: BTreeMap<u32, &ListedPart> = listed.iter().map(|l| (l.number, l)).collect();
    let sent: BTreeMap<u32, &Part> = parts.iter().map(|p| (p.sent.number, p)).collect();
    let unsent = listed
        .iter()
        .filter(|l| !sent.contains_key(&l.number))
        .map(|l| format!("part {} is there, not sent", l.number));
    let differences: Vec<String> = parts
        .iter()
        .filter_map(|p| {
            let Some(l) = on_server.get(&p.sent.number) else {
                return Some(format!("{} is missing", p.name()));
            };
            if bare(&l.etag) != bare(&p.sent.etag) {
                let (there, sent) = (shown(&l.etag), shown(&p.sent.etag));
                return Some(format!("{} has ETag {there} there, {sent} sent", p.name()));
            }
            match l.size {
                Some(size) if size != p.sent.size => Some(format!(
                    "{} holds {size} bytes there, {} sent",
                    p.name(),
                    p.sent.size
                )),
                _ => None,
            }
        })
        .chain(unsent)
        .collect();
    if differences.is_empty() {
        return None;
    }
    const SHOWN: usize = 8;
    let more = match differences.len() > SHOWN {
        true => format!(", and {} more", differences.len() - SHOWN),
        false => String::new(),
    };
    let shown = &differences[..differences.len().min(SHOWN)];
    Some(format!(
        "the server lists {} parts, {} were sent: {}{more}",
        listed.len(),
        parts.len(),
        shown.join(", ")
    ))
}

/// S3's ETag of an object joined from `parts`, when each part's ETag is an
/// MD5 (32 hex digits): the MD5 of their MD5s, `-` and the count.
pub fn multipart_etag(parts: &[Part]) -> Option<String> {
    let mut md5 = Md5::new();
    for p in parts {
        let hex = bare(&p.sent.etag);
        if hex.len() != 32 {
            return None;
        }
        for pair in hex.as_bytes().chunks(2) {
            let pair = std::str::from_utf8(pair).ok()?;
            md5.update([u8::from_str_radix(pair, 16).ok()?]);
        }
    }
    let digest: String = md5.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("{digest}-{}", parts.len()))
}

/// Whether the object completed from `parts` is theirs: the count of parts
/// in its ETag (`...-N`, where the server gives one; the whole ETag where
/// it is S3's MD5 of MD5s) and its size (`None`: no such object).
pub fn check_completed(
    parts: &[Part],
    etag: Option<&str>,
    size: Option<u64>,
) -> Result<(), String> {
    let sent: u64 = parts.iter().map(|p| p.sent.size).sum();
    let n = parts.len();
    if let Some(etag) = etag.map(bare) {
        let count = etag
            .rsplit_once('-')
            .and_then(|(_, c)| c.parse::<usize>().ok());
        if let Some(count) = count.filter(|&c| c != n) {
            return Err(format!(
                "the server joined {count} parts (ETag {}), {n} were sent",
                shown(&etag)
            ));
        }
        let hex = etag.split('-').next().unwrap_or_default();
        let want = multipart_etag(parts).filter(|_| count.is_some() && hex.len() == 32);
        if let Some(want) = want.filter(|want| *want != etag) {
            return Err(format!(
                "its ETag is {}, the {n} parts sent make {want}",
                shown(&etag)
            ));
        }
    }
    match size {
        Some(size) if size == sent => Ok(()),
        Some(size) => Err(format!(
            "the completed object holds {size} bytes, the {n} parts sent {sent}"
        )),
        None => Err("the completed object is not there".into()),
    }
}

/// Completes `upload` of `target` from `parts` (sorted, from [`merge`]),
/// checked before (holes, the server's list) and after (the object) as
/// the module says. On an error the upload is
/// left for the caller to abort.
pub fn finish(client: &Client, target: &Target, upload: &str, parts: &[Part]) -> io::Result<()> {
    let Target { bucket, key } = target;
    let holes = holes(parts);
    if !holes.is_empty() {
        return Err(io::Error::other(format!(
            "bucket {bucket}, key {key}: no task wrote part {} (of {}), below parts written; S3 \
             joins parts end to end, so the parts after it would land at the wrong offsets (a \
             phase stopped early leaves such holes: write whole blocks, or use \
             --s3.layout=fragments); the upload is aborted",
            runs(&holes),
            parts.last().map_or(0, |p| p.sent.number)
        )));
    }
    let listed = client.list_parts(bucket, key, upload)?;
    if let Some(why) = listed_otherwise(parts, &listed) {
        return Err(io::Error::other(format!(
            "bucket {bucket}, key {key}: {why}; the upload is aborted"
        )));
    }
    let list: Vec<(u32, &str)> = parts
        .iter()
        .map(|p| (p.sent.number, p.sent.etag.as_str()))
        .collect();
    let etag = client.complete_upload(bucket, key, upload, &list)?;
    let size = client.head(bucket, key)?;
    check_completed(parts, etag.as_deref(), size).map_err(|why| {
        let _ = client.delete(bucket, key);
        io::Error::other(format!(
            "bucket {bucket}, key {key}: {why}; the object is removed"
        ))
    })
}

/// What a task tells the first at a shared object's close.
#[derive(Serialize, Deserialize)]
struct Closing {
    /// Its own close failed (a part it could not send).
    failed: bool,
    parts: Vec<Sent>,
}

/// Closes a shared object's upload on every task of `comm`: each task's
/// parts (or its failure) are gathered to the first, which completes the
/// upload from them, or aborts it when a task failed or the completion
/// fails; the first's outcome is every task's.
pub fn close_shared(
    client: &Client,
    comm: &dyn Comm,
    target: &Target,
    upload: &str,
    failed: bool,
    sent: &SentParts,
) -> io::Result<()> {
    let parts = std::mem::take(&mut *sent.lock().expect("no panic holds it"));
    let mine = serde_json::to_vec(&Closing { failed, parts }).map_err(io::Error::other)?;
    let gathered = comm.gather(0, &mine).map_err(io::Error::other)?;
    let mut answer = Vec::new();
    if comm.rank() == 0 {
        if let Err(e) = complete_gathered(client, target, upload, &gathered) {
            let _ = client.abort_upload(&target.bucket, &target.key, upload);
            answer = e.to_string().into_bytes();
        }
    }
    comm.broadcast(0, &mut answer).map_err(io::Error::other)?;
    match answer.is_empty() {
        true => Ok(()),
        false => Err(io::Error::other(
            String::from_utf8_lossy(&answer).into_owned(),
        )),
    }
}

/// The first task's part of [`close_shared`]: every task's parts merged
/// and the upload completed, or aborted when a task failed.
fn complete_gathered(
    client: &Client,
    target: &Target,
    upload: &str,
    gathered: &[Vec<u8>],
) -> io::Result<()> {
    let Target { bucket, key } = target;
    let mut lists = Vec::with_capacity(gathered.len());
    for (task, bytes) in gathered.iter().enumerate() {
        let closing: Closing = serde_json::from_slice(bytes).map_err(io::Error::other)?;
        if closing.failed {
            return client.abort_upload(bucket, key, upload);
        }
        lists.push((Some(task), closing.parts));
    }
    let parts = merge(lists)
        .map_err(|why| io::Error::other(format!("bucket {bucket}, key {key}: {why}")))?;
    finish(client, target, upload, &parts)
}

#[cfg(test)]
mod tests;
