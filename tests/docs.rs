//! The documents a newcomer navigates, checked: the README's contents list
//! names every section of the README in order, and every link between the
//! project's Markdown files reaches a file that exists and, with `#anchor`, a
//! heading of that file (anchors as GitHub makes them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files of the project: the top level and `docs/`.
fn documents() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [root(), root().join("docs")] {
        for entry in std::fs::read_dir(&dir).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The lines outside code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push(line);
        }
    }
    lines
}

/// Headings as (level, title, anchor), anchors as GitHub makes them:
/// lower case, only letters, digits, `-`, `_` and spaces kept, spaces made
/// hyphens, a repeated anchor numbered `-1`, `-2`...
fn headings(text: &str) -> Vec<(usize, String, String)> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for line in prose(text) {
        let level = line.chars().take_while(|&c| c == '#').count();
        let Some(title) = line.get(level..).and_then(|r| r.strip_prefix(' ')) else {
            continue;
        };
        if level == 0 {
            continue;
        }
        let base: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = seen.entry(base.clone()).or_insert(0);
        let anchor = match *n {
            0 => base,
            k => format!("{base}-{k}"),
        };
        *n += 1;
        out.push((level, title.to_string(), anchor));
    }
    out
}

#[test]
fn the_readme_contents_list_every_section_in_order() {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README");
    let expected: Vec<String> = headings(&text)
        .into_iter()
        .filter(|(level, ..)| matches!(level, 2 | 3))
        .map(|(level, title, anchor)| {
            let indent = "  ".repeat(level - 2);
            format!("{indent}* [{title}](#{anchor})")
        })
        .collect();
    let listed: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "**Contents**")
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(
        listed,
        expected,
        "README.md's contents (after **Contents**) must list its sections; expected:\n{}",
        expected.join("\n")
    );
}

/// The targets of a file's Markdown links: `[text](target)`.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

fn anchors_of(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("read document");
    headings(&text).into_iter().map(|(.., a)| a).collect()
}

#[test]
fn links_between_the_documents_reach_their_files_and_headings() {
    let mut broken = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("read document");
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = match file {
                "" => doc.clone(),
                f => doc.parent().expect("a directory").join(f),
            };
            let name = doc.strip_prefix(root()).unwrap_or(&doc).display();
            if !path.exists() {
                broken.push(format!("{name}: {target}: no such file"));
                continue;
            }
            let is_md = path.extension().is_some_and(|e| e == "md");
            if let (Some(anchor), true) = (anchor, is_md) {
                if !anchors_of(&path).iter().any(|a| a == anchor) {
                    broken.push(format!("{name}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    let text = "# T\n## What `ior` supports\n```\n## not a heading\n```\n\
                ## Scaling sweeps (`-O sweep=...`)\n### Interrupted\n### Interrupted\n\
                ## AIO: requests in flight (io_uring)\n";
    let anchors: Vec<String> = headings(text).into_iter().map(|(.., a)| a).collect();
    assert_eq!(
        anchors,
        [
            "t",
            "what-ior-supports",
            "scaling-sweeps--o-sweep",
            "interrupted",
            "interrupted-1",
            "aio-requests-in-flight-io_uring"
        ]
    );
}
