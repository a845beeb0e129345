//! Headroom: how close each declaration of a heartbeat recording is to the `maxHeartbeats`
//! limit in force for it, and its slowest instance search to `synthInstance.maxHeartbeats`.
//!
//! - The limit in force ([`options`]): a `set_option NAME N in` attached to the declaration,
//!   else the command-level `set_option NAME N` of the scopes open at its start, else Lean's
//!   default for the recording's toolchain ([`limits`]).
//! - The declaration's count: its declaration total (the union of its events' heartbeats,
//!   `aggregate.rs`), which is what its command spent while Lean traced it; for a repeated
//!   capture, the median over the runs (the caller passes the counts).
//! - The instance search's count: the most inclusive `Meta.synthInstance` event inside the
//!   declaration.
//! - A bump (`in`) is not needed when the count is under a share of the default
//!   ([`HeadroomOptions::bump_not_needed_below`]).
//!
//! Only a recording measured in heartbeats has headroom: a time recording is refused.

pub mod limits;
pub mod options;

use serde::Serialize;

use crate::model::annotations::short_label;
use crate::model::{declaration_times, DeclarationIndex};
use crate::{Measure, Recording, SourceRange};
use limits::{
    default_max_heartbeats, Check, LimitFrom, DEFAULT_BUMP_NOT_NEEDED_BELOW,
    DEFAULT_SYNTH_INSTANCE_MAX_HEARTBEATS,
};
use options::{LimitOption, SourceOptions};

/// The trace class of an instance search.
pub const SYNTH_INSTANCE_CLASS: &str = "Meta.synthInstance";

/// The choices of a headroom report.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadroomOptions {
    /// A `set_option maxHeartbeats N in` is not needed when the declaration's count is under
    /// this share of the default (0.5: it would fit in half the default).
    pub bump_not_needed_below: f64,
}

impl Default for HeadroomOptions {
    fn default() -> Self {
        HeadroomOptions {
            bump_not_needed_below: DEFAULT_BUMP_NOT_NEEDED_BELOW,
        }
    }
}

/// A declaration's count against `maxHeartbeats`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MaxHeartbeatsHeadroom {
    #[serde(flatten)]
    pub check: Check,
    /// An `in` bump the declaration would not need: its count is under
    /// [`HeadroomOptions::bump_not_needed_below`] of the default.
    pub bump_not_needed: bool,
}

/// A declaration's slowest instance search against `synthInstance.maxHeartbeats`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SynthInstanceHeadroom {
    #[serde(flatten)]
    pub check: Check,
    /// The search's label (its goal, as Lean's trace names it).
    pub instance: String,
    /// The event of that search.
    #[serde(skip)]
    pub event: u32,
}

/// One declaration's headroom.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclarationHeadroom {
    /// Index into the header's declarations.
    pub index: usize,
    pub name: String,
    pub kind: String,
    pub range: SourceRange,
    pub max_heartbeats: MaxHeartbeatsHeadroom,
    /// `None` when no instance search was recorded inside the declaration.
    pub synth_instance: Option<SynthInstanceHeadroom>,
}

/// Why a recording has no headroom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeadroomError {
    /// The recording counts time, which no heartbeat limit applies to.
    NotHeartbeats { measure: Measure },
    /// The counts given are not one per declaration.
    WrongCounts { declarations: usize, counts: usize },
}

impl std::fmt::Display for HeadroomError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeadroomError::NotHeartbeats { measure } => write!(
                f,
                "the recording is measured in {}; headroom compares heartbeats with maxHeartbeats, so capture with --measure heartbeats",
                measure.as_str()
            ),
            HeadroomError::WrongCounts {
                declarations,
                counts,
            } => write!(
                f,
                "{counts} heartbeat counts for {declarations} declarations"
            ),
        }
    }
}

impl std::error::Error for HeadroomError {}

/// The headroom of each declaration of `rec` (in header order; `None` for a declaration with
/// no recorded heartbeats), counted from the recording itself.
pub fn headroom(
    rec: &Recording,
    opts: HeadroomOptions,
) -> Result<Vec<Option<DeclarationHeadroom>>, HeadroomError> {
    let counts: Vec<Option<u64>> = declaration_times(rec)
        .iter()
        .map(|t| t.map(|t| t.total_ns))
        .collect();
    headroom_with_counts(rec, &counts, opts)
}

/// As [`headroom`], with each declaration's heartbeats given (one per declaration of `rec`'s
/// header, e.g. the medians over the runs of a repeated capture whose median run `rec` is).
pub fn headroom_with_counts(
    rec: &Recording,
    counts: &[Option<u64>],
    opts: HeadroomOptions,
) -> Result<Vec<Option<DeclarationHeadroom>>, HeadroomError> {
    let h = &rec.header;
    if h.measure != Measure::Heartbeats {
        return Err(HeadroomError::NotHeartbeats { measure: h.measure });
    }
    if counts.len() != h.declarations.len() {
        return Err(HeadroomError::WrongCounts {
            declarations: h.declarations.len(),
            counts: counts.len(),
        });
    }
    let source = SourceOptions::scan(&h.source_text);
    let default = default_max_heartbeats(&h.lean_version);
    let searches = slowest_searches(rec);
    Ok(h.declarations
        .iter()
        .zip(counts)
        .enumerate()
        .map(|(index, (d, count))| {
            let heartbeats = (*count)?;
            let r = d.range;
            let (start, end) = ((r.start_line, r.start_col), (r.end_line, r.end_col));
            let check = |o: LimitOption, n: u64, default: u64| {
                Check::new(
                    n,
                    source.attached(o, (start, end)),
                    source.in_force(o, start),
                    default,
                )
            };
            let mh = check(LimitOption::MaxHeartbeats, heartbeats, default);
            let bump_not_needed = mh.from == LimitFrom::In
                && mh
                    .share_of_default()
                    .is_some_and(|s| s < opts.bump_not_needed_below);
            let synth_instance = searches[index].map(|e| SynthInstanceHeadroom {
                check: check(
                    LimitOption::SynthInstance,
                    rec.inclusive_ns(e),
                    DEFAULT_SYNTH_INSTANCE_MAX_HEARTBEATS,
                ),
                instance: short_label(rec.label(e)),
                event: e,
            });
            Some(DeclarationHeadroom {
                index,
                name: d.name.clone(),
                kind: d.kind.clone(),
                range: d.range,
                max_heartbeats: MaxHeartbeatsHeadroom {
                    check: mh,
                    bump_not_needed,
                },
                synth_instance,
            })
        })
        .collect())
}

/// For each declaration, its most inclusive instance search (the first of equals).
fn slowest_searches(rec: &Recording) -> Vec<Option<u32>> {
    let index = DeclarationIndex::new(rec);
    let mut best: Vec<Option<u32>> = vec![None; rec.header.declarations.len()];
    for i in 0..rec.len() as u32 {
        if rec.class(i) != SYNTH_INSTANCE_CLASS {
            continue;
        }
        let Some(d) = index.find_event(i) else {
            continue;
        };
        if best[d].is_none_or(|b| rec.inclusive_ns(i) > rec.inclusive_ns(b)) {
            best[d] = Some(i);
        }
    }
    best
}

#[cfg(test)]
mod tests;
