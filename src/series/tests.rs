use super::*;

#[test]
fn counts_land_in_their_bins() {
    let mut s = Series::default();
    s.add(0.0, 3);
    s.add(0.0025, 4);
    s.add(-1.0, 1);
    s.add(f64::NAN, 1);
    assert_eq!(s.width(), FIRST_WIDTH);
    assert_eq!(s.counts(), [5, 0, 4]);
}

#[test]
fn a_long_run_merges_pairwise_and_keeps_its_count() {
    let mut s = Series::default();
    // One count per millisecond for 10 s: 10,000 moments in 64 bins.
    for ms in 0..10_000u64 {
        s.add(ms as f64 / 1000.0 + 0.0005, 1);
    }
    assert_eq!(s.sum(), 10_000);
    // 0.001 doubled until 64 bins hold 10 s: 0.256 s.
    assert!((s.width() - 0.256).abs() < 1e-12, "{}", s.width());
    assert_eq!(s.counts().len(), 40);
    assert!(s.counts()[..39].iter().all(|&c| c == 256));
    assert_eq!(s.counts()[39], 10_000 - 39 * 256);
}

#[test]
fn widening_matches_what_merging_would_have_made() {
    let (mut short, mut long) = (Series::default(), Series::default());
    for i in 0..50u64 {
        short.add(i as f64 * 0.001, i);
        long.add(i as f64 * 0.001, i);
    }
    long.add(0.2, 7);
    let wide = short.widened(long.width());
    assert_eq!(wide.width(), long.width());
    assert_eq!(wide.counts(), &long.counts()[..wide.counts().len()]);
    let t = Timeline::of(&[short, long], "transfers");
    assert_eq!(t.bin_seconds, long.width());
    assert_eq!(t.total.iter().sum::<u64>(), 2 * (0..50).sum::<u64>() + 7);
    assert_eq!(t.tasks.len(), 2);
    assert_eq!(t.total.len(), long.counts().len());
}

#[test]
fn records_round_trip() {
    let mut s = Series::default();
    s.add(0.5, 9);
    assert_eq!(Series::from_fields(&s.to_fields()), s);
    let odd = Series::from_fields(&[f64::NAN, 1e9].repeat(33));
    assert_eq!(odd.width(), FIRST_WIDTH);
    assert_eq!(odd.counts().len(), BINS);
}

#[test]
fn a_ticker_reads_the_clock_every_stride() {
    let mut t = Ticker::new(Instant::now(), 4);
    t.begin(0);
    for n in 1..=10 {
        t.tick(n);
    }
    // Samples at 4 and 8; the last two counted at the end.
    assert_eq!(t.series().sum(), 8);
    t.end(10);
    assert_eq!(t.series().sum(), 10);
    // A second pass from 0 (minTimeDuration) adds on.
    t.begin(0);
    t.tick(3);
    t.end(3);
    assert_eq!(t.series().sum(), 13);
}
