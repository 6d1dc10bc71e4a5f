//! Documents: a tool's whole report, serialised at the end of a run. JSON is
//! the report as serde writes it; CSV is the report's table of rows.

use std::io::{self, Write};

use serde::Serialize;

use super::format::Format;

/// A table of rows: a header of column names and one row of cells per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub columns: &'static [&'static str],
    pub rows: Vec<Vec<String>>,
}

/// A report every document format can be made from.
pub trait Document: Serialize {
    /// pario's CSV table of the report (`pario-CSV`).
    fn table(&self) -> Table;
    /// The table `CSV` names: the original tool's own layout where it has
    /// one, else pario's.
    fn tool_table(&self) -> Table {
        self.table()
    }
}

/// Writes `doc` in `format`.
pub fn write(format: Format, doc: &impl Document, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, doc)?;
            writeln!(out)?;
        }
        Format::Csv => out.write_all(csv(&doc.tool_table()).as_bytes())?,
        Format::ParioCsv => out.write_all(csv(&doc.table()).as_bytes())?,
    }
    out.flush()
}

/// The CSV text of a table (RFC 4180 quoting where needed).
pub fn csv(table: &Table) -> String {
    let mut text = table.columns.join(",");
    text.push('\n');
    for row in &table.rows {
        let cells: Vec<String> = row.iter().map(|c| field(c)).collect();
        text.push_str(&cells.join(","));
        text.push('\n');
    }
    text
}

/// Quotes a field when it needs it.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        let table = Table {
            columns: &["a", "b"],
            rows: vec![vec!["1".into(), "x,\"y\"".into()]],
        };
        assert_eq!(csv(&table), "a,b\n1,\"x,\"\"y\"\"\"\n");
    }
}
