//! What the phases of an iteration measure on this task: each phase's
//! sample, its latencies, the live progress display, the stonewall of the
//! file create phase, a failure held until the iteration's end (`-B`) and
//! where a signal stopped the iteration. Only this file changes them: the
//! phases tell it when they start and end, the item loops after each item.

use super::report::Stonewall;
use super::results::{Op, Sample, TaskIteration, OPS};
use crate::comm::Record;
use crate::error::Error;
use crate::latency::LatencyRecorder;
use crate::progress::Progress;
use crate::run::stop;
use crate::series::{Series, Ticker, BINS};

/// Items between two readings of the clock for the series: at 1-2 µs an
/// item (stat on tmpfs), several readings per first 1 ms bin; a reading
/// (about 150 instructions) costs under 3 an item.
const STRIDE: u64 = 64;

/// What the phases of the current iteration measured on this task.
pub(super) struct Measure {
    samples: TaskIteration,
    /// The latency of the current phase's operations, when recorded.
    recording: Option<LatencyRecorder>,
    /// Per operation of the iteration: its latency recorder.
    recorders: Vec<Option<LatencyRecorder>>,
    /// The live progress display of the current phase (rank 0, terminal).
    live: Option<Progress>,
    stonewall: Option<Stonewall>,
    /// With `-B`: a failure held until the end of the iteration.
    pending: Option<Error>,
    /// The signal that stopped the iteration, and the phase it closed.
    stopped: Option<(Option<Op>, i32)>,
    /// The current phase's items over time, and their count.
    ticker: Option<Ticker>,
    items: u64,
    series: PhaseSeries,
}

/// Every operation's items over time in an iteration (gathered as one).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PhaseSeries(pub [Series; OPS]);

impl Record for PhaseSeries {
    const FIELDS: usize = OPS * Series::FIELDS;

    fn to_fields(&self) -> Vec<f64> {
        self.0.iter().flat_map(Series::to_fields).collect()
    }

    fn from_fields(fields: &[f64]) -> PhaseSeries {
        let mut all = PhaseSeries::default();
        for (s, f) in all.0.iter_mut().zip(fields.chunks(BINS + 2)) {
            *s = Series::from_fields(f);
        }
        all
    }
}

impl Measure {
    /// Nothing measured yet: the start of an iteration.
    pub fn new() -> Measure {
        Measure {
            samples: [Sample::default(); OPS],
            recording: None,
            recorders: (0..OPS).map(|_| None).collect(),
            live: None,
            stonewall: None,
            pending: None,
            stopped: None,
            ticker: None,
            items: 0,
            series: PhaseSeries::default(),
        }
    }

    /// After each item operation: its latency, and the count for the
    /// progress display. Returns whether a signal asks the run to stop.
    #[inline]
    pub fn item_done(&mut self, count: u64) -> bool {
        if let Some(l) = self.recording.as_mut() {
            l.tick();
        }
        self.items += 1;
        if let Some(t) = self.ticker.as_mut() {
            t.tick(self.items);
        }
        if let Some(live) = &self.live {
            if count % 64 == 0 {
                live.counter.set(count);
            }
        }
        stop::requested()
    }

    /// A phase's work starts: its latencies recorded when asked.
    pub fn start_phase(&mut self, record_latency: bool) {
        self.recording = record_latency.then(LatencyRecorder::new);
        self.items = 0;
        self.ticker = Some(Ticker::new(std::time::Instant::now(), STRIDE));
        if let Some(l) = self.recording.as_mut() {
            l.start();
        }
    }

    /// The phase's progress, shown until its end.
    pub fn show(&mut self, live: Progress) {
        self.live = Some(live);
    }

    /// `op`'s work is over: the progress display goes, its latencies are
    /// kept for the iteration's report.
    pub fn end_phase(&mut self, op: Op) {
        self.live = None;
        if let Some(mut t) = self.ticker.take() {
            t.end(self.items);
            self.series.0[op as usize] = t.series();
        }
        if let Some(mut l) = self.recording.take() {
            l.finish();
            self.recorders[op as usize] = Some(l);
        }
    }

    /// `op`'s sample: its time and the items this task handled.
    pub fn record(&mut self, op: Op, sample: Sample) {
        self.samples[op as usize] = sample;
    }

    pub fn samples(&self) -> &TaskIteration {
        &self.samples
    }

    /// Every operation's items over time.
    pub fn series(&self) -> &PhaseSeries {
        &self.series
    }

    /// Every operation's latency recorder of the iteration, taken.
    pub fn take_recorders(&mut self) -> Vec<Option<LatencyRecorder>> {
        std::mem::take(&mut self.recorders)
    }

    pub fn set_stonewall(&mut self, stonewall: Stonewall) {
        self.stonewall = Some(stonewall);
    }

    pub fn stonewall(&self) -> Option<Stonewall> {
        self.stonewall
    }

    /// `-B`: holds a failure (the first) until the end of the iteration.
    pub fn hold(&mut self, e: Error) {
        self.pending.get_or_insert(e);
    }

    /// Whether a failure is held: the phases that follow do no work.
    pub fn holds_failure(&self) -> bool {
        self.pending.is_some()
    }

    /// The failure held, taken.
    pub fn take_held(&mut self) -> Option<Error> {
        self.pending.take()
    }

    /// A signal stopped the iteration at the end of `op` (`None`: between
    /// phases).
    pub fn set_stopped(&mut self, op: Option<Op>, signal: i32) {
        self.stopped = Some((op, signal));
    }

    /// Where a signal stopped the iteration, if one did.
    pub fn stopped(&self) -> Option<(Option<Op>, i32)> {
        self.stopped
    }
}
