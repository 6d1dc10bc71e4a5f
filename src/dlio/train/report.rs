//! The training part of pario's report: DLIO's figures, and pario's own
//! per rank (where the time went: waiting for batches, computing, between
//! steps; the readers' time in requests, bytes and requests), the latency
//! of each sample and each request, and the page-cache check.

use serde::{Deserialize, Serialize};

use super::plan::SaveRecord;
use crate::comm::{Comm, CommError};
use crate::dlio::metrics::{Figures, Summary};
use crate::latency::Percentiles;

/// One rank's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankFigures {
    pub rank: usize,
    pub node: usize,
    /// Per epoch: its AU (%) and samples/s.
    pub epochs: Vec<Figures>,
    /// Per epoch: the evaluation's, when one ran (else NaN).
    pub eval: Vec<Figures>,
    /// Seconds waiting for batches (the steps' load times).
    pub wait: f64,
    /// Seconds of emulated computation.
    pub compute: f64,
    /// Seconds of training outside the steps (barriers, checkpoints).
    pub between: f64,
    /// Seconds the rank's readers spent in requests (all threads).
    pub read_busy: f64,
    pub bytes: u64,
    pub requests: u64,
    pub opens: u64,
}

const HEAD: usize = 9;

impl RankFigures {
    fn to_fields(&self) -> Vec<f64> {
        let mut v = vec![
            self.rank as f64,
            self.node as f64,
            self.wait,
            self.compute,
            self.between,
            self.read_busy,
            self.bytes as f64,
            self.requests as f64,
            self.opens as f64,
        ];
        for (t, e) in self.epochs.iter().zip(&self.eval) {
            v.extend([t.au, t.throughput, e.au, e.throughput]);
        }
        v
    }

    fn from_fields(f: &[f64]) -> RankFigures {
        let pair = |a: f64, b: f64| Figures {
            au: a,
            throughput: b,
        };
        let rest = &f[HEAD..];
        RankFigures {
            rank: f[0] as usize,
            node: f[1] as usize,
            wait: f[2],
            compute: f[3],
            between: f[4],
            read_busy: f[5],
            bytes: f[6] as u64,
            requests: f[7] as u64,
            opens: f[8] as u64,
            epochs: rest.chunks_exact(4).map(|c| pair(c[0], c[1])).collect(),
            eval: rest.chunks_exact(4).map(|c| pair(c[2], c[3])).collect(),
        }
    }
}

/// Every rank's figures on rank 0, in rank order (others get none). Each
/// record has `epochs` epochs; another length is an error.
pub fn gather(
    comm: &dyn Comm,
    mine: &RankFigures,
    epochs: usize,
) -> Result<Vec<RankFigures>, CommError> {
    let bytes: Vec<u8> = mine
        .to_fields()
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let want = (HEAD + 4 * epochs) * 8;
    comm.gather(0, &bytes)?
        .into_iter()
        .enumerate()
        .map(|(rank, b)| {
            if b.len() != want {
                return Err(CommError::Failed(format!(
                    "task {rank} sent {} bytes of training figures, expected {want}",
                    b.len()
                )));
            }
            let f: Vec<f64> = b
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect();
            Ok(RankFigures::from_fields(&f))
        })
        .collect()
}

/// What training did, for pario's outputs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainReport {
    /// `pytorch` or `tensorflow`.
    pub loader: String,
    pub format: String,
    pub epochs: usize,
    pub steps_per_epoch: usize,
    pub batch_size: usize,
    /// DLIO's figures across ranks (`summary.json`'s `metric`).
    pub train: Summary,
    pub eval: Option<Summary>,
    /// `metric.au`: the AU a run must reach.
    pub au_threshold: f64,
    pub ranks: Vec<RankFigures>,
    /// From opening a sample's file to closing it (PyTorch); the requests
    /// that brought a record's bytes (TensorFlow).
    pub sample_latency: Option<Percentiles>,
    pub request_latency: Option<Percentiles>,
    pub bytes_read: u64,
    pub requests: u64,
    /// Seconds from the first epoch's start to the last's end (rank 0).
    pub seconds: f64,
    /// The training data (files × samples × `record_length_bytes`), GB.
    pub dataset_gib: f64,
    /// The memory of every client node, summed, GB.
    pub clients_memory_gib: f64,
    /// Set when the data is under five times the clients' memory.
    pub page_cache_warning: Option<String>,
    /// Rank 0's checkpoint saves during training.
    pub checkpoints: Vec<SaveRecord>,
    pub checkpoint_gib: f64,
}

/// MLPerf Storage's rule: the dataset at least five times the memory of
/// all client nodes; the warning when it is not.
pub fn page_cache_warning(dataset_gib: f64, clients_gib: f64) -> Option<String> {
    (dataset_gib < 5.0 * clients_gib).then(|| {
        format!(
            "the training data ({dataset_gib:.2} GB) is under 5 times the clients' memory \
             ({clients_gib:.2} GB): after the first epoch reads may come from the page \
             cache (MLPerf Storage requires 5 times)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::{local, Topology};

    #[test]
    fn figures_travel_to_rank_zero() {
        let all = local::run(Topology::single_node(3), |comm| {
            let r = comm.rank();
            let mine = RankFigures {
                rank: r,
                node: 0,
                epochs: vec![
                    Figures {
                        au: r as f64,
                        throughput: 2.0
                    };
                    2
                ],
                eval: vec![
                    Figures {
                        au: f64::NAN,
                        throughput: f64::NAN
                    };
                    2
                ],
                wait: 0.5,
                bytes: 10 + r as u64,
                ..Default::default()
            };
            gather(comm, &mine, 2).unwrap()
        });
        let got = all[0].as_ref().unwrap();
        assert_eq!(got.len(), 3);
        assert_eq!(got[2].epochs[1].au, 2.0);
        assert_eq!(got[1].bytes, 11);
        assert!(got[0].eval[0].au.is_nan());
        assert!(all[1].as_ref().unwrap().is_empty());
    }

    #[test]
    fn the_five_times_rule() {
        assert!(page_cache_warning(100.0, 24.0).is_some());
        assert!(page_cache_warning(120.0, 24.0).is_none());
    }
}
