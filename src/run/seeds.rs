//! Seeds: given by the user, or picked by rank 0 and agreed by every task.

use crate::comm::{broadcast_value, Comm};
use crate::error::Result;

/// `given`, or rank 0's `fresh()` sent to every task.
pub fn agreed<T>(comm: &dyn Comm, given: Option<T>, fresh: impl FnOnce() -> T) -> Result<T>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    match given {
        Some(seed) => Ok(seed),
        None => Ok(broadcast_value(comm, 0, &fresh())?),
    }
}

fn unix_time() -> std::time::Duration {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
}

/// IOR's default signature: the time in seconds, as an unsigned 32-bit value.
pub fn time_u32() -> i64 {
    unix_time().as_secs() as u32 as i64
}

/// mdtest's default seed: the time in seconds, as a C `int`.
pub fn time_i32() -> i64 {
    match unix_time().as_secs() {
        0 => 1,
        s => s as i32 as i64,
    }
}

/// A seed of 63 random-looking bits from the clock and the process.
pub fn fresh() -> u64 {
    let nanos = unix_time().as_nanos() as u64;
    crate::random::splitmix64(nanos ^ std::process::id() as u64) >> 1
}
