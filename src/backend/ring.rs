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

use io_uring::{opcode, types, IoUring};

use super::Access;
use crate::buffer::{AlignedBuffer, PAGE};

/// A finished request: its slot and the bytes moved or the error.
#[derive(Debug)]
pub struct Completion {
    pub slot: usize,
    pub result: io::Result<usize>,
}

/// A ring with `depth` slots for requests in flight.
pub struct Ring {
    ring: IoUring,
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
    /// A ring for `depth` requests of up to `len` bytes each, submitted in
    /// batches of `granularity`.
    pub fn new(depth: usize, granularity: usize, len: usize) -> io::Result<Ring> {
        let entries = depth.next_power_of_two().clamp(8, 32768) as u32;
        let ring = IoUring::builder()
            .setup_cqsize(2 * entries)
            .build(entries)?;
        let mut slots = Vec::with_capacity(depth);
        for _ in 0..depth {
            slots.push(AlignedBuffer::try_new(len as u64, PAGE).map_err(io::Error::other)?);
        }
        Ok(Ring {
            ring,
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
        fd: RawFd,
        access: Access,
        slot: usize,
        start: usize,
        len: usize,
        offset: u64,
    ) -> io::Result<()> {
        assert!(!self.busy[slot], "slot {slot} is in flight");
        let buf = &mut self.slots[slot].as_mut_slice()[start..start + len];
        let (ptr, len) = (buf.as_mut_ptr(), len as u32);
        let entry = match access {
            Access::Write => opcode::Write::new(types::Fd(fd), ptr, len)
                .offset(offset)
                .build(),
            Access::Read => opcode::Read::new(types::Fd(fd), ptr, len)
                .offset(offset)
                .build(),
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
                r if r < 0 => Err(io::Error::from_raw_os_error(-r)),
                r => Ok(r as usize),
            };
            done.push(Completion { slot, result });
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
