//! The figures of synthetic timings, against what the branch's
//! statscounter.py computes for them (numpy, in the comments' cases).

use super::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// Five steps over 1.6 s, batch 4: proc and compute per step.
fn five_steps() -> Steps {
    let mut s = Steps::default();
    let proc = [0.5, 0.2, 0.25, 0.3, 0.2];
    let compute = [0.1, 0.15, 0.15, 0.15, 0.15];
    for (p, c) in proc.iter().zip(compute) {
        s.push(p - c, *p, c);
    }
    s
}

fn window(exclude_start: i64, exclude_end: i64) -> Window {
    Window {
        exclude_start,
        exclude_end,
    }
}

#[test]
fn branch_block_figures_match_statscounter() {
    let s = five_steps();
    // (window, AU %, samples/s) from compute_metrics_train with numpy.
    let cases = [
        (window(1, 0), 54.54545454545456, 10.909090909090912),
        (window(1, 1), 50.000000000000014, 13.333333333333337),
        (window(2, 2), 37.50000000000003, 30.000000000000025),
    ];
    for (w, au, throughput) in cases {
        let f = train_block(&s, 1.6, 5, w, 4, Follow::Dlio);
        assert!(close(f.au, au), "{w:?}: {f:?}");
        assert!(close(f.throughput, throughput), "{w:?}: {f:?}");
    }
}

#[test]
fn rules_throughput_counts_every_step_over_the_whole_block() {
    let s = five_steps();
    let f = train_block(&s, 1.6, 5, Window::default(), 4, Follow::Rules);
    assert!(close(f.throughput, 5.0 * 4.0 / 1.6), "{f:?}");
    // The AU is the same formula in both.
    let b = train_block(&s, 1.6, 5, Window::default(), 4, Follow::Dlio);
    assert_eq!(f.au, b.au);
}

#[test]
fn a_block_shorter_than_the_epoch_slices_as_python_does() {
    // Three steps of a five-step epoch (a step checkpoint split it).
    let mut s = five_steps();
    for v in [&mut s.load, &mut s.proc, &mut s.compute] {
        v.truncate(3);
    }
    let f = train_block(&s, 1.0, 5, window(1, 1), 4, Follow::Dlio);
    assert!(close(f.au, 60.0) && close(f.throughput, 8.0), "{f:?}");
}

#[test]
fn nothing_computed_is_zero_au_and_few_steps_a_negative_rate() {
    let mut s = Steps::default();
    s.push(0.3, 0.3, 0.0);
    let f = train_block(&s, 0.5, 1, Window::default(), 2, Follow::Dlio);
    assert_eq!(f.au, 0.0);
    // (1 - 2) steps: the branch's fixed 2 makes it negative.
    assert!(close(f.throughput, -2.0 / 0.2), "{f:?}");
}

#[test]
fn eval_counts_every_step_over_the_whole_time() {
    let s = five_steps();
    let f = eval_block(&s, 2.0, 5, Window::default(), 3);
    assert!(close(f.throughput, 7.5), "{f:?}");
    // compute[1..5] = 0.6 over 2.0 - 0.5.
    assert!(close(f.au, 40.0), "{f:?}");
}

#[test]
fn epochs_weigh_blocks_by_steps_and_ranks_average_au_and_sum_rates() {
    let a = Figures {
        au: 90.0,
        throughput: 10.0,
    };
    let b = Figures {
        au: 60.0,
        throughput: 40.0,
    };
    let e = epoch(&[(a, 3), (b, 1)]);
    assert!(close(e.au, 82.5) && close(e.throughput, 17.5), "{e:?}");
    assert_eq!(epoch(&[(a, 0)]), Figures::default());
    let all = across_ranks(&[vec![a, b], vec![b, a]]);
    assert_eq!(all.len(), 2);
    assert!(close(all[0].au, 75.0) && close(all[0].throughput, 50.0));
}

#[test]
fn summary_matches_numpy() {
    let epochs: Vec<Figures> = [(90.5, 100.0), (95.25, 120.0), (80.0, 110.0)]
        .iter()
        .map(|&(au, throughput)| Figures { au, throughput })
        .collect();
    let s = summary(&epochs, 114660.07, 0.90);
    // np.mean, np.std and * record_length / 2^20 of the same values.
    assert!(close(s.au_mean, 88.58333333333333));
    assert!(close(s.au_stdev, 6.3715949512050924));
    assert!(close(s.throughput_mean, 110.0));
    assert!(close(s.throughput_stdev, 8.16496580927726));
    assert!(close(s.io_mean_mb, 12.028320026397706));
    assert!(close(s.io_stdev_mb, 0.8928256523507475));
    assert!(!s.meets_expectation, "88.6 % < 90 %");
    assert!(summary(&epochs, 1.0, 0.88).meets_expectation);
    assert_eq!(s.au, vec![90.5, 95.25, 80.0]);
}

#[test]
fn python_slices() {
    assert_eq!(py_slice(5, 1, 5), 1..5);
    assert_eq!(py_slice(3, 1, 4), 1..3);
    assert_eq!(py_slice(5, 4, 2), 4..4);
    assert_eq!(py_slice(5, -2, i64::MAX), 3..5);
    assert_eq!(py_slice(0, 1, 0), 0..0);
}
