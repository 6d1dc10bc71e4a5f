//! The MPI engine: one task per MPI rank (cargo feature `mpi`, rsmpi over the
//! system's MPI). Started by `mpirun`/`srun`, or as a singleton without them.
//!
//! Nodes are found by grouping ranks that share memory
//! (`MPI_COMM_TYPE_SHARED`); the clock is `MPI_Wtime` corrected by each rank's
//! offset from rank 0, measured once at start-up, as IOR does.

use std::any::Any;

use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::{Comm, CommError, ReduceOp, Topology};

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

    fn barrier(&self) -> Result<(), CommError> {
        self.world.barrier();
        Ok(())
    }

    fn broadcast(&self, root: usize, data: &mut Vec<u8>) -> Result<(), CommError> {
        let process = self.world.process_at_rank(root as i32);
        let mut len = data.len() as u64;
        process.broadcast_into(&mut len);
        data.resize(len as usize, 0);
        if len > 0 {
            process.broadcast_into(&mut data[..]);
        }
        Ok(())
    }

    fn all_reduce_u64(&self, values: &mut [u64], op: ReduceOp) -> Result<(), CommError> {
        let send = values.to_vec();
        self.world.all_reduce_into(&send[..], values, Self::op(op));
        Ok(())
    }

    fn gather(&self, root: usize, data: &[u8]) -> Result<Vec<Vec<u8>>, CommError> {
        let process = self.world.process_at_rank(root as i32);
        let len = i32::try_from(data.len())
            .map_err(|_| CommError::Failed("gather of more than 2 GiB".into()))?;
        // An empty Rust slice points at address 1, which Open MPI takes for
        // MPI_IN_PLACE: send empty contributions from a real (unused) byte.
        let spare = [0u8; 1];
        let data = if data.is_empty() { &spare[..0] } else { data };
        if self.rank() != root {
            process.gather_into(&len);
            process.gather_varcount_into(data);
            return Ok(Vec::new());
        }
        let mut counts = vec![0i32; self.size()];
        process.gather_into_root(&len, &mut counts[..]);
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
        {
            let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            process.gather_varcount_into_root(data, &mut partition);
        }
        Ok(counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| all[d as usize..(d + c) as usize].to_vec())
            .collect())
    }

    fn wtime(&self) -> f64 {
        mpi::time() + self.clock_offset
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
