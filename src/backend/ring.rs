//! The io_uring edge: one ring per open file and the buffers whose
//! addresses the kernel holds while a request is in flight.
//!
//! Invariants, which make the `unsafe` below sound:
//! - a request names one slot's buffer, which is mapped memory that never
//!   moves (`AlignedBuffer` is an anonymous mapping) and is only handed out
//!   ([`Ring::buffer`]) while its slot is not in flight;
//! - the buffers are freed only when no request is in flight: [`Ring`]'s
//!   `Drop` waits for every completion first, and it is dropped before the
//!   file descriptor it writes to (the file owns the ring, declared first);
//! - the completion queue holds at least as many entries as requests may be
//!   in flight, so no completion is dropped.

use std::io;
use std::os::fd::RawFd;
use std::time::Instant;

use io_uring::{opcode, types, IoUring};

use super::Access;
use crate::buffer::{AlignedBuffer, PAGE};

/// The submission entry of a transfer on `$fd` (a descriptor or the
/// registered file), on a plain or a registered buffer.
macro_rules! transfer {
    ($fd:expr, $access:expr, $fixed:expr, $ptr:expr, $len:expr, $index:expr, $offset:expr) => {
        match ($access, $fixed) {
            (Access::Write, false) => opcode::Write::new($fd, $ptr, $len).offset($offset).build(),
            (Access::Read, false) => opcode::Read::new($fd, $ptr, $len).offset($offset).build(),
            (Access::Write, true) => opcode::WriteFixed::new($fd, $ptr, $len, $index)
                .offset($offset)
                .build(),
            (Access::Read, true) => opcode::ReadFixed::new($fd, $ptr, $len, $index)
                .offset($offset)
                .build(),
        }
    };
}

/// A finished request: its slot and the bytes moved or the error.
#[derive(Debug)]
pub struct Completion {
    pub slot: usize,
    pub result: io::Result<usize>,
    /// When the request finished, for a queue that collects completions
    /// later than that; `None`: when it is collected.
    pub finished: Option<Instant>,
    /// When the request was sent, for a queue that holds submissions
    /// before sending them; `None`: when it was submitted.
    pub started: Option<Instant>,
}

/// What io_uring adds beyond a queue (`--aio.*` options).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extras {
    /// Register the slots' buffers once (pinned) and use fixed transfers.
    pub fixed_buffers: bool,
    /// Register the file once instead of looking its descriptor up per
    /// request.
    pub fixed_file: bool,
    /// A kernel thread polls the submission queue; idle after this many ms.
    pub sqpoll_ms: Option<u32>,
    /// Busy-poll for completions (O_DIRECT on a device with poll queues).
    pub iopoll: bool,
}

/// A ring with `depth` slots for requests in flight on one file.
pub struct Ring {
    ring: IoUring,
    fd: RawFd,
    extras: Extras,
    slots: Vec<AlignedBuffer>,
    busy: Vec<bool>,
    in_flight: usize,
    /// Requests pushed but not yet submitted, and the batch size.
    queued: usize,
    granularity: usize,
}

/// Whether io_uring can be used here: one line naming why not.
pub fn probe() -> Result<(), String> {
    IoUring::new(8).map(|_| ()).map_err(|e| {
        format!(
            "cannot set up io_uring ({e}): the kernel lacks it or a sandbox (seccomp, \
             io_uring_disabled) forbids it; use -a POSIX"
        )
    })
}

impl Ring {
    /// A ring for `depth` requests of up to `len` bytes each on `fd`,
    /// submitted in batches of `granularity`.
    pub fn new(
        fd: RawFd,
        depth: usize,
        granularity: usize,
        len: usize,
        extras: Extras,
    ) -> io::Result<Ring> {
        let entries = depth.next_power_of_two().clamp(8, 32768) as u32;
        let mut builder = IoUring::builder();
        builder.setup_cqsize(2 * entries);
        if let Some(ms) = extras.sqpoll_ms {
            builder.setup_sqpoll(ms);
        }
        if extras.iopoll {
            builder.setup_iopoll();
        }
        let ring = builder.build(entries)?;
        let mut slots = Vec::with_capacity(depth);
        for _ in 0..depth {
            slots.push(AlignedBuffer::try_new(len as u64, PAGE).map_err(io::Error::other)?);
        }
        if extras.fixed_file {
            ring.submitter().register_files(&[fd])?;
        }
        if extras.fixed_buffers {
            register(&ring, &mut slots)?;
        }
        Ok(Ring {
            ring,
            fd,
            extras,
            slots,
            busy: vec![false; depth],
            in_flight: 0,
            queued: 0,
            granularity: granularity.clamp(1, depth),
        })
    }

    pub fn depth(&self) -> usize {
        self.slots.len()
    }

    /// The bytes each slot holds.
    pub fn buffer_len(&self) -> usize {
        self.slots.first().map_or(0, AlignedBuffer::len)
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// A free slot's buffer (the caller fills it before a write and checks
    /// it after a read).
    pub fn buffer(&mut self, slot: usize) -> &mut [u8] {
        assert!(!self.busy[slot], "slot {slot} is in flight");
        self.slots[slot].as_mut_slice()
    }

    /// Queues a transfer of `len` bytes of `slot`'s buffer, from `start`
    /// in it, at `offset` of `fd`; submits a batch when one is full.
    pub fn submit(
        &mut self,
        access: Access,
        slot: usize,
        start: usize,
        len: usize,
        offset: u64,
    ) -> io::Result<()> {
        assert!(!self.busy[slot], "slot {slot} is in flight");
        let buf = &mut self.slots[slot].as_mut_slice()[start..start + len];
        let (ptr, len) = (buf.as_mut_ptr(), len as u32);
        let index = slot as u16;
        let entry = match self.extras.fixed_file {
            true => transfer!(
                types::Fixed(0),
                access,
                self.extras.fixed_buffers,
                ptr,
                len,
                index,
                offset
            ),
            false => transfer!(
                types::Fd(self.fd),
                access,
                self.extras.fixed_buffers,
                ptr,
                len,
                index,
                offset
            ),
        }
        .user_data(slot as u64);
        if self.ring.submission().is_full() {
            self.ring.submit()?;
        }
        // SAFETY: the entry points into slot `slot`'s mapped buffer, which
        // stays put and is not handed out until its completion is reaped
        // (busy below); see the module's invariants.
        unsafe { self.ring.submission().push(&entry) }
            .map_err(|_| io::Error::other("the io_uring submission queue is full"))?;
        self.busy[slot] = true;
        self.in_flight += 1;
        self.queued += 1;
        if self.queued >= self.granularity {
            self.ring.submit()?;
            self.queued = 0;
        }
        Ok(())
    }

    /// Submits what is queued, waits for at least one completion and
    /// appends every completion there is to `done`.
    pub fn reap(&mut self, done: &mut Vec<Completion>) -> io::Result<()> {
        if self.in_flight == 0 {
            return Ok(());
        }
        loop {
            match self.ring.submit_and_wait(1) {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        self.queued = 0;
        for cqe in self.ring.completion() {
            let slot = cqe.user_data() as usize;
            let res = cqe.result();
            self.busy[slot] = false;
            self.in_flight -= 1;
            let result = match res {
                r if r == -libc::EOPNOTSUPP && self.extras.iopoll => Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "polled completions (--aio.iopoll) are not available here: they need \
                     O_DIRECT on a device with poll queues (NVMe with nvme.poll_queues=N)",
                )),
                r if r < 0 => Err(io::Error::from_raw_os_error(-r)),
                r => Ok(r as usize),
            };
            done.push(Completion {
                slot,
                result,
                finished: None,
                started: None,
            });
        }
        Ok(())
    }

    /// Waits for every request in flight.
    pub fn drain(&mut self) -> io::Result<Vec<Completion>> {
        let mut done = Vec::new();
        while self.in_flight > 0 {
            self.reap(&mut done)?;
        }
        Ok(done)
    }
}

/// Registers the slots' buffers with the ring.
fn register(ring: &IoUring, slots: &mut [AlignedBuffer]) -> io::Result<()> {
    let iovecs: Vec<libc::iovec> = slots
        .iter_mut()
        .map(|b| libc::iovec {
            iov_base: b.as_mut_slice().as_mut_ptr().cast(),
            iov_len: b.len(),
        })
        .collect();
    // SAFETY: the buffers are mapped memory that outlives the ring (its Drop
    // waits for every request before they are freed), and the kernel pins
    // them; see the module's invariants.
    unsafe { ring.submitter().register_buffers(&iovecs) }.map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot register the buffers ({e}): RLIMIT_MEMLOCK may be too low"),
        )
    })
}

impl Drop for Ring {
    fn drop(&mut self) {
        // The kernel may still write into the buffers: wait for it. If
        // waiting fails, leak the buffers rather than free memory in use.
        if self.drain().is_err() {
            for slot in self.slots.drain(..) {
                std::mem::forget(slot);
            }
        }
    }
}
