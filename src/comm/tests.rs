use super::local;
use super::*;

fn run8<R: Send>(body: impl Fn(&dyn Comm) -> R + Sync) -> Vec<R> {
    local::run(Topology::single_node(8), body)
        .into_iter()
        .map(|r| r.expect("no task panics"))
        .collect()
}

#[test]
fn ranks_and_sizes() {
    let seen = run8(|c| (c.rank(), c.size(), c.engine()));
    for (i, (rank, size, engine)) in seen.into_iter().enumerate() {
        assert_eq!((rank, size, engine), (i, 8, "threads"));
    }
}

#[test]
fn broadcast_from_any_root() {
    let got = run8(|c| {
        let mut data = if c.rank() == 5 {
            b"from five".to_vec()
        } else {
            vec![1, 2, 3]
        };
        c.broadcast(5, &mut data).unwrap();
        data
    });
    assert!(got.iter().all(|d| d == b"from five"));
}

#[test]
fn reductions() {
    let got = run8(|c| {
        let r = c.rank() as u64;
        let mut mins = [r, 100 - r];
        c.all_reduce_u64(&mut mins, ReduceOp::Min).unwrap();
        let mut maxs = [r];
        c.all_reduce_u64(&mut maxs, ReduceOp::Max).unwrap();
        let mut sums = [r, 1];
        c.all_reduce_u64(&mut sums, ReduceOp::Sum).unwrap();
        (mins, maxs, sums)
    });
    for (mins, maxs, sums) in got {
        assert_eq!(mins, [0, 93]);
        assert_eq!(maxs, [7]);
        assert_eq!(sums, [28, 8]);
    }
}

#[test]
fn gather_in_rank_order_on_root_only() {
    let got = run8(|c| c.gather(2, &[c.rank() as u8; 3]).unwrap());
    for (rank, g) in got.iter().enumerate() {
        if rank == 2 {
            assert_eq!(g.len(), 8);
            for (i, v) in g.iter().enumerate() {
                assert_eq!(v, &vec![i as u8; 3]);
            }
        } else {
            assert!(g.is_empty());
        }
    }
}

#[test]
fn many_rounds_keep_their_order() {
    let got = run8(|c| {
        let mut total = 0u64;
        for round in 0..200u64 {
            let mut v = [round + c.rank() as u64];
            c.all_reduce_u64(&mut v, ReduceOp::Max).unwrap();
            total += v[0];
            if round % 7 == 0 {
                c.barrier().unwrap();
            }
        }
        total
    });
    let expected: u64 = (0..200u64).map(|r| r + 7).sum();
    assert!(got.iter().all(|&t| t == expected));
}

#[test]
fn agree_names_the_lowest_failing_rank() {
    let got = run8(|c| {
        let mine: Result<u32, Error> = if c.rank() == 3 || c.rank() == 6 {
            Err(Error::task(c.rank(), format!("disk {} on fire", c.rank())))
        } else {
            Ok(7)
        };
        agree(c, mine)
    });
    for r in got {
        assert_eq!(
            r,
            Err(Error::Task(TaskError {
                rank: 3,
                message: "disk 3 on fire".into()
            }))
        );
    }
}

#[test]
fn agree_passes_values_through_when_all_succeed() {
    let got = run8(|c| agree(c, Ok::<usize, Error>(c.rank() * 2)));
    for (rank, r) in got.into_iter().enumerate() {
        assert_eq!(r, Ok(rank * 2));
    }
}

#[test]
fn usage_errors_stay_usage_errors() {
    let got = run8(|c| {
        let mine: Result<(), Error> = if c.rank() == 1 {
            Err(Error::usage("-N 9: only 8 tasks"))
        } else {
            Ok(())
        };
        agree(c, mine)
    });
    for r in got {
        assert_eq!(r.unwrap_err().exit_code(), 2);
    }
}

#[test]
fn a_task_that_dies_does_not_hang_the_others() {
    let outcomes = local::run(Topology::single_node(4), |c| {
        if c.rank() == 2 {
            panic!("task 2 breaks");
        }
        c.barrier()
    });
    assert!(outcomes[2].as_ref().unwrap_err().contains("task 2 breaks"));
    for (rank, o) in outcomes.iter().enumerate() {
        if rank != 2 {
            assert_eq!(o.as_ref().unwrap(), &Err(CommError::PeerGone));
        }
    }
}

/// A record of two numbers.
#[derive(Debug, PartialEq)]
struct Pair(f64, f64);

impl Record for Pair {
    const FIELDS: usize = 2;
    fn to_fields(&self) -> Vec<f64> {
        vec![self.0, self.1]
    }
    fn from_fields(f: &[f64]) -> Pair {
        Pair(f[0], f[1])
    }
}

/// A record that claims three numbers but sends two.
struct Short;

impl Record for Short {
    const FIELDS: usize = 3;
    fn to_fields(&self) -> Vec<f64> {
        vec![1.0, 2.0]
    }
    fn from_fields(_: &[f64]) -> Short {
        Short
    }
}

#[test]
fn broadcast_value_and_gather_records() {
    let got = run8(|c| {
        let v = broadcast_value(c, 0, &format!("seed-{}", c.rank())).unwrap();
        let g = gather_records(c, 0, &Pair(c.rank() as f64, 0.5)).unwrap();
        (v, g)
    });
    assert!(got.iter().all(|(v, _)| v == "seed-0"));
    assert_eq!(got[0].1[7], Pair(7.0, 0.5));
    assert!(got[3].1.is_empty());
}

#[test]
fn a_malformed_record_is_an_error() {
    let got = run8(|c| gather_records(c, 0, &Short).map(|v| v.len()));
    let e = got[0].as_ref().unwrap_err();
    assert_eq!(
        e,
        &CommError::Failed("task 0 sent a record of 16 bytes, expected 24".into())
    );
}

#[test]
fn clock_is_shared_and_monotonic() {
    let got = run8(|c| {
        let before = c.wtime();
        c.barrier().unwrap();
        (before, c.wtime())
    });
    // Every task leaves the barrier after the last one reached it.
    let latest_before = got.iter().map(|g| g.0).fold(0.0, f64::max);
    assert!(got.iter().all(|g| g.1 >= latest_before));
}

/// A cyclic 3-node placement: ranks 0..6 on nodes 0,1,2,0,1,2.
fn cyclic6() -> Topology {
    Topology::cyclic(&[2, 2, 2])
}

#[test]
fn split_makes_a_communicator_of_the_members() {
    let got: Vec<_> = local::run(cyclic6(), |c| {
        // The tasks of the first two nodes: ranks 0, 1, 3, 4.
        let member = c.topology().node_of(c.rank()) < 2;
        let sub = c.split(member).unwrap();
        let seen = sub.as_ref().map(|s| {
            let all = s.gather(0, &[c.rank() as u8]).unwrap();
            let mut sum = [1u64];
            s.all_reduce_u64(&mut sum, ReduceOp::Sum).unwrap();
            let nodes: Vec<_> = (0..s.size()).map(|r| s.topology().node_of(r)).collect();
            (s.rank(), s.size(), nodes, all, sum[0])
        });
        drop(sub);
        c.barrier().unwrap();
        seen
    })
    .into_iter()
    .map(|r| r.unwrap())
    .collect();
    let members = [0, 1, 3, 4];
    for (rank, seen) in got.iter().enumerate() {
        let Some(pos) = members.iter().position(|&m| m == rank) else {
            assert!(seen.is_none(), "rank {rank} is not a member");
            continue;
        };
        let (sub_rank, size, nodes, all, sum) = seen.clone().unwrap();
        assert_eq!((sub_rank, size, sum), (pos, 4, 4));
        assert_eq!(nodes, [0, 1, 0, 1]);
        if sub_rank == 0 {
            assert_eq!(all, [[0], [1], [3], [4]]);
        }
    }
}

#[test]
fn split_with_no_member_gives_none_everywhere() {
    let got = run8(|c| c.split(false).unwrap().is_none());
    assert!(got.into_iter().all(|none| none));
}

#[test]
fn a_member_that_panics_fails_the_others_collectives() {
    let got = local::run(Topology::single_node(4), |c| {
        let sub = c.split(c.rank() < 3).unwrap();
        if let Some(s) = &sub {
            if s.rank() == 1 {
                panic!("task gone");
            }
            return s.barrier().err();
        }
        None
    });
    assert!(got[1].is_err());
    assert_eq!(got[0].as_ref().unwrap(), &Some(CommError::PeerGone));
    assert_eq!(got[2].as_ref().unwrap(), &Some(CommError::PeerGone));
}

#[test]
fn the_mpi_library_in_one_line() {
    let mpich = "MPICH Version:      4.0.2\nMPICH Release date: Thu Apr  7 12:34:45 CDT 2022\n\
                 MPICH ABI:          14:2:2\nMPICH Device:       ch4:ucx\n";
    assert_eq!(library_line(mpich).unwrap(), "MPICH Version: 4.0.2");
    let ompi =
        "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022\0";
    assert!(library_line(ompi)
        .unwrap()
        .starts_with("Open MPI v4.1.4, package"));
    assert_eq!(library_line("\n  \n"), None);
    let local = local::run(Topology::single_node(1), |c| c.library());
    assert_eq!(local[0].as_ref().unwrap(), &None);
}
