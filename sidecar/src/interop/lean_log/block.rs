//! A trace tree collected from the plain-text lines of a log, a comment or an infoview copy:
//! the lines that continue it lose what the copy put in front of them (`-- `, the indentation
//! of its first header, the infoview's fold markers, `#guard_msgs`' `⏎`) before
//! [`crate::capture::lean_output::trace_text`] reads them.

use super::super::error::{InteropError, Result};
use super::FORMAT;
use crate::capture::lean_output::infoview::strip_fold_marker;
use crate::capture::lean_output::prefixes::{line_comment, TextPosition};
use crate::capture::lean_output::trace_text::parse_trace_text;
use crate::limits::Limit;

/// `#guard_msgs` marks trailing whitespace with this character.
pub const GUARD_MSGS_EOL: char = '⏎';

/// Is `line` the first line of a trace tree (`[class] …`)?
pub fn is_trace_header(line: &str) -> bool {
    line.starts_with('[') && parse_trace_text(line).is_ok()
}

/// A trace tree being collected.
pub struct Block {
    /// The input line of its first header.
    pub first_line: u64,
    pub text: String,
    /// `#guard_msgs`' `⏎` markers are dropped.
    guard_msgs: bool,
    /// Every line is behind `-- `.
    commented: bool,
    /// The spaces in front of its top-level headers.
    base: usize,
    /// The message it was printed in, if its position was printed.
    pub position: Option<TextPosition>,
}

/// What a copy put around one line of Lean's text.
pub struct Framing {
    pub commented: bool,
    pub guard_msgs: bool,
    pub position: Option<TextPosition>,
}

impl Block {
    /// A tree whose first line is `line` (after the copy's prefixes), if it is a header:
    /// `indent` spaces then `[class] …`. Further top-level headers are expected at the same
    /// indentation unless the line carried a message head (`info: FILE:L:C: [class] …`), whose
    /// following lines start at column 0.
    pub fn start(number: u64, line: &str, headed: bool, framing: Framing) -> Option<Block> {
        let rest = line.trim_start_matches(' ');
        let indent = line.len() - rest.len();
        let header = strip_fold_marker(rest);
        if !is_trace_header(header.trim_end_matches(GUARD_MSGS_EOL)) {
            return None;
        }
        let mut b = Block {
            first_line: number,
            text: String::new(),
            guard_msgs: framing.guard_msgs,
            commented: framing.commented,
            base: if headed { 0 } else { indent },
            position: framing.position,
        };
        b.push(header);
        Some(b)
    }

    /// Adds `line` if it continues the tree (indented under it, or another top-level header);
    /// false if it ends it.
    pub fn continue_with(&mut self, line: &str) -> bool {
        let line = if self.commented {
            match line_comment(line) {
                Some(l) => l,
                None => return false,
            }
        } else {
            line
        };
        let Some(line) = strip_spaces(line, self.base) else {
            return false;
        };
        let line = strip_fold_marker(line);
        let continues = line.starts_with(' ')
            || is_trace_header(line.trim_end_matches(GUARD_MSGS_EOL).trim_end());
        if continues {
            self.text.push('\n');
            self.push(line);
        }
        continues
    }

    /// Refuses a tree whose text grew past `limit` (at input line `number`), rather than
    /// buffering pasted text without bound.
    pub fn check_size(&self, number: u64, limit: Limit) -> Result<()> {
        if self.text.len() as u64 > limit.value {
            return Err(InteropError::over(
                FORMAT,
                format!("line {number} (a trace tree from line {})", self.first_line),
                limit,
            ));
        }
        Ok(())
    }

    fn push(&mut self, line: &str) {
        if self.guard_msgs {
            self.text.push_str(&line.replace(GUARD_MSGS_EOL, ""));
        } else {
            self.text.push_str(line);
        }
    }
}

/// `line` without its first `n` characters, if they are spaces.
fn strip_spaces(line: &str, n: usize) -> Option<&str> {
    let head = line.get(..n)?;
    head.bytes().all(|b| b == b' ').then(|| &line[n..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framing(commented: bool) -> Framing {
        Framing {
            commented,
            guard_msgs: false,
            position: None,
        }
    }

    #[test]
    fn an_indented_infoview_copy_in_a_comment() {
        let mut b = Block::start(66, "  [Elab.step] [3.587504s] ", false, framing(false)).unwrap();
        assert!(b.continue_with("      have foo := x"));
        assert!(b.continue_with("      sorry ▶"));
        assert!(!b.continue_with("  -/"));
        assert_eq!(
            b.text,
            "[Elab.step] [3.587504s] \n    have foo := x\n    sorry"
        );
    }

    #[test]
    fn commented_lines() {
        let mut b = Block::start(1, "[A] [1.0] a", false, framing(true)).unwrap();
        assert!(b.continue_with("-- [B] [2.0] b ▶"));
        assert!(b.continue_with("--   [C] [0.5] c"));
        assert!(!b.continue_with("[D] [1.0] uncommented"));
        assert!(!b.continue_with("-- prose"));
        assert_eq!(b.text, "[A] [1.0] a\n[B] [2.0] b\n  [C] [0.5] c");
    }

    #[test]
    fn a_tree_past_the_limit_is_refused() {
        let limit = crate::limit!(
            crate::limits::MAX_LEAN_LOG_LINE_BYTES,
            "a trace tree's text"
        )
        .with_value(30);
        let mut b = Block::start(3, "[A] [1.0] a", false, framing(false)).unwrap();
        assert!(b.continue_with("  [B] [0.5] b"));
        assert!(b.check_size(4, limit).is_ok(), "{} bytes", b.text.len());
        assert!(b.continue_with("  [C] [0.5] c"));
        let e = b.check_size(5, limit).unwrap_err().to_string();
        assert!(
            e.contains("line 5 (a trace tree from line 3)") && e.contains("over the limit of 30"),
            "{e}"
        );
    }

    #[test]
    fn not_a_header() {
        assert!(Block::start(1, "hello", false, framing(false)).is_none());
        assert!(Block::start(1, "[] [0.1] x", false, framing(false)).is_none());
    }
}
