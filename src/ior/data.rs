//! A test's data on this task: where each task's transfers lie (the
//! layout, with the read phase's range of random offsets), whose data each
//! task reads back (`-C`, `-Z`), the signature of the current repetition,
//! the transfer count a stonewalling status file gives the reads, and the
//! buffer the transfers go through. Only this file changes them: per
//! repetition the readers and the signature, per phase the read range and
//! the status count, per transfer the buffer.

use super::layout::Layout;
use super::params::IorParams;
use super::reorder::{ReaderMap, Reorder};
use crate::backend::Access;
use crate::buffer::AlignedBuffer;
use crate::comm::{Comm, Topology};
use crate::error::Result;
use crate::run::seeds;

pub(super) struct TestData {
    layout: Layout,
    /// The tasks taking part and their nodes.
    topology: Topology,
    /// Who reads whose data.
    readers: ReaderMap,
    /// The data signature of the current repetition.
    signature: i64,
    /// Transfers a read phase makes, from the stonewalling status file.
    status_count: Option<u64>,
    buffer: AlignedBuffer,
}

impl TestData {
    pub fn new(
        p: &IorParams,
        layout: Layout,
        topology: Topology,
        buffer: AlignedBuffer,
    ) -> TestData {
        TestData {
            readers: ReaderMap::new(&topology, reorder_for(p, 0)),
            layout,
            topology,
            signature: p.verification.time_stamp_signature.unwrap_or(0),
            status_count: None,
            buffer,
        }
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    pub fn readers(&self) -> &ReaderMap {
        &self.readers
    }

    pub fn signature(&self) -> i64 {
        self.signature
    }

    pub fn status_count(&self) -> Option<u64> {
        self.status_count
    }

    /// The transfer buffer.
    pub fn buffer_mut(&mut self) -> &mut [u8] {
        self.buffer.as_mut_slice()
    }

    /// The layout and the transfer buffer at once (a phase's loop reads
    /// the one and fills the other).
    pub fn layout_and_buffer(&mut self) -> (&Layout, &mut [u8]) {
        (&self.layout, self.buffer.as_mut_slice())
    }

    /// The task whose data `rank` handles in a phase (`-C`, `-Z` for reads).
    pub fn pretend(&self, access: Access, rank: usize, active: bool) -> usize {
        match access {
            Access::Read if active => self.readers.writer_of(rank),
            _ => rank,
        }
    }

    /// Repetition `rep` (after the first): new readers if the reordering
    /// draws them anew each repetition; whether it did.
    pub fn reorder(&mut self, p: &IorParams, rep: u64) -> bool {
        let r = &p.reorder;
        let varies =
            Reorder::varies_by_repetition(r.reorder_tasks_random_seed, r.reorder_tasks_random);
        if rep > 0 && varies {
            self.readers = ReaderMap::new(&self.topology, reorder_for(p, rep));
        }
        rep > 0 && varies
    }

    /// The repetition's signature: `-G`, or one rank 0 draws (collective).
    pub fn agree_signature(&mut self, comm: &dyn Comm, p: &IorParams) -> Result<i64> {
        let given = p.verification.time_stamp_signature;
        self.signature = seeds::agreed(comm, given, seeds::time_u32)?;
        Ok(self.signature)
    }

    /// The transfers (of a full file's) that the next read phase's random
    /// offsets are drawn within (`None`: the whole file).
    pub fn set_read_range(&mut self, range: Option<u64>) {
        self.layout.random_range = range;
    }

    /// The transfers a stonewalling status file gives the reads.
    pub fn set_status_count(&mut self, count: u64) {
        self.status_count = Some(count);
    }
}

/// The read-back reordering of a test in repetition `rep`.
fn reorder_for(p: &IorParams, rep: u64) -> Reorder {
    let r = &p.reorder;
    Reorder::from_params(
        r.reorder_tasks,
        r.reorder_tasks_random,
        r.task_per_node_offset,
        r.reorder_tasks_random_seed,
        rep,
    )
}
