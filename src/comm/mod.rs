//! What tasks do together, behind one trait.
//!
//! [`Comm`] is everything the runners need from the task engine: rank, size,
//! the node of each rank, barrier, broadcast, min/max/sum reductions, gather and
//! a clock common to all tasks. Two engines implement it: [`local`] runs tasks
//! as threads of one process (no MPI needed); `mpi` (cargo feature `mpi`)
//! runs one task per MPI rank. The runners are written against `&dyn Comm`
//! only.
//!
//! Errors never hang: a failing task carries its error to the next collective
//! point, where [`agree`] makes every task return the same error, naming the
//! lowest failing rank.

pub mod local;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod topology;

pub use topology::Topology;

use crate::error::{Error, TaskError};

/// Reduction operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    Min,
    Max,
    Sum,
}

/// A collective could not complete because another task has gone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommError {
    #[error("another task stopped before reaching a collective operation")]
    PeerGone,
    #[error("not every task answered after the signal (a task may have died)")]
    NoAnswer,
    #[error("communication failed: {0}")]
    Failed(String),
}

/// The operations tasks perform together. Every task must call the same
/// collectives in the same order.
pub trait Comm {
    /// This task's rank, 0-based.
    fn rank(&self) -> usize;
    /// Number of tasks.
    fn size(&self) -> usize;
    /// Which node each rank runs on.
    fn topology(&self) -> &Topology;
    /// The engine's name for headers ("threads", "MPI").
    fn engine(&self) -> &'static str;
    /// The MPI library under the engine and its version, in one line
    /// (`MPICH Version: 4.0.2`, `Open MPI v4.1.4, ...`); `None` without MPI.
    fn library(&self) -> Option<String> {
        None
    }
    fn barrier(&self) -> Result<(), CommError>;
    /// A barrier for tasks that wait while others work (the tasks outside a
    /// sweep step): it may wait more cheaply than [`Comm::barrier`], at the
    /// cost of leaving it a little late.
    fn idle_barrier(&self) -> Result<(), CommError> {
        self.barrier()
    }
    /// Replaces `data` on every task with the root's.
    fn broadcast(&self, root: usize, data: &mut Vec<u8>) -> Result<(), CommError>;
    /// Element-wise reduction; every task receives the result.
    fn all_reduce_u64(&self, values: &mut [u64], op: ReduceOp) -> Result<(), CommError>;
    /// Collects every task's bytes on the root, in rank order; others get an
    /// empty vector.
    fn gather(&self, root: usize, data: &[u8]) -> Result<Vec<Vec<u8>>, CommError>;
    /// Splits off the tasks with `member` set, in rank order, as a
    /// communicator of their own (its topology is theirs, its clock the
    /// same); the others get `None`. Every task calls it. The new
    /// communicator must be dropped by every member once its last collective
    /// is done.
    fn split(&self, member: bool) -> Result<Option<Box<dyn Comm>>, CommError>;
    /// Seconds on a clock shared by all tasks (same epoch on every task).
    fn wtime(&self) -> f64;
    /// The engine itself, for backends bound to one engine (MPI-IO needs the
    /// MPI communicator).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// The first line of `MPI_Get_library_version`'s text, spaces collapsed:
/// MPICH's text runs over many lines (release date, ABI, device, the whole
/// configure line); Open MPI's, Intel MPI's and Cray MPICH's name the
/// library and version in their first.
pub fn library_line(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(line.split_whitespace().collect::<Vec<_>>().join(" "))
}

impl From<CommError> for Error {
    fn from(e: CommError) -> Self {
        Error::Comm(e.to_string())
    }
}

/// Broadcasts a serializable value from `root`.
pub fn broadcast_value<T>(comm: &dyn Comm, root: usize, value: &T) -> Result<T, CommError>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let mut bytes = if comm.rank() == root {
        serde_json::to_vec(value).map_err(|e| CommError::Failed(e.to_string()))?
    } else {
        Vec::new()
    };
    comm.broadcast(root, &mut bytes)?;
    serde_json::from_slice(&bytes).map_err(|e| CommError::Failed(e.to_string()))
}

/// A fixed-size record of numbers that travels between tasks.
pub trait Record: Sized {
    /// The numbers every record has.
    const FIELDS: usize;
    fn to_fields(&self) -> Vec<f64>;
    /// Built from exactly [`Record::FIELDS`] numbers.
    fn from_fields(fields: &[f64]) -> Self;
}

/// Gathers every task's record on `root`, in rank order (others get none).
/// A record of the wrong size is an error, never a default.
pub fn gather_records<R: Record>(
    comm: &dyn Comm,
    root: usize,
    mine: &R,
) -> Result<Vec<R>, CommError> {
    let fields = mine.to_fields();
    let bytes: Vec<u8> = fields.iter().flat_map(|v| v.to_le_bytes()).collect();
    let all = comm.gather(root, &bytes)?;
    all.into_iter()
        .enumerate()
        .map(|(rank, b)| {
            if b.len() != R::FIELDS * 8 {
                return Err(CommError::Failed(format!(
                    "task {rank} sent a record of {} bytes, expected {}",
                    b.len(),
                    R::FIELDS * 8
                )));
            }
            let values: Vec<f64> = b
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect();
            Ok(R::from_fields(&values))
        })
        .collect()
}

/// The ranks that set `member`, in rank order (collective).
pub fn members(comm: &dyn Comm, member: bool) -> Result<Vec<usize>, CommError> {
    let mut flags = vec![0u64; comm.size()];
    flags[comm.rank()] = member as u64;
    comm.all_reduce_u64(&mut flags, ReduceOp::Sum)?;
    Ok((0..flags.len()).filter(|&r| flags[r] > 0).collect())
}

/// Reduces one `u64` over all tasks.
pub fn reduce_u64(comm: &dyn Comm, value: u64, op: ReduceOp) -> Result<u64, CommError> {
    let mut v = [value];
    comm.all_reduce_u64(&mut v, op)?;
    Ok(v[0])
}

/// Makes every task agree on the outcome of work they did apart.
///
/// If any task failed, every task returns the error of the lowest failing
/// rank (with that rank named); otherwise each keeps its own value. Two small
/// collectives, so call it at phase boundaries, not per transfer.
pub fn agree<T>(comm: &dyn Comm, outcome: Result<T, Error>) -> Result<T, Error> {
    let my_failure = match &outcome {
        Ok(_) => u64::MAX,
        Err(_) => comm.rank() as u64,
    };
    let failed = reduce_u64(comm, my_failure, ReduceOp::Min)?;
    if failed == u64::MAX {
        return outcome;
    }
    let failed = failed as usize;
    let mine = match &outcome {
        Err(e) if comm.rank() == failed => Some(e.clone()),
        _ => None,
    };
    let shared: SharedError = broadcast_value(
        comm,
        failed,
        &mine.as_ref().map(SharedError::from).unwrap_or_default(),
    )?;
    match mine {
        Some(e) => Err(e),
        None => Err(shared.into_error(failed)),
    }
}

/// An error as it crosses from one task to the others.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct SharedError {
    usage: bool,
    message: String,
    /// The signal of an agreed stop, which keeps its exit status everywhere.
    signal: Option<(i32, String)>,
}

impl From<&Error> for SharedError {
    fn from(e: &Error) -> Self {
        match e {
            Error::Usage(u) => SharedError {
                usage: true,
                message: u.0.clone(),
                signal: None,
            },
            Error::Task(t) => SharedError {
                usage: false,
                message: t.message.clone(),
                signal: None,
            },
            Error::Interrupted { signal, name } => SharedError {
                usage: false,
                message: e.to_string(),
                signal: Some((*signal, name.clone())),
            },
            other => SharedError {
                usage: false,
                message: other.to_string(),
                signal: None,
            },
        }
    }
}

impl SharedError {
    fn into_error(self, rank: usize) -> Error {
        if let Some((signal, name)) = self.signal {
            return Error::Interrupted { signal, name };
        }
        if self.usage {
            Error::Usage(crate::error::UsageError(self.message))
        } else {
            Error::Task(TaskError {
                rank,
                message: self.message,
            })
        }
    }
}

#[cfg(test)]
mod tests;
