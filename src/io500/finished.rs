//! What rank 0 knows at the end of a run, from which the result files are
//! written.

use super::extension::Extension;
use super::results::{PhaseOutcome, Score};
use crate::run::system::System;

/// What rank 0 knows at the end of a run.
pub struct Finished {
    pub procs: usize,
    pub outcomes: Vec<PhaseOutcome>,
    pub score: Score,
    pub extended: Option<Score>,
    /// pario's concurrent phase (`[concurrent] run = TRUE`).
    pub concurrent: Option<Extension>,
    /// Where it ran (`result.json`'s `system`; without the submitter's
    /// blanks, which `system.json` holds).
    pub system: Option<System>,
}
