//! Giving events source ranges: a command's range from where it starts (its text's head found
//! in the source, or Lean's reported position) to the source's own command boundary (the next
//! command's start, trailing blank lines and comments left out); nested steps by finding their
//! text inside the enclosing event's range (matched); kernel checks, asynchronous proofs and
//! profiler lines in the declaration or command they name or lie in; everything else from the
//! enclosing event (inherited). Nothing is placed by guesswork.

use std::collections::HashSet;

use recording::{Declaration, RangeKind, SourceRange};

use super::declarations::{public_name, CommandExtent};
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
    /// Byte extents of the source's top-level commands, in source order.
    commands: Vec<(usize, usize)>,
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
        commands: &[CommandExtent],
    ) -> Self {
        let commands = commands
            .iter()
            .map(|c| {
                (
                    src.byte_of_utf16(c.start_line, 0),
                    src.byte_of_utf16(c.end_line, c.end_col),
                )
            })
            .collect();
        Placer {
            src,
            commands,
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

    /// A top-level command. Its start is where the head of its text is found after the
    /// previous command (the whole text, else its first line: Lean's text is the
    /// pretty-printed syntax, re-spaced and possibly reflowed); its end is the source's
    /// boundary of the command starting there (or the end of the whole text, if that is
    /// further, as for `open … in`). When the text is not found at all (Lean could not print
    /// it: `failed to pretty print term …`), the declaration the command's steps name places
    /// it. Exact when Lean reported a message at that start; matched otherwise.
    pub fn place_command(&mut self, text: &str, declaration: Option<&str>) -> Placement {
        let text = text.trim();
        let src = self.src.text;
        let from = self.command_cursor;
        let found = if text.is_empty() {
            None
        } else {
            find_loose(src, from, src.len(), text)
                .map(|(s, e)| (s, Some(e)))
                .or_else(|| {
                    let first = text.lines().next()?;
                    let (s, _) = find_loose(src, from, src.len(), first)?;
                    Some((s, None))
                })
        };
        let span = match found {
            Some((s, whole_end)) => {
                let boundary = self.command_extent_starting_at(s).map(|(_, e)| e);
                match (boundary, whole_end) {
                    (Some(b), Some(w)) => Some((s, b.max(w))),
                    (Some(b), None) => Some((s, b)),
                    (None, Some(w)) => Some((s, w)),
                    (None, None) => self.command_extent_containing(s).map(|(_, e)| (s, e)),
                }
            }
            None => declaration.and_then(|name| {
                let d = self.declaration_named(name)?;
                let (s, e) = self.src.bytes_of(&d.range);
                (s >= from).then_some((s, e))
            }),
        };
        match span {
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

    /// The source command that starts at this byte.
    fn command_extent_starting_at(&self, byte: usize) -> Option<(usize, usize)> {
        let i = self.commands.partition_point(|&(s, _)| s < byte);
        self.commands.get(i).copied().filter(|&(s, _)| s == byte)
    }

    /// The source command whose extent holds this byte.
    pub fn command_extent_containing(&self, byte: usize) -> Option<(usize, usize)> {
        let i = self.commands.partition_point(|&(s, _)| s <= byte);
        let (s, e) = *self.commands.get(i.checked_sub(1)?)?;
        (byte <= e).then_some((s, e))
    }

    /// The declaration Lean calls `name` (`_private.M.0.X` is the private `X`).
    fn declaration_named(&self, name: &str) -> Option<&'s Declaration> {
        let name = public_name(name);
        self.declarations.iter().find(|d| d.name == name)
    }

    /// A command found by the source's own boundaries (from a position Lean reported inside
    /// it): exact when Lean reported its start, matched otherwise.
    pub fn place_scanned(&mut self, start: usize, end: usize) -> Placement {
        self.command_cursor = self.command_cursor.max(end);
        Placement {
            span: Some((start, end)),
            kind: if self.lean_starts.contains(&start) {
                RangeKind::Exact
            } else {
                RangeKind::Matched
            },
        }
    }

    /// A command whose range Lean reported (a trace message's pos..endPos); without an end
    /// (`endPos: null`) the source's boundary of the command starting there ends it.
    pub fn place_reported(&mut self, start: usize, end: usize) -> Placement {
        let end = if end > start {
            end
        } else {
            self.command_extent_starting_at(start)
                .or_else(|| self.command_extent_containing(start))
                .map_or(start, |(_, e)| e.max(start))
        };
        self.command_cursor = self.command_cursor.max(end);
        Placement {
            span: Some((start, end)),
            kind: RangeKind::Exact,
        }
    }

    /// A point Lean reported inside a placed event (a profiler line at the token it times):
    /// the token there, exact; the parent's range when the point is the parent's start.
    pub fn place_reported_point(&mut self, parent: u32, at: usize) -> Placement {
        let Some((ps, pe)) = self.span_of(parent) else {
            return Placement::none();
        };
        if at <= ps || at >= pe {
            return Placement {
                span: Some((ps, pe)),
                kind: RangeKind::Inherited,
            };
        }
        let token_end = self.src.text[at..pe]
            .char_indices()
            .find(|&(_, c)| !(c.is_alphanumeric() || "_.'!?«»₀₁₂₃₄₅₆₇₈₉".contains(c)))
            .map_or(pe, |(i, _)| at + i);
        let end = if token_end > at {
            token_end
        } else {
            at + self.src.text[at..].chars().next().map_or(0, char::len_utf8)
        };
        Placement {
            span: Some((at, end.min(pe))),
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
        match self.declaration_named(name) {
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
}
