//! One open HDF5 test file: its datasets, one per segment, and the
//! transfers as hyperslabs of them. Files, datasets and property lists come
//! from the `hdf5-metno` bindings; the transfers, which need a hyperslab
//! selection and an MPI-IO transfer property list that the bindings' writer
//! does not take, call `hdf5-metno-sys` directly: this is the FFI edge, and
//! every call holds the bindings' process-wide lock.

use std::ffi::c_void;
use std::io;
use std::path::Path;
use std::ptr;

use hdf5_metno as h5;
use hdf5_metno::plist::dataset_create::FillTime;
use hdf5_metno_sys::h5::herr_t;
use hdf5_metno_sys::h5d::{H5Dread, H5Dwrite};
use hdf5_metno_sys::h5f::H5Fget_vfd_handle;
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5p::{H5FD_mpio_xfer_t, H5Pclose, H5Pcreate, H5Pset_dxpl_mpio, H5P_DEFAULT};
use hdf5_metno_sys::h5s::{H5S_seloper_t, H5Sselect_all, H5Sselect_hyperslab, H5Sselect_none};
use hdf5_metno_sys::LOCK;
use mpi::ffi::{MPI_Comm, MPI_File};

use super::super::mpiio::{file_hints, Info};
use super::super::{Access, File};
use super::{failed, named};

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
    element: h5::Datatype,
    xfer: TransferList,
    /// The memory dataspace of the last transfer's length, in elements.
    memory: Option<(u64, h5::Dataspace)>,
    current: Option<Current>,
    /// Dropped last: the datasets above close first.
    file: Option<h5::File>,
}

/// Turns an HDF5 return code into an `io::Error` naming the call and the
/// cause at the top of HDF5's error stack (never printed by HDF5 itself).
fn check(code: herr_t, call: &str) -> io::Result<()> {
    if code >= 0 {
        return Ok(());
    }
    let cause = h5::Error::query().map_or_else(|e| e.to_string(), |e| e.to_string());
    Err(named(call, cause))
}

/// A dataset transfer property list: MPI-IO independent or collective.
struct TransferList(hid_t);

impl TransferList {
    fn new(mpi: bool, collective: bool) -> io::Result<TransferList> {
        let class = *h5::globals::H5P_DATASET_XFER;
        let _lock = LOCK.lock();
        // SAFETY: creates a property list of a class the library opened.
        let id = unsafe { H5Pcreate(class) };
        check(id as herr_t, "H5Pcreate")?;
        let list = TransferList(id);
        if mpi {
            let mode = match collective {
                true => H5FD_mpio_xfer_t::H5FD_MPIO_COLLECTIVE,
                false => H5FD_mpio_xfer_t::H5FD_MPIO_INDEPENDENT,
            };
            // SAFETY: `id` is the live transfer list created above.
            check(unsafe { H5Pset_dxpl_mpio(id, mode) }, "H5Pset_dxpl_mpio")?;
        }
        Ok(list)
    }
}

impl Drop for TransferList {
    fn drop(&mut self) {
        let _lock = LOCK.lock();
        // SAFETY: the list was created by H5Pcreate and is closed once.
        unsafe { H5Pclose(self.0) };
    }
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
            fapl.mpio(comm, Some(info.0));
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
        let element = h5::Datatype::from_type::<i64>().map_err(|e| failed("H5Tcopy", e))?;
        Ok(H5File {
            access,
            segment: setup.segment,
            chunk: setup.chunk,
            no_fill: setup.no_fill,
            in_step: setup.in_step,
            collective_xfer: setup.collective,
            mpi: setup.comm.is_some(),
            element,
            xfer: TransferList::new(setup.comm.is_some(), setup.collective)?,
            memory: None,
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

    /// The memory dataspace of `elements` elements, made once per length.
    fn memory_space(&mut self, elements: u64) -> io::Result<hid_t> {
        if self.memory.as_ref().map(|m| m.0) != Some(elements) {
            let space =
                h5::Dataspace::try_new(elements as usize).map_err(|e| failed("H5Screate", e))?;
            self.memory = Some((elements, space));
        }
        Ok(self.memory.as_ref().map_or(0, |m| m.1.id()))
    }

    /// One transfer of `len` bytes at `buf` (read into or written from).
    fn transfer(&mut self, buf: *mut c_void, len: usize, offset: u64) -> io::Result<usize> {
        if len % 8 != 0 || offset % 8 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "HDF5 transfers whole 8-byte elements",
            ));
        }
        let start = self.locate(offset)?;
        let count = len as u64 / 8;
        let memory = self.memory_space(count)?;
        let Some(current) = self.current.as_ref() else {
            return Err(io::Error::other("no dataset is open"));
        };
        let (dataset, space) = (current.dataset.id(), current.space.id());
        let one = 1u64;
        let _lock = LOCK.lock();
        // SAFETY: `space` is the live dataspace of the open dataset; start,
        // count and block point to one hsize_t each for its one dimension.
        check(
            unsafe {
                H5Sselect_hyperslab(
                    space,
                    H5S_seloper_t::H5S_SELECT_SET,
                    &start,
                    ptr::null(),
                    &one,
                    &count,
                )
            },
            "H5Sselect_hyperslab",
        )?;
        let element = self.element.id();
        // SAFETY: `buf` holds `len` bytes = `count` native 64-bit elements,
        // owned by the caller for the call; the memory space has exactly
        // `count` elements; the ids are live. Collective transfers are made
        // by every task the same number of times (see File::collective).
        let code = unsafe {
            match self.access {
                Access::Write => H5Dwrite(dataset, element, memory, space, self.xfer.0, buf),
                Access::Read => H5Dread(dataset, element, memory, space, self.xfer.0, buf),
            }
        };
        let call = match self.access {
            Access::Write => "H5Dwrite",
            Access::Read => "H5Dread",
        };
        check(code, call)?;
        Ok(len)
    }

    /// A collective transfer of nothing on the current dataset.
    fn transfer_nothing(&mut self) -> io::Result<()> {
        let memory = self.memory_space(1)?;
        let Some(current) = self.current.as_ref() else {
            return Ok(());
        };
        let (dataset, space, element) =
            (current.dataset.id(), current.space.id(), self.element.id());
        let _lock = LOCK.lock();
        let mut nothing = 0i64;
        let buf = (&mut nothing as *mut i64).cast::<c_void>();
        // SAFETY: both selections are emptied, so no element of `buf` is
        // touched; the ids are live. The memory space is selected whole
        // again afterwards for the next transfer.
        let code = unsafe {
            check(H5Sselect_none(space), "H5Sselect_none")?;
            check(H5Sselect_none(memory), "H5Sselect_none")?;
            let code = match self.access {
                Access::Write => H5Dwrite(dataset, element, memory, space, self.xfer.0, buf),
                Access::Read => H5Dread(dataset, element, memory, space, self.xfer.0, buf),
            };
            H5Sselect_all(memory);
            code
        };
        check(code, "H5Dwrite/H5Dread (skipped transfer)")
    }

    /// The hints of the MPI-IO file beneath (`None` without MPI).
    pub fn mpi_hints(&self) -> io::Result<Option<Vec<(String, String)>>> {
        if !self.mpi {
            return Ok(None);
        }
        let file = self.file()?;
        let mut handle: *mut c_void = ptr::null_mut();
        {
            let _lock = LOCK.lock();
            // SAFETY: the file is live; HDF5 stores a pointer to its
            // MPI_File handle in `handle`. The default access list: the
            // file's own would duplicate its communicator, a collective call
            // that only rank 0 makes here.
            check(
                unsafe { H5Fget_vfd_handle(file.id(), H5P_DEFAULT, &mut handle) },
                "H5Fget_vfd_handle",
            )?;
        }
        // SAFETY: the MPI-IO driver's handle is an MPI_File, valid while the
        // file is open.
        let mpi_file = unsafe { *handle.cast::<MPI_File>() };
        file_hints(mpi_file).map(Some)
    }
}

impl File for H5File {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        // H5Dwrite takes a const pointer; the cast only fits the helper.
        self.transfer(buf.as_ptr() as *mut c_void, buf.len(), offset)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.transfer(buf.as_mut_ptr().cast(), buf.len(), offset)
    }

    /// `H5Fflush` (local scope): under MPI-IO it ends in `MPI_File_sync`.
    fn sync(&mut self) -> io::Result<()> {
        self.file()?.flush().map_err(|e| failed("H5Fflush", e))
    }

    fn close(mut self: Box<Self>) -> io::Result<()> {
        self.current = None;
        self.memory = None;
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
