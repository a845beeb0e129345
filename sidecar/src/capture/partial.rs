//! What a capture keeps when Lean does not finish, and where its memory went.
//!
//! Lean prints each command's messages when the command is done (`fixtures/README.md`, "When
//! Lean prints a command's messages"), so a stopped run's stdout holds every command Lean
//! finished and reported. The command in flight is the first command of the source after the
//! last one Lean reported; it ran at most since that report arrived.
//!
//! Memory samples are on the wall clock since Lean started; each reported command is placed on
//! it by when its message arrived, less its reported duration.

use std::time::Duration;

use recording::memory::MemoryTrack;
use recording::{Declaration, InFlight, Measure, RangeKind, SourceRange, Stop, StopReason};

use super::declarations::CommandExtent;
use super::events::{Built, Event};
use super::lean_output::messages::LeanMessage;
use super::lean_output::trace_text::parse_trace_text;
use super::process::{Finished, Stop as RunStop};
use super::source::Source;

/// Why the run in `finished` did not finish, if it did not: stopped by leanscope, or killed
/// by a signal it did not send.
pub fn stop_of(finished: &Finished) -> Option<Stop> {
    let wall_ns = u64::try_from(finished.wall.as_nanos()).unwrap_or(u64::MAX);
    let stop = |reason, detail: String| Stop {
        reason,
        detail,
        wall_ns,
        ..Stop::default()
    };
    match finished.stopped {
        Some(RunStop::Cancelled) => Some(stop(
            StopReason::Cancelled,
            "cancelled; Lean was stopped".into(),
        )),
        Some(RunStop::TimedOut(t)) => Some(stop(
            StopReason::Timeout,
            format!("Lean did not finish within {} and was stopped", seconds(t)),
        )),
        Some(RunStop::MemoryLimit { limit, reached }) => Some(Stop {
            memory_limit_bytes: Some(limit),
            memory_reached_bytes: Some(reached),
            ..stop(
                StopReason::MemoryLimit,
                format!(
                    "Lean's memory passed the limit of {} (it reached {}) and Lean was stopped",
                    mebibytes(limit),
                    mebibytes(reached)
                ),
            )
        }),
        None => killed_by(finished).map(|signal| Stop {
            signal: Some(signal),
            ..stop(
                StopReason::Signal,
                format!("Lean was killed by signal {signal}{}", signal_name(signal)),
            )
        }),
    }
}

/// `2 s`, `1.5 s`.
fn seconds(t: Duration) -> String {
    if t.subsec_millis() == 0 {
        format!("{} s", t.as_secs())
    } else {
        format!("{:.1} s", t.as_secs_f64())
    }
}

/// Bytes as MiB for people: `200 MiB` (the one rule, [`recording::memory::format_bytes`]).
pub fn mebibytes(bytes: u64) -> String {
    recording::memory::format_bytes(bytes)
}

#[cfg(unix)]
fn killed_by(finished: &Finished) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    finished.status.signal()
}

#[cfg(not(unix))]
fn killed_by(_finished: &Finished) -> Option<i32> {
    None
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        9 => " (SIGKILL: the kernel's out-of-memory killer, or a user)",
        15 => " (SIGTERM)",
        2 => " (SIGINT)",
        6 => " (SIGABRT)",
        11 => " (SIGSEGV)",
        _ => "",
    }
}

/// One command Lean reported: the message, when it arrived, and what it took (ns; 0 when the
/// message says no time).
pub struct Report {
    /// Byte offset of the message's position in the source.
    pub byte: usize,
    pub arrived: Duration,
    pub took_ns: u64,
}

/// The commands the messages report, in the order Lean printed them: trace trees (the sum of
/// their roots' times when `measure` is time) and messages of `… took …` lines. `lines[i]` is
/// the 0-based stdout line of `messages[i]`, `line_times` when each line arrived.
pub fn reports(
    messages: &[LeanMessage],
    lines: &[usize],
    line_times: &[Duration],
    src: &Source<'_>,
    measure: Measure,
    is_report: impl Fn(&LeanMessage) -> bool,
) -> Vec<Report> {
    messages
        .iter()
        .zip(lines)
        .filter(|(m, _)| is_report(m))
        .filter_map(|(m, &line)| {
            let byte = src.byte_of(m.pos)?;
            let arrived = *line_times.get(line)?;
            let took_ns = match (measure, parse_trace_text(&m.data)) {
                (Measure::Time, Ok(forest)) => forest
                    .roots()
                    .filter_map(|r| forest.node(r)?.timing.map(|t| t.nanoseconds))
                    .sum(),
                _ => 0,
            };
            Some(Report {
                byte,
                arrived,
                took_ns,
            })
        })
        .collect()
}

/// The 0-based stdout line of each message [`MessageReader`] reads from `stdout` (it skips
/// empty lines).
///
/// [`MessageReader`]: super::lean_output::messages::MessageReader
pub fn message_lines(stdout: &[u8]) -> Vec<usize> {
    stdout
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && *l != b"\r")
        .map(|(i, _)| i)
        .collect()
}

/// The index of the command (in `commands`) that holds source line `line`.
fn command_holding(commands: &[CommandExtent], line: u32) -> Option<usize> {
    commands
        .iter()
        .rposition(|c| c.start_line <= line && line <= c.end_line.max(c.start_line))
}

fn extent_range(c: &CommandExtent) -> SourceRange {
    SourceRange::new(c.start_line, 0, c.end_line, c.end_col)
}

/// The declaration a command declares, if any.
fn declaration_of<'d>(decls: &'d [Declaration], c: &CommandExtent) -> Option<&'d Declaration> {
    decls
        .iter()
        .find(|d| c.start_line <= d.range.start_line && d.range.start_line <= c.end_line)
}

/// A command's name for people: its declaration's, else its first line.
fn command_label(src: &Source<'_>, decls: &[Declaration], c: &CommandExtent) -> String {
    declaration_of(decls, c).map_or_else(
        || {
            src.line_text(c.start_line)
                .trim()
                .chars()
                .take(120)
                .collect()
        },
        |d| d.name.clone(),
    )
}

/// The command in flight when Lean was stopped at `stopped_at` (since its start): the first
/// command after the last one `reports` names (the first of the file when there is none),
/// with its open event appended to `built` after the reported ones. `None` when every command
/// was reported.
pub fn in_flight(
    built: &mut Built<'_>,
    reports: &[Report],
    src: &Source<'_>,
    decls: &[Declaration],
    commands: &[CommandExtent],
    stopped_at: Duration,
    measure: Measure,
) -> Option<InFlight> {
    let (next, since) = match reports.last() {
        Some(last) => {
            let line = src.utf16_at(last.byte).0;
            let held = command_holding(commands, line)?;
            (held + 1, last.arrived)
        }
        None => (0, Duration::ZERO),
    };
    let command = commands.get(next)?;
    let running_ns = u64::try_from(stopped_at.saturating_sub(since).as_nanos()).unwrap_or(u64::MAX);
    let start_ns = built
        .events
        .iter()
        .filter(|e| e.parent.is_none())
        .map(|e| e.start_ns.saturating_add(e.duration_ns))
        .max()
        .unwrap_or(0);
    let text: String = src
        .line_text(command.start_line)
        .trim()
        .chars()
        .take(200)
        .collect();
    let range = extent_range(command);
    let event = built.events.len() as u64;
    built.events.push(Event {
        parent: None,
        class: "Elab.command".into(),
        label: text.clone().into(),
        start_ns,
        // A heartbeat recording's columns count heartbeats: the wall time is not one of them.
        duration_ns: match measure {
            Measure::Time => running_ns,
            Measure::Heartbeats | Measure::Untimed => 0,
        },
        thread: 0,
        range: Some(range),
        range_kind: RangeKind::Matched,
    });
    Some(InFlight {
        declaration: declaration_of(decls, command).map_or_else(String::new, |d| d.name.clone()),
        text,
        range,
        start_ns,
        running_ns,
        event: Some(event),
    })
}

/// Attributes the track's growth to the reported commands (each from the previous report to
/// its own; the first for its reported time) and to the command in flight (from the last
/// report to `stopped_at`).
pub fn attribute_memory(
    track: &mut MemoryTrack,
    reports: &[Report],
    src: &Source<'_>,
    decls: &[Declaration],
    commands: &[CommandExtent],
    in_flight: Option<&InFlight>,
    stopped_at: Option<Duration>,
) {
    let ns = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
    let mut previous: Option<u64> = None;
    for r in reports {
        let end = ns(r.arrived);
        // Since the report before: what silent commands in between (under the threshold) and
        // the command's own preparation (parsing, allocating before its timed steps) added
        // counts too. The first starts its reported time before its report (not at Lean's
        // start: importing is not a command's growth).
        let start = previous.unwrap_or_else(|| end.saturating_sub(r.took_ns));
        previous = Some(end);
        let line = src.utf16_at(r.byte).0;
        let (label, range) = match command_holding(commands, line).and_then(|i| commands.get(i)) {
            Some(c) => (command_label(src, decls, c), extent_range(c)),
            None => (
                src.line_text(line).trim().chars().take(120).collect(),
                SourceRange::new(line, 0, line, 0),
            ),
        };
        track.attribute(label, range, start, end, false);
    }
    if let (Some(f), Some(at)) = (in_flight, stopped_at) {
        let label = if f.declaration.is_empty() {
            f.text.clone()
        } else {
            f.declaration.clone()
        };
        track.attribute(label, f.range, previous.unwrap_or(0), ns(at), true);
    }
}
