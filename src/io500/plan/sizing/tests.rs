use super::*;
use crate::io500::phases::by_name;
use crate::io500::plan::steady::Steady;

fn config(text: &str) -> Config {
    Config::parse("t.ini", text).unwrap()
}

fn probe(name: &str, seconds: f64, score: f64) -> Probe {
    Probe {
        phase: by_name(name).unwrap(),
        seconds,
        score,
        ran: true,
        steady: None,
    }
}

#[test]
fn sizes_last_the_stonewall_times_the_margin() {
    let c = config("[ior-easy]\ntransferSize = 1m\n");
    let p = by_name("ior-easy-write").unwrap();
    // 1 GiB/s x 300 s x 1.5 / 4 tasks = 112.5 GiB a task, whole MiB.
    let s = sizing(&c, p, 1.0, 1.5, 300, 4);
    assert_eq!(s.change.value, "115200m");
    assert_eq!((s.change.section, s.change.key), ("ior-easy", "blockSize"));
    assert!(s.line.contains("(configured: 9920000m)"), "{}", s.line);
    // ior-hard: 47008-byte segments, rounded up.
    let s = sizing(&c, by_name("ior-hard-write").unwrap(), 0.5, 1.5, 10, 2);
    let want = (0.5 * GIB * 10.0 * 1.5 / 2.0 / 47008.0_f64).ceil() as u64;
    assert_eq!(s.change.value, want.to_string());
    // mdtest: 2.5 kIOPS x 20 s x 1.5 / 3 tasks = 25000 files a task.
    let s = sizing(&c, by_name("mdtest-hard-write").unwrap(), 2.5, 1.5, 20, 3);
    assert_eq!((s.change.key, s.change.value.as_str()), ("n", "25000"));
    // The arithmetic starts from the rate as printed.
    let s = sizing(
        &c,
        by_name("mdtest-easy-write").unwrap(),
        1.0000004,
        1.5,
        1,
        1,
    );
    assert_eq!(s.change.value, "1500");
}

#[test]
fn every_phase_scales_with_what_the_run_does_more() {
    let probes = [
        probe("ior-easy-write", 2.5, 1.0),
        probe("mdtest-easy-write", 1.0, 10.0),
        probe("timestamp", 0.01, 0.0),
        probe("mdtest-hard-write", 2.0, 5.0),
        probe("find", 0.5, 100.0),
        probe("ior-easy-read", 1.0, 2.0),
        probe("mdtest-easy-delete", 0.4, 30.0),
        probe("ior-rnd4K-easy-read", 2.0, 0.1),
    ];
    let plan = Plan::of(&Config::default(), &probes, 100, 2, 4);
    let f = |name: &str| plan.times.iter().find(|t| t.phase == name).unwrap().factor;
    // Wore out past its 2 s stonewall: 100 s and the 0.5 s after it.
    assert_eq!(f("ior-easy-write"), 100.5 / 2.5);
    assert_eq!(f("mdtest-easy-write"), 100.0); // ended before it
    assert_eq!(f("ior-easy-read"), 50.0); // it wrote 50 times more
    assert_eq!(f("mdtest-easy-delete"), 100.0);
    assert_eq!(f("timestamp"), 1.0);
    assert_eq!(f("ior-rnd4K-easy-read"), 50.0);
    // find: 10,000 easy files x 100 and 10,000 hard ones x 50.
    assert_eq!(f("find"), 75.0);
    let sum: f64 = plan.times.iter().map(|t| t.probe * t.factor).sum();
    assert!((plan.total() - sum).abs() < 1e-9);
    assert_eq!(plan.sizes.len(), 3);
    let text = text(&plan);
    assert!(text.contains("Predicted wall time of the run"), "{text}");
}

#[test]
fn a_write_phase_without_a_rate_is_left_as_configured() {
    let mut skipped = probe("ior-hard-write", 0.0, 0.0);
    skipped.ran = false;
    let probes = [skipped, probe("mdtest-hard-write", 1.0, 0.0)];
    let plan = Plan::of(&Config::default(), &probes, 10, 1, 1);
    assert!(plan.sizes.is_empty());
    assert_eq!(plan.kept.len(), 2);
    assert_eq!(plan.total(), 10.0); // the one that ran, for the stonewall
    assert_eq!(probe_seconds(300), 5);
    assert_eq!(probe_seconds(10), 3);
    assert_eq!(probe_seconds(2), 2);
    assert_eq!(probe_seconds(1), 1);
}

#[test]
fn a_timeline_sizes_from_the_later_half_and_its_spread() {
    let steady = |rate: f64, fastest: f64, amount: f64| Steady {
        rate,
        fastest,
        from: 1.5,
        to: 3.0,
        amount,
    };
    // ior-easy: 0.25 GiB/s as scored (the flush counted), 0.9 GiB/s
    // while writing, bins up to 2.25: margin 2.5; it wrote 2.5 GiB.
    let mut easy = probe("ior-easy-write", 10.0, 0.25);
    easy.steady = Some(steady(0.9, 2.25, 2.5));
    // mdtest-easy: a burst 5 times its mean: mdtest's margin is 8 at
    // least; one 20 times it stops at 16.
    let mut md = probe("mdtest-easy-write", 3.0, 8.0);
    md.steady = Some(steady(10.0, 50.0, 24.0));
    let mut md_hard = probe("mdtest-hard-write", 3.0, 1.0);
    md_hard.steady = Some(steady(1.0, 20.0, 3.0));
    // ior-hard: its later half slower than its score: the score.
    let mut hard = probe("ior-hard-write", 3.0, 1.0);
    hard.steady = Some(steady(0.8, 0.9, 3.0));
    let probes = [
        easy,
        md,
        hard,
        md_hard,
        probe("ior-easy-read", 1.0, 2.0),
        probe("mdtest-easy-delete", 0.5, 48.0),
    ];
    let c = config("[ior-easy]\ntransferSize = 1m\n");
    let plan = Plan::of(&c, &probes, 10, 3, 1);
    let value = |phase: &str| {
        let s = plan.sizes.iter().find(|s| s.rate.phase == phase).unwrap();
        (s.change.value.clone(), s.rate.margin)
    };
    // 0.9 x 10 s x 2.5 = 22.5 GiB.
    assert_eq!(value("ior-easy-write"), ("23040m".into(), Some(2.5)));
    assert_eq!(value("mdtest-easy-write"), ("800000".into(), Some(8.0)));
    assert_eq!(value("mdtest-hard-write"), ("160000".into(), Some(16.0)));
    let segments = (1.0 * GIB * 10.0 * 2.0 / 47008.0_f64).ceil() as u64;
    assert_eq!(value("ior-hard-write"), (segments.to_string(), Some(2.0)));
    let why = &plan.sizes[0].why;
    assert!(why.contains("0.900000 GiB/s over 1.50-3.00 s"), "{why}");
    assert!(why.contains("margin 2.50"), "{why}");
    // What depends on a write phase grows with what the run writes, at
    // the probe's score: 0.25 x 10 / 2.5 and 8 x 10 / 24.
    let f = |name: &str| plan.times.iter().find(|t| t.phase == name).unwrap().factor;
    assert!((f("ior-easy-read") - 1.0).abs() < 1e-9);
    assert!((f("mdtest-easy-delete") - 80.0 / 24.0).abs() < 1e-9);
}
