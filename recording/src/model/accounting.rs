//! Where a file's time went: Lean's elapsed time split into imports, traced
//! elaboration and the untraced remainder, beside Lean's own cumulative
//! profiling categories, with what does not add up said in nanoseconds.
//!
//! Lean measures the two sides differently. The recorded events are what the
//! trace (or the `… took …` lines) covered; the cumulative block sums every
//! `profileit` section's *exclusive* time on every thread, plus `blocked
//! (unaccounted)`, the time a thread waited for a task (`report_task_get_blocked_time`
//! in Lean's `src/util/shell.cpp`). With proofs elaborated on worker threads the
//! categories can sum to more than the wall-clock time, so they are shown next
//! to the split, never subtracted from it.

use serde::{Deserialize, Serialize};

use super::timing::{union_ns, Interval};
use super::Recording;

/// The class of the frontend's wrapper node in Lean's profile
/// (`runFrontend`): it spans the whole run, so it is not traced work itself.
pub const FRONTEND_CLASS: &str = "runFrontend";

/// The class of the import phase's node in Lean's profile (`Import: importing`).
pub const IMPORT_CLASS: &str = "Import";

/// The class leanscope gives events made from Lean's `… took …` lines.
pub const PROFILER_CLASS: &str = "profiler";

/// The profiler category (and cumulative entry) of the import phase.
pub const IMPORT_CATEGORY: &str = "import";

/// Is this event Lean's import phase?
pub fn is_import_event(class: &str, label: &str) -> bool {
    class == IMPORT_CLASS || (class == PROFILER_CLASS && label == IMPORT_CATEGORY)
}

/// What the time of the whole file is measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AccountBasis {
    /// Lean's elapsed time for the file.
    Elapsed,
    /// Lean gave no elapsed time: the sum of its cumulative categories.
    Cumulative,
    /// Neither: imports plus traced elaboration.
    Traced,
}

/// One of Lean's cumulative categories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CategoryTime {
    pub category: String,
    pub ns: u64,
}

/// The file's time, accounted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeAccount {
    /// The time being split: Lean's elapsed time, else the cumulative sum,
    /// else imports plus traced elaboration (see `basis`).
    pub file_ns: u64,
    pub basis: AccountBasis,
    /// Lean's elapsed time for the file, imports included, when it said.
    pub elapsed_ns: Option<u64>,
    /// The import phase: Lean's cumulative `import`, else the recorded
    /// import events; `None` when neither says.
    pub imports_ns: Option<u64>,
    /// The union of every recorded event that is not the import phase (all
    /// threads; the frontend's wrapper node is not counted).
    pub traced_ns: u64,
    /// `file_ns − imports − traced` when that is not negative.
    pub untraced_ns: u64,
    /// By how much imports plus traced elaboration exceed `file_ns` (work
    /// on several threads at once, or rounding of durations); 0 when they
    /// fit.
    pub overrun_ns: u64,
    /// Lean's cumulative categories as printed; empty when Lean printed
    /// no block.
    pub categories: Vec<CategoryTime>,
    /// Their sum.
    pub categories_ns: u64,
    /// `categories_ns − file_ns` (positive: the categories hold more than
    /// the file's time, from other threads; negative: part of the file's
    /// time is in no category). `None` without categories.
    pub categories_minus_file_ns: Option<i64>,
    /// What every `_ns` value here counts: nanoseconds, or heartbeats for a heartbeat recording
    /// (whose account then has no elapsed value and no categories).
    #[serde(default)]
    pub measure: crate::Measure,
}

impl TimeAccount {
    /// The sentences that say how the numbers add up (for `info` and the viewer).
    pub fn explanation(&self) -> Vec<String> {
        let measure = self.measure;
        let ms = |ns: u64| match measure {
            crate::Measure::Time => measure.format_in_unit_of(i128::from(ns), 1_000_000),
            crate::Measure::Heartbeats | crate::Measure::Untimed => measure.format(ns),
        };
        let mut out = Vec::new();
        let basis = match self.basis {
            AccountBasis::Elapsed => "Lean's elapsed time",
            AccountBasis::Cumulative => {
                "the sum of Lean's cumulative categories (Lean reported no elapsed time)"
            }
            AccountBasis::Traced => "imports plus traced elaboration (Lean reported no elapsed time and no cumulative categories)",
        };
        out.push(match measure {
            crate::Measure::Time => format!("the file's time, {}, is {basis}", ms(self.file_ns)),
            crate::Measure::Heartbeats => format!(
                "the file's heartbeats, {}, are those of its traced steps (Lean reports no heartbeat total for a file)",
                ms(self.file_ns)
            ),
            crate::Measure::Untimed => {
                // no time to split: only how many nodes there are
                return vec![format!(
                    "the trace has no timings (Lean printed it without `trace.profiler`): {} in all; run with `set_option trace.profiler true` to time them",
                    ms(self.file_ns)
                )];
            }
        });
        let imports = self.imports_ns.unwrap_or(0);
        if self.overrun_ns > 0 {
            out.push(format!(
                "imports ({}) and traced elaboration ({}) exceed it by {} (work on several threads at once)",
                ms(imports),
                ms(self.traced_ns),
                ms(self.overrun_ns)
            ));
        } else {
            out.push(format!(
                "imports {} + traced elaboration {} + untraced {} = {}",
                ms(imports),
                ms(self.traced_ns),
                ms(self.untraced_ns),
                ms(self.file_ns)
            ));
        }
        if let Some(diff) = self.categories_minus_file_ns {
            let by = ms(diff.unsigned_abs());
            out.push(match diff.signum() {
                1 => format!(
                    "Lean's categories sum to {}, {by} more than the file's time (they add up every thread's work and waiting)",
                    ms(self.categories_ns)
                ),
                -1 => format!(
                    "Lean's categories sum to {}, {by} less than the file's time (time in no profiled category)",
                    ms(self.categories_ns)
                ),
                _ => format!(
                    "Lean's categories sum to {}, the file's time exactly",
                    ms(self.categories_ns)
                ),
            });
        }
        out
    }
}

/// Accounts for the time of one recording.
pub fn time_account(rec: &Recording) -> TimeAccount {
    // The traced work is the union, across threads, of every event that is
    // not nested in a same-thread event already counted: top-level events
    // (the frontend's wrapper stands aside: its children count) and events
    // whose parent is on another thread (asynchronous proofs and kernel
    // checks linked to their command). Same-thread descendants lie inside
    // their ancestor, so they add nothing to the union.
    let mut work: Vec<Interval> = Vec::new();
    let mut imports: Vec<Interval> = Vec::new();
    for i in 0..rec.len() as u32 {
        if rec.class(i) == FRONTEND_CLASS {
            continue;
        }
        let iv = Interval::new(rec.start(i), rec.end(i));
        let counted = match rec.parent(i) {
            None => true,
            Some(p) => rec.class(p) == FRONTEND_CLASS || rec.thread(p) != rec.thread(i),
        };
        if counted {
            work.push(iv);
        }
        // Import events anywhere (a capture's import section under its
        // command too) count as imports.
        if is_import_event(rec.class(i), rec.label(i)) {
            imports.push(iv);
        }
    }
    let recorded_imports = (!imports.is_empty()).then(|| union_ns(&mut imports));
    let all = union_ns(&mut work);
    let traced_ns = all - recorded_imports.unwrap_or(0).min(all);
    let categories: Vec<CategoryTime> = rec
        .header
        .cumulative_times
        .iter()
        .map(|c| CategoryTime {
            category: c.category.clone(),
            ns: c.ns,
        })
        .collect();
    let categories_ns = categories
        .iter()
        .fold(0u64, |sum, c| sum.saturating_add(c.ns));
    let imports_ns = categories
        .iter()
        .find(|c| c.category == IMPORT_CATEGORY)
        .map(|c| c.ns)
        .or(recorded_imports);
    let accounted = imports_ns.unwrap_or(0).saturating_add(traced_ns);
    let (file_ns, basis) = match rec.header.elapsed_ns {
        Some(e) => (e, AccountBasis::Elapsed),
        None if !categories.is_empty() => (categories_ns, AccountBasis::Cumulative),
        None => (accounted, AccountBasis::Traced),
    };
    TimeAccount {
        file_ns,
        basis,
        elapsed_ns: rec.header.elapsed_ns,
        imports_ns,
        traced_ns,
        untraced_ns: file_ns.saturating_sub(accounted),
        overrun_ns: accounted.saturating_sub(file_ns),
        categories_minus_file_ns: (!categories.is_empty())
            .then(|| signed_difference(categories_ns, file_ns)),
        categories,
        categories_ns,
        measure: rec.header.measure,
    }
}

/// `a − b`, saturating at the ends of `i64`.
fn signed_difference(a: u64, b: u64) -> i64 {
    let d = i128::from(a) - i128::from(b);
    d.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}
