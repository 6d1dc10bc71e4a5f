//! Shards and shuffles against numpy's (2.4.6) for the same seeds.

use super::*;
use crate::dlio::options::Follow;

fn unet3d(follow: Follow) -> Sharding {
    Sharding {
        loader: Loader::PyTorch,
        files: 168,
        samples_per_file: 1,
        batch: 7,
        ranks: 8,
        file_shuffle: true,
        sample_shuffle: Shuffle::Seed,
        seed: 123,
        seed_change_epoch: true,
        pytorch_shuffles: follow == Follow::Rules,
        tf_sorts: follow == Follow::Dlio,
    }
}

#[test]
fn pytorch_blocks_are_contiguous_and_the_branch_reads_them_in_order() {
    let s = unet3d(Follow::Dlio);
    assert_eq!(s.max_steps(), 3);
    assert_eq!(s.block(0), 0..21);
    assert_eq!(s.block(7), 147..168);
    for epoch in 1..=3 {
        assert_eq!(s.torch_order(7, epoch), (147..168).collect::<Vec<_>>());
    }
}

#[test]
fn the_rules_shuffle_each_block_with_seed_plus_epoch() {
    let s = unet3d(Follow::Rules);
    // np.random.seed(123 + e); a = np.arange(...); np.random.shuffle(a)
    let r0e1 = [
        13, 19, 3, 1, 10, 15, 18, 8, 16, 6, 11, 5, 12, 20, 4, 0, 9, 2, 7, 17, 14,
    ];
    let r0e2 = [
        10, 7, 12, 9, 1, 8, 15, 19, 4, 18, 17, 20, 6, 5, 0, 16, 11, 13, 14, 3, 2,
    ];
    let r7e1 = [
        160, 166, 150, 148, 157, 162, 165, 155, 163, 153, 158, 152, 159, 167, 151, 147, 156, 149,
        154, 164, 161,
    ];
    assert_eq!(s.torch_order(0, 1), r0e1);
    assert_eq!(s.torch_order(0, 2), r0e2);
    assert_eq!(s.torch_order(7, 1), r7e1);
    let fixed = Sharding {
        seed_change_epoch: false,
        ..s.clone()
    };
    assert_eq!(fixed.torch_order(0, 5), s.torch_order(0, 0));
    let off = Sharding {
        sample_shuffle: Shuffle::Off,
        ..s
    };
    assert_eq!(off.torch_order(0, 1), (0..21).collect::<Vec<_>>());
}

#[test]
fn samples_map_to_files_by_samples_per_file() {
    let s = Sharding {
        samples_per_file: 3,
        ..unet3d(Follow::Dlio)
    };
    assert_eq!(s.locate(0), (0, 0));
    assert_eq!(s.locate(7), (2, 1));
}

fn cosmo(files: usize, ranks: usize) -> Sharding {
    Sharding {
        loader: Loader::TensorFlow,
        files,
        samples_per_file: 1,
        batch: 1,
        ranks,
        file_shuffle: true,
        sample_shuffle: Shuffle::Seed,
        seed: 123,
        seed_change_epoch: true,
        pytorch_shuffles: true,
        tf_sorts: false,
    }
}

#[test]
fn tensorflow_files_are_shuffled_with_seed_plus_one_then_strided() {
    // np.random.seed(124); f = list(range(10)); np.random.shuffle(f)
    let shuffled = [6, 8, 3, 5, 4, 0, 9, 2, 7, 1];
    let s = cosmo(10, 3);
    assert_eq!(s.tf_files(0), (vec![6, 5, 9, 1], false));
    assert_eq!(s.tf_files(2), (vec![3, 0, 7], false));
    let one = cosmo(10, 1);
    assert_eq!(one.tf_files(0).0, shuffled);
    let sorted = Sharding {
        tf_sorts: true,
        ..cosmo(10, 3)
    };
    assert_eq!(
        sorted.tf_files(1).0,
        vec![1, 4, 7],
        "DLIO: list_files sorts"
    );
    let unshuffled = Sharding {
        file_shuffle: false,
        ..cosmo(10, 3)
    };
    assert_eq!(unshuffled.tf_files(1).0, vec![1, 4, 7]);
}

#[test]
fn fewer_files_than_ranks_shards_records() {
    let s = Sharding {
        file_shuffle: false,
        ..cosmo(2, 4)
    };
    assert_eq!(s.tf_files(3), (vec![0, 1], true));
}

#[test]
fn steps_cap_and_refusals() {
    let s = unet3d(Follow::Dlio);
    assert_eq!(steps(&s, -1), Ok(3));
    assert_eq!(steps(&s, 2), Ok(2));
    assert!(steps(&s, 4)
        .unwrap_err()
        .contains("only enough data for 3 steps"));
    let empty = Sharding {
        files: 4,
        ..s.clone()
    };
    assert!(steps(&empty, -1).unwrap_err().contains("make no batch"));
    // 10 samples over 4 ranks: blocks of 3, 3, 3, 1; 2 steps an epoch.
    let short = Sharding {
        files: 10,
        batch: 1,
        ranks: 4,
        ..s
    };
    assert_eq!(short.max_steps(), 2);
    let err = short.check(2, "dataset").unwrap_err();
    assert!(
        err.contains("the last rank gets 1 batches of the 2 steps"),
        "{err}"
    );
    assert!(short.check(1, "dataset").is_ok());
    assert!(
        cosmo(10, 4).check(2, "dataset").is_ok(),
        "TensorFlow repeats"
    );
}

#[test]
fn the_compute_stream_continues_after_dlios_shuffles() {
    // np.random.seed(124); shuffle(arange(21)); np.random.seed(124);
    // shuffle(arange(2)); then |normal(0.5, 0.1)| three times.
    let train = unet3d(Follow::Dlio);
    let eval = Sharding {
        files: 16,
        batch: 1,
        ..train.clone()
    };
    let mut rs = stream_after_reconfigure(&train, &eval, 0, 1).unwrap();
    let draws: Vec<f64> = (0..3).map(|_| rs.normal(0.5, 0.1).abs()).collect();
    let numpy = [0.6373740194631238, 0.7053801372556234, 0.4259865032778793];
    for (d, n) in draws.iter().zip(numpy) {
        assert!((d - n).abs() < 1e-15, "{draws:?}");
    }
    let unseeded = Sharding {
        sample_shuffle: Shuffle::Off,
        ..train
    };
    assert!(stream_after_reconfigure(&unseeded, &eval, 0, 1).is_none());
}
