//! The choice of outputs every tool shares: `summaryFormat` (the documents)
//! and `summaryFile` (where they go), and what follows from it for the text.

use std::fs::File;
use std::io::{self, Write};

use serde::Serialize;

use crate::console::TaskLines;
use crate::options::{self, Field, OptSpec};

/// A machine-readable document (`-O summaryFormat=`). The tool's text is
/// not one of them: it is always written, to stdout unless a document
/// takes stdout's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Format {
    Json,
    /// The original tool's own CSV layout where it has one (IOR's), so that
    /// scripts written for it keep working.
    Csv,
    /// pario's fuller table (`pario-CSV`).
    ParioCsv,
}

impl Format {
    /// Every format with its name in `summaryFormat` (any case).
    pub const ALL: [(Format, &'static str); 3] = [
        (Format::Json, "JSON"),
        (Format::Csv, "CSV"),
        (Format::ParioCsv, "pario-CSV"),
    ];

    /// `default|JSON|CSV|pario-CSV`: the values `summaryFormat` takes.
    pub fn choices(separator: &str) -> String {
        let names: Vec<&str> = Self::ALL.iter().map(|(_, n)| *n).collect();
        format!("default{separator}{}", names.join(separator))
    }

    /// The file name extension of the format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Csv => "csv",
            Format::ParioCsv => "pario.csv",
        }
    }
}

/// `summaryFormat` and `summaryFile`, as given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The documents asked for, in the order given (none: the text only).
    pub formats: Vec<Format>,
    /// `summaryFile`: where the document goes (several documents: one file
    /// each, named after it); without a document, the text goes there.
    pub file: Option<String>,
}

impl Summary {
    /// Sets the formats from `default`, `JSON`, `CSV` or a list of them
    /// (`JSON,CSV`), in any case.
    pub fn set_formats(&mut self, text: &str) -> Result<(), String> {
        let mut formats = Vec::new();
        for word in text.split(',').map(str::trim) {
            if word.eq_ignore_ascii_case("default") {
                continue;
            }
            let Some(&(format, _)) = Format::ALL
                .iter()
                .find(|(_, name)| name.eq_ignore_ascii_case(word))
            else {
                let names: Vec<&str> = Format::ALL.iter().map(|(_, n)| *n).collect();
                let (last, rest) = names.split_last().expect("formats");
                let rest = rest.join(", ");
                return Err(format!(
                    "unknown summary format (use default, {rest} or {last})"
                ));
            };
            if !formats.contains(&format) {
                formats.push(format);
            }
        }
        self.formats = formats;
        Ok(())
    }

    /// Whether stdout carries a document (one asked for without a summary
    /// file): the text then gives way, and only its log lines are written,
    /// on stderr, so that stdout stays parseable.
    pub fn document_on_stdout(&self) -> bool {
        !self.formats.is_empty() && self.file.is_none()
    }

    /// Where a task's own lines go in such a run.
    pub fn task_lines(&self) -> TaskLines {
        TaskLines::new(!self.document_on_stdout())
    }

    /// The file that takes the text (`summaryFile` without a format, as IOR).
    pub fn text_file(&self) -> Option<&str> {
        self.file.as_deref().filter(|_| self.formats.is_empty())
    }

    /// The `summaryFormat` and `summaryFile` options of every tool, on the
    /// summary `get` finds; `directive`: documented as `-O name=value` (ior)
    /// rather than `--name=value`.
    pub fn options<T: 'static>(
        get: fn(&mut T) -> &mut Summary,
        directive: bool,
    ) -> [OptSpec<T>; 2] {
        let declare = if directive {
            options::directive
        } else {
            options::long_value
        };
        let formats = Format::choices("|");
        let format = declare(
            &["summaryFormat"],
            format!("-- write the results as a document instead of (or, with summaryFile, besides) the text [{formats}]; a list writes several, one file each (CSV: the original tool's columns; pario-CSV: pario's fuller table)"),
            options::shown(
                "default",
                Field::boxed(move |t: &mut T, s| get(t).set_formats(s.value())),
            ),
        );
        let file = declare(
            &["summaryFile"],
            "-- write the document to this file (several: one file each, by extension); without a document, the text goes there".to_string(),
            options::shown(
                "FILE",
                Field::boxed(move |t: &mut T, s| {
                    get(t).file = Some(options::non_empty(s.value(), "summary file name")?);
                    Ok(())
                }),
            ),
        );
        [options::listed(format), file]
    }

    /// The checks that do not depend on the tool.
    pub fn check(&self) -> Result<(), String> {
        if self.formats.len() > 1 && self.file.is_none() {
            return Err(
                "several summary formats need a summary file: each document is written \
                 to that name with its own extension"
                    .into(),
            );
        }
        Ok(())
    }

    /// Where each document goes: the summary file (one document), a file
    /// per document named after it (several), or stdout.
    pub fn targets(&self) -> Vec<(Format, Option<String>)> {
        let several = self.formats.len() > 1;
        self.formats
            .iter()
            .map(|&f| {
                let path = self.file.as_deref().map(|p| match several {
                    true => named_for(p, f),
                    false => p.to_string(),
                });
                (f, path)
            })
            .collect()
    }
}

/// `out` → `out.json`; `out.csv` → `out.json` (an extension naming a format
/// is replaced).
fn named_for(path: &str, format: Format) -> String {
    let lower = path.to_ascii_lowercase();
    let stem = [".pario.csv", ".json", ".csv"]
        .iter()
        .find(|ext| lower.ends_with(*ext) && lower.len() > ext.len())
        .map_or(path, |ext| &path[..path.len() - ext.len()]);
    format!("{stem}.{}", format.extension())
}

/// A file (created, or truncated) or stdout.
pub fn open_target(path: Option<&str>) -> io::Result<Box<dyn Write + Send>> {
    Ok(match path {
        Some(p) => Box::new(
            File::create(p)
                .map_err(|e| io::Error::new(e.kind(), format!("cannot create {p}: {e}")))?,
        ),
        None => Box::new(io::stdout()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(formats: &str, file: Option<&str>) -> Summary {
        let mut s = Summary {
            file: file.map(str::to_string),
            ..Default::default()
        };
        s.set_formats(formats).unwrap();
        s
    }

    #[test]
    fn formats_in_any_case_and_as_lists() {
        assert_eq!(summary("JSON", None).formats, [Format::Json]);
        assert_eq!(summary(" csv ", None).formats, [Format::Csv]);
        assert!(summary("Default", None).formats.is_empty());
        assert_eq!(
            summary("json,CSV,json", None).formats,
            [Format::Json, Format::Csv]
        );
        let e = Summary::default().set_formats("xml").unwrap_err();
        assert!(e.contains("use default, JSON, CSV or pario-CSV"), "{e}");
        assert_eq!(summary("pario-csv", None).formats, [Format::ParioCsv]);
    }

    #[test]
    fn where_the_text_and_the_documents_go() {
        let text = summary("default", None);
        assert!(!text.document_on_stdout() && text.targets().is_empty());
        let json = summary("JSON", None);
        assert!(json.document_on_stdout());
        assert_eq!(json.task_lines(), TaskLines::Stderr);
        assert_eq!(json.targets(), [(Format::Json, None)]);
        let to_file = summary("JSON", Some("r.json"));
        assert!(!to_file.document_on_stdout());
        assert_eq!(to_file.targets(), [(Format::Json, Some("r.json".into()))]);
        let text_file = summary("default", Some("out.txt"));
        assert!(!text_file.document_on_stdout());
        assert_eq!(text_file.text_file(), Some("out.txt"));
        assert_eq!(text_file.task_lines(), TaskLines::Stdout);
    }

    #[test]
    fn several_documents_get_a_file_each() {
        assert!(summary("JSON,CSV", None).check().is_err());
        let both = summary("JSON,CSV", Some("run.json"));
        assert!(both.check().is_ok());
        assert_eq!(
            both.targets(),
            [
                (Format::Json, Some("run.json".into())),
                (Format::Csv, Some("run.csv".into()))
            ]
        );
        assert_eq!(named_for("dir.v2/out", Format::Csv), "dir.v2/out.csv");
        assert_eq!(named_for("r.csv", Format::ParioCsv), "r.pario.csv");
        assert_eq!(named_for("r.pario.csv", Format::Json), "r.json");
    }
}
