//! The draws against their definitions, with fixed seeds: chi-square of
//! drawn ranks against each distribution's probabilities, the mix's ratios
//! within statistical bounds, the refusals.

use super::*;

/// The chi-square statistic's critical value at p = 0.001 for `df` degrees of
/// freedom (Wilson–Hilferty).
fn critical(df: f64) -> f64 {
    let z = 3.09;
    let a = 2.0 / (9.0 * df);
    df * (1.0 - a + z * a.sqrt()).powi(3)
}

/// Chi-square of `counts` against `probs`, bins merged from the tail so
/// every expected count is at least 5; returns (statistic, degrees of freedom).
fn chi_square(counts: &[u64], probs: &[f64]) -> (f64, f64) {
    let total: u64 = counts.iter().sum();
    let (mut stat, mut bins) = (0.0, 0);
    let (mut obs, mut exp) = (0.0, 0.0);
    for (c, p) in counts.iter().zip(probs) {
        obs += *c as f64;
        exp += p * total as f64;
        if exp >= 5.0 {
            stat += (obs - exp).powi(2) / exp;
            bins += 1;
            (obs, exp) = (0.0, 0.0);
        }
    }
    if exp > 0.0 {
        stat += (obs - exp).powi(2) / exp;
        bins += 1;
    }
    (stat, (bins - 1) as f64)
}

/// Draws `draws` units through a sampler and counts them per rank (the
/// permutation inverted), as offsets would be counted per block.
fn rank_histogram(d: Distribution, n: u64, draws: u64) -> Vec<u64> {
    let sampler = Sampler::new(&d, n, 42);
    let mut rank_of = vec![0usize; n as usize];
    for r in 0..n {
        rank_of[sampler.unit_of_rank(r) as usize] = r as usize;
    }
    let mut s = Stream::new(7);
    let mut counts = vec![0u64; n as usize];
    for _ in 0..draws {
        counts[rank_of[sampler.unit(&mut s) as usize]] += 1;
    }
    counts
}

fn dist(shape: Shape) -> Distribution {
    Distribution {
        shape,
        center: None,
    }
}

fn assert_fits(name: &str, counts: &[u64], probs: &[f64]) {
    let (stat, df) = chi_square(counts, probs);
    assert!(
        stat < critical(df),
        "{name}: chi-square {stat:.1} with {df} degrees of freedom (critical {:.1})",
        critical(df)
    );
}

#[test]
fn zipf_ranks_follow_k_to_the_minus_theta() {
    for theta in [0.8, 1.0, 1.2, 2.0] {
        let n = 1000;
        let counts = rank_histogram(dist(Shape::Zipf(theta)), n, 200_000);
        let weights: Vec<f64> = (1..=n).map(|k| (k as f64).powf(-theta)).collect();
        let sum: f64 = weights.iter().sum();
        let probs: Vec<f64> = weights.iter().map(|w| w / sum).collect();
        assert_fits(&format!("zipf:{theta}"), &counts, &probs);
    }
}

#[test]
fn pareto_ranks_follow_fios_power() {
    for h in [0.2, 0.3, 0.5] {
        let n = 1000u64;
        let counts = rank_histogram(dist(Shape::Pareto(h)), n, 200_000);
        let e = h.ln() / (1.0 - h).ln();
        let cdf = |k: f64| (k / (n - 1) as f64).min(1.0).powf(1.0 / e);
        let probs: Vec<f64> = (0..n)
            .map(|k| cdf(k as f64 + 1.0) - cdf(k as f64))
            .collect();
        assert_fits(&format!("pareto:{h}"), &counts, &probs);
    }
}

#[test]
fn uniform_is_flat() {
    let n = 500;
    let counts = rank_histogram(dist(Shape::Uniform), n, 100_000);
    assert_fits("uniform", &counts, &vec![1.0 / n as f64; n as usize]);
}

#[test]
fn normal_is_a_bell_at_the_middle() {
    let n = 10_000u64;
    for (pct, sd) in [(0.0, n as f64 / 12.0), (20.0, 0.0)] {
        let counts = rank_histogram(dist(Shape::Normal(pct)), n, 100_000);
        let total: u64 = counts.iter().sum();
        let mean = counts
            .iter()
            .enumerate()
            .map(|(k, c)| k as f64 * *c as f64)
            .sum::<f64>()
            / total as f64;
        let var = counts
            .iter()
            .enumerate()
            .map(|(k, c)| (k as f64 - mean).powi(2) * *c as f64)
            .sum::<f64>()
            / total as f64;
        // The jitter is uniform over pct % of the units: it adds w²/12.
        let w = n as f64 * pct / 100.0;
        let expected = (n as f64 / 12.0).powi(2) + w * w / 12.0;
        assert!(
            (mean - n as f64 / 2.0).abs() < n as f64 * 0.005,
            "mean {mean}"
        );
        assert!(
            (var / expected - 1.0).abs() < 0.03,
            "var {var} vs {expected}"
        );
        if sd > 0.0 {
            let within = counts
                .iter()
                .enumerate()
                .filter(|(k, _)| (*k as f64 - n as f64 / 2.0).abs() <= sd)
                .map(|(_, c)| *c)
                .sum::<u64>() as f64
                / total as f64;
            assert!((within - 0.683).abs() < 0.01, "within one sd: {within}");
        }
    }
}

#[test]
fn center_places_the_hottest_unit() {
    let d = Distribution::parse("zipf:1.2:0.25").unwrap();
    let s = Sampler::new(&d, 1000, 9);
    assert_eq!(s.unit_of_rank(0), 250);
    let mut seen: Vec<u64> = (0..1000).map(|r| s.unit_of_rank(r)).collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..1000).collect::<Vec<_>>(), "every unit reachable");
}

fn region(units: u64, unit: u64) -> Region {
    Region {
        first: 0,
        stride: units * unit,
        block: units * unit,
        segments: 1,
        unit,
    }
}

fn plan(read_pct: u32, visit: Visit, split: Option<SizeSplit>, units: u64) -> MixPlan {
    MixPlan {
        read_pct,
        visit,
        split,
        region: region(units, 4096),
        seed: 11,
        task: 3,
    }
}

#[test]
fn rwmix_ratio_within_bounds() {
    let n = 100_000u64;
    for pct in [0u32, 1, 30, 70, 100] {
        let p = plan(pct, Visit::Sequential, None, n);
        let reads = p.ops().filter(|o| o.read).count() as f64;
        let expected = n as f64 * pct as f64 / 100.0;
        let sd = (n as f64 * pct as f64 / 100.0 * (1.0 - pct as f64 / 100.0)).sqrt();
        assert!(
            (reads - expected).abs() <= 4.0 * sd,
            "{pct}%: {reads} reads"
        );
    }
}

#[test]
fn split_sizes_follow_their_weights_and_fill_the_region() {
    let split = SizeSplit::parse("4k/50:64k/30:1m/20").unwrap();
    let units = 64 * 1024; // 256 MiB of 4 KiB units
    for visit in [Visit::Sequential, Visit::Drawn(dist(Shape::Uniform))] {
        let p = plan(50, visit.clone(), Some(split.clone()), units);
        let ops: Vec<Op> = p.ops().collect();
        let bytes: u64 = ops.iter().map(|o| o.size).sum();
        assert_eq!(bytes, units * 4096, "a pass moves the whole region");
        assert_eq!(p.ops_per_pass(), ops.len() as u64);
        let count = |s: u64| ops.iter().filter(|o| o.size == s).count() as f64;
        let total = ops.len() as f64;
        for (size, pct) in [(4096u64, 0.5), (65536, 0.3), (1 << 20, 0.2)] {
            let share = count(size) / total;
            assert!(
                (share - pct).abs() < 0.02,
                "{visit:?}: {size} drawn {share}"
            );
        }
        for o in &ops {
            assert_eq!(o.offset % 4096, 0);
            assert!(o.offset + o.size <= units * 4096);
        }
    }
    // Sequentially the operations tile the region.
    let p = plan(0, Visit::Sequential, Some(split), 1024);
    let mut at = 0;
    for o in p.ops() {
        assert_eq!(o.offset, at);
        at += o.size;
    }
}

#[test]
fn operations_stay_in_the_tasks_blocks() {
    // Shared file: task 1 of 3, blocks of 8 units, 4 segments.
    let r = Region {
        first: 8 * 4096,
        stride: 3 * 8 * 4096,
        block: 8 * 4096,
        segments: 4,
        unit: 4096,
    };
    let split = SizeSplit::parse("4k/40:16k/60").unwrap();
    for visit in [Visit::Sequential, Visit::Drawn(dist(Shape::Zipf(1.2)))] {
        let p = MixPlan {
            region: r,
            ..plan(50, visit, Some(split.clone()), 0)
        };
        for o in p.ops() {
            let in_stride = (o.offset - r.first) % r.stride;
            assert!(in_stride + o.size <= r.block, "{o:?} crosses its block");
        }
    }
}

#[test]
fn same_seed_same_operations_other_task_others() {
    let d = Visit::Drawn(dist(Shape::Zipf(1.1)));
    let a: Vec<Op> = plan(70, d.clone(), None, 4096).ops().collect();
    let b: Vec<Op> = plan(70, d.clone(), None, 4096).ops().collect();
    assert_eq!(a, b);
    let other = MixPlan {
        task: 4,
        ..plan(70, d, None, 4096)
    };
    assert_ne!(a, other.ops().collect::<Vec<_>>());
}

#[test]
fn direction_does_not_move_offsets() {
    // Separate streams: the mix decides which operations read, not where.
    let d = Visit::Drawn(dist(Shape::Pareto(0.2)));
    let offsets = |pct| {
        plan(pct, d.clone(), None, 4096)
            .ops()
            .map(|o| o.offset)
            .collect::<Vec<_>>()
    };
    assert_eq!(offsets(10), offsets(90));
}

#[test]
fn shuffled_visits_every_unit_once() {
    let mut seen: Vec<u64> = plan(50, Visit::Shuffled, None, 1000)
        .ops()
        .map(|o| o.offset / 4096)
        .collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..1000).collect::<Vec<_>>());
}

#[test]
fn bad_specifications_are_refused() {
    for (bad, why) in [
        ("zipf:0", "positive"),
        ("zipf:x", "not a number"),
        ("pareto:1", "between 0 and 1"),
        ("normal:100", "below 100"),
        ("gauss", "give uniform"),
        ("zipf:1.2:2", "center"),
        ("uniform:3", "no parameters"),
        ("zipf:1.2:0.5:1", "too many"),
    ] {
        let e = Distribution::parse(bad).unwrap_err();
        assert!(e.contains(why) && !e.contains('\n'), "{bad}: {e}");
    }
    for (bad, why) in [
        ("4k/50:64k/30", "add up to 80"),
        ("4k/50:4k/50", "twice"),
        ("4k", "SIZE/PERCENT"),
        ("4k/0:8k/100", "1 to 100"),
        ("4k/50,8k/100", "one list"),
        ("0/100", "positive"),
    ] {
        let e = SizeSplit::parse(bad).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
    assert!(Mix::parse_read_pct("101").is_err());
    assert_eq!(Mix::parse_read_pct("70"), Ok(70));
    assert_eq!(
        Distribution::parse("zipf").unwrap().shape,
        Shape::Zipf(1.1),
        "fio's default theta"
    );
}

/// Every operation of a pass, drawn a block at a time.
fn by_blocks(plan: &MixPlan, max_ops: usize, max_bytes: Option<u64>) -> Vec<Op> {
    let mut ops = plan.ops();
    let mut block = Block::default();
    let mut all = Vec::new();
    while ops.fill_block(&mut block, max_ops, max_bytes) {
        assert!(block.len >= 1 && block.len <= max_ops);
        let mut at = 0;
        for k in 0..block.len {
            let p = block.pieces[k];
            assert_eq!(p.at, if max_bytes.is_some() { at } else { 0 });
            at += p.len as usize;
            all.push(Op {
                read: block.reads_at(k),
                offset: p.offset,
                size: p.len,
            });
        }
        let bytes = block.bytes(0, block.len).0;
        assert_eq!(bytes, at as u64);
        assert!(bytes <= max_bytes.unwrap_or(u64::MAX).max(plan.largest()));
        assert_eq!(block.reads >> block.len.min(63) >> (block.len / 64), 0);
    }
    all
}

#[test]
fn blocks_draw_the_operations_the_iterator_draws() {
    let region = Region {
        first: 4096,
        stride: 3 * 65536,
        block: 65536,
        segments: 3,
        unit: 4096,
    };
    let zipf = Visit::Drawn(Distribution {
        shape: Shape::Zipf(1.1),
        center: None,
    });
    let split = SizeSplit::parse("4k/50:16k/30:32k/20").unwrap();
    for read_pct in [0, 1, 30, 50, 99, 100] {
        for visit in [Visit::Sequential, Visit::Shuffled, zipf.clone()] {
            for split in [None, Some(split.clone())] {
                let plan = MixPlan {
                    read_pct,
                    visit: visit.clone(),
                    split,
                    region,
                    seed: 9,
                    task: 1,
                };
                let one_by_one: Vec<Op> = plan.ops().collect();
                assert_eq!(plan.ops_per_pass(), one_by_one.len() as u64);
                let limits = [Some(1 << 20), Some(1 << 20), Some(40_000), Some(1), None];
                for (max_ops, max_bytes) in [64, 5, 64, 7, 64].into_iter().zip(limits) {
                    let blocks = by_blocks(&plan, max_ops, max_bytes);
                    assert_eq!(blocks, one_by_one, "{plan:?} {max_ops} {max_bytes:?}");
                }
            }
        }
    }
}

#[test]
fn runs_end_where_the_direction_changes() {
    let mut block = Block {
        len: 7,
        reads: 0b0110_0111 | 1 << 40,
        ..Block::default()
    };
    let runs: Vec<(usize, usize)> =
        std::iter::successors(Some((0, block.run_end(0))), |&(_, e)| {
            (e < block.len).then(|| (e, block.run_end(e)))
        })
        .collect();
    assert_eq!(runs, [(0, 3), (3, 5), (5, 7)]);
    block.len = 64;
    block.reads = u64::MAX;
    assert_eq!(block.run_end(0), 64);
    assert_eq!(block.run_end(63), 64);
}
