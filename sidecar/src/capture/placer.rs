//! Giving events source ranges: a command's range from Lean's position and
//! its text, nested steps by finding their text inside the enclosing
//! event's range (matched), everything else from the enclosing event
//! (inherited). Nothing is placed by guesswork.

use std::collections::HashSet;

use recording::{Declaration, RangeKind, SourceRange};

use super::events::searchable_text;
use super::source::Source;
use super::text_match::find_loose;

pub struct Placer<'s> {
    pub src: &'s Source<'s>,
    /// Byte spans of the events placed so far, [`UNPLACED`] for none (a plain pair, as an
    /// `Option` would make each of a large capture's entries 8 bytes larger).
    spans: Vec<(usize, usize)>,
    /// Where the next child of each event is searched from.
    cursors: Vec<usize>,
    /// Where the next command is searched from.
    command_cursor: usize,
    /// Byte offsets at which Lean reported a message (command starts).
    lean_starts: HashSet<usize>,
    declarations: &'s [Declaration],
    /// The last span converted to a range (nested events often inherit their parent's).
    last_range: Option<((usize, usize), SourceRange)>,
}

/// The span of an event without one (no span starts past the end of a text).
const UNPLACED: (usize, usize) = (usize::MAX, usize::MAX);

/// Where an event landed.
pub struct Placement {
    pub span: Option<(usize, usize)>,
    pub kind: RangeKind,
}

impl Placement {
    pub fn none() -> Self {
        Placement {
            span: None,
            kind: RangeKind::None,
        }
    }
}

impl<'s> Placer<'s> {
    pub fn new(
        src: &'s Source<'s>,
        lean_starts: HashSet<usize>,
        declarations: &'s [Declaration],
    ) -> Self {
        Placer {
            src,
            spans: Vec::new(),
            cursors: Vec::new(),
            command_cursor: 0,
            lean_starts,
            declarations,
            last_range: None,
        }
    }

    /// Makes room for `events` more placements.
    pub fn reserve(&mut self, events: usize) {
        self.spans.reserve(events);
        self.cursors.reserve(events);
    }

    /// Records the placement of the next event and returns its range.
    pub fn record(&mut self, p: &Placement) -> Option<SourceRange> {
        self.spans.push(p.span.unwrap_or(UNPLACED));
        self.cursors.push(p.span.map_or(0, |s| s.0));
        let span = p.span?;
        match self.last_range {
            Some((last, range)) if last == span => Some(range),
            _ => {
                let range = self.src.range(span.0, span.1);
                self.last_range = Some((span, range));
                Some(range)
            }
        }
    }

    pub fn span_of(&self, event: u32) -> Option<(usize, usize)> {
        self.spans
            .get(event as usize)
            .copied()
            .filter(|&span| span != UNPLACED)
    }

    /// A top-level command: found by its text after the previous command.
    /// Exact when Lean reported a position at its start (the start is
    /// Lean's and the text is Lean's own rendering of the command);
    /// matched when only the text was found.
    pub fn place_command(&mut self, text: &str) -> Placement {
        let text = text.trim();
        if text.is_empty() {
            return Placement::none();
        }
        let src = self.src.text;
        let found = find_loose(src, self.command_cursor, src.len(), text).or_else(|| {
            // Lean may render a long command differently; its first line
            // and the scanner's extent of the command still locate it.
            let first = text.lines().next()?;
            let (s, _) = find_loose(src, self.command_cursor, src.len(), first)?;
            let end = self.declaration_end_at(s)?;
            Some((s, end))
        });
        match found {
            Some((s, e)) => {
                self.command_cursor = e;
                let kind = if self.lean_starts.contains(&s) {
                    RangeKind::Exact
                } else {
                    RangeKind::Matched
                };
                Placement {
                    span: Some((s, e)),
                    kind,
                }
            }
            None => Placement::none(),
        }
    }

    /// A command Lean reported a start for, whose extent the declaration
    /// scanner found: matched, since the end is leanscope's finding.
    pub fn place_scanned(&mut self, start: usize, end: usize) -> Placement {
        self.command_cursor = self.command_cursor.max(end);
        Placement {
            span: Some((start, end)),
            kind: RangeKind::Matched,
        }
    }

    /// A command whose range Lean reported (a trace message's pos..endPos).
    pub fn place_reported(&mut self, start: usize, end: usize) -> Placement {
        self.command_cursor = self.command_cursor.max(end);
        Placement {
            span: Some((start, end)),
            kind: RangeKind::Exact,
        }
    }

    /// A nested event: its text inside the parent's range, after the
    /// previous sibling found there; else the parent's range, inherited.
    pub fn place_child(&mut self, parent: Option<u32>, class: &str, text: &str) -> Placement {
        let Some(p) = parent else {
            return Placement::none();
        };
        let Some((ps, pe)) = self.span_of(p) else {
            return Placement::none();
        };
        if let Some(needle) = searchable_text(class, text) {
            let from = self.cursors[p as usize].max(ps);
            if let Some((s, e)) = find_loose(self.src.text, from, pe, needle) {
                self.cursors[p as usize] = e;
                return Placement {
                    span: Some((s, e)),
                    kind: RangeKind::Matched,
                };
            }
        }
        Placement {
            span: Some((ps, pe)),
            kind: RangeKind::Inherited,
        }
    }

    /// An event that belongs to a declaration but not to a placed parent
    /// (an asynchronous proof whose command is on another thread).
    pub fn place_in_declaration(&self, name: &str) -> Placement {
        match self.declarations.iter().find(|d| d.name == name) {
            Some(d) => Placement {
                span: Some(self.src.bytes_of(&d.range)),
                kind: RangeKind::Inherited,
            },
            None => Placement::none(),
        }
    }

    /// The name of the declaration that starts at this byte, if the
    /// scanner found one there.
    pub fn declaration_at(&self, byte: usize) -> Option<&'s Declaration> {
        let (line, _) = self.src.utf16_at(byte);
        self.declarations
            .iter()
            .find(|d| d.range.start_line <= line && line <= d.range.end_line)
    }

    fn declaration_end_at(&self, byte: usize) -> Option<usize> {
        let d = self.declaration_at(byte)?;
        Some(self.src.byte_of_utf16(d.range.end_line, d.range.end_col))
    }
}
