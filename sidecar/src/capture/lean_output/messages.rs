//! `lean --json` output: one compressed JSON `SerialMessage` per line on stdout.
//!
//! Fields (see fixtures/README.md, "Messages"): `fileName`, `pos`, `endPos` (`null` when Lean has
//! no end), `keepFullRange`, `severity` (`"information" | "warning" | "error"`), `caption`,
//! `data`, and since Lean 4.15 `kind`, since 4.19 `isSilent`. Key order differs between Lean
//! versions, so parsing never depends on it; unknown fields are ignored.
//!
//! Positions are Lean `Position`s: `line` is 1-based, `column` counts Unicode codepoints from 0.
//! Editors want LSP positions (0-based line, UTF-16 code units): see [`SourceText`].

use std::io::BufRead;

use crate::limits::MAX_MESSAGE_LINE_BYTES;
use serde::Deserialize;

/// A Lean `Position`: 1-based line, 0-based column counted in Unicode codepoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// Message severity as Lean spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    Information,
    Warning,
    Error,
}

/// One message from `lean --json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeanMessage {
    pub file_name: String,
    pub pos: Position,
    /// `None` when Lean printed `"endPos":null` (e.g. output captured from stderr).
    pub end_pos: Option<Position>,
    pub severity: Severity,
    pub caption: String,
    pub data: String,
    /// The message kind (`"trace"`, `"hasSorry"`, `"[anonymous]"`, …); `None` when the
    /// toolchain predates the field (before Lean 4.15).
    pub kind: Option<String>,
    pub keep_full_range: bool,
    /// Lean filters silent messages from cmdline output, so this is normally `false`.
    pub is_silent: bool,
}

/// Message kinds Lean gives to the messages `addTraceAsMessages` creates: `trace` in current
/// releases, `_traceMsg` in older ones.
const TRACE_KINDS: [&str; 2] = ["trace", "_traceMsg"];

impl LeanMessage {
    /// `Some(true)` when the message kind says it is a trace tree, `Some(false)` when it says
    /// otherwise, `None` when the toolchain does not report kinds (then parse `data` with
    /// [`crate::capture::lean_output::trace_text`] to decide).
    pub fn kind_is_trace(&self) -> Option<bool> {
        self.kind.as_deref().map(|kind| TRACE_KINDS.contains(&kind))
    }
}

/// A problem with one line of `lean --json` output. Line numbers are 1-based.
#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    #[error(
        "line {line}: Lean output is not valid UTF-8 (first bad byte at offset {valid_up_to})"
    )]
    InvalidUtf8 { line: u64, valid_up_to: usize },
    #[error("line {line}: not a Lean JSON message: {reason}")]
    MalformedJson { line: u64, reason: String },
    #[error("line {line}: longer than the {limit}-byte limit for one message")]
    LineTooLong { line: u64, limit: usize },
    #[error("line {line}: reading Lean output failed: {source}")]
    Io {
        line: u64,
        #[source]
        source: std::io::Error,
    },
}

impl MessageError {
    /// The 1-based output line the error is about.
    #[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
    pub fn line(&self) -> u64 {
        match self {
            MessageError::InvalidUtf8 { line, .. }
            | MessageError::MalformedJson { line, .. }
            | MessageError::LineTooLong { line, .. }
            | MessageError::Io { line, .. } => *line,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMessage {
    file_name: String,
    pos: RawPosition,
    #[serde(default)]
    end_pos: Option<RawPosition>,
    #[serde(default)]
    keep_full_range: bool,
    severity: RawSeverity,
    #[serde(default)]
    is_silent: bool,
    #[serde(default)]
    caption: String,
    data: String,
    #[serde(default)]
    kind: Option<String>,
}

#[derive(Deserialize)]
struct RawPosition {
    line: u32,
    column: u32,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum RawSeverity {
    Information,
    Warning,
    Error,
}

impl From<RawPosition> for Position {
    fn from(p: RawPosition) -> Self {
        Position {
            line: p.line,
            column: p.column,
        }
    }
}

/// Parses one line (without its newline) of `lean --json` output.
pub fn parse_message_line(line_number: u64, line: &str) -> Result<LeanMessage, MessageError> {
    let raw: RawMessage = serde_json::from_str(line).map_err(|e| MessageError::MalformedJson {
        line: line_number,
        reason: e.to_string(),
    })?;
    if raw.pos.line == 0 {
        return Err(MessageError::MalformedJson {
            line: line_number,
            reason: "`pos.line` is 0 but Lean lines start at 1".to_string(),
        });
    }
    if raw.end_pos.as_ref().is_some_and(|p| p.line == 0) {
        return Err(MessageError::MalformedJson {
            line: line_number,
            reason: "`endPos.line` is 0 but Lean lines start at 1".to_string(),
        });
    }
    Ok(LeanMessage {
        file_name: raw.file_name,
        pos: raw.pos.into(),
        end_pos: raw.end_pos.map(Position::from),
        severity: match raw.severity {
            RawSeverity::Information => Severity::Information,
            RawSeverity::Warning => Severity::Warning,
            RawSeverity::Error => Severity::Error,
        },
        caption: raw.caption,
        data: raw.data,
        kind: raw.kind,
        keep_full_range: raw.keep_full_range,
        is_silent: raw.is_silent,
    })
}

/// Reads `lean --json` stdout incrementally, one message per line, as Lean prints them.
///
/// Empty lines are skipped. After an I/O error the reader stops; after any other error it
/// continues with the next line, so one bad line does not hide the rest of the output.
pub struct MessageReader<R> {
    reader: R,
    limit: usize,
    line: u64,
    buf: Vec<u8>,
    finished: bool,
}

impl<R: BufRead> MessageReader<R> {
    pub fn new(reader: R) -> Self {
        Self::with_line_limit(reader, MAX_MESSAGE_LINE_BYTES)
    }

    /// Like [`MessageReader::new`] with a smaller line limit (tests, memory-constrained callers).
    pub fn with_line_limit(reader: R, limit: usize) -> Self {
        MessageReader {
            reader,
            limit: limit.min(MAX_MESSAGE_LINE_BYTES),
            line: 0,
            buf: Vec::new(),
            finished: false,
        }
    }

    /// Reads the next line into `self.buf` (without the newline). `Ok(false)` at end of input;
    /// `Ok(true)` with `too_long` set when the line exceeded the limit (its rest is discarded).
    fn read_line(&mut self, too_long: &mut bool) -> std::io::Result<bool> {
        self.buf.clear();
        *too_long = false;
        let mut saw_any = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok(saw_any);
            }
            saw_any = true;
            let (chunk, found_newline) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], true),
                None => (available, false),
            };
            if !*too_long {
                if self.buf.len() + chunk.len() > self.limit {
                    *too_long = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let consumed = chunk.len() + usize::from(found_newline);
            self.reader.consume(consumed);
            if found_newline {
                return Ok(true);
            }
        }
    }
}

impl<R: BufRead> Iterator for MessageReader<R> {
    type Item = Result<LeanMessage, MessageError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.finished {
                return None;
            }
            let mut too_long = false;
            match self.read_line(&mut too_long) {
                Ok(false) => {
                    self.finished = true;
                    return None;
                }
                Ok(true) => {}
                Err(source) => {
                    self.finished = true;
                    return Some(Err(MessageError::Io {
                        line: self.line + 1,
                        source,
                    }));
                }
            }
            self.line += 1;
            if too_long {
                return Some(Err(MessageError::LineTooLong {
                    line: self.line,
                    limit: self.limit,
                }));
            }
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
            if self.buf.is_empty() {
                continue;
            }
            let text = match std::str::from_utf8(&self.buf) {
                Ok(text) => text,
                Err(e) => {
                    return Some(Err(MessageError::InvalidUtf8 {
                        line: self.line,
                        valid_up_to: e.valid_up_to(),
                    }))
                }
            };
            return Some(parse_message_line(self.line, text));
        }
    }
}

/// An LSP position: 0-based line, 0-based column in UTF-16 code units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
pub struct Utf16Position {
    pub line: u32,
    pub character: u32,
}

/// A Lean position that does not exist in the given source text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("line 0 does not exist: Lean lines start at 1")]
    LineZero,
    #[error("line {line} is past the end of the source ({lines} lines)")]
    LineOutOfRange { line: u32, lines: usize },
    #[error("column {column} is past the end of line {line} ({length} codepoints)")]
    ColumnOutOfRange {
        line: u32,
        column: u32,
        length: usize,
    },
}

/// Source text indexed by line, for converting Lean positions.
///
/// Lines are split at `\n` only, like Lean's `FileMap`; a `\r` before it is an ordinary
/// codepoint at the end of the line.
pub struct SourceText<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> SourceText<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceText { text, line_starts }
    }

    /// Number of lines (a trailing newline starts one more, empty, line).
    #[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The text of a 1-based line without its `\n`.
    fn line_text(&self, line: u32) -> Result<&'a str, PositionError> {
        if line == 0 {
            return Err(PositionError::LineZero);
        }
        let index = (line - 1) as usize;
        let start = *self
            .line_starts
            .get(index)
            .ok_or(PositionError::LineOutOfRange {
                line,
                lines: self.line_starts.len(),
            })?;
        let end = self
            .line_starts
            .get(index + 1)
            .map_or(self.text.len(), |next| next - 1);
        Ok(&self.text[start..end])
    }

    /// Byte offset into the source of a Lean position.
    pub fn byte_offset(&self, pos: Position) -> Result<usize, PositionError> {
        let line = self.line_text(pos.line)?;
        let line_start = self.line_starts[(pos.line - 1) as usize];
        let column = pos.column as usize;
        let mut chars = line.char_indices();
        let mut seen = 0usize;
        loop {
            if seen == column {
                let offset = chars.next().map_or(line.len(), |(i, _)| i);
                return Ok(line_start + offset);
            }
            if chars.next().is_none() {
                return Err(PositionError::ColumnOutOfRange {
                    line: pos.line,
                    column: pos.column,
                    length: seen,
                });
            }
            seen += 1;
        }
    }

    /// Converts a Lean position (1-based line, codepoint column) to an LSP position (0-based
    /// line, UTF-16 column), as Lean's `FileMap.leanPosToLspPos` does.
    #[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
    pub fn utf16_position(&self, pos: Position) -> Result<Utf16Position, PositionError> {
        let line = self.line_text(pos.line)?;
        let mut character = 0usize;
        let mut count = 0usize;
        let mut chars = line.chars();
        while count < pos.column as usize {
            match chars.next() {
                Some(c) => {
                    character += c.len_utf16();
                    count += 1;
                }
                None => {
                    return Err(PositionError::ColumnOutOfRange {
                        line: pos.line,
                        column: pos.column,
                        length: count,
                    })
                }
            }
        }
        Ok(Utf16Position {
            line: pos.line - 1,
            character: u32::try_from(character).unwrap_or(u32::MAX),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fixtures() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
    }

    fn read_messages(case: &str, file: &str) -> Vec<LeanMessage> {
        let path = fixtures().join("lean-output").join(case).join(file);
        let file = std::fs::File::open(&path).expect("fixture exists");
        MessageReader::new(std::io::BufReader::new(file))
            .collect::<Result<Vec<_>, _>>()
            .expect("fixture parses")
    }

    #[test]
    fn clean_fixture_messages() {
        let msgs = read_messages("clean", "stdout.traces");
        assert_eq!(msgs.len(), 18);
        let first = &msgs[0];
        assert_eq!(first.file_name, "Demo/Clean.lean");
        assert_eq!(first.severity, Severity::Information);
        assert_eq!(first.pos, Position { line: 5, column: 0 });
        assert_eq!(
            first.end_pos,
            Some(Position {
                line: 5,
                column: 35
            })
        );
        assert_eq!(first.kind.as_deref(), Some("trace"));
        assert_eq!(first.kind_is_trace(), Some(true));
        assert!(first
            .data
            .starts_with("[Elab.command] [0.005061] def double"));
        let took = &msgs[1];
        assert_eq!(took.end_pos, None);
        assert_eq!(took.kind_is_trace(), Some(false));
        assert_eq!(
            took.data,
            "elaboration took 3.07ms\ntype checking took 1.15ms\n"
        );
        assert!(msgs
            .iter()
            .all(|m| !m.is_silent && !m.keep_full_range && m.caption.is_empty()));
    }

    #[test]
    fn without_trace_output_stdout_has_no_trace_messages() {
        let msgs = read_messages("clean", "stdout");
        assert_eq!(msgs.len(), 9);
        assert!(msgs.iter().all(|m| m.kind_is_trace() == Some(false)));
    }

    #[test]
    fn old_toolchain_messages_have_no_kind() {
        let msgs = read_messages("clean-v4.7.0", "stdout.traces");
        assert_eq!(msgs.len(), 10);
        assert!(msgs
            .iter()
            .all(|m| m.kind.is_none() && m.kind_is_trace().is_none()));
        assert_eq!(msgs[2].pos, Position { line: 7, column: 0 });
        assert_eq!(msgs[2].end_pos, Some(Position { line: 9, column: 7 }));
    }

    #[test]
    fn broken_fixture_has_error_at_identifier() {
        let msgs = read_messages("broken", "stdout");
        let errors: Vec<_> = msgs
            .iter()
            .filter(|m| m.severity == Severity::Error)
            .collect();
        assert_eq!(errors.len(), 1);
        let e = errors[0];
        assert_eq!(e.data, "Unknown identifier `Nat.zero_add_typo`");
        assert_eq!(
            e.kind.as_deref(),
            Some("lean.unknownIdentifier._namedError")
        );
        assert_eq!(e.pos, Position { line: 9, column: 8 });
        assert_eq!(
            e.end_pos,
            Some(Position {
                line: 9,
                column: 25
            })
        );
        let source = std::fs::read_to_string(fixtures().join("projects/demo/Demo/Broken.lean"))
            .expect("source");
        let text = SourceText::new(&source);
        let start = text.byte_offset(e.pos).expect("in range");
        let end = text.byte_offset(e.end_pos.expect("end")).expect("in range");
        assert_eq!(&source[start..end], "Nat.zero_add_typo");
    }

    #[test]
    fn unicode_fixture_utf16_columns() {
        let msgs = read_messages("unicode", "stdout.traces");
        let source = std::fs::read_to_string(fixtures().join("projects/demo/Demo/Unicode.lean"))
            .expect("source");
        let text = SourceText::new(&source);
        // the `𝔽_refl` theorem: the command ends after `rfl`, behind two 𝔽 on the same line
        let refl = msgs
            .iter()
            .find(|m| m.data.contains("theorem 𝔽_refl") && m.kind_is_trace() == Some(true))
            .expect("trace message for 𝔽_refl");
        let end = refl.end_pos.expect("end");
        assert_eq!(
            end,
            Position {
                line: 9,
                column: 40
            }
        );
        assert_eq!(
            text.utf16_position(end),
            Ok(Utf16Position {
                line: 8,
                character: 42
            })
        );
        // the `succ_gt` theorem: 🚀 sits in a comment before `omega`
        let succ = msgs
            .iter()
            .find(|m| m.data.contains("theorem succ_gt") && m.kind_is_trace() == Some(true))
            .expect("trace message for succ_gt");
        let end = succ.end_pos.expect("end");
        assert_eq!(
            end,
            Position {
                line: 11,
                column: 57
            }
        );
        assert_eq!(
            text.utf16_position(end),
            Ok(Utf16Position {
                line: 10,
                character: 58
            })
        );
        let start = text.byte_offset(succ.pos).expect("start");
        let stop = text.byte_offset(end).expect("end");
        assert!(source[start..stop].ends_with("/- 🚀 -/ omega"));
    }

    #[test]
    fn utf16_conversion_edges() {
        let text = SourceText::new("a𝔽b\n\nx\r\n");
        assert_eq!(text.line_count(), 4);
        let at = |line, column| text.utf16_position(Position { line, column });
        assert_eq!(
            at(1, 0),
            Ok(Utf16Position {
                line: 0,
                character: 0
            })
        );
        assert_eq!(
            at(1, 2),
            Ok(Utf16Position {
                line: 0,
                character: 3
            })
        );
        assert_eq!(
            at(1, 3),
            Ok(Utf16Position {
                line: 0,
                character: 4
            })
        );
        assert_eq!(
            at(1, 4),
            Err(PositionError::ColumnOutOfRange {
                line: 1,
                column: 4,
                length: 3
            })
        );
        assert_eq!(
            at(2, 0),
            Ok(Utf16Position {
                line: 1,
                character: 0
            })
        );
        // `\r` is an ordinary codepoint of line 3
        assert_eq!(
            at(3, 2),
            Ok(Utf16Position {
                line: 2,
                character: 2
            })
        );
        assert_eq!(
            at(4, 0),
            Ok(Utf16Position {
                line: 3,
                character: 0
            })
        );
        assert_eq!(
            at(5, 0),
            Err(PositionError::LineOutOfRange { line: 5, lines: 4 })
        );
        assert_eq!(at(0, 0), Err(PositionError::LineZero));
        assert_eq!(text.byte_offset(Position { line: 1, column: 2 }), Ok(5));
        assert_eq!(text.byte_offset(Position { line: 1, column: 3 }), Ok(6));
    }

    #[test]
    fn malformed_json_reports_line_and_continues() {
        let input = b"{\"caption\":\"\",\"data\":\"x\",\"endPos\":null,\"fileName\":\"a.lean\",\"pos\":{\"column\":0,\"line\":1},\"severity\":\"warning\"}\n{not json}\n\n{\"data\":\"y\",\"fileName\":\"a.lean\",\"pos\":{\"column\":2,\"line\":3},\"severity\":\"error\"}\n";
        let results: Vec<_> = MessageReader::new(&input[..]).collect();
        assert_eq!(results.len(), 3);
        assert_eq!(results[0].as_ref().expect("ok").severity, Severity::Warning);
        match &results[1] {
            Err(MessageError::MalformedJson { line, .. }) => assert_eq!(*line, 2),
            other => panic!("expected malformed JSON, got {other:?}"),
        }
        let last = results[2].as_ref().expect("ok");
        assert_eq!(last.pos, Position { line: 3, column: 2 });
        assert_eq!(last.caption, "");
        assert_eq!(last.end_pos, None);
    }

    #[test]
    fn invalid_utf8_reports_line() {
        let mut input = b"{\"data\":\"ok\",\"fileName\":\"a\",\"pos\":{\"column\":0,\"line\":1},\"severity\":\"error\"}\n".to_vec();
        input.extend_from_slice(b"{\"data\":\"\xff\"}\n");
        let results: Vec<_> = MessageReader::new(&input[..]).collect();
        assert!(results[0].is_ok());
        match &results[1] {
            Err(e @ MessageError::InvalidUtf8 { valid_up_to, .. }) => {
                assert_eq!(e.line(), 2);
                assert_eq!(*valid_up_to, 9);
            }
            other => panic!("expected invalid UTF-8, got {other:?}"),
        }
    }

    #[test]
    fn rejects_unknown_severity_and_line_zero() {
        let bad_sev =
            r#"{"data":"x","fileName":"a","pos":{"column":0,"line":1},"severity":"hint"}"#;
        assert!(matches!(
            parse_message_line(7, bad_sev),
            Err(MessageError::MalformedJson { line: 7, .. })
        ));
        let zero = r#"{"data":"x","fileName":"a","pos":{"column":0,"line":0},"severity":"error"}"#;
        assert!(parse_message_line(1, zero).is_err());
    }

    #[test]
    fn line_limit_edge() {
        let line = r#"{"data":"x","fileName":"a","pos":{"column":0,"line":1},"severity":"error"}"#;
        let input = format!("{line}\n{line}\n");
        let exact: Vec<_> = MessageReader::with_line_limit(input.as_bytes(), line.len()).collect();
        assert!(exact.iter().all(Result::is_ok));
        let short: Vec<_> =
            MessageReader::with_line_limit(input.as_bytes(), line.len() - 1).collect();
        assert_eq!(short.len(), 2);
        assert!(matches!(
            short[0],
            Err(MessageError::LineTooLong { line: 1, .. })
        ));
        assert!(matches!(
            short[1],
            Err(MessageError::LineTooLong { line: 2, .. })
        ));
    }

    #[test]
    fn default_line_limit_edge() {
        // a message whose line is exactly MAX_MESSAGE_LINE_BYTES long is accepted, one more is not
        let prefix =
            r#"{"fileName":"a","pos":{"column":0,"line":1},"severity":"information","data":""#;
        let suffix = r#""}"#;
        let fill = MAX_MESSAGE_LINE_BYTES - prefix.len() - suffix.len();
        let mut line = String::with_capacity(MAX_MESSAGE_LINE_BYTES + 2);
        line.push_str(prefix);
        line.extend(std::iter::repeat_n('x', fill));
        line.push_str(suffix);
        assert_eq!(line.len(), MAX_MESSAGE_LINE_BYTES);
        let ok: Vec<_> = MessageReader::new(line.as_bytes()).collect();
        assert_eq!(ok[0].as_ref().map(|m| m.data.len()).ok(), Some(fill));
        line.insert(prefix.len(), 'x');
        let too_long: Vec<_> = MessageReader::new(line.as_bytes()).collect();
        assert!(matches!(
            too_long[0],
            Err(MessageError::LineTooLong { line: 1, .. })
        ));
    }
}
