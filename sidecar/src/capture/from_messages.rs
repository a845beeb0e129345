//! What the `--json` messages give: diagnostics, the positions Lean
//! reported for commands, and — when Lean wrote no timed profile — events
//! with durations only, laid out back to back.

use std::collections::HashSet;

use recording::{ClockKind, Diagnostic, Measure, SourceRange, Thread};

use super::events::{Built, Event};
use super::lean_output::messages::{LeanMessage, Severity as LeanSeverity};
use super::lean_output::profiler_lines::{parse_took_line, ProfilerLine};
use super::lean_output::trace_text::{parse_trace_text, TraceForest};
use super::placer::{Placement, Placer};
use super::source::Source;
use super::status_emoji;

/// Is this message a trace tree?
fn is_trace(m: &LeanMessage) -> bool {
    m.kind_is_trace().unwrap_or_else(|| {
        m.data.starts_with('[') && parse_trace_text(&m.data).is_ok_and(|f| !f.is_empty())
    })
}

/// The `… took …` lines of a message, if every line of it is one.
fn took_lines(m: &LeanMessage) -> Option<Vec<ProfilerLine>> {
    if m.severity != LeanSeverity::Information || m.data.trim().is_empty() {
        return None;
    }
    m.data
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(parse_took_line)
        .collect()
}

fn span_of(m: &LeanMessage, src: &Source<'_>) -> Option<(usize, usize)> {
    let s = src.byte_of(m.pos)?;
    let e = m.end_pos.and_then(|p| src.byte_of(p)).unwrap_or(s);
    Some((s, e.max(s)))
}

/// Errors, warnings and information that is neither a trace nor profiler
/// output, with UTF-16 ranges.
pub fn diagnostics(messages: &[LeanMessage], src: &Source<'_>) -> Vec<Diagnostic> {
    messages
        .iter()
        .filter(|m| !is_trace(m) && took_lines(m).is_none())
        .map(|m| Diagnostic {
            severity: match m.severity {
                LeanSeverity::Information => recording::Severity::Information,
                LeanSeverity::Warning => recording::Severity::Warning,
                LeanSeverity::Error => recording::Severity::Error,
            },
            range: span_of(m, src).map_or_else(SourceRange::default, |(s, e)| src.range(s, e)),
            text: m.data.clone(),
        })
        .collect()
}

/// Byte offsets where Lean reported a command's messages (its start).
pub fn command_starts(messages: &[LeanMessage], src: &Source<'_>) -> HashSet<usize> {
    messages
        .iter()
        .filter(|m| is_trace(m) || took_lines(m).is_some())
        .filter_map(|m| src.byte_of(m.pos))
        .collect()
}

/// Is this message a command's report: a trace tree or `… took …` lines?
pub fn is_report(m: &LeanMessage) -> bool {
    is_trace(m) || took_lines(m).is_some()
}

/// True when the messages hold trace trees (Lean ran without
/// `trace.profiler.output`, which suppresses them).
pub fn has_traces(messages: &[LeanMessage]) -> bool {
    messages.iter().any(is_trace)
}

fn durations_only(description: &str) -> Built<'static> {
    Built {
        clock: ClockKind::DurationsOnly,
        clock_description: description.into(),
        threads: vec![Thread {
            id: 0,
            name: "main".into(),
        }],
        ..Built::default()
    }
}

/// Events from the positioned trace trees: each command's range is the
/// message's, as Lean reported it; nested steps are matched in it; times
/// are the printed durations, children laid out from their parent's start.
pub fn from_traces(
    messages: &[LeanMessage],
    placer: &mut Placer<'_>,
    measure: Measure,
) -> Built<'static> {
    let mut built = durations_only(match measure {
        // a capture measures time or heartbeats (`Measure::MEASURABLE`)
        Measure::Time | Measure::Untimed => {
            "durations from Lean's trace messages; starts are laid out back to back, not measured"
        }
        Measure::Heartbeats => {
            "heartbeats from Lean's trace messages; starts are laid out back to back, not measured"
        }
    });
    let mut at = 0u64;
    for m in messages.iter().filter(|m| is_trace(m)) {
        let Ok(forest) = parse_trace_text(&m.data) else {
            continue;
        };
        let span = span_of(m, placer.src);
        for root in forest.roots() {
            let dur = add_trace_tree(&forest, root, None, at, span, placer, measure, &mut built);
            at += dur;
        }
    }
    built
}

#[allow(clippy::too_many_arguments)]
fn add_trace_tree(
    forest: &TraceForest,
    node: usize,
    parent: Option<u32>,
    start: u64,
    reported: Option<(usize, usize)>,
    placer: &mut Placer<'_>,
    measure: Measure,
    built: &mut Built<'static>,
) -> u64 {
    let Some(n) = forest.node(node) else { return 0 };
    let class = forest.class(node);
    let text = status_emoji::normalized(class, &n.text);
    let dur = n.timing.map_or(0, |t| match measure {
        Measure::Time | Measure::Untimed => t.nanoseconds,
        Measure::Heartbeats => t.whole_units,
    });
    let placement = match (parent, reported) {
        (None, Some((s, e))) => placer.place_reported(s, e),
        _ => placer.place_child(parent, class, text),
    };
    let range = placer.record(&placement);
    let index = built.events.len() as u32;
    built.events.push(Event {
        parent,
        class: class.to_string().into(),
        label: text.to_string().into(),
        start_ns: start,
        duration_ns: dur,
        thread: 0,
        range,
        range_kind: placement.kind,
    });
    let mut at = start;
    let children: Vec<usize> = forest.children(node).collect();
    for c in children {
        // A child never ends after its parent, even if rounding says so.
        let child_dur = add_trace_tree(forest, c, Some(index), at, None, placer, measure, built);
        at = (at + child_dur).min(start + dur);
    }
    dur
}

/// Events from the profiler's `… took …` lines (Lean wrote no profile and
/// printed no trace trees, e.g. because the file has errors). Lean reports a command's
/// captured profiler output at the position of what each line times (a tactic, a
/// declaration's name for its kernel check) or at the command's start: each position is
/// attached to the source command that contains it, one event per command in source order,
/// with its sections as children placed at the token Lean reported.
pub fn from_took_lines(
    messages: &[LeanMessage],
    stderr_took: &[ProfilerLine],
    placer: &mut Placer<'_>,
) -> Built<'static> {
    let mut built = durations_only(
        "durations from Lean's profiler lines (no timed trace was written); starts are laid out back to back",
    );
    // Command start → (its end, the profiler lines with the position Lean reported them at).
    type Lines = Vec<(usize, ProfilerLine)>;
    let mut by_command: std::collections::BTreeMap<usize, (usize, Lines)> = Default::default();
    let mut outside: Vec<ProfilerLine> = Vec::new();
    for m in messages {
        let Some(lines) = took_lines(m) else {
            continue;
        };
        // a position past the source (not this file's version) keeps its lines, unplaced
        let at = placer.src.byte_of(m.pos);
        match at.and_then(|at| Some((at, placer.command_extent_containing(at)?))) {
            Some((at, (start, end))) => by_command
                .entry(start)
                .or_insert_with(|| (end, Vec::new()))
                .1
                .extend(lines.into_iter().map(|l| (at, l))),
            None => outside.extend(lines),
        }
    }
    let mut at = 0u64;
    // Outside any command (imports): top-level sections.
    add_sections(None, stderr_took, &mut at, placer, &mut built);
    add_sections(None, &outside, &mut at, placer, &mut built);
    for (start, (end, lines)) in by_command {
        let placement = placer.place_scanned(start, end.max(start));
        let range = placer.record(&placement);
        let parent = built.events.len() as u32;
        let label_line = placer
            .declaration_at(start)
            .filter(|d| placer.src.bytes_of(&d.range).0 == start)
            .map_or(placer.src.utf16_at(start).0, |d| {
                d.selection_range.start_line
            });
        built.events.push(Event {
            parent: None,
            class: "Elab.command".into(),
            label: placer.src.line_text(label_line).trim().to_string().into(),
            start_ns: at,
            duration_ns: lines.iter().map(|(_, l)| l.nanoseconds).sum(),
            thread: 0,
            range,
            range_kind: placement.kind,
        });
        for (pos, l) in &lines {
            let placement = placer.place_reported_point(parent, *pos);
            push_section(Some(parent), l, placement, &mut at, placer, &mut built);
        }
    }
    built
}

fn add_sections(
    parent: Option<u32>,
    lines: &[ProfilerLine],
    at: &mut u64,
    placer: &mut Placer<'_>,
    built: &mut Built<'static>,
) {
    for l in lines {
        let placement = placer.place_child(parent, "profiler", "");
        push_section(parent, l, placement, at, placer, built);
    }
}

fn push_section(
    parent: Option<u32>,
    l: &ProfilerLine,
    placement: Placement,
    at: &mut u64,
    placer: &mut Placer<'_>,
    built: &mut Built<'static>,
) {
    let range = placer.record(&placement);
    built.events.push(Event {
        parent,
        class: "profiler".into(),
        label: match &l.declaration {
            Some(d) => format!("{} of {d}", l.category).into(),
            None => l.category.clone().into(),
        },
        start_ns: *at,
        duration_ns: l.nanoseconds,
        thread: 0,
        range,
        range_kind: placement.kind,
    });
    *at += l.nanoseconds;
}
