//! The source read as Rust tokens, for the checks that need more than a
//! text search: which file each path a file writes (`use` trees, `crate::`,
//! `super::`, `self::`, names a `use` brought in, child modules) resolves
//! to, through `pub use` re-exports; the cycles between files; the length of
//! each function. A small reader, not a parser: enough for this crate's code
//! (its unit tests below say what it reads).

use std::collections::{BTreeMap, BTreeSet};

/// A token of Rust code; comments and literals are left out.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

/// The tokens of a source text, without comments, strings and characters,
/// each with its line (from 1).
fn tokens(text: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = text.chars().collect();
    // The line at each character.
    let lines: Vec<usize> = c
        .iter()
        .scan(1, |line, &ch| {
            let here = *line;
            *line += usize::from(ch == '\n');
            Some(here)
        })
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let line = lines[i];
        let ch = c[i];
        let next = c.get(i + 1).copied().unwrap_or(' ');
        if ch == '/' && next == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = skip_string(&c, i + 1, 0);
        } else if ch == '\'' {
            // A character ('x', '\n'), or a lifetime ('a: left as a name).
            if next == '\\' {
                // Past the escaped character ('\'' included).
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let at = c.get(i).copied();
            if matches!(word.as_str(), "r" | "br") && matches!(at, Some('"') | Some('#')) {
                let mut hashes = 0;
                while c.get(i) == Some(&'#') {
                    hashes += 1;
                    i += 1;
                }
                if c.get(i) == Some(&'"') {
                    i = skip_string(&c, i + 1, hashes);
                }
            } else if word == "b" && at == Some('"') {
                i = skip_string(&c, i + 1, 0);
            } else if word == "b" && at == Some('\'') {
                i += 1;
                while i < c.len() && c[i] != '\'' {
                    i += if c[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
            } else {
                out.push((Tok::Ident(word), line));
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push((Tok::Punct('0'), line));
        } else if ch == ':' && next == ':' {
            out.push((Tok::Sep, line));
            i += 2;
        } else {
            if !ch.is_whitespace() {
                out.push((Tok::Punct(ch), line));
            }
            i += 1;
        }
    }
    out
}

/// The index after a string's closing quote (and `hashes` #s for a raw
/// string; a raw string has no escapes).
fn skip_string(c: &[char], mut i: usize, hashes: usize) -> usize {
    let raw = hashes > 0 || (i >= 2 && c[i - 2] == 'r');
    while i < c.len() {
        if c[i] == '\\' && !raw {
            i += 2;
        } else if c[i] == '"' && (0..hashes).all(|h| c.get(i + 1 + h) == Some(&'#')) {
            return i + 1 + hashes;
        } else {
            i += 1;
        }
    }
    i
}

/// One `use` path: its segments, and the name it brings into scope (`None`:
/// a glob).
struct UsePath {
    segments: Vec<String>,
    name: Option<String>,
}

/// The paths of a use tree starting at `toks[*at]`, up to its end (`;`, or
/// the `,`/`}` that closes it within a group).
fn use_tree(toks: &[Tok], at: &mut usize, prefix: &[String], out: &mut Vec<UsePath>) {
    let mut segments = prefix.to_vec();
    while let Some(t) = toks.get(*at) {
        match t {
            Tok::Ident(w) if w == "as" => {
                *at += 1;
                if let Some(Tok::Ident(alias)) = toks.get(*at) {
                    let name = Some(alias.clone());
                    out.push(UsePath { segments, name });
                    *at += 1;
                }
                return;
            }
            Tok::Ident(w) => {
                segments.push(w.clone());
                *at += 1;
            }
            Tok::Sep => *at += 1,
            Tok::Punct('{') => {
                *at += 1;
                loop {
                    use_tree(toks, at, &segments, out);
                    match toks.get(*at) {
                        Some(Tok::Punct(',')) => *at += 1,
                        _ => break,
                    }
                    if toks.get(*at) == Some(&Tok::Punct('}')) {
                        break;
                    }
                }
                *at += 1; // the closing brace
                return;
            }
            Tok::Punct('*') => {
                *at += 1;
                out.push(UsePath {
                    segments,
                    name: None,
                });
                return;
            }
            _ => break,
        }
    }
    if segments.len() > prefix.len() {
        // `use a::{self}` names `a` itself.
        if segments.last().map(String::as_str) == Some("self") {
            segments.pop();
        }
        let name = segments.last().cloned();
        out.push(UsePath { segments, name });
    }
}

/// What one file holds for resolving paths: the `use`s of each scope (the
/// file, or an inline module in it), the modules it declares, its paths.
#[derive(Default)]
struct FileScan {
    /// (scope, use path, whether `pub use`)
    uses: Vec<(Vec<String>, UsePath, bool)>,
    /// (scope, module declared with `mod name;` or `mod name {`)
    mods: Vec<(Vec<String>, String)>,
    /// (scope, path of two or more segments outside `use`)
    paths: Vec<(Vec<String>, Vec<String>)>,
}

fn scan(toks: &[Tok]) -> FileScan {
    let mut scan = FileScan::default();
    // Inline modules: (name, the brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    let ident = |i: usize| match toks.get(i) {
        Some(Tok::Ident(w)) => Some(w.as_str()),
        _ => None,
    };
    while i < toks.len() {
        let scope: Vec<String> = inline.iter().map(|(n, _)| n.clone()).collect();
        match &toks[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            Tok::Ident(w) if w == "mod" => {
                if let Some(name) = ident(i + 1) {
                    scan.mods.push((scope, name.to_string()));
                    if toks.get(i + 2) == Some(&Tok::Punct('{')) {
                        depth += 1;
                        inline.push((name.to_string(), depth));
                        i += 3;
                        continue;
                    }
                }
            }
            Tok::Ident(w) if w == "use" => {
                let public = i > 0 && is_pub_before(toks, i);
                let mut at = i + 1;
                let mut found = Vec::new();
                use_tree(toks, &mut at, &[], &mut found);
                for u in found {
                    scan.uses.push((scope.clone(), u, public));
                }
                i = at;
                continue;
            }
            Tok::Ident(w) => {
                // A path: `a::b::c` (not after `::`, not `pub(in a::b)`).
                let after_sep = i > 0 && toks[i - 1] == Tok::Sep;
                let after_in = i > 0 && toks[i - 1] == Tok::Ident("in".into());
                let mut segments = vec![w.clone()];
                let mut at = i + 1;
                while toks.get(at) == Some(&Tok::Sep) {
                    match ident(at + 1) {
                        Some(next) => segments.push(next.to_string()),
                        None => break, // `::<T>`, `::{`
                    }
                    at += 2;
                }
                if segments.len() > 1 && !after_sep && !after_in {
                    scan.paths.push((scope, segments));
                }
                i = at;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    scan
}

/// Whether the `use` at `toks[i]` is `pub` (`pub use`, `pub(crate) use`).
fn is_pub_before(toks: &[Tok], i: usize) -> bool {
    match &toks[i - 1] {
        Tok::Ident(w) => w == "pub",
        Tok::Punct(')') => {
            let open = toks[..i].iter().rposition(|t| *t == Tok::Punct('('));
            open.is_some_and(|o| o > 0 && toks[o - 1] == Tok::Ident("pub".into()))
        }
        _ => false,
    }
}

/// The files of the library (binaries are crates of their own), each with
/// its module path (`ior/runner.rs`: `["ior", "runner"]`) and what it names.
pub struct Files {
    module_of: BTreeMap<String, Vec<String>>,
    file_of: BTreeMap<Vec<String>, String>,
    scans: BTreeMap<String, FileScan>,
}

impl Files {
    /// From (path under `src/`, text) pairs.
    pub fn new(sources: impl IntoIterator<Item = (String, String)>) -> Files {
        let mut files = Files {
            module_of: BTreeMap::new(),
            file_of: BTreeMap::new(),
            scans: BTreeMap::new(),
        };
        for (rel, text) in sources {
            if rel.starts_with("bin/") {
                continue;
            }
            let mut module: Vec<String> = rel
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_string)
                .collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            let toks: Vec<Tok> = tokens(&text).into_iter().map(|(t, _)| t).collect();
            files.scans.insert(rel.clone(), scan(&toks));
            files.file_of.insert(module.clone(), rel.clone());
            files.module_of.insert(rel, module);
        }
        files
    }

    /// The full module path a path written in `file` (in `scope`, its
    /// inline modules) stands for, if it is one of the crate's.
    fn absolute(&self, file: &str, scope: &[String], segments: &[String]) -> Option<Vec<String>> {
        let mut here = self.module_of[file].clone();
        here.extend(scope.iter().cloned());
        let first = segments.first()?.as_str();
        let (mut base, rest) = match first {
            "crate" => (Vec::new(), &segments[1..]),
            "self" => (here.clone(), &segments[1..]),
            "super" => {
                let mut base = here.clone();
                let mut rest = segments;
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop();
                    rest = &rest[1..];
                }
                (base, rest)
            }
            _ => {
                let scan = &self.scans[file];
                // A name a `use` brought in (not by the `use` itself).
                let alias = scan.uses.iter().find(|(s, u, _)| {
                    scope.starts_with(s)
                        && u.name.as_deref() == Some(first)
                        && !std::ptr::eq(u.segments.as_slice(), segments)
                        && u.segments.first().map(String::as_str) != Some(first)
                });
                if let Some((s, u, _)) = alias {
                    (self.absolute(file, s, &u.segments)?, &segments[1..])
                } else if scan.mods.iter().any(|(s, m)| s == scope && m == first) {
                    let mut base = here.clone();
                    base.push(first.to_string());
                    (base, &segments[1..])
                } else {
                    return None;
                }
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file that defines what a full path names: the longest prefix
    /// that is a file's module, then through that file's `pub use`s (none:
    /// the path names a module, not an item of it).
    fn defining_file(&self, path: &[String], hops: usize) -> Option<String> {
        let len = (0..=path.len())
            .rev()
            .find(|&n| self.file_of.contains_key(&path[..n]))?;
        let file = self.file_of[&path[..len]].clone();
        // A module itself (`use crate::a;`): what counts is what is used
        // through that name.
        let name = path.get(len)?;
        let export = self.scans[&file]
            .uses
            .iter()
            .find(|(s, u, public)| *public && s.is_empty() && u.name.as_ref() == Some(name));
        if let (Some((_, u, _)), true) = (export, hops < 8) {
            if let Some(mut target) = self.absolute(&file, &[], &u.segments) {
                target.extend(path[len + 1..].iter().cloned());
                if let Some(found) = self.defining_file(&target, hops + 1) {
                    return Some(found);
                }
            }
        }
        Some(file)
    }

    /// File → the files whose items it names, a module's file naming its
    /// own submodules' files left out.
    pub fn edges(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (file, scan) in &self.scans {
            let written = scan
                .uses
                .iter()
                .map(|(s, u, _)| (s, &u.segments))
                .chain(scan.paths.iter().map(|(s, p)| (s, p)));
            let targets = edges.entry(file.clone()).or_default();
            for (scope, segments) in written {
                let Some(path) = self.absolute(file, scope, segments) else {
                    continue;
                };
                let Some(target) = self.defining_file(&path, 0) else {
                    continue;
                };
                let below = self.module_of[&target].starts_with(&self.module_of[file]);
                if !below {
                    targets.insert(target);
                }
            }
        }
        edges
    }
}

/// The groups of files that import each other (strongly connected
/// components of more than one file; Tarjan's algorithm).
pub fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        groups: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let low = s.low[v].min(s.low[w.as_str()]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w.as_str()) {
                let low = s.low[v].min(s.index[w.as_str()]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                group.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.groups.push(group);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        groups: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.groups.sort();
    s.groups
}

/// The functions of a source text longer than `most` lines (from the line
/// of `fn` to that of the closing brace): (name, first line, lines).
pub fn long_functions(text: &str, most: usize) -> Vec<(String, usize, usize)> {
    let toks = tokens(text);
    let mut long = Vec::new();
    for (i, (t, first)) in toks.iter().enumerate() {
        let (Tok::Ident(word), Some((Tok::Ident(name), _))) = (t, toks.get(i + 1)) else {
            continue;
        };
        if word != "fn" {
            continue;
        }
        // The body: the first brace outside the parameters' parentheses.
        let mut parens = 0;
        let mut at = i + 2;
        while let Some((t, _)) = toks.get(at) {
            match t {
                Tok::Punct('(') => parens += 1,
                Tok::Punct(')') => parens -= 1,
                Tok::Punct('{' | ';') if parens == 0 => break,
                _ => {}
            }
            at += 1;
        }
        if toks.get(at).map(|(t, _)| t) != Some(&Tok::Punct('{')) {
            continue;
        }
        let mut depth = 0;
        for (t, last) in &toks[at..] {
            match t {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                _ => continue,
            }
            if depth == 0 {
                let lines = last - first + 1;
                if lines > most {
                    long.push((name.clone(), *first, lines));
                }
                break;
            }
        }
    }
    long
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        let toks = tokens(text);
        let names = toks.into_iter().filter_map(|(t, _)| match t {
            Tok::Ident(w) => Some(w),
            _ => None,
        });
        names.collect()
    }

    #[test]
    fn comments_strings_and_characters_are_left_out() {
        let text = "a // crate::x\n/* crate::y /* z */ */ b \"crate::\\\"w\" c \
                    r#\"crate::q\"# d '\"' e 'f' g b\"h\" i: &'j T '\\'' k '\\n' l";
        let expected = ["a", "b", "c", "d", "e", "g", "i", "j", "T", "k", "l"];
        assert_eq!(names(text), expected);
    }

    fn edges_of(sources: &[(&str, &str)]) -> BTreeMap<String, BTreeSet<String>> {
        let owned = sources.iter().map(|(f, t)| (f.to_string(), t.to_string()));
        Files::new(owned).edges()
    }

    #[test]
    fn paths_resolve_to_the_files_that_define_them() {
        let edges = edges_of(&[
            ("lib.rs", "pub mod a; pub mod d;"),
            (
                "a/mod.rs",
                "mod b; mod c; pub use b::Thing; fn f() { c::g() }",
            ),
            ("a/b.rs", "use super::{c::{self, X}, Thing as T};"),
            (
                "a/c.rs",
                "use crate::a::Thing; pub fn g() { crate::d::h() }",
            ),
            (
                "d.rs",
                "pub fn h() {}\nmod tests { use super::super::a; fn t() { a::c::g(); } }",
            ),
            ("e.rs", "pub(in crate::a) fn e() { std::mem::drop(1) }"),
            ("bin/x.rs", "fn main() { pario::e::e() }"),
        ]);
        let of = |file: &str| -> Vec<&str> { edges[file].iter().map(String::as_str).collect() };
        // The parent's own children are not counted; `pub use` leads to b.rs.
        assert!(of("a/mod.rs").is_empty());
        assert_eq!(of("a/b.rs"), ["a/c.rs"]);
        assert_eq!(of("a/c.rs"), ["a/b.rs", "d.rs"]);
        assert_eq!(of("d.rs"), ["a/c.rs"]);
        assert!(of("e.rs").is_empty() && !edges.contains_key("bin/x.rs"));
        let cycles = cycles(&edges);
        assert_eq!(cycles, [["a/b.rs", "a/c.rs", "d.rs"]]);
    }

    #[test]
    fn functions_are_measured_from_fn_to_their_closing_brace() {
        let body = "    x();\n".repeat(3);
        let text = format!(
            "fn short() {{}}\ntrait T {{ fn f(&self); }}\nfn long(a: (u8, u8)) {{\n{body}}}\n"
        );
        assert_eq!(long_functions(&text, 4), [("long".to_string(), 3, 5)]);
        assert!(long_functions(&text, 5).is_empty());
    }
}
