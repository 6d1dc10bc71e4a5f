//! The HDF5 edge: the raw `hdf5-metno-sys` calls the bindings do not wrap
//! (a transfer of a hyperslab with an MPI-IO transfer list, the MPI file
//! beneath an HDF5 file), behind safe wrappers. Every call holds the
//! bindings' process-wide lock, as HDF5 is not thread-safe.
//!
//! Invariants, which make the `unsafe` below sound:
//! - the ids handed to HDF5 belong to live objects of the bindings, borrowed
//!   for the call (HDF5 checks an id's type and refuses a wrong one);
//! - a transfer's memory dataspace is made here, with exactly as many 8-byte
//!   elements as the Rust slice it moves holds, and the element type is the
//!   native 64-bit integer: HDF5 touches no byte outside the slice.

use std::ffi::c_void;
use std::io;
use std::ptr;

use hdf5_metno as h5;
use hdf5_metno_sys::h5::herr_t;
use hdf5_metno_sys::h5d::{H5Dread, H5Dwrite};
use hdf5_metno_sys::h5f::H5Fget_vfd_handle;
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5p::{H5FD_mpio_xfer_t, H5Pclose, H5Pcreate, H5Pset_dxpl_mpio, H5P_DEFAULT};
use hdf5_metno_sys::h5s::{H5S_seloper_t, H5Sselect_all, H5Sselect_hyperslab, H5Sselect_none};
use hdf5_metno_sys::LOCK;
use mpi::ffi::MPI_File;

use super::super::mpiio::ffi::hints_of;
use super::super::Access;
use super::{failed, named};

/// The bytes of one element (a native 64-bit integer).
const ELEMENT: usize = 8;

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

/// What a file's transfers share: the element type, the transfer list and
/// the memory dataspace of the last transfer's length.
pub(super) struct Transfers {
    element: h5::Datatype,
    xfer: TransferList,
    /// The memory dataspace of the last transfer's length, in elements.
    memory: Option<(u64, h5::Dataspace)>,
}

impl Transfers {
    /// Transfers through HDF5's MPI-IO driver (independent or
    /// `collective`) or, without `mpi`, its default driver.
    pub(super) fn new(mpi: bool, collective: bool) -> io::Result<Transfers> {
        let element = h5::Datatype::from_type::<i64>().map_err(|e| failed("H5Tcopy", e))?;
        Ok(Transfers {
            element,
            xfer: TransferList::new(mpi, collective)?,
            memory: None,
        })
    }

    /// Closes the memory dataspace (before the file is closed).
    pub(super) fn release(&mut self) {
        self.memory = None;
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

    /// The elements of `len` bytes, which must be whole elements.
    fn elements(len: usize) -> io::Result<u64> {
        match len % ELEMENT {
            0 => Ok((len / ELEMENT) as u64),
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "HDF5 transfers whole 8-byte elements",
            )),
        }
    }

    /// Selects `count` elements from `start` of `space`, the file dataspace
    /// of `dataset`, and returns the memory dataspace of `count` elements.
    fn select(&mut self, space: &h5::Dataspace, start: u64, count: u64) -> io::Result<hid_t> {
        let memory = self.memory_space(count)?;
        let one = 1u64;
        let _lock = LOCK.lock();
        check(
            // SAFETY: `space` is a live dataspace of one dimension; start,
            // count and block point to one hsize_t each.
            unsafe {
                H5Sselect_hyperslab(
                    space.id(),
                    H5S_seloper_t::H5S_SELECT_SET,
                    &start,
                    ptr::null(),
                    &one,
                    &count,
                )
            },
            "H5Sselect_hyperslab",
        )?;
        Ok(memory)
    }

    /// `H5Dwrite` of `buf` to the elements from `start` of `dataset`, whose
    /// file dataspace is `space`.
    pub(super) fn write(
        &mut self,
        dataset: &h5::Dataset,
        space: &h5::Dataspace,
        start: u64,
        buf: &[u8],
    ) -> io::Result<()> {
        // One lock over the selection and the transfer (it is reentrant).
        let _lock = LOCK.lock();
        let memory = self.select(space, start, Self::elements(buf.len())?)?;
        let (element, xfer) = (self.element.id(), self.xfer.0);
        let data = buf.as_ptr().cast::<c_void>();
        // SAFETY: `data` holds exactly the memory space's elements of
        // `element`'s 8 bytes, borrowed for the call; the ids are live.
        // Collective transfers are made by every task the same number of
        // times (see File::collective).
        let code = unsafe { H5Dwrite(dataset.id(), element, memory, space.id(), xfer, data) };
        check(code, "H5Dwrite")
    }

    /// `H5Dread` into `buf` from the elements from `start` of `dataset`,
    /// whose file dataspace is `space`.
    pub(super) fn read(
        &mut self,
        dataset: &h5::Dataset,
        space: &h5::Dataspace,
        start: u64,
        buf: &mut [u8],
    ) -> io::Result<()> {
        // One lock over the selection and the transfer (it is reentrant).
        let _lock = LOCK.lock();
        let memory = self.select(space, start, Self::elements(buf.len())?)?;
        let (element, xfer) = (self.element.id(), self.xfer.0);
        let data = buf.as_mut_ptr().cast::<c_void>();
        // SAFETY: `data` holds exactly the memory space's elements of
        // `element`'s 8 bytes, borrowed mutably for the call; the ids are
        // live. Collective as for `write`.
        let code = unsafe { H5Dread(dataset.id(), element, memory, space.id(), xfer, data) };
        check(code, "H5Dread")
    }

    /// A transfer of nothing on `dataset` (a collective one keeps the
    /// tasks' counts of collective transfers equal).
    pub(super) fn nothing(
        &mut self,
        access: Access,
        dataset: &h5::Dataset,
        space: &h5::Dataspace,
    ) -> io::Result<()> {
        let memory = self.memory_space(1)?;
        let (dataset, space, element, xfer) =
            (dataset.id(), space.id(), self.element.id(), self.xfer.0);
        let _lock = LOCK.lock();
        let mut nothing = 0i64;
        let buf = (&mut nothing as *mut i64).cast::<c_void>();
        // SAFETY: both selections are emptied, so no element of `buf` is
        // touched; the ids are live. The memory space is selected whole
        // again afterwards for the next transfer.
        let code = unsafe {
            check(H5Sselect_none(space), "H5Sselect_none")?;
            check(H5Sselect_none(memory), "H5Sselect_none")?;
            let code = match access {
                Access::Write => H5Dwrite(dataset, element, memory, space, xfer, buf),
                Access::Read => H5Dread(dataset, element, memory, space, xfer, buf),
            };
            H5Sselect_all(memory);
            code
        };
        check(code, "H5Dwrite/H5Dread (skipped transfer)")
    }
}

/// The hints of the MPI-IO file beneath `file`, which HDF5's MPI-IO
/// driver opened.
pub(super) fn mpi_file_hints(file: &h5::File) -> io::Result<Vec<(String, String)>> {
    let mut handle: *mut c_void = ptr::null_mut();
    {
        let _lock = LOCK.lock();
        check(
            // SAFETY: the file is live; HDF5 stores a pointer to its MPI_File
            // handle in `handle`. The default access list: the file's own would
            // duplicate its communicator, a collective call that only rank 0
            // makes here.
            unsafe { H5Fget_vfd_handle(file.id(), H5P_DEFAULT, &mut handle) },
            "H5Fget_vfd_handle",
        )?;
    }
    // SAFETY: the MPI-IO driver's handle points to an MPI_File, open while
    // `file` is, which it is for this call.
    unsafe { hints_of(*handle.cast::<MPI_File>()) }
}
