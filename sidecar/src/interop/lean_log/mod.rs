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
//! Text users share is read the same way once its framing is split off
//! ([`prefixes`], [`infoview`], [`block`]): `-- ` comments and the indentation of a pasted
//! block, `lake build`'s `info:`/`error:` heads, a bare `lean`'s `FILE:L:C: error:`, the
//! infoview's fold markers and panel headers. A printed position `FILE:LINE:COLUMN` lasts until
//! the next message head (or a `lake` status line, a comment delimiter, an infoview panel
//! header): the `took` lines and trees printed under it become children of one event labelled
//! with it, placed in `--source` when given. A tree without a position whose header names a
//! declaration (a kernel check, an asynchronous proof, a definition step) is placed on that
//! declaration of `--source`. What the headers' numbers count is [`measure`]'s question.
//!
//! Only durations are known, so events are laid out one after another on one thread. The
//! `took` lines of a message, and the trees of a trace message, become children of one event at
//! the message's position; its label is Lean's `FILE:LINE:COLUMN`. Given the source file the log was made from, every position
//! becomes an exact range in it (Lean's codepoint columns converted to UTF-16). The cumulative
//! block goes to the recording's header (see `recording::model::accounting`), not to events.
//! Lines that are none of these are counted, and the first few named, in the recording's notes.

mod block;
mod finish;
pub mod measure;
mod skipped;
mod trees;

use std::io::BufRead;

use recording::model::accounting::PROFILER_CLASS;
use recording::{
    CumulativeTime, Declaration, Diagnostic, Measure, RangeKind, Severity, SourceRange,
};

use block::{Block, Framing};
use skipped::{excerpt, Skipped};

use super::error::{InteropError, Result};
use super::read_line_bounded;
use super::sink::{SinkEvent, TraceSink};
use crate::capture::lean_output::infoview;
use crate::capture::lean_output::messages::{
    parse_message_line, LeanMessage, Position, Severity as LeanSeverity, SourceText,
};
use crate::capture::lean_output::prefixes::{
    is_comment_delimiter, is_lake_status, line_comment, message_head, TextPosition,
};
use crate::capture::lean_output::profiler_lines::{
    parse_took_line, ProfilerLine, ProfilerLineKind, ProfilerLineReader,
};
use crate::capture::lean_output::trace_text::parse_trace_text;
#[cfg(doc)]
use crate::capture::lean_output::{messages, prefixes, profiler_lines, trace_text};
use crate::limit;
use crate::limits::MAX_LEAN_LOG_LINE_BYTES;

pub const FORMAT: &str = "Lean output";

/// The class of the event that holds the `took` lines Lean printed at one position.
pub const POSITION_CLASS: &str = "profiler output";

/// What a log says besides its events.
#[derive(Debug, Default)]
pub struct LeanLog {
    pub cumulative: Vec<CumulativeTime>,
    pub diagnostics: Vec<Diagnostic>,
    /// The `fileName` of the first JSON message.
    pub file_name: Option<String>,
    /// The input holds trace trees and no time at all (Lean printed them without
    /// `trace.profiler`): the events are laid out in counts of trace nodes.
    pub untimed: bool,
}

struct Importer<'s, 'k> {
    sink: &'k mut TraceSink,
    thread: u32,
    at: u64,
    /// The cursor of the untimed layout, in trace nodes.
    at_nodes: u64,
    source: Option<SourceText<'s>>,
    source_text: &'s str,
    log: LeanLog,
    measure: Measure,
    /// The source's declarations (trees that name one are placed on it).
    declarations: Vec<Declaration>,
    /// The position printed last, while its message lasts.
    position: Option<TextPosition>,
    /// `took` lines printed under `position`, not yet pushed.
    took_group: Vec<ProfilerLine>,
    events: u64,
    profiler_lines: u64,
    unplaced: Skipped,
    not_measured: Skipped,
    measure_warnings: Skipped,
    /// The first line that is not blank (named when nothing in the input is Lean's).
    first_text: Option<String>,
    bad_messages: Skipped,
    bad_traces: Skipped,
    other: Skipped,
}

/// Imports a Lean log into `sink`. `source` is the text of the file the log was made from,
/// if known: positions become ranges in it. `measure` is what trace headers' numbers count.
pub fn import<R: BufRead>(
    mut input: R,
    sink: &mut TraceSink,
    source: Option<&str>,
    measure: Measure,
) -> Result<LeanLog> {
    let thread = sink.add_thread(0, "Lean output".into())?;
    // until a time shows up, the events are laid out in trace nodes too
    sink.count_nodes()?;
    let mut im = Importer {
        sink,
        thread,
        at: 0,
        at_nodes: 0,
        source: source.map(SourceText::new),
        source_text: source.unwrap_or(""),
        log: LeanLog::default(),
        measure,
        declarations: source
            .map(crate::capture::declarations::scan)
            .unwrap_or_default(),
        position: None,
        took_group: Vec::new(),
        events: 0,
        profiler_lines: 0,
        unplaced: Skipped::default(),
        not_measured: Skipped::default(),
        measure_warnings: Skipped::default(),
        first_text: None,
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
    // a pasted tree is held as one message's text is
    let tree_limit = limit!(MAX_LEAN_LOG_LINE_BYTES, "a trace tree's text");
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
        if im.first_text.is_none() && !line.trim().is_empty() {
            im.first_text = Some(format!("line {number}: `{}`", excerpt(line)));
        }
        if let Some(b) = block.as_mut() {
            if b.continue_with(line) {
                b.check_size(number, tree_limit)?;
                continue;
            }
            let done = block.take().expect("checked");
            im.trace_block(&done)?;
        }
        if line.starts_with('{') {
            im.end_message()?;
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
        let (body, commented) = match line_comment(line) {
            Some(rest) => (rest, true),
            None => (line, false),
        };
        if infoview::is_panel_header(body) || is_lake_status(body) || is_comment_delimiter(body) {
            im.end_message()?;
            if !infoview::is_panel_header(body) {
                im.other.add(number, format!("`{}`", excerpt(line)));
            }
            continue;
        }
        let (head, rest) = match message_head(body) {
            Some((h, rest)) => (Some(h), rest),
            None => (None, body),
        };
        if let Some(h) = &head {
            im.end_message()?;
            im.position = h.position.clone();
        }
        match profiler.line(number as usize, rest).map_err(|e| {
            let at = format!("line {number}");
            let detail = e.to_string();
            let detail = detail
                .strip_prefix(&format!("{at}: "))
                .unwrap_or(&detail)
                .to_string();
            InteropError::invalid(FORMAT, at, detail)
        })? {
            ProfilerLineKind::Took(took) => {
                last_profiler_line = number;
                im.took_line(number, took)?;
                continue;
            }
            ProfilerLineKind::CumulativeHeader => {
                saw_cumulative = true;
                im.sink.stop_counting_nodes();
                continue;
            }
            ProfilerLineKind::Cumulative(c) => {
                im.sink.stop_counting_nodes();
                im.log.cumulative.push(CumulativeTime {
                    category: c.category,
                    ns: c.nanoseconds,
                });
                continue;
            }
            ProfilerLineKind::Other => {}
        }
        im.push_took_group()?;
        let guard_msgs = head
            .as_ref()
            .is_some_and(|h| h.severity == Some("info") && h.position.is_none());
        let framing = Framing {
            commented,
            guard_msgs,
            position: im.position.clone(),
        };
        if let Some(b) = Block::start(number, rest, head.is_some(), framing) {
            block = Some(b);
            continue;
        }
        let position_line =
            rest.trim().is_empty() && head.as_ref().is_some_and(|h| h.position.is_some());
        if line.trim().is_empty() || position_line {
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
        im.trace_block(&done)?;
    }
    im.end_message()?;
    im.finish(number, cut_off, saw_cumulative, last_profiler_line)
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
                    // under an event at the message's position, as its `took` lines are
                    let range = self.range(line, m.pos, m.end_pos);
                    let at = TextPosition {
                        file: m.file_name.clone(),
                        line: m.pos.line,
                        column: m.pos.column,
                        end: None,
                    };
                    self.forest(&forest, line, range, Some(&at))
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
            // `took` lines are times
            self.sink.stop_counting_nodes();
        }
        if !took.is_empty() && self.measure != Measure::Time {
            self.not_measured
                .add(line, format!("{} `took` lines in this message", took.len()));
        } else if !took.is_empty() {
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

    /// A `took` line of the text: under the position printed before it, if any.
    fn took_line(&mut self, line: u64, took: ProfilerLine) -> Result<()> {
        self.sink.stop_counting_nodes();
        if self.measure != Measure::Time {
            self.not_measured
                .add(line, format!("`{}`", excerpt(&took.category)));
            return Ok(());
        }
        self.profiler_lines += 1;
        if self.position.is_some() {
            self.took_group.push(took);
            return Ok(());
        }
        self.push_took(None, &took, None)?;
        Ok(())
    }

    /// The `took` lines printed under the current position, as children of one event there.
    fn push_took_group(&mut self) -> Result<()> {
        let group = std::mem::take(&mut self.took_group);
        let Some(pos) = self.position.clone().filter(|_| !group.is_empty()) else {
            return Ok(());
        };
        let total = group
            .iter()
            .fold(0u64, |s, t| s.saturating_add(t.nanoseconds));
        let range = self.text_range(&pos);
        let parent = self.position_event(&pos, total, range)?;
        let inherited = range.map(|(r, _)| (r, RangeKind::Inherited));
        for t in &group {
            self.push_took(Some(parent), t, inherited)?;
        }
        Ok(())
    }

    /// The message that printed the current position ends.
    fn end_message(&mut self) -> Result<()> {
        self.push_took_group()?;
        self.position = None;
        Ok(())
    }

    /// The range of a position printed in the text, when a source is known.
    fn text_range(&mut self, pos: &TextPosition) -> Option<(SourceRange, RangeKind)> {
        let at = Position {
            line: pos.line,
            column: pos.column,
        };
        let end = pos.end.map(|(line, column)| Position { line, column });
        self.range(u64::from(pos.line), at, end)
    }

    /// The event at a printed position that holds what was printed there.
    fn position_event(
        &mut self,
        pos: &TextPosition,
        total: u64,
        range: Option<(SourceRange, RangeKind)>,
    ) -> Result<u32> {
        self.push(SinkEvent {
            parent: None,
            class: POSITION_CLASS,
            label: &pos.to_string(),
            start_ns: self.at,
            duration_ns: total,
            thread: self.thread,
            range,
        })
    }
}
