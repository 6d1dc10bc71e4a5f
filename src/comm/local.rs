//! The local engine: N tasks as threads of one process. No MPI, no setup.
//!
//! Every collective is a rendezvous: each task deposits its contribution, the
//! last to arrive publishes all of them, and each task reads what it needs.
//! A task that leaves (returns or panics) marks itself gone, so the others'
//! next collective fails with [`CommError::PeerGone`] instead of hanging.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use super::{Comm, CommError, ReduceOp, Topology};

/// The name of this engine ([`Comm::engine`]).
pub const ENGINE: &str = "threads";

#[derive(Clone)]
enum Payload {
    Empty,
    Bytes(Vec<u8>),
    U64(Vec<u64>),
    /// The rendezvous of a communicator split off (see [`Comm::split`]).
    Child(Arc<Shared>),
}

struct Rendezvous {
    generation: u64,
    arrived: usize,
    slots: Vec<Option<Payload>>,
    published: Arc<Vec<Payload>>,
    gone: usize,
}

struct Shared {
    topology: Topology,
    epoch: Instant,
    state: Mutex<Rendezvous>,
    wake: Condvar,
}

impl Shared {
    fn new(topology: Topology, epoch: Instant) -> Shared {
        let size = topology.size();
        Shared {
            topology,
            epoch,
            state: Mutex::new(Rendezvous {
                generation: 0,
                arrived: 0,
                slots: vec![None; size],
                published: Arc::new(Vec::new()),
                gone: 0,
            }),
            wake: Condvar::new(),
        }
    }

    /// A task leaves: the others' next collective fails instead of waiting.
    fn depart(&self) {
        let mut state = self.lock();
        state.gone += 1;
        self.wake.notify_all();
    }

    fn lock(&self) -> MutexGuard<'_, Rendezvous> {
        // A panicking task cannot leave the rendezvous half-updated in a way
        // that matters: it is counted as gone by its guard.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// One task's handle. Dropping it marks the task gone, however its thread
/// leaves (a return or a panic).
pub struct LocalComm {
    rank: usize,
    shared: Arc<Shared>,
}

impl Drop for LocalComm {
    fn drop(&mut self) {
        self.shared.depart();
    }
}

impl LocalComm {
    fn exchange(&self, payload: Payload) -> Result<Arc<Vec<Payload>>, CommError> {
        let size = self.size();
        let mut state = self.shared.lock();
        if state.gone > 0 {
            return Err(CommError::PeerGone);
        }
        let generation = state.generation;
        state.slots[self.rank] = Some(payload);
        state.arrived += 1;
        if state.arrived == size {
            let all: Vec<Payload> = state
                .slots
                .iter_mut()
                .map(|s| s.take().unwrap_or(Payload::Empty))
                .collect();
            state.published = Arc::new(all);
            state.arrived = 0;
            state.generation += 1;
            self.shared.wake.notify_all();
            return Ok(Arc::clone(&state.published));
        }
        loop {
            state = self
                .shared
                .wake
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
            if state.generation != generation {
                return Ok(Arc::clone(&state.published));
            }
            if state.gone > 0 {
                return Err(CommError::PeerGone);
            }
        }
    }
}

/// Combines every task's values element-wise into `values`.
fn reduce(all: &[Payload], values: &mut [u64], combine: fn(u64, u64) -> u64) {
    for (i, v) in values.iter_mut().enumerate() {
        let mut each = all.iter().map(|p| match p {
            Payload::U64(x) => x[i],
            _ => unreachable!("every task of a reduction contributes numbers"),
        });
        if let Some(first) = each.next() {
            *v = each.fold(first, combine);
        }
    }
}

impl Comm for LocalComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.topology.size()
    }

    fn topology(&self) -> &Topology {
        &self.shared.topology
    }

    fn engine(&self) -> &'static str {
        ENGINE
    }

    fn barrier(&self) -> Result<(), CommError> {
        self.exchange(Payload::Empty).map(|_| ())
    }

    fn broadcast(&self, root: usize, data: &mut Vec<u8>) -> Result<(), CommError> {
        let mine = if self.rank == root {
            Payload::Bytes(std::mem::take(data))
        } else {
            Payload::Empty
        };
        let all = self.exchange(mine)?;
        match &all[root] {
            Payload::Bytes(b) => {
                data.clear();
                data.extend_from_slice(b);
                Ok(())
            }
            _ => Err(CommError::Failed("broadcast root sent nothing".into())),
        }
    }

    fn all_reduce_u64(&self, values: &mut [u64], op: ReduceOp) -> Result<(), CommError> {
        let all = self.exchange(Payload::U64(values.to_vec()))?;
        match op {
            ReduceOp::Min => reduce(&all, values, u64::min),
            ReduceOp::Max => reduce(&all, values, u64::max),
            ReduceOp::Sum => reduce(&all, values, u64::wrapping_add),
        }
        Ok(())
    }

    fn gather(&self, root: usize, data: &[u8]) -> Result<Vec<Vec<u8>>, CommError> {
        let all = self.exchange(Payload::Bytes(data.to_vec()))?;
        if self.rank != root {
            return Ok(Vec::new());
        }
        Ok(all
            .iter()
            .map(|p| match p {
                Payload::Bytes(b) => b.clone(),
                _ => Vec::new(),
            })
            .collect())
    }

    fn split(&self, member: bool) -> Result<Option<Box<dyn Comm>>, CommError> {
        let ranks = super::members(self, member)?;
        let first = ranks.first().copied();
        // The first member makes the new rendezvous and hands it to the others.
        let mine = match first == Some(self.rank) {
            true => {
                let topology = self.shared.topology.of_ranks(&ranks);
                Payload::Child(Arc::new(Shared::new(topology, self.shared.epoch)))
            }
            false => Payload::Empty,
        };
        let all = self.exchange(mine)?;
        let (Some(first), Some(rank)) = (first, ranks.iter().position(|&r| r == self.rank)) else {
            return Ok(None);
        };
        match &all[first] {
            Payload::Child(shared) => Ok(Some(Box::new(LocalComm {
                rank,
                shared: Arc::clone(shared),
            }))),
            _ => Err(CommError::Failed("split: no communicator was made".into())),
        }
    }

    fn wtime(&self) -> f64 {
        self.shared.epoch.elapsed().as_secs_f64()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        // Nothing engine-specific to offer.
        &()
    }
}

/// Runs `body` once per task, each on its own thread, and returns each task's
/// result in rank order (`Err` with the panic message if a task panicked, or
/// why its thread could not start: the tasks that did start then fail at
/// their next collective instead of waiting for it).
pub fn run<R, F>(topology: Topology, body: F) -> Vec<Result<R, String>>
where
    R: Send,
    F: Fn(&dyn Comm) -> R + Sync,
{
    let size = topology.size();
    let shared = Arc::new(Shared::new(topology, Instant::now()));
    let body = &body;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..size)
            .map(|rank| {
                let started = std::thread::Builder::new()
                    .name(format!("pario-task-{rank}"))
                    .spawn_scoped(scope, {
                        let shared = Arc::clone(&shared);
                        move || body(&LocalComm { rank, shared })
                    });
                if started.is_err() {
                    // Counted as gone, so that no started task waits for it.
                    shared.depart();
                }
                started
            })
            .collect();
        handles
            .into_iter()
            .enumerate()
            .map(|(rank, h)| match h {
                Ok(h) => h.join().map_err(|panic| panicked(rank, panic)),
                Err(e) => Err(format!("cannot start task {rank}: {e}")),
            })
            .collect()
    })
}

/// The message of a task that panicked.
fn panicked(rank: usize, panic: Box<dyn std::any::Any + Send>) -> String {
    let what = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into());
    format!("task {rank} panicked: {what}")
}
