//! What Lean prints, as users keep it: a `lake env lean --profile --json FILE` log (stdout and
//! stderr merged, or stdout alone), plain `lean --profile` text, or `trace.profiler` trees
//! pasted from the infoview or a log.
//!
//! Each line goes to the one reader of its format in [`crate::capture::lean_output`]:
//! a line starting with `{` is a JSON message ([`messages`]), whose `data` is a trace tree
//! ([`trace_text`]) or `… took …` lines ([`profiler_lines`]); any other line is profiler
//! output (`… took …`, the `cumulative profiling times:` block) or starts a trace tree
//! (`[Elab.command] [0.183] …` with indented children). A `#guard_msgs` block (`info: ` before
//! the first header, `⏎` marking trailing whitespace) is read as the trace it quotes.
//!
//! Only durations are known, so events are laid out one after another on one thread. The
//! `took` lines of a message become children of one event at the message's position; its label
//! is Lean's `FILE:LINE:COLUMN`. Given the source file the log was made from, every position
//! becomes an exact range in it (Lean's codepoint columns converted to UTF-16). The cumulative
//! block goes to the recording's header (see `recording::model::accounting`), not to events.
//! Lines that are none of these are counted, and the first few named, in the recording's notes.

use std::io::BufRead;

use recording::model::accounting::PROFILER_CLASS;
use recording::{CumulativeTime, Diagnostic, RangeKind, Severity, SourceRange};

use super::error::{InteropError, Result};
use super::read_line_bounded;
use super::sink::{SinkEvent, TraceSink};
use crate::capture::lean_output::messages::{
    parse_message_line, LeanMessage, Position, Severity as LeanSeverity, SourceText,
};
use crate::capture::lean_output::profiler_lines::{
    parse_took_line, ProfilerLine, ProfilerLineKind, ProfilerLineReader,
};
use crate::capture::lean_output::trace_text::{parse_trace_text, TraceForest};
#[cfg(doc)]
use crate::capture::lean_output::{messages, profiler_lines, trace_text};
use crate::limit;
use crate::limits::{MAX_LEAN_LOG_LINE_BYTES, MAX_NAMED_LINES};

pub const FORMAT: &str = "Lean output";

/// The class of the event that holds the `took` lines Lean printed at one position.
pub const POSITION_CLASS: &str = "profiler output";

/// `#guard_msgs` writes this before an information message's text.
const GUARD_MSGS_INFO: &str = "info: ";
/// `#guard_msgs` marks trailing whitespace with this character.
const GUARD_MSGS_EOL: char = '⏎';

/// What a log says besides its events.
#[derive(Debug, Default)]
pub struct LeanLog {
    pub cumulative: Vec<CumulativeTime>,
    pub diagnostics: Vec<Diagnostic>,
    /// The `fileName` of the first JSON message.
    pub file_name: Option<String>,
}

/// Lines set aside, with the first few named.
#[derive(Default)]
struct Skipped {
    count: u64,
    named: Vec<String>,
}

impl Skipped {
    fn add(&mut self, line: u64, why: String) {
        self.count += 1;
        if self.named.len() < MAX_NAMED_LINES {
            self.named.push(format!("line {line}: {why}"));
        }
    }

    fn note(&self, what: &str) -> Option<String> {
        (self.count > 0).then(|| {
            let more = self.count - self.named.len() as u64;
            format!(
                "{} {what}: {}{}",
                self.count,
                self.named.join("; "),
                if more > 0 {
                    format!("; and {more} more")
                } else {
                    String::new()
                }
            )
        })
    }
}

/// A trace tree being collected from plain-text lines.
struct Block {
    first_line: u64,
    text: String,
    guard_msgs: bool,
}

struct Importer<'s, 'k> {
    sink: &'k mut TraceSink,
    thread: u32,
    at: u64,
    source: Option<SourceText<'s>>,
    source_text: &'s str,
    log: LeanLog,
    events: u64,
    profiler_lines: u64,
    unplaced: Skipped,
    bad_messages: Skipped,
    bad_traces: Skipped,
    other: Skipped,
}

fn excerpt(text: &str) -> String {
    let mut s: String = text.chars().take(60).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}

/// Is `line` the first line of a trace tree (`[class] …`)?
fn is_trace_header(line: &str) -> bool {
    line.starts_with('[') && parse_trace_text(line).is_ok()
}

/// Imports a Lean log into `sink`. `source` is the text of the file the log was made from,
/// if known: positions become ranges in it.
pub fn import<R: BufRead>(
    mut input: R,
    sink: &mut TraceSink,
    source: Option<&str>,
) -> Result<LeanLog> {
    let thread = sink.add_thread(0, "Lean output".into())?;
    let mut im = Importer {
        sink,
        thread,
        at: 0,
        source: source.map(SourceText::new),
        source_text: source.unwrap_or(""),
        log: LeanLog::default(),
        events: 0,
        profiler_lines: 0,
        unplaced: Skipped::default(),
        bad_messages: Skipped::default(),
        bad_traces: Skipped::default(),
        other: Skipped::default(),
    };
    let mut profiler = ProfilerLineReader::default();
    let mut block: Option<Block> = None;
    let mut buf = Vec::new();
    let mut number = 0u64;
    let mut cut_off = false;
    let mut saw_cumulative = false;
    let mut last_profiler_line = 0u64;
    let line_limit = limit!(MAX_LEAN_LOG_LINE_BYTES, "the line's length");
    while read_line_bounded(&mut input, &mut buf, line_limit, FORMAT, number + 1)? {
        number += 1;
        cut_off = !buf.ends_with(b"\n");
        let text = std::str::from_utf8(&buf).map_err(|e| {
            InteropError::invalid(
                FORMAT,
                format!("line {number}"),
                format!("not UTF-8 (byte {})", e.valid_up_to()),
            )
        })?;
        let line = text.trim_end_matches(['\n', '\r']);
        if let Some(b) = block.as_mut() {
            let continues = line.starts_with(' ') || is_trace_header(line);
            if continues {
                b.text.push('\n');
                push_trace_line(&mut b.text, line, b.guard_msgs);
                continue;
            }
            let done = block.take().expect("checked");
            im.trace_block(&done);
        }
        if line.starts_with('{') {
            match parse_message_line(number, line) {
                Ok(m) => im.message(number, &m)?,
                Err(e) => im.bad_messages.add(
                    number,
                    if cut_off {
                        format!("the log ends inside this JSON message (truncated): {e}")
                    } else {
                        e.to_string()
                    },
                ),
            }
            continue;
        }
        match profiler.line(number as usize, line).map_err(|e| {
            let at = format!("line {number}");
            let detail = e.to_string();
            let detail = detail
                .strip_prefix(&format!("{at}: "))
                .unwrap_or(&detail)
                .to_string();
            InteropError::invalid(FORMAT, at, detail)
        })? {
            ProfilerLineKind::Took(took) => {
                im.profiler_lines += 1;
                last_profiler_line = number;
                im.push_took(None, &took, None)?;
                continue;
            }
            ProfilerLineKind::CumulativeHeader => {
                saw_cumulative = true;
                continue;
            }
            ProfilerLineKind::Cumulative(c) => {
                im.log.cumulative.push(CumulativeTime {
                    category: c.category,
                    ns: c.nanoseconds,
                });
                continue;
            }
            ProfilerLineKind::Other => {}
        }
        let (header, guard_msgs) = match line.strip_prefix(GUARD_MSGS_INFO) {
            Some(rest) if is_trace_header(rest.trim_end_matches(GUARD_MSGS_EOL)) => (rest, true),
            _ => (line, false),
        };
        if is_trace_header(header.trim_end_matches(GUARD_MSGS_EOL)) {
            let mut text = String::new();
            push_trace_line(&mut text, header, guard_msgs);
            block = Some(Block {
                first_line: number,
                text,
                guard_msgs,
            });
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        im.other.add(
            number,
            if line.contains(" took ") {
                format!(
                    "`{}` has ` took ` but no Lean profiling time such as `36.8ms` or `1.6s` after it",
                    excerpt(line)
                )
            } else {
                format!("`{}`", excerpt(line))
            },
        );
    }
    if let Some(done) = block.take() {
        im.trace_block(&done);
    }
    im.finish(number, cut_off, saw_cumulative, last_profiler_line)
}

/// Appends one line of a trace tree, without `#guard_msgs`' markers.
fn push_trace_line(text: &mut String, line: &str, guard_msgs: bool) {
    if guard_msgs {
        text.push_str(&line.replace(GUARD_MSGS_EOL, ""));
    } else {
        text.push_str(line);
    }
}

impl Importer<'_, '_> {
    /// The range of a Lean position (and end), when a source is known.
    fn range(
        &mut self,
        line: u64,
        pos: Position,
        end: Option<Position>,
    ) -> Option<(SourceRange, RangeKind)> {
        let src = self.source.as_ref()?;
        let start = match src.utf16_position(pos) {
            Ok(p) => p,
            Err(e) => {
                self.unplaced
                    .add(line, format!("{}:{}: {e}", pos.line, pos.column));
                return None;
            }
        };
        let end = end
            .and_then(|e| src.utf16_position(e).ok())
            .filter(|e| (e.line, e.character) >= (start.line, start.character))
            .unwrap_or(start);
        Some((
            SourceRange::new(start.line, start.character, end.line, end.character),
            RangeKind::Exact,
        ))
    }

    fn push(&mut self, ev: SinkEvent<'_>) -> Result<u32> {
        self.events += 1;
        self.sink.push(&ev)
    }

    /// One `took` line as an event at the cursor; returns its index.
    fn push_took(
        &mut self,
        parent: Option<u32>,
        took: &ProfilerLine,
        range: Option<(SourceRange, RangeKind)>,
    ) -> Result<u32> {
        let label = match &took.declaration {
            Some(d) => format!("{} of {d}", took.category),
            None => took.category.clone(),
        };
        let i = self.push(SinkEvent {
            parent,
            class: PROFILER_CLASS,
            label: &label,
            start_ns: self.at,
            duration_ns: took.nanoseconds,
            thread: self.thread,
            range,
        })?;
        self.at += took.nanoseconds;
        Ok(i)
    }

    fn message(&mut self, line: u64, m: &LeanMessage) -> Result<()> {
        if self.log.file_name.is_none() {
            self.log.file_name = Some(m.file_name.clone());
        }
        let is_trace = m
            .kind_is_trace()
            .unwrap_or_else(|| m.data.starts_with('[') && parse_trace_text(&m.data).is_ok());
        if is_trace {
            return match parse_trace_text(&m.data) {
                Ok(forest) => {
                    let range = self.range(line, m.pos, m.end_pos);
                    self.forest(&forest, range)
                }
                Err(e) => {
                    self.bad_traces
                        .add(line, format!("the message's trace tree: {e}"));
                    Ok(())
                }
            };
        }
        let took: Vec<ProfilerLine> = if m.severity == LeanSeverity::Information {
            m.data.lines().filter_map(parse_took_line).collect()
        } else {
            Vec::new()
        };
        let rest = m
            .data
            .lines()
            .filter(|l| !l.trim().is_empty() && parse_took_line(l).is_none())
            .count();
        let range = self.range(line, m.pos, m.end_pos);
        if !took.is_empty() {
            self.profiler_lines += took.len() as u64;
            let label = self.position_label(m);
            let total = took
                .iter()
                .fold(0u64, |s, t| s.saturating_add(t.nanoseconds));
            let parent = self.push(SinkEvent {
                parent: None,
                class: POSITION_CLASS,
                label: &label,
                start_ns: self.at,
                duration_ns: total,
                thread: self.thread,
                range,
            })?;
            for t in &took {
                self.push_took(Some(parent), t, range)?;
            }
        }
        if rest > 0 || took.is_empty() {
            self.log.diagnostics.push(Diagnostic {
                severity: match m.severity {
                    LeanSeverity::Information => Severity::Information,
                    LeanSeverity::Warning => Severity::Warning,
                    LeanSeverity::Error => Severity::Error,
                },
                range: range.map(|r| r.0).unwrap_or_default(),
                text: m.data.clone(),
            });
        }
        Ok(())
    }

    /// `FILE:LINE:COLUMN` (Lean's way of naming a position), and the source line when known.
    fn position_label(&self, m: &LeanMessage) -> String {
        let at = format!("{}:{}:{}", m.file_name, m.pos.line, m.pos.column);
        let text = self
            .source
            .as_ref()
            .and_then(|s| {
                let start = s.byte_offset(Position {
                    line: m.pos.line,
                    column: 0,
                });
                start.ok().map(|b| {
                    let rest = self.source_text.get(b..).unwrap_or("");
                    rest.split('\n').next().unwrap_or("")
                })
            })
            .unwrap_or_default();
        if text.is_empty() {
            at
        } else {
            format!("{at}: {}", excerpt(text.trim()))
        }
    }

    fn trace_block(&mut self, b: &Block) {
        match parse_trace_text(&b.text) {
            Ok(forest) => {
                if let Err(e) = self.forest(&forest, None) {
                    // only sink limits fail here; keep the first such error as a note
                    self.bad_traces.add(b.first_line, e.to_string());
                }
            }
            Err(e) => self.bad_traces.add(
                b.first_line,
                format!("the trace tree starting here (its lines counted from 1): {e}"),
            ),
        }
    }

    /// The trees of a trace, each root at the cursor, children laid out from their parent's
    /// start; the roots take `range` and their descendants inherit it.
    fn forest(
        &mut self,
        forest: &TraceForest,
        range: Option<(SourceRange, RangeKind)>,
    ) -> Result<()> {
        let roots: Vec<usize> = forest.roots().collect();
        for root in roots {
            let start = self.at;
            let dur = self.node(forest, root, None, start, range)?;
            self.at = start + dur;
        }
        Ok(())
    }

    fn node(
        &mut self,
        forest: &TraceForest,
        id: usize,
        parent: Option<u32>,
        start: u64,
        range: Option<(SourceRange, RangeKind)>,
    ) -> Result<u64> {
        let Some(n) = forest.node(id) else {
            return Ok(0);
        };
        let dur = n.timing.map_or(0, |t| t.nanoseconds);
        let own_range = match (parent, range) {
            (Some(_), Some((r, _))) => Some((r, RangeKind::Inherited)),
            _ => range,
        };
        let index = self.push(SinkEvent {
            parent,
            class: forest.class(id),
            label: &n.text,
            start_ns: start,
            duration_ns: dur,
            thread: self.thread,
            range: own_range,
        })?;
        let mut at = start;
        let children: Vec<usize> = forest.children(id).collect();
        for c in children {
            let d = self.node(forest, c, Some(index), at, range)?;
            // a child never ends after its parent, even if rounding says so
            at = (at + d).min(start + dur);
        }
        Ok(dur)
    }

    fn finish(
        self,
        lines: u64,
        cut_off: bool,
        saw_cumulative: bool,
        last_profiler_line: u64,
    ) -> Result<LeanLog> {
        let nothing = self.events == 0 && !saw_cumulative && self.log.diagnostics.is_empty();
        if nothing {
            let why = self
                .bad_messages
                .named
                .first()
                .or(self.bad_traces.named.first())
                .or(self.other.named.first())
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
        let notes = &mut self.sink.notes;
        if cut_off {
            notes.push(format!(
                "line {lines}, the last, has no newline: the log was cut off there (truncated)"
            ));
        }
        if self.profiler_lines > 0 && !saw_cumulative {
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
