//! The backends a cargo feature adds: MPI-IO (`mpi`) and HDF5 (`hdf5`).
//! Their typed options and tables are plain data, in every build, so that
//! the tools' grammars, their help and the generated reference (man
//! pages, options chapter, completions) list them in every build, marked
//! as needing theirs; only the implementations ([`super::mpiio`],
//! [`super::hdf5`]) need the features.

use super::config::{Capabilities, Config, Module, Typed, HDF5_CAPABILITIES, MPIIO_CAPABILITIES};
use crate::options::{long_flag, long_value, on, parsed, shown, some, OptSpec};
use crate::units::parse_size;

/// A backend a cargo feature adds.
pub struct Featured {
    pub name: &'static str,
    /// The cargo feature that builds it.
    pub feature: &'static str,
    /// Why a build without it cannot run it.
    pub why: &'static str,
    pub capabilities: Capabilities,
    /// Its table (configuring through it is refused: [`unbuilt`]).
    pub options: &'static dyn Module,
}

/// The backends a cargo feature adds, in the reference's order.
pub const FEATURED: &[Featured] = &[
    Featured {
        name: "MPIIO",
        feature: "mpi",
        why: "needs MPI: rebuild pario with '--features mpi'",
        capabilities: MPIIO_CAPABILITIES,
        options: &Typed {
            table: mpiio_options,
            configure: unbuilt,
        },
    },
    Featured {
        name: "HDF5",
        feature: "hdf5",
        why: "needs parallel HDF5: rebuild pario with '--features hdf5' \
              (Debian: libhdf5-openmpi-dev)",
        capabilities: HDF5_CAPABILITIES,
        options: &Typed {
            table: hdf5_options,
            configure: unbuilt,
        },
    },
];

/// The table alone configures nothing: a build with the feature has the
/// backend's own `configure` in its registry entry.
fn unbuilt<O>(_: O) -> Result<Box<dyn Config>, String> {
    Err("this backend is not in this build".into())
}

/// MPI-IO's options.
#[derive(Debug, Clone, Default)]
pub struct MpiioOptions {
    pub show_hints: bool,
    pub preallocate: bool,
    pub use_file_view: bool,
    /// `--mpiio.hintsFileName`: lines `IOR_HINT__MPI__key=value`.
    pub hints_file: Option<String>,
}

/// MPI-IO's table.
pub fn mpiio_options() -> Vec<OptSpec<MpiioOptions>> {
    vec![
        long_flag(
            &["mpiio.showHints"],
            "Show MPI hints",
            on(|o| &mut o.show_hints),
        ),
        long_flag(
            &["mpiio.preallocate"],
            "Preallocate file size",
            on(|o| &mut o.preallocate),
        ),
        long_flag(
            &["mpiio.useFileView"],
            "Use MPI_File_set_view",
            on(|o| &mut o.use_file_view),
        ),
        long_value(
            &["mpiio.hintsFileName"],
            "Full name for hints file",
            shown("STRING", some(|o| &mut o.hints_file, |v| Ok(v.to_string()))),
        ),
    ]
}

/// HDF5's options.
#[derive(Debug, Clone)]
pub struct Hdf5Options {
    /// `--hdf5.hintsFileName`: MPI hints, as MPI-IO's.
    pub hints_file: Option<String>,
    pub show_hints: bool,
    pub collective_metadata: bool,
    /// Refused, as by IOR.
    pub individual_data_sets: bool,
    /// Bytes; 1: none.
    pub set_alignment: u64,
    pub no_fill: bool,
    /// Elements per chunk; 0: contiguous datasets.
    pub chunk_size: u64,
}

impl Default for Hdf5Options {
    fn default() -> Self {
        Hdf5Options {
            hints_file: None,
            show_hints: false,
            collective_metadata: false,
            individual_data_sets: false,
            set_alignment: 1,
            no_fill: false,
            chunk_size: 0,
        }
    }
}

/// `--hdf5.setAlignment`: a size of at least one byte.
fn alignment(value: &str) -> Result<u64, String> {
    match parse_size(value)? {
        0 => Err("the alignment must be at least 1 byte".into()),
        n => Ok(n),
    }
}

/// HDF5's table.
pub fn hdf5_options() -> Vec<OptSpec<Hdf5Options>> {
    vec![
        long_value(
            &["hdf5.hintsFileName"],
            "Full name for hints file",
            shown("STRING", some(|o| &mut o.hints_file, |v| Ok(v.to_string()))),
        ),
        long_flag(&["hdf5.showHints"], "Show hints", on(|o| &mut o.show_hints)),
        long_flag(
            &["hdf5.collectiveMetadata"],
            "Use collectiveMetadata (available since HDF5-1.10.0)",
            on(|o| &mut o.collective_metadata),
        ),
        long_flag(
            &["hdf5.individualDataSets"],
            "Datasets not shared by all procs [not working] (refused, as by IOR)",
            on(|o| &mut o.individual_data_sets),
        ),
        long_value(
            &["hdf5.setAlignment"],
            "HDF5 alignment in bytes (e.g.: 8, 4k, 2m, 1g)",
            parsed(|o| &mut o.set_alignment, alignment),
        ),
        long_flag(
            &["hdf5.noFill"],
            "No fill in HDF5 file creation",
            on(|o| &mut o.no_fill),
        ),
        long_value(
            &["hdf5.chunkSize"],
            "Chunk size in elements (0: contiguous datasets)",
            parsed(|o| &mut o.chunk_size, parse_size),
        ),
    ]
}
