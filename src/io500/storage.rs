//! Where the data lives: a file system, or an object store whose
//! directories are key prefixes (`[global] api = S3 ...`, `S3-libs3`),
//! which io500 checks is empty, lists for its find and empties at the end.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::find::{walk_all, Count, FindResult, FindSpec, Source};
use crate::backend::listing::{ListedFile, Listing};
use crate::backend::s3::Libs3Options;
use crate::backend::{self, Backend, Choice, Context};
use crate::comm::Comm;
use crate::console::TaskLines;
use crate::error::{Error, Result};
use crate::options::{module_specs, text, value, Grammar, ModuleOptions};

/// An `api` value's words: the backend and its module options.
#[derive(Debug, Default)]
struct ApiWords {
    name: String,
    module_options: BTreeMap<String, String>,
}

impl ModuleOptions for ApiWords {
    fn module_options(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.module_options
    }
}

/// The backend an `api` value names (`S3 --s3.endpoint=...`), checked.
pub fn choice(api: &str) -> std::result::Result<Choice, String> {
    let words = api_words(api)?;
    backend::configure(&words.name, &words.module_options)
        .map_err(|e| format!("api = {}: {e}", redacted(api)))
}

/// An S3 api io500 cannot run on, refused before anything is made: a
/// bucket per file and directory (`--S3-libs3.bucket-per-file`), as find
/// lists the data prefix of one bucket.
pub fn refuse(api: &str) -> std::result::Result<(), String> {
    if !is_s3(api) {
        return Ok(());
    }
    let words = api_words(api)?;
    // Options that do not read are refused with the phases' command lines.
    let per_file = matches!(
        backend::options_of::<Libs3Options>(&words.name, &words.module_options),
        Some(Ok(o)) if o.bucket_per_file
    );
    match per_file {
        true => Err(format!(
            "api = {}: io500 needs the data in one bucket (find lists it): \
             drop --S3-libs3.bucket-per-file",
            redacted(api)
        )),
        false => Ok(()),
    }
}

/// The words of an `api` value: the backend's name and its options.
fn api_words(api: &str) -> std::result::Result<ApiWords, String> {
    let mut specs = vec![value(
        'a',
        &["api"],
        "the API",
        text(|p: &mut ApiWords| &mut p.name, "API name"),
    )];
    specs.extend(module_specs(backend::all_module_options()));
    let mut args = vec!["-a".to_string()];
    args.extend(api.split_whitespace().map(str::to_string));
    let parsed = Grammar::new("api", specs)
        .parse_command_line(&args, ApiWords::default())
        .map_err(|e| format!("api = {}: {}", redacted(api), e.0))?;
    Ok(parsed.params)
}

/// `text` with the value of every secret option hidden.
pub fn redacted(text: &str) -> String {
    let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    crate::options::redacted(&words).join(" ")
}

/// Whether `api` names one of the S3 backends (whose layout io500
/// chooses per phase).
pub fn is_s3(api: &str) -> bool {
    let name = api.split_whitespace().next().unwrap_or_default();
    name.eq_ignore_ascii_case("S3") || name.to_ascii_lowercase().starts_with("s3-")
}

/// The run's storage: `None` for a file system.
pub struct Storage {
    backend: Option<Box<dyn Backend>>,
}

impl Storage {
    /// The backend of `[global] api` on this task when it lists its tree
    /// (S3); a file system otherwise. An object store that cannot be
    /// reached fails here, before any phase.
    pub fn of(comm: &dyn Comm, api: &str) -> Result<Storage> {
        if !is_s3(api) {
            return Ok(Storage { backend: None });
        }
        let chosen = choice(api).map_err(|e| Error::task(comm.rank(), e))?;
        let context = Context {
            comm,
            active: true,
            collective: false,
            lines: TaskLines::Stdout,
        };
        let backend = chosen
            .build(&context)
            .map_err(|e| Error::task(comm.rank(), e))?;
        // find lists the data prefix of one bucket; a bucket per file
        // (IOR's `--S3-libs3.bucket-per-file`) has none.
        if backend.listing().is_none() {
            return Err(Error::task(
                comm.rank(),
                format!(
                    "api = {}: io500 needs the data in one bucket (find lists it): \
                     drop --S3-libs3.bucket-per-file",
                    redacted(api)
                ),
            ));
        }
        Ok(Storage {
            backend: Some(backend),
        })
    }

    /// The object store's tree, if the data is in one.
    pub fn listing(&self) -> Option<&dyn Listing> {
        self.backend.as_deref().and_then(|b| b.listing())
    }

    /// The object store the data is in, in words (client, endpoint).
    pub fn object_store(&self) -> Option<String> {
        let b = self.backend.as_deref()?;
        b.object_client().map(|c| format!("{} ({c})", b.name()))
    }
}

/// Walks the listing of `spec.root` on every task (find over S3).
///
/// A file's change time is its `LastModified`, which S3 gives to the
/// second at best: the spec's time is rounded down to a whole second, so
/// an object written in the second of the timestamp counts as newer.
pub fn find(comm: &dyn Comm, spec: &FindSpec, listing: &dyn Listing) -> Result<FindResult> {
    let root = listing
        .directory(&spec.root.to_string_lossy())
        .map_err(|e| Error::task(comm.rank(), format!("find: {}: {e}", spec.root.display())))?;
    let mut spec = spec.clone();
    spec.newer_than = spec.newer_than.map(whole_second);
    walk_all(comm, &spec, &Listed { listing }, PathBuf::from(root))
}

fn whole_second(t: SystemTime) -> SystemTime {
    let since = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    SystemTime::UNIX_EPOCH + Duration::from_secs(since.as_secs())
}

/// A tree read page by page from a [`Listing`].
struct Listed<'a> {
    listing: &'a dyn Listing,
}

/// A directory being listed: the next page's token, and the file whose
/// fragments may go on in the next page.
#[derive(Default)]
struct Pages {
    token: Option<String>,
    file: Option<ListedFile>,
}

impl Pages {
    /// Counts the file held, if any.
    fn flush(&mut self, count: &mut Count<'_>) {
        if let Some(f) = self.file.take() {
            let status = (f.size, f.modified.unwrap_or(SystemTime::UNIX_EPOCH));
            count.file(f.name.as_bytes(), || f.modified.map(|_| status));
        }
    }
}

impl Source for Listed<'_> {
    type Stream = Pages;

    fn open(&self, _dir: &Path) -> std::io::Result<Pages> {
        Ok(Pages::default())
    }

    /// One page: its subdirectories queued, its files counted (a file's
    /// fragments as one file, the sum of their sizes).
    fn read_some(
        &self,
        dir: &Path,
        pages: &mut Pages,
        count: &mut Count<'_>,
        queue: &mut VecDeque<PathBuf>,
    ) -> bool {
        let page = match self
            .listing
            .page(&dir.to_string_lossy(), pages.token.as_deref())
        {
            Ok(page) => page,
            Err(_) => {
                count.error();
                pages.flush(count);
                return true;
            }
        };
        queue.extend(page.dirs.into_iter().map(PathBuf::from));
        for f in page.files {
            match (&mut pages.file, f.continues) {
                (Some(held), true) => {
                    held.size = held.size.saturating_add(f.size);
                    held.modified = held.modified.max(f.modified);
                }
                _ => {
                    pages.flush(count);
                    pages.file = Some(f);
                }
            }
        }
        pages.token = page.next;
        if pages.token.is_none() {
            pages.flush(count);
            return true;
        }
        false
    }
}
