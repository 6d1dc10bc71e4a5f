use super::*;
use crate::random::splitmix64;

#[test]
fn arrangements_count_every_ordering() {
    assert_eq!(arrangements(3, 3), [1., 1., 2., 3., 3., 3., 3., 2., 1., 1.]);
    let binomial = |m: usize, n: usize| (1..=m).fold(1.0, |c, i| c * (n + i) as f64 / i as f64);
    for (m, n) in [(1, 1), (2, 7), (5, 5), (10, 10), (12, 30)] {
        let counts = arrangements(m, n);
        let total: f64 = counts.iter().sum();
        assert!((total / binomial(m, n) - 1.0).abs() < 1e-12, "{m} {n}");
        let reversed: Vec<f64> = counts.iter().rev().copied().collect();
        assert_eq!(counts, reversed, "symmetric: {m} {n}");
    }
}

#[test]
fn critical_counts_are_the_tables() {
    // Two-sided 5 % critical values of the Mann-Whitney U for equal sizes.
    for (n, u) in [(4, 0), (5, 2), (6, 5), (7, 8), (8, 13), (9, 17), (10, 23)] {
        assert_eq!(critical(n, n, 0.025), Some(u), "{n}");
    }
    assert_eq!(critical(3, 3, 0.025), None);
    assert_eq!(critical(3, 4, 0.025), None);
    assert_eq!(critical(3, 5, 0.025), Some(0));
}

#[test]
fn verdicts() {
    let a = [100.0, 101.0, 99.0, 100.5, 99.5];
    let faster = a.map(|x| x * 1.2);
    let j = judge(&a, &faster);
    assert_eq!(j.verdict, Verdict::Faster);
    assert!((j.ratio - 1.2).abs() < 1e-12);
    let [lo, hi] = j.interval.unwrap();
    assert!(lo > 1.15 && hi < 1.25, "{lo} {hi}");
    assert_eq!(judge(&faster, &a).verdict, Verdict::Slower);
    let j = judge(&a, &a);
    assert_eq!((j.ratio, j.verdict), (1.0, Verdict::WithinNoise));
    // Certain but under the threshold: 1 % apart, no overlap.
    assert_eq!(
        judge(&a, &a.map(|x| x * 1.01)).verdict,
        Verdict::WithinNoise
    );
    // Ranges apart, but 3 against 3 happens by chance one time in ten.
    let three = judge(&[100.0, 101.0, 102.0], &[200.0, 201.0, 202.0]);
    assert_eq!((three.interval, three.verdict), (None, Verdict::TooFew));
    assert_eq!(
        judge(&[1.0, 2.0], &[3.0, 4.0, 5.0]).verdict,
        Verdict::TooFew
    );
    assert_eq!(judge(&[0.0; 5], &a).verdict, Verdict::TooFew);
}

#[test]
fn spreads() {
    let s = Spread::of(&[90.0, 100.0, 110.0]);
    assert_eq!(
        (s.n, s.median, s.mean, s.min, s.max),
        (3, 100.0, 100.0, 90.0, 110.0)
    );
    assert!((s.cv - 0.1).abs() < 1e-12);
    assert_eq!(Spread::of(&[5.0]).cv, 0.0);
}

/// Repetitions of a run whose figure varies as a log-normal with the
/// coefficient of variation `cv` around `centre` (seeded Box-Muller).
fn runs(seed: u64, n: usize, centre: f64, cv: f64) -> Vec<f64> {
    let sigma = (1.0 + cv * cv).ln().sqrt();
    let uniform = |k: u64| ((splitmix64(seed ^ k) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    (0..n as u64)
        .map(|i| {
            let (u, v) = (uniform(2 * i), uniform(2 * i + 1));
            let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
            centre * (sigma * z).exp()
        })
        .collect()
}

/// How often, over `trials` seeded pairs of `n` repetitions, B (shifted by
/// `shift`) is called different from A.
fn called_different(n: usize, shift: f64, cv: f64, trials: u64) -> f64 {
    let hits = (0..trials)
        .filter(|t| {
            let seed = splitmix64(t * 1000 + n as u64);
            let a = runs(seed, n, 1000.0, cv);
            let b = runs(splitmix64(seed), n, 1000.0 * shift, cv);
            matches!(judge(&a, &b).verdict, Verdict::Faster | Verdict::Slower)
        })
        .count();
    hits as f64 / trials as f64
}

#[test]
fn one_distribution_is_rarely_called_different() {
    // The exact interval guarantees it for any noise; a quiet system (1 %)
    // and a noisy one (20 %).
    for cv in [0.01, 0.2] {
        for n in 3..=10 {
            let rate = called_different(n, 1.0, cv, 600);
            assert!(rate < 0.05, "cv {cv}, {n} repetitions: {rate}");
        }
    }
}

#[test]
fn a_fifth_more_is_found_at_five_repetitions() {
    // 5 % run-to-run variation, a storage system in steady use.
    let rate = called_different(5, 1.2, 0.05, 600);
    assert!(rate >= 0.8, "{rate}");
    let rate = called_different(5, 1.0 / 1.2, 0.05, 600);
    assert!(rate >= 0.8, "{rate}");
}
