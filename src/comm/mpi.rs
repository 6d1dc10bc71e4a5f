//! The MPI engine: one task per MPI rank (cargo feature `mpi`, rsmpi over the
//! system's MPI). Started by `mpirun`/`srun`, or as a singleton without them.
//!
//! Nodes are found by grouping ranks that share memory
//! (`MPI_COMM_TYPE_SHARED`); the clock is `MPI_Wtime` corrected by each rank's
//! offset from rank 0, measured once at start-up, as IOR does.

use std::any::Any;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::request::{scope, Request, Scope};
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;

use super::{Comm, CommError, ReduceOp, Topology};
use crate::signals as stop;

/// Set once a collective was given up after a signal: the tasks that did
/// not answer are taken for dead, and later collectives fail at once.
static GAVE_UP: AtomicBool = AtomicBool::new(false);

/// Whether this rank gave up waiting for the others after a signal.
pub fn gave_up() -> bool {
    GAVE_UP.load(Ordering::Relaxed)
}

fn answered() -> Result<(), CommError> {
    match gave_up() {
        true => Err(CommError::NoAnswer),
        false => Ok(()),
    }
}

/// Polls a collective to completion. Collectives are non-blocking under the
/// hood so that a signal can end the wait: once a stop is requested, the
/// other tasks get [`stop::grace`] to answer; a task that has died never
/// will, and the survivors must still remove their files before the
/// launcher kills them.
fn finish<'a, D: ?Sized, S: Scope<'a>>(mut request: Request<'a, D, S>) -> Result<(), CommError> {
    let mut deadline = None;
    loop {
        request = match request.test() {
            Ok(_) => return Ok(()),
            Err(pending) => pending,
        };
        if stop::requested() {
            let end = *deadline.get_or_insert_with(|| Instant::now() + stop::grace());
            if Instant::now() >= end {
                GAVE_UP.store(true, Ordering::Relaxed);
                // SAFETY: the request is left to MPI unfinished; `held`
                // leaks the buffers it uses, so they outlive it.
                let _ = unsafe { request.into_raw() };
                return Err(CommError::NoAnswer);
            }
        }
        std::thread::yield_now();
    }
}

/// Runs a collective on `buffers`; when it was given up, MPI may still
/// write to them later, so they are leaked instead of freed.
fn held<B, F>(buffers: &mut B, collective: F) -> Result<(), CommError>
where
    B: Default,
    F: FnOnce(&mut B) -> Result<(), CommError>,
{
    answered()?;
    let outcome = collective(buffers);
    if outcome.is_err() {
        std::mem::forget(std::mem::take(buffers));
    }
    outcome
}

pub struct MpiComm {
    world: SimpleCommunicator,
    topology: Topology,
    clock_offset: f64,
}

impl MpiComm {
    /// Wraps the world communicator; collective over all ranks.
    pub fn new(world: SimpleCommunicator) -> Result<MpiComm, String> {
        let size = world.size() as usize;
        let shared = world.split_shared(world.rank());
        let mut leader = world.rank();
        shared.process_at_rank(0).broadcast_into(&mut leader);
        let mut leaders = vec![0i32; size];
        world.all_gather_into(&leader, &mut leaders[..]);
        let topology = match Topology::fake_from_env(size)? {
            Some(fake) => fake,
            None => Topology::from_keys(&leaders),
        };
        world.barrier();
        let mut reference = mpi::time();
        world.process_at_rank(0).broadcast_into(&mut reference);
        let clock_offset = reference - mpi::time();
        Ok(MpiComm {
            world,
            topology,
            clock_offset,
        })
    }

    /// The minimum or maximum of unsigned numbers, reduced as signed ones:
    /// Debian's MPICH 4.0.2 orders `MPI_UINT64_T` as if it were signed
    /// (the minimum of 1 and 2^64-1 comes out as 2^64-1), which turned a
    /// task's failure into success in `agree`. Flipping the top bit maps
    /// unsigned order onto signed order, which every MPI gets right.
    fn all_reduce_ordered(&self, values: &mut [u64], op: ReduceOp) -> Result<(), CommError> {
        const TOP: u64 = 1 << 63;
        let send: Vec<i64> = values.iter().map(|v| (v ^ TOP) as i64).collect();
        let mut both = [send, vec![0i64; values.len()]];
        held(&mut both, |[send, recv]| {
            scope(|s| {
                let request =
                    self.world
                        .immediate_all_reduce_into(s, &send[..], &mut recv[..], Self::op(op));
                finish(request)
            })
        })?;
        for (v, r) in values.iter_mut().zip(&both[1]) {
            *v = (*r as u64) ^ TOP;
        }
        Ok(())
    }

    /// The world communicator, for backends that call MPI themselves (MPI-IO).
    pub fn world(&self) -> &SimpleCommunicator {
        &self.world
    }

    fn op(op: ReduceOp) -> SystemOperation {
        match op {
            ReduceOp::Min => SystemOperation::min(),
            ReduceOp::Max => SystemOperation::max(),
            ReduceOp::Sum => SystemOperation::sum(),
        }
    }
}

impl Comm for MpiComm {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn topology(&self) -> &Topology {
        &self.topology
    }

    fn engine(&self) -> &'static str {
        "MPI"
    }

    fn library(&self) -> Option<String> {
        static LIBRARY: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
        LIBRARY
            .get_or_init(|| {
                let text = mpi::environment::library_version().ok()?;
                super::library_line(&text)
            })
            .clone()
    }

    fn barrier(&self) -> Result<(), CommError> {
        answered()?;
        finish(self.world.immediate_barrier())
    }

    fn idle_barrier(&self) -> Result<(), CommError> {
        answered()?;
        // Polled with naps, so that waiting tasks leave the CPU to the ones
        // at work. No grace after a signal: the tasks at work are stopping
        // and removing their files, and the launcher ends a job that lost one.
        let mut request = self.world.immediate_barrier();
        loop {
            request = match request.test() {
                Ok(_) => return Ok(()),
                Err(pending) => pending,
            };
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    fn broadcast(&self, root: usize, data: &mut Vec<u8>) -> Result<(), CommError> {
        let process = self.world.process_at_rank(root as i32);
        let mut len = vec![data.len() as u64];
        held(&mut len, |len| {
            scope(|s| finish(process.immediate_broadcast_into(s, &mut len[..])))
        })?;
        let mut all = std::mem::take(data);
        all.resize(len[0] as usize, 0);
        if len[0] > 0 {
            held(&mut all, |all| {
                scope(|s| finish(process.immediate_broadcast_into(s, &mut all[..])))
            })?;
        }
        *data = all;
        Ok(())
    }

    fn all_reduce_u64(&self, values: &mut [u64], op: ReduceOp) -> Result<(), CommError> {
        if op != ReduceOp::Sum {
            return self.all_reduce_ordered(values, op);
        }
        let mut both = [values.to_vec(), vec![0u64; values.len()]];
        held(&mut both, |[send, recv]| {
            scope(|s| {
                let request =
                    self.world
                        .immediate_all_reduce_into(s, &send[..], &mut recv[..], Self::op(op));
                finish(request)
            })
        })?;
        values.copy_from_slice(&both[1]);
        Ok(())
    }

    fn gather(&self, root: usize, data: &[u8]) -> Result<Vec<Vec<u8>>, CommError> {
        let process = self.world.process_at_rank(root as i32);
        let len = i32::try_from(data.len())
            .map_err(|_| CommError::Failed("gather of more than 2 GiB".into()))?;
        // An empty Rust slice points at address 1, which Open MPI takes for
        // MPI_IN_PLACE: send empty contributions from a real (unused) byte.
        let mut send = data.to_vec();
        send.reserve(1);
        let mut counts = vec![len];
        if self.rank() != root {
            held(&mut counts, |c| {
                scope(|s| finish(process.immediate_gather_into(s, &c[..])))
            })?;
            held(&mut send, |d| {
                scope(|s| finish(process.immediate_gather_varcount_into(s, &d[..])))
            })?;
            return Ok(Vec::new());
        }
        counts.resize(self.size() + 1, 0);
        held(&mut counts, |c| {
            let (mine, all) = c.split_at_mut(1);
            scope(|s| finish(process.immediate_gather_into_root(s, &mine[..], all)))
        })?;
        let counts = counts.split_off(1);
        let displs: Vec<i32> = counts
            .iter()
            .scan(0i32, |at, &c| {
                let d = *at;
                *at += c;
                Some(d)
            })
            .collect();
        let total: i32 = counts.iter().sum();
        // At least one byte, for the same reason as above.
        let mut all = vec![0u8; total.max(1) as usize];
        let mut both = (send, all);
        held(&mut both, |(d, all)| {
            let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            scope(|s| {
                finish(process.immediate_gather_varcount_into_root(s, &d[..], &mut partition))
            })
        })?;
        all = both.1;
        Ok(counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| all[d as usize..(d + c) as usize].to_vec())
            .collect())
    }

    fn split(&self, member: bool) -> Result<Option<Box<dyn Comm>>, CommError> {
        // The blocking split follows an interruptible collective, so every
        // task is known to be there when it starts.
        let ranks = super::members(self, member)?;
        let color = match member {
            true => Color::with_value(1),
            false => Color::undefined(),
        };
        let Some(comm) = self.world.split_by_color(color) else {
            return Ok(None);
        };
        Ok(Some(Box::new(MpiComm {
            world: comm,
            topology: self.topology.of_ranks(&ranks),
            clock_offset: self.clock_offset,
        })))
    }

    fn wtime(&self) -> f64 {
        mpi::time() + self.clock_offset
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
