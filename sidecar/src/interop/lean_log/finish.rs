//! The end of an import: what the log as a whole says (cut off, no cumulative block, nothing of
//! Lean's in it, a measure nothing fits) as notes or an error.

use recording::Measure;

use super::{Importer, LeanLog, FORMAT};
use crate::interop::error::{InteropError, Result};

impl Importer<'_, '_> {
    pub(super) fn finish(
        mut self,
        lines: u64,
        cut_off: bool,
        saw_cumulative: bool,
        last_profiler_line: u64,
    ) -> Result<LeanLog> {
        if self.measure != Measure::Time && self.events == 0 {
            return Err(InteropError::invalid(
                FORMAT,
                format!("{lines} lines"),
                format!(
                    "--measure {}: no trace tree to read as {} (`took` lines and the cumulative block are times{})",
                    self.measure.as_str(),
                    self.measure.as_str(),
                    self.not_measured.named.first().map(|n| format!("; {n}")).unwrap_or_default()
                ),
            ));
        }
        if self.measure != Measure::Time && !self.log.cumulative.is_empty() {
            self.log.cumulative.clear();
            self.sink.notes.push(format!(
                "the `cumulative profiling times:` block is left out: its times do not fit a recording measured in {}",
                self.measure.as_str()
            ));
        }
        let nothing = self.events == 0 && !saw_cumulative && self.log.diagnostics.is_empty();
        if nothing {
            let why = self
                .bad_messages
                .named
                .first()
                .or(self.bad_traces.named.first())
                .or(self.other.named.first())
                .or(self.first_text.as_ref())
                .cloned()
                .unwrap_or_else(|| "the input is empty".into());
            return Err(InteropError::invalid(
                FORMAT,
                if lines == 0 { "line 1".to_string() } else { format!("{lines} lines") },
                format!(
                    "no `… took …` line, Lean JSON message, trace tree or `cumulative profiling times:` block: not Lean's output ({why})"
                ),
            ));
        }
        if self.events > 0 && self.sink.use_node_layout() {
            self.log.untimed = true;
            self.sink.notes.insert(
                0,
                format!(
                    "the trace has no timings: Lean printed it without `trace.profiler`, so its {} events count trace nodes, not time (the recording's measure is `untimed`); to time them, add `set_option trace.profiler true` before the commands (or run `lean -Dtrace.profiler=true`)",
                    self.events
                ),
            );
        }
        let notes = &mut self.sink.notes;
        if cut_off {
            notes.push(format!(
                "line {lines}, the last, has no newline: the log was cut off there (truncated)"
            ));
        }
        if self.profiler_lines > 0 && !saw_cumulative && self.measure == Measure::Time {
            notes.push(format!(
                "no `cumulative profiling times:` block after the last profiler line (line {last_profiler_line}): the log is truncated, or Lean stopped before printing it; Lean's cumulative times are unknown"
            ));
        }
        if self.events == 0 {
            notes.push(
                "the log holds no profiler output (no `… took …` line, no timed trace): nothing was timed".into(),
            );
        }
        for (skipped, what) in [
            (
                &self.measure_warnings,
                "trace trees' numbers do not fit what they were read as",
            ),
            (
                &self.not_measured,
                "lines hold times, which a recording of heartbeats leaves out (import without --measure heartbeats to see them)",
            ),
            (
                &self.bad_messages,
                "lines that start with `{` but are not Lean JSON messages were skipped",
            ),
            (
                &self.bad_traces,
                "trace trees could not be read and were skipped",
            ),
            (
                &self.other,
                "lines that are not Lean profiler output were skipped",
            ),
            (
                &self.unplaced,
                "positions lie outside the given source file; their events have no range",
            ),
        ] {
            notes.extend(skipped.note(what));
        }
        Ok(self.log)
    }
}
