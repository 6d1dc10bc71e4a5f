//! One open HDF5 test file: its datasets, one per segment, and the
//! transfers as hyperslabs of them. Files, datasets and property lists come
//! from the `hdf5-metno` bindings; the transfers, which need a hyperslab
//! selection and an MPI-IO transfer property list that the bindings' writer
//! does not take, go through the raw calls of [`super::ffi`], the edge.

use std::io;
use std::path::Path;

use hdf5_metno as h5;
use hdf5_metno::plist::dataset_create::FillTime;

use super::super::mpiio::ffi::{Info, MPI_Comm};
use super::super::{Access, File};
use super::failed;
use super::ffi::{mpi_file_hints, Transfers};

/// How to open a file (from the backend's options and the open's spec).
pub(super) struct Setup<'a> {
    /// The MPI-IO driver's communicator; `None`: HDF5's POSIX driver.
    pub comm: Option<MPI_Comm>,
    pub hints: &'a [(String, String)],
    pub alignment: u64,
    pub collective_metadata: bool,
    pub chunk: u64,
    pub no_fill: bool,
    /// Bytes per segment, so per dataset.
    pub segment: u64,
    /// Collective transfers (`-c`).
    pub collective: bool,
    /// Every task makes the same calls on this file (a shared file under MPI).
    pub in_step: bool,
}

/// The dataset of the segment being transferred, and its file dataspace.
struct Current {
    index: u64,
    space: h5::Dataspace,
    dataset: h5::Dataset,
}

pub(super) struct H5File {
    access: Access,
    segment: u64,
    chunk: u64,
    no_fill: bool,
    in_step: bool,
    collective_xfer: bool,
    mpi: bool,
    io: Transfers,
    current: Option<Current>,
    /// Dropped last: the datasets above close first.
    file: Option<h5::File>,
}

/// The name of segment `index`'s dataset, as IOR names it.
pub fn dataset_name(index: u64) -> String {
    format!("Dataset-0000.{index:04}")
}

impl H5File {
    /// Creates (truncating) a file for writing or opens one read-only.
    pub fn open(path: &Path, access: Access, setup: Setup<'_>) -> io::Result<H5File> {
        // MPI-IO cannot find the file system of a bare relative name.
        let path = std::path::absolute(path)?;
        let info = match setup.comm {
            Some(_) => Some(Info::new(setup.hints)?),
            None => None,
        };
        let mut builder = h5::File::with_options();
        let fapl = builder.fapl();
        if let (Some(comm), Some(info)) = (setup.comm, &info) {
            fapl.mpio(comm, Some(info.raw()));
            if setup.collective_metadata {
                fapl.all_coll_metadata_ops(true).coll_metadata_write(true);
            }
        }
        if setup.alignment > 1 {
            fapl.alignment(setup.alignment, setup.alignment);
        }
        let file = match access {
            Access::Write => builder.create(&path).map_err(|e| failed("H5Fcreate", e))?,
            Access::Read => builder.open(&path).map_err(|e| failed("H5Fopen", e))?,
        };
        Ok(H5File {
            access,
            segment: setup.segment,
            chunk: setup.chunk,
            no_fill: setup.no_fill,
            in_step: setup.in_step,
            collective_xfer: setup.collective,
            mpi: setup.comm.is_some(),
            io: Transfers::new(setup.comm.is_some(), setup.collective)?,
            current: None,
            file: Some(file),
        })
    }

    fn file(&self) -> io::Result<&h5::File> {
        self.file
            .as_ref()
            .ok_or_else(|| io::Error::other("the HDF5 file is closed"))
    }

    /// Makes segment `index`'s dataset the current one: created by a write,
    /// opened by a read. The previous one is closed first.
    fn switch_to(&mut self, index: u64) -> io::Result<()> {
        self.current = None;
        let name = dataset_name(index);
        let file = self.file()?;
        let dataset = match self.access {
            Access::Write => {
                let mut builder = file
                    .new_dataset::<i64>()
                    .shape(self.segment as usize / 8)
                    // As H5Dcreate's defaults (the bindings turn it off).
                    .obj_track_times(true);
                if self.chunk > 0 {
                    builder = builder.chunk(self.chunk as usize);
                }
                // IFSET is H5Pcreate's default and IOR's; the bindings
                // would make chunked datasets ALLOC.
                let fill_time = match self.no_fill {
                    true => FillTime::Never,
                    false => FillTime::IfSet,
                };
                builder = builder.fill_time(fill_time);
                builder
                    .create(name.as_str())
                    .map_err(|e| failed("H5Dcreate", e))
            }
            Access::Read => file.dataset(&name).map_err(|e| failed("H5Dopen", e)),
        }
        .map_err(|e| io::Error::new(e.kind(), format!("dataset {name}: {e}")))?;
        let space = dataset.space().map_err(|e| failed("H5Dget_space", e))?;
        self.current = Some(Current {
            index,
            space,
            dataset,
        });
        Ok(())
    }

    /// The dataset holding `offset`; returns the offset's first element.
    fn locate(&mut self, offset: u64) -> io::Result<u64> {
        let index = offset / self.segment;
        if self.current.as_ref().map(|c| c.index) != Some(index) {
            self.switch_to(index)?;
        }
        Ok((offset % self.segment) / 8)
    }

    /// One transfer of `buf` at `offset`: a hyperslab of the dataset of
    /// the segment holding `offset`.
    fn write(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        let start = self.start_of(buf.len(), offset)?;
        let Some(current) = self.current.as_ref() else {
            return Err(io::Error::other("no dataset is open"));
        };
        self.io
            .write(&current.dataset, &current.space, start, buf)?;
        Ok(buf.len())
    }

    /// As `write`, reading into `buf`.
    fn read(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let start = self.start_of(buf.len(), offset)?;
        let Some(current) = self.current.as_ref() else {
            return Err(io::Error::other("no dataset is open"));
        };
        self.io.read(&current.dataset, &current.space, start, buf)?;
        Ok(buf.len())
    }

    /// The first element of a transfer of `len` bytes at `offset`, its
    /// dataset made the current one.
    fn start_of(&mut self, len: usize, offset: u64) -> io::Result<u64> {
        if len % 8 != 0 || offset % 8 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "HDF5 transfers whole 8-byte elements",
            ));
        }
        self.locate(offset)
    }

    /// A collective transfer of nothing on the current dataset.
    fn transfer_nothing(&mut self) -> io::Result<()> {
        let Some(current) = self.current.as_ref() else {
            return Ok(());
        };
        self.io
            .nothing(self.access, &current.dataset, &current.space)
    }

    /// The hints of the MPI-IO file beneath (`None` without MPI).
    pub fn mpi_hints(&self) -> io::Result<Option<Vec<(String, String)>>> {
        if !self.mpi {
            return Ok(None);
        }
        mpi_file_hints(self.file()?).map(Some)
    }
}

impl File for H5File {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        self.write(buf, offset)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.read(buf, offset)
    }

    /// `H5Fflush` (local scope): under MPI-IO it ends in `MPI_File_sync`.
    fn sync(&mut self) -> io::Result<()> {
        self.file()?.flush().map_err(|e| failed("H5Fflush", e))
    }

    fn close(mut self: Box<Self>) -> io::Result<()> {
        self.current = None;
        self.io.release();
        match self.file.take() {
            Some(file) => file.close().map_err(|e| failed("H5Fclose", e)),
            None => Ok(()),
        }
    }

    fn collective(&self) -> bool {
        self.in_step
    }

    fn skip(&mut self, offset: u64) -> io::Result<()> {
        // Keep the datasets in step with the other tasks', and with -c the
        // count of collective transfers.
        self.locate(offset)?;
        if self.collective_xfer {
            self.transfer_nothing()?;
        }
        Ok(())
    }
}
