//! What a DLIO run tells its outputs: DLIO's own `[OUTPUT]` lines (stamped
//! as DLIO stamps them, `%Y-%m-%dT%H:%M:%S.%f` local time), to the text and
//! to `dlio.log`, and pario's summary of each workflow, to the text.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use super::checkpoint::report::CheckpointReport;
use super::checkpoint::text as checkpoint_text;
use super::generate::GenerationReport;
use super::options::ParioOptions;
use super::train::report::TrainReport;
use super::Dlio;
use crate::output::{LogSink, NotesOnly, TextSink};

/// DLIO's time stamp.
pub fn utcnow() -> String {
    chrono::Local::now()
        .format("%Y-%m-%dT%H:%M:%S%.6f")
        .to_string()
}

/// The events of a run (rank 0).
pub trait DlioSink: LogSink {
    /// One of DLIO's `[OUTPUT]` messages.
    fn output(&mut self, _message: &str) -> io::Result<()> {
        Ok(())
    }
    /// The run starts: DLIO's first line, and the settings pario follows.
    fn started(&mut self, mode: &str, ranks: usize, _options: &ParioOptions) -> io::Result<()> {
        self.output(&format!("Running DLIO [{mode}] with {ranks} process(es)"))
    }
    /// The dataset is written.
    fn generated(&mut self, _done: &GenerationReport) -> io::Result<()> {
        Ok(())
    }
    /// One of DLIO's warnings (`[WARNING] message`).
    fn warning(&mut self, _message: &str) -> io::Result<()> {
        Ok(())
    }
    /// Lines DLIO writes as they are (the `[METRIC]` block).
    fn verbatim(&mut self, _text: &str) -> io::Result<()> {
        Ok(())
    }
    /// Training is over: pario's summary of it.
    fn trained(&mut self, _report: &TrainReport) -> io::Result<()> {
        Ok(())
    }
    /// The checkpoint-only workflow is over: pario's lines about it.
    fn checkpointed(&mut self, _report: &CheckpointReport) -> io::Result<()> {
        Ok(())
    }
}

impl DlioSink for NotesOnly {}

/// The text: DLIO's lines and pario's.
pub type DlioText = TextSink<Dlio>;

impl DlioSink for TextSink<Dlio> {
    fn output(&mut self, message: &str) -> io::Result<()> {
        self.emit(&format!("[OUTPUT] {} {message}\n", utcnow()))
    }

    fn started(&mut self, mode: &str, ranks: usize, options: &ParioOptions) -> io::Result<()> {
        self.output(&format!("Running DLIO [{mode}] with {ranks} process(es)"))?;
        self.emit(&format!("pario: {}\n", options.describe()))
    }

    fn warning(&mut self, message: &str) -> io::Result<()> {
        self.emit(&format!("[WARNING] {message}\n"))
    }

    fn verbatim(&mut self, text: &str) -> io::Result<()> {
        self.emit(text)
    }

    fn trained(&mut self, report: &TrainReport) -> io::Result<()> {
        self.emit(&super::train::text::summary(report))
    }

    fn checkpointed(&mut self, report: &CheckpointReport) -> io::Result<()> {
        self.emit(&checkpoint_text::pario_lines(report))
    }

    fn generated(&mut self, g: &GenerationReport) -> io::Result<()> {
        self.emit(&format!(
            "pario: generated {} {} files ({} bytes, content {}) in {}: {:.3} s, {:.2} MiB/s\n",
            g.files, g.format, g.bytes, g.content, g.data_folder, g.seconds, g.mib_per_second
        ))
    }
}

/// `dlio.log` in the output folder: DLIO's lines, `[OUTPUT] ...`.
pub struct DlioLog {
    file: File,
}

impl DlioLog {
    /// Starts the log afresh (DLIO's rank 0 deletes the old one).
    pub fn create(path: &Path) -> io::Result<DlioLog> {
        Ok(DlioLog {
            file: File::create(path)?,
        })
    }
}

impl LogSink for DlioLog {}

impl DlioSink for DlioLog {
    fn output(&mut self, message: &str) -> io::Result<()> {
        writeln!(self.file, "[OUTPUT] {} {message}", utcnow())
    }

    fn warning(&mut self, message: &str) -> io::Result<()> {
        writeln!(self.file, "[WARNING] {message}")
    }

    fn verbatim(&mut self, text: &str) -> io::Result<()> {
        self.file.write_all(text.as_bytes())
    }
}
