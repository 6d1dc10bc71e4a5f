//! mdtest's directory layout and item names.
//!
//! Under each `-d` directory, iteration `j` works in `test-dir.j-l` (`l`
//! counts the test directories of an iteration: more than one only with both
//! `-n` and `-I` and without `-u`). There, one tree `mdtest_tree.0` (or, with
//! `-u`, one tree per task `t`: `mdtest_tree.t.0`) of depth `-z` and branching
//! `-b`. Tree directories are numbered breadth first: the root is 0 and the
//! children of `d` are `b·d+1 … b·d+b`; directory `d > 0` is
//! `<tree>.<d>` inside its parent, so directory 4 of a binary tree is
//! `mdtest_tree.0/mdtest_tree.1/mdtest_tree.4`.
//!
//! Each directory holds `-I` items (with `-L` only the leaves do); item `k`
//! lives in directory `k / I` and is called `file.mdtest.<t>.<k>` or
//! `dir.mdtest.<t>.<k>` for task `t` (`file.mdtest.shared.<k>` with `-S`).
//! Items are created and removed depth first, directory by directory, and
//! stat'ed and read in the order of their numbers (or shuffled with `-R`).
//!
//! With `-N s`, task `t` creates its items, stats and renames those of task
//! `t+s`, reads those of `t+2s` and removes those of `t+3s` (mod the number
//! of tasks); with `-u` the items of task `t` live in the tree of task `t+s`.

use std::ffi::CStr;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::params::MdtestParams;
use crate::backend::cpath::CPathBuf;

/// The name of iteration `iteration`'s test directory number `index`.
pub fn test_dir(root: &Path, iteration: u64, index: u64) -> PathBuf {
    root.join(format!("test-dir.{iteration}-{index}"))
}

/// What an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "dir",
        }
    }
}

/// Whose name an item carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Task(usize),
    /// `-S`: every task's files have the same names.
    Shared,
}

/// The phases, in the order tasks are shifted by `-N` (mdtest's mk, stat,
/// read and rm names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Create = 0,
    Stat = 1,
    Read = 2,
    Remove = 3,
}

/// One tree: its root directory and the base of its directory names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// `…/test-dir.j-l/mdtest_tree[.t].0`.
    pub root: PathBuf,
    /// `mdtest_tree` or `mdtest_tree.t`.
    pub name: String,
}

impl Tree {
    /// The tree in `test_dir` (owned by `owner` with `-u`).
    pub fn new(test_dir: &Path, owner: Option<usize>) -> Tree {
        let name = match owner {
            Some(t) => format!("mdtest_tree.{t}"),
            None => "mdtest_tree".to_string(),
        };
        Tree {
            root: test_dir.join(format!("{name}.0")),
            name,
        }
    }
}

/// The shape of the trees and how many items go where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub depth: u64,
    pub branch: u64,
    /// Directories in one tree.
    pub num_dirs: u64,
    /// Items per directory that holds items.
    pub items_per_dir: u64,
    pub leaf_only: bool,
    /// Test directories per iteration.
    pub loops: u64,
    /// Items of one task in one test directory.
    pub items_per_loop: u64,
}

fn pow(base: u64, exp: u64) -> Option<u64> {
    match base {
        0 => Some(u64::from(exp == 0)),
        1 => Some(1),
        _ => base.checked_pow(u32::try_from(exp).ok()?),
    }
}

/// The deepest tree whose deepest directory's path can exist: each level
/// adds at least `/mdtest_tree.N` (14 bytes), and a path holds at most
/// PATH_MAX (4096) bytes.
const MAX_DEPTH: u64 = 4096 / 14;

impl Layout {
    /// mdtest's arithmetic: the tree size, the items per directory (with
    /// `-n`, rounded down to a whole number per directory) and the number of
    /// test directories.
    pub fn new(p: &MdtestParams) -> Result<Layout, String> {
        let too_big = || {
            format!(
                "-b {} -z {}: the tree has more directories than pario can count",
                p.tree.branch_factor, p.tree.depth
            )
        };
        if p.tree.depth > MAX_DEPTH {
            return Err(format!(
                "-z {}: the deepest directory's path would be longer than the system allows \
                 (4096 bytes; at most -z {MAX_DEPTH})",
                p.tree.depth
            ));
        }
        let b = p.tree.branch_factor;
        let num_dirs = if p.tree.depth == 0 || b < 1 {
            1
        } else if b == 1 {
            p.tree.depth.checked_add(1).ok_or_else(too_big)?
        } else {
            (pow(b, p.tree.depth + 1).ok_or_else(too_big)? - 1) / (b - 1)
        };
        let leaves = if p.tree.depth == 0 {
            1
        } else {
            pow(b, p.tree.depth).ok_or_else(too_big)?
        };
        let dirs_with_items = if p.tree.leaf_only { leaves } else { num_dirs };
        let mul = |a: u64, b: u64| {
            a.checked_mul(b)
                .ok_or_else(|| "-n/-I: the number of items overflows 64 bits".to_string())
        };
        let (items_per_dir, loops, items_per_loop) = if p.tree.items_per_dir > 0 {
            let per_loop = mul(p.tree.items_per_dir, dirs_with_items)?;
            if p.tree.items > 0 {
                (
                    p.tree.items_per_dir,
                    p.tree.items / p.tree.items_per_dir,
                    per_loop,
                )
            } else {
                (p.tree.items_per_dir, 1, per_loop)
            }
        } else {
            let ipd = p.tree.items / dirs_with_items;
            (ipd, 1, ipd * dirs_with_items)
        };
        if p.stonewall.seconds > 0 && loops > 1 {
            return Err(format!(
                "-W {}: the stonewall timer works with one test directory per iteration, not with -n {} and -I {} together",
                p.stonewall.seconds, p.tree.items, p.tree.items_per_dir
            ));
        }
        Ok(Layout {
            depth: p.tree.depth,
            branch: b,
            num_dirs,
            items_per_dir,
            leaf_only: p.tree.leaf_only,
            loops,
            items_per_loop,
        })
    }

    /// Checks that the parameters give a layout.
    pub fn check(p: &MdtestParams) -> Result<(), String> {
        Layout::new(p).map(|_| ())
    }

    /// Leaf directories of one tree.
    pub fn leaves(&self) -> u64 {
        if self.depth == 0 {
            1
        } else {
            pow(self.branch, self.depth).unwrap_or(u64::MAX)
        }
    }

    /// The number of the first item (non-zero with `-L`: the leaves are the
    /// last directories).
    pub fn first_item(&self) -> u64 {
        if self.leaf_only {
            self.items_per_dir * (self.num_dirs - self.leaves())
        } else {
            0
        }
    }

    /// Items of one task in one iteration.
    pub fn items_per_task(&self) -> u64 {
        self.loops * self.items_per_loop
    }

    /// The layout for a run whose file phases handle `count` items per task
    /// (the stonewall count of `-W`/`-x`).
    pub fn with_item_count(&self, count: u64) -> Result<Layout, String> {
        let mut l = self.clone();
        if count == self.items_per_task() {
            return Ok(l);
        }
        if self.loops > 1 {
            return Err(format!(
                "the stonewall count {count} does not match the {} items per task of -n and -I here",
                self.items_per_task()
            ));
        }
        if self.depth == 0 {
            l.items_per_dir = count;
            l.items_per_loop = count;
            return Ok(l);
        }
        if count > self.items_per_loop {
            return Err(format!(
                "the stonewall count {count} is larger than the {} items of this tree (check -n, -z, -b)",
                self.items_per_loop
            ));
        }
        if self.branch > 1 {
            return Err(format!(
                "a stonewall count ({count}) smaller than the tree's {} items needs -b 1",
                self.items_per_loop
            ));
        }
        l.items_per_loop = count;
        Ok(l)
    }

    /// The depth of directory `d`.
    pub fn dir_depth(&self, mut d: u64) -> u64 {
        let mut depth = 0;
        while d > 0 {
            d = (d - 1) / self.branch;
            depth += 1;
        }
        depth
    }

    /// Whether directory `d` holds items.
    pub fn has_items(&self, d: u64) -> bool {
        !self.leaf_only || self.dir_depth(d) == self.depth
    }

    /// Visits the tree's directories depth first: `pre(d)` before a
    /// directory's subtree, `post(d)` after it (children before parents).
    pub fn walk<E>(
        &self,
        pre: &mut dyn FnMut(u64) -> Result<(), E>,
        post: &mut dyn FnMut(u64) -> Result<(), E>,
    ) -> Result<(), E> {
        self.walk_from(0, 0, pre, post)
    }

    fn walk_from<E>(
        &self,
        d: u64,
        depth: u64,
        pre: &mut dyn FnMut(u64) -> Result<(), E>,
        post: &mut dyn FnMut(u64) -> Result<(), E>,
    ) -> Result<(), E> {
        pre(d)?;
        if depth < self.depth {
            for i in 1..=self.branch {
                self.walk_from(d * self.branch + i, depth + 1, pre, post)?;
            }
        }
        post(d)
    }

    /// The directories that hold items, in creation order (depth first).
    pub fn item_dirs(&self) -> Vec<u64> {
        let mut dirs = Vec::new();
        let _ = self.walk::<()>(
            &mut |d| {
                if self.has_items(d) {
                    dirs.push(d);
                }
                Ok(())
            },
            &mut |_| Ok(()),
        );
        dirs
    }

    /// The path of directory `d` of `tree`.
    pub fn dir_path(&self, tree: &Tree, d: u64) -> PathBuf {
        let mut chain = Vec::new();
        let mut x = d;
        while x > 0 {
            chain.push(x);
            x = (x - 1) / self.branch;
        }
        let mut path = tree.root.clone();
        for x in chain.into_iter().rev() {
            path.push(format!("{}.{x}", tree.name));
        }
        path
    }
}

/// `<prefix>.<owner>.` as in `file.mdtest.3.` or `dir.mdtest.shared.`.
pub fn item_prefix(kind: Kind, owner: Owner) -> String {
    match owner {
        Owner::Task(t) => format!("{}.mdtest.{t}.", kind.prefix()),
        Owner::Shared => format!("{}.mdtest.shared.", kind.prefix()),
    }
}

/// Builds item paths in one reused, NUL-terminated buffer: the directory
/// part is kept while consecutive items share a directory, and the number of
/// the item after the previous one is counted up in place (the common,
/// sequential case costs a few nanoseconds, and the path goes to the kernel
/// as it is).
pub struct ItemPaths<'a> {
    layout: &'a Layout,
    tree: &'a Tree,
    prefix: String,
    buf: CPathBuf,
    /// Items of the directory in `buf`.
    dir_items: std::ops::Range<u64>,
    dir_len: usize,
    /// The item whose number ends `buf`.
    last: Option<u64>,
}

impl<'a> ItemPaths<'a> {
    /// Fails if the tree's paths cannot be C strings (a NUL byte in `-d`).
    pub fn new(
        layout: &'a Layout,
        tree: &'a Tree,
        kind: Kind,
        owner: Owner,
    ) -> std::io::Result<ItemPaths<'a>> {
        let mut buf = CPathBuf::default();
        // Every directory of the tree extends the first one with names of
        // its own making, so checking this one checks them all.
        buf.push(layout.dir_path(tree, 0).as_os_str().as_bytes())?;
        Ok(ItemPaths {
            layout,
            tree,
            prefix: item_prefix(kind, owner),
            buf,
            dir_items: 0..0,
            dir_len: 0,
            last: None,
        })
    }

    /// The path of item `k`.
    #[inline]
    pub fn path(&mut self, k: u64) -> &CStr {
        if !self.dir_items.contains(&k) {
            let ipd = self.layout.items_per_dir.max(1);
            let d = k / ipd;
            self.buf.truncate(0);
            let dir = self.layout.dir_path(self.tree, d);
            self.buf
                .push(dir.as_os_str().as_bytes())
                .and_then(|()| self.buf.push(b"/"))
                .and_then(|()| self.buf.push(self.prefix.as_bytes()))
                .expect("checked in ItemPaths::new");
            self.dir_len = self.buf.len();
            self.dir_items = d * ipd..(d + 1) * ipd;
            self.last = None;
        }
        if self.last.is_some_and(|l| l + 1 == k) {
            self.buf.increment_decimal(self.dir_len);
        } else {
            self.buf.truncate(self.dir_len);
            self.buf.push_decimal(k);
        }
        self.last = Some(k);
        self.buf.as_c_str()
    }
}

/// The numbers of the items of one test directory, in creation order
/// (directory by directory, depth first), at most `limit` of them.
pub fn creation_order(layout: &Layout, limit: u64) -> impl Iterator<Item = u64> + '_ {
    let ipd = layout.items_per_dir;
    layout
        .item_dirs()
        .into_iter()
        .flat_map(move |d| (0..ipd).map(move |i| d * ipd + i))
        .take(limit as usize)
}

/// A description of an item for messages: `file.mdtest.0.3`.
pub fn describe(kind: Kind, owner: Owner, k: u64) -> String {
    let mut s = item_prefix(kind, owner);
    let _ = write!(s, "{k}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpath::path_of;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    fn params(n: u64, i: u64, z: u64, b: u64, leaf: bool) -> MdtestParams {
        let mut p = MdtestParams::default();
        p.tree.items = n;
        p.tree.items_per_dir = i;
        p.tree.depth = z;
        p.tree.branch_factor = b;
        p.tree.leaf_only = leaf;
        p
    }

    #[test]
    fn tree_sizes_and_items_follow_mdtest() {
        let l = Layout::new(&params(10, 0, 0, 1, false)).unwrap();
        assert_eq!((l.num_dirs, l.items_per_dir, l.items_per_loop), (1, 10, 10));
        // -z 2 -b 3: 1 + 3 + 9 directories; -n 30 gives 2 per directory.
        let l = Layout::new(&params(30, 0, 2, 3, false)).unwrap();
        assert_eq!((l.num_dirs, l.items_per_dir, l.items_per_loop), (13, 2, 26));
        // -L: only the 9 leaves, the last directories.
        let l = Layout::new(&params(30, 0, 2, 3, true)).unwrap();
        assert_eq!(
            (l.items_per_dir, l.items_per_loop, l.first_item()),
            (3, 27, 12)
        );
        // -I with a chain (-b 1): every directory.
        let l = Layout::new(&params(0, 4, 3, 1, false)).unwrap();
        assert_eq!((l.num_dirs, l.items_per_loop, l.loops), (4, 16, 1));
        // -n and -I: several test directories.
        let l = Layout::new(&params(20, 5, 0, 1, false)).unwrap();
        assert_eq!((l.loops, l.items_per_loop, l.items_per_task()), (4, 5, 20));
    }

    #[test]
    fn directory_paths_follow_the_numbering() {
        let l = Layout::new(&params(0, 1, 2, 2, false)).unwrap();
        let t = Tree::new(Path::new("/x/test-dir.0-0"), None);
        assert_eq!(
            l.dir_path(&t, 0),
            Path::new("/x/test-dir.0-0/mdtest_tree.0")
        );
        assert_eq!(
            l.dir_path(&t, 4),
            Path::new("/x/test-dir.0-0/mdtest_tree.0/mdtest_tree.1/mdtest_tree.4")
        );
        assert_eq!(
            l.dir_path(&t, 5),
            Path::new("/x/test-dir.0-0/mdtest_tree.0/mdtest_tree.2/mdtest_tree.5")
        );
        let u = Tree::new(Path::new("/x/test-dir.0-0"), Some(3));
        assert_eq!(
            l.dir_path(&u, 2),
            Path::new("/x/test-dir.0-0/mdtest_tree.3.0/mdtest_tree.3.2")
        );
    }

    #[test]
    fn walks_are_depth_first() {
        let l = Layout::new(&params(0, 1, 2, 2, false)).unwrap();
        let (mut pre, mut post) = (Vec::new(), Vec::new());
        l.walk::<()>(
            &mut |d| {
                pre.push(d);
                Ok(())
            },
            &mut |d| {
                post.push(d);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(pre, [0, 1, 3, 4, 2, 5, 6]);
        assert_eq!(post, [3, 4, 1, 5, 6, 2, 0]);
        assert_eq!(l.item_dirs(), pre);
        let leaves = Layout::new(&params(0, 1, 2, 2, true)).unwrap();
        assert_eq!(leaves.item_dirs(), [3, 4, 5, 6]);
        assert_eq!(
            creation_order(&leaves, 100).collect::<Vec<_>>(),
            [3, 4, 5, 6]
        );
    }

    #[test]
    fn item_paths_reuse_the_directory() {
        let l = Layout::new(&params(4, 0, 1, 1, false)).unwrap();
        let t = Tree::new(Path::new("d/test-dir.0-0"), Some(1));
        let mut p = ItemPaths::new(&l, &t, Kind::File, Owner::Task(2)).unwrap();
        assert_eq!(
            path_of(p.path(0)),
            Path::new("d/test-dir.0-0/mdtest_tree.1.0/file.mdtest.2.0")
        );
        assert_eq!(
            path_of(p.path(3)),
            Path::new("d/test-dir.0-0/mdtest_tree.1.0/mdtest_tree.1.1/file.mdtest.2.3")
        );
        assert_eq!(
            path_of(p.path(1)),
            Path::new("d/test-dir.0-0/mdtest_tree.1.0/file.mdtest.2.1")
        );
        let mut s = ItemPaths::new(&l, &t, Kind::Dir, Owner::Shared).unwrap();
        assert!(path_of(s.path(10)).ends_with("dir.mdtest.shared.10"));
        // Counting up in place, across a new digit.
        let flat = Layout::new(&params(2000, 0, 0, 1, false)).unwrap();
        let mut c = ItemPaths::new(&flat, &t, Kind::File, Owner::Task(0)).unwrap();
        for k in [7u64, 8, 9, 10, 11, 99, 100, 998, 999, 1000, 1001, 5] {
            let expected = format!("d/test-dir.0-0/mdtest_tree.1.0/file.mdtest.0.{k}");
            assert_eq!(c.path(k).to_str().unwrap(), expected);
        }
    }

    #[test]
    fn a_nul_byte_in_the_directory_is_an_error_not_a_panic() {
        let l = Layout::new(&params(4, 0, 0, 1, false)).unwrap();
        let t = Tree::new(Path::new(OsStr::from_bytes(b"d\0x/test-dir.0-0")), Some(1));
        let e = ItemPaths::new(&l, &t, Kind::File, Owner::Task(0))
            .err()
            .unwrap();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    }

    #[test]
    fn stonewall_counts_resize_the_layout() {
        let flat = Layout::new(&params(100, 0, 0, 1, false)).unwrap();
        assert_eq!(flat.with_item_count(37).unwrap().items_per_dir, 37);
        let chain = Layout::new(&params(100, 0, 3, 1, false)).unwrap();
        assert_eq!(chain.with_item_count(60).unwrap().items_per_loop, 60);
        assert!(chain.with_item_count(101).is_err());
        let bushy = Layout::new(&params(26, 0, 2, 3, false)).unwrap();
        assert!(bushy.with_item_count(10).is_err());
        assert!(bushy.with_item_count(26).is_ok());
    }
}
