//! The text `lean --profile` (or `-Dprofiler=true`) prints.
//!
//! Lean's `time_task` (src/library/time_task.cpp) prints one line per timed
//! step above the threshold, `CATEGORY took TIME` or `CATEGORY of DECL took
//! TIME`, and at the end `cumulative profiling times:` followed by one
//! tab-indented `CATEGORY TIME` line per category. TIME is written by
//! `display_profiling_time` (src/util/timeit.cpp) with three significant
//! digits: milliseconds below one second (`36.8ms`, `0.00733ms`), seconds
//! otherwise (`1.6s`), in C++'s general notation (so `1e+03ms` can occur).
//!
//! Only durations are known, so the steps are laid out one after another
//! on a thread `lean --profile` (class: the category; label: the
//! declaration, or the category), and the cumulative times on a second
//! thread `cumulative profiling times` (class `cumulative`). Other lines
//! (Lean's messages) are skipped and counted in a note.

use std::io::BufRead;

use super::error::{InteropError, Result};
use super::limits::MAX_LINE_BYTES;
use super::read_line_bounded;
use super::sink::{SinkEvent, TraceSink};

const FORMAT: &str = "lean --profile output";

/// The line that starts Lean's cumulative block.
pub const CUMULATIVE_HEADER: &str = "cumulative profiling times:";

/// The class of the cumulative times' events.
pub const CUMULATIVE_CLASS: &str = "cumulative";

/// A time as `display_profiling_time` writes it, in nanoseconds.
pub fn parse_lean_duration(text: &str) -> Option<u64> {
    let (number, scale) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1e6)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1e9)
    } else {
        return None;
    };
    if number.is_empty() || !number.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let value: f64 = number.parse().ok()?;
    let ns = (value * scale).round();
    (ns.is_finite() && ns >= 0.0 && ns <= recording::limits::MAX_TIME_NS as f64)
        .then_some(ns as u64)
}

/// Imports `lean --profile` output into `sink`.
pub fn import<R: BufRead>(mut input: R, sink: &mut TraceSink) -> Result<()> {
    let steps = sink.add_thread(0, "lean --profile".into())?;
    let mut cumulative_thread = None;
    let mut line = Vec::new();
    let mut number = 0u64;
    let mut in_block = false;
    let (mut at_steps, mut at_cumulative) = (0u64, 0u64);
    let mut skipped = 0u64;
    let mut found = false;
    while read_line_bounded(&mut input, &mut line, MAX_LINE_BYTES, FORMAT, number + 1)? {
        number += 1;
        let at = || format!("line {number}");
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        if text == CUMULATIVE_HEADER {
            in_block = true;
            found = true;
            if cumulative_thread.is_none() {
                cumulative_thread =
                    Some(sink.add_thread(1, CUMULATIVE_HEADER.trim_end_matches(':').into())?);
            }
            continue;
        }
        if in_block {
            if let Some(entry) = text.strip_prefix('\t') {
                let (category, time) = entry.rsplit_once(' ').ok_or_else(|| {
                    InteropError::invalid(FORMAT, at(), format!("`{entry}` is not `CATEGORY TIME`"))
                })?;
                let ns = parse_lean_duration(time).ok_or_else(|| {
                    InteropError::invalid(
                        FORMAT,
                        at(),
                        format!("`{time}` is not a Lean profiling time such as `36.8ms` or `1.6s`"),
                    )
                })?;
                let thread = cumulative_thread.expect("set at the header");
                sink.push(&SinkEvent {
                    parent: None,
                    class: CUMULATIVE_CLASS,
                    label: category,
                    start_ns: at_cumulative,
                    duration_ns: ns,
                    thread,
                    range: None,
                })?;
                at_cumulative += ns;
                continue;
            }
            in_block = false;
        }
        if let Some((what, time)) = text.rsplit_once(" took ") {
            let ns = parse_lean_duration(time).ok_or_else(|| {
                InteropError::invalid(
                    FORMAT,
                    at(),
                    format!("`{time}` is not a Lean profiling time such as `36.8ms` or `1.6s`"),
                )
            })?;
            let (category, decl) = match what.split_once(" of ") {
                Some((c, d)) => (c, d),
                None => (what, what),
            };
            sink.push(&SinkEvent {
                parent: None,
                class: category,
                label: decl,
                start_ns: at_steps,
                duration_ns: ns,
                thread: steps,
                range: None,
            })?;
            at_steps += ns;
            found = true;
            continue;
        }
        if !text.trim().is_empty() {
            skipped += 1;
        }
    }
    if !found {
        return Err(InteropError::invalid(
            FORMAT,
            "line 1",
            "no `… took …` lines and no `cumulative profiling times:` block: not `lean --profile` output",
        ));
    }
    if skipped > 0 {
        sink.notes.push(format!(
            "skipped {skipped} lines that are not profiler output"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_lean_duration;

    #[test]
    fn lean_durations() {
        assert_eq!(parse_lean_duration("36.8ms"), Some(36_800_000));
        assert_eq!(parse_lean_duration("0.00733ms"), Some(7_330));
        assert_eq!(parse_lean_duration("1.6s"), Some(1_600_000_000));
        assert_eq!(parse_lean_duration("1e+03ms"), Some(1_000_000_000));
        assert_eq!(parse_lean_duration("653ms"), Some(653_000_000));
        for bad in ["", "ms", "12", "-1ms", "1.5 ms", "abcs", "inf s", "NaNms"] {
            assert_eq!(parse_lean_duration(bad), None, "{bad}");
        }
    }
}
