//! S3's multipart limits and how an IOR file maps onto parts (the `object`
//! layout): part `n` (1-based) holds bytes `[(n-1)·P, n·P)`, with P a
//! multiple of the transfer size, so a transfer never spans two parts and
//! any order of transfers fills the same parts. When several blocks share
//! an object (N-1, or `-s` above 1), P must also divide the block, so that
//! each part has one writer. Requests these rules cannot express are
//! refused before anything is created.

use crate::units::human_bytes;

/// Every part but the last is at least this big.
pub const MIN_PART: u64 = 5 << 20;
/// No part, and no single PUT, is bigger.
pub const MAX_PART: u64 = 5 << 30;
pub const MAX_PARTS: u64 = 10_000;
/// The largest object (AWS's long-standing limit; some services take more).
pub const MAX_OBJECT: u64 = 5 << 40;

/// How an object is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The part size; at least the object's size when it is one part.
    pub part: u64,
    pub size: u64,
}

impl Plan {
    /// Whether the object is one PUT (one part, no multipart upload).
    pub fn single(&self) -> bool {
        self.part >= self.size
    }
}

/// The sizes of a test, as the plan needs them.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub transfer: u64,
    pub block: u64,
    /// Blocks in one object: segments, times tasks for a shared file.
    pub blocks: u64,
    /// The tasks' transfers interleave in the object (a shared file with
    /// `-z`): each transfer must be a part of its own.
    pub interleaved: bool,
}

/// The plan of an object of `shape`, or the line refusing it.
pub fn plan(shape: Shape) -> Result<Plan, String> {
    let Shape {
        transfer: t,
        block: b,
        blocks,
        interleaved,
    } = shape;
    let size = b.saturating_mul(blocks);
    if interleaved && blocks * (b / t.max(1)) > 1 {
        if (MIN_PART..=MAX_PART).contains(&t) && size / t <= MAX_PARTS {
            return Ok(Plan { part: t, size });
        }
        return Err(format!(
            "--s3.layout=object (-t {}, -z, shared file): the tasks' transfers interleave, so each \
             is a part of its own, {} to {}, at most {MAX_PARTS} per object; use -t {} or more, \
             -F, or --s3.layout=fragments",
            human_bytes(t),
            human_bytes(MIN_PART),
            human_bytes(MAX_PART),
            human_bytes(MIN_PART)
        ));
    }
    let why = |what: String| {
        format!(
            "--s3.layout=object (-t {}, -b {}): {what}",
            human_bytes(t),
            human_bytes(b)
        )
    };
    if size > MAX_OBJECT {
        return Err(why(format!(
            "an object of {} exceeds S3's {}; use smaller -b or -s, -F, or --s3.layout=fragments",
            human_bytes(size),
            human_bytes(MAX_OBJECT)
        )));
    }
    if t == 0 || b == 0 {
        return Ok(Plan {
            part: size.max(1),
            size,
        });
    }
    if t > MAX_PART {
        return Err(why(format!(
            "a transfer is one part, at most {}; use -t {} or less",
            human_bytes(MAX_PART),
            human_bytes(MAX_PART)
        )));
    }
    let least = MIN_PART.max(size.div_ceil(MAX_PARTS));
    let first = least.div_ceil(t) * t;
    if size <= first || (blocks <= 1 && first <= MAX_PART) {
        return Ok(Plan { part: first, size });
    }
    if blocks > 1 {
        let per_block = b / t;
        let k0 = first / t;
        if let Some(k) = (k0..=per_block).find(|k| per_block % k == 0 && k * t <= MAX_PART) {
            return Ok(Plan { part: k * t, size });
        }
    }
    let unit = MIN_PART.div_ceil(t) * t;
    let below = b / unit * unit;
    let above = below + unit;
    let sizes = match below >= unit {
        true => format!("-b {} or -b {}", human_bytes(below), human_bytes(above)),
        false => format!("-b {}", human_bytes(above)),
    };
    Err(why(format!(
        "S3 parts are {} to {} (all but the last), at most {MAX_PARTS} per object, and each part \
         of a shared object lies within one block; use {sizes} (multiples of {}), -F, or \
         --s3.layout=fragments",
        human_bytes(MIN_PART),
        human_bytes(MAX_PART),
        human_bytes(unit)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1 << 20;

    fn shape(transfer: u64, block: u64, blocks: u64) -> Shape {
        Shape {
            transfer,
            block,
            blocks,
            interleaved: false,
        }
    }

    #[test]
    fn parts_are_transfers_grouped_to_five_mib() {
        assert_eq!(plan(shape(M, 4 * M, 1)).unwrap().part, 5 * M);
        assert!(plan(shape(M, 4 * M, 1)).unwrap().single());
        assert_eq!(plan(shape(M, 20 * M, 1)).unwrap().part, 5 * M);
        assert_eq!(plan(shape(8 * M, 64 * M, 4)).unwrap().part, 8 * M);
        // Shared: 3 MiB transfers in 12 MiB blocks: 6 MiB parts.
        assert_eq!(plan(shape(3 * M, 12 * M, 4)).unwrap().part, 6 * M);
        // A file per task of 100 GiB in 1 MiB transfers: 11 MiB parts.
        let p = plan(shape(M, 100 << 30, 1)).unwrap();
        assert!(p.size.div_ceil(p.part) <= MAX_PARTS);
    }

    #[test]
    fn refusals_name_the_nearest_sizes_and_fragments() {
        let e = plan(shape(M, 4 * M, 4)).unwrap_err();
        assert!(e.contains("use -b 5 MiB (multiples of 5 MiB)"), "{e}");
        assert!(e.contains("--s3.layout=fragments"), "{e}");
        // A block of 7 MiB is one part of its own.
        assert_eq!(plan(shape(M, 7 * M, 2)).unwrap().part, 7 * M);
        assert!(plan(shape(6 << 30, 6 << 30, 1))
            .unwrap_err()
            .contains("at most 5 GiB"));
        let z = Shape {
            interleaved: true,
            ..shape(M, 10 * M, 4)
        };
        assert!(plan(z).unwrap_err().contains("use -t 5 MiB or more"));
        let z = Shape {
            interleaved: true,
            ..shape(5 * M, 10 * M, 4)
        };
        assert_eq!(plan(z).unwrap().part, 5 * M);
    }
}
