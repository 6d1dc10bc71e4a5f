//! Trees read by listing, for the backends whose directories are key
//! prefixes (S3): what io500's find walks and its cleanup removes, page by
//! page, so that the tasks can share the directories of a tree.

use std::io;
use std::time::SystemTime;

/// A file as a listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedFile {
    /// Its name in the directory (what a name pattern is matched against).
    pub name: String,
    pub size: u64,
    pub modified: Option<SystemTime>,
    /// A later piece of the file listed just before it (a fragment): its
    /// size adds to that file's, and it is no file of its own.
    pub continues: bool,
}

/// One page of a directory's listing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListPage {
    pub files: Vec<ListedFile>,
    /// Its subdirectories, as handles [`Listing::page`] takes.
    pub dirs: Vec<String>,
    /// The token of the next page, if any.
    pub next: Option<String>,
}

/// A backend's tree, listed.
pub trait Listing: Sync {
    /// The handle of the directory `path` names.
    fn directory(&self, path: &str) -> io::Result<String>;
    /// One page of the directory `dir` (a handle), from `token` on.
    fn page(&self, dir: &str, token: Option<&str>) -> io::Result<ListPage>;
    /// Whether anything is under the directory `path`: an object, or an
    /// unfinished upload.
    fn holds_anything(&self, path: &str) -> io::Result<bool>;
    /// Removes everything under the directory `path` (objects, markers,
    /// unfinished uploads); returns the count of objects removed.
    fn remove_all(&self, path: &str) -> io::Result<u64>;
}
