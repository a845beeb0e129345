//! What stands in front of Lean's text when users share it (see fixtures/README.md, "Shared
//! text"):
//!
//! - `-- ` when output is pasted behind line comments in a Lean file;
//! - `info: ` / `warning: ` / `error: ` from `lake build`, followed by Lean's position
//!   `FILE:LINE:COLUMN: ` (`info: ././A/B.lean:11:75: [Meta.Tactic.bv] …`; Lake's
//!   `logSerialMessage`, which may add the end position, `FILE:L:C-L:C: `);
//! - `FILE:LINE:COLUMN: error: ` from a bare `lean FILE` (Lean's `SerialMessage.toString` and
//!   `mkErrorStringWithPos`, in `src/Lean/Message.lean`; recent releases name the error,
//!   `error(lean.unknownIdentifier): `; an information message, a trace's among them, is printed
//!   as its text alone, with no position);
//! - `info: ` alone from a `#guard_msgs` block.
//!
//! The readers of the text behind them ([`super::trace_text`], [`super::profiler_lines`]) are
//! the same as for Lean's own output; this module only splits the prefix off.

/// A Lean position printed in front of a message: `FILE:LINE:COLUMN` (1-based line, 0-based
/// codepoint column, as Lean counts them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPosition {
    pub file: String,
    pub line: u32,
    pub column: u32,
    /// The end (`-LINE:COLUMN`), when printed.
    pub end: Option<(u32, u32)>,
}

impl std::fmt::Display for TextPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// The head of a message line: its severity word and position, either of which may be absent.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MessageHead {
    /// `info`, `warning` or `error`, if printed.
    pub severity: Option<&'static str>,
    pub position: Option<TextPosition>,
}

const SEVERITIES: [&str; 3] = ["info", "warning", "error"];

/// A `lake build` status or command line (`⚠ [667/887] Replayed …`, `✖ [887/887] Building …`,
/// `✔ [3/9] Built …`, `trace: .> LEAN_PATH=…`): it ends the message before it.
pub fn is_lake_status(line: &str) -> bool {
    ["⚠ [", "✖ [", "✔ [", "trace: "]
        .iter()
        .any(|p| line.starts_with(p))
}

/// A line that opens or closes a block comment (`/-`, `/--`, `-/`), where users paste output.
pub fn is_comment_delimiter(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("/-") || t.ends_with("-/")
}

/// The text behind a `-- ` line comment (`--` alone is an empty line), or `None` if the line
/// is not one.
pub fn line_comment(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("--")?;
    if rest.is_empty() {
        return Some(rest);
    }
    rest.strip_prefix(' ')
}

/// `info: `, `warning: ` or `error: ` (also with the error's name, `error(lean.x): `) at the
/// start of `text`, and the rest.
fn severity(text: &str) -> Option<(&'static str, &str)> {
    SEVERITIES.iter().find_map(|s| {
        let mut rest = text.strip_prefix(s)?;
        if let Some(named) = rest.strip_prefix('(') {
            let close = named.find(')')?;
            if named[..close].contains(char::is_whitespace) {
                return None;
            }
            rest = &named[close + 1..];
        }
        let rest = rest.strip_prefix(':')?;
        Some((*s, rest.strip_prefix(' ').unwrap_or(rest)))
    })
}

/// Leading ASCII digits of `text` as a number, and the rest.
fn number(text: &str) -> Option<(u32, &str)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (n, rest) = text.split_at(digits);
    Some((n.parse().ok()?, rest))
}

/// `FILE.lean:LINE:COLUMN` then `: ` or the end of the text, and the rest.
fn position(text: &str) -> Option<(TextPosition, &str)> {
    let dot = text.find(".lean:")?;
    let file = &text[..dot + ".lean".len()];
    if file.is_empty() || file.contains(char::is_whitespace) {
        return None;
    }
    let (line, after) = number(&text[dot + ".lean:".len()..])?;
    let (column, mut rest) = number(after.strip_prefix(':')?)?;
    let mut end = None;
    if let Some(e) = rest.strip_prefix('-') {
        let (end_line, e) = number(e)?;
        let (end_column, e) = number(e.strip_prefix(':')?)?;
        end = Some((end_line, end_column));
        rest = e;
    }
    let rest = if rest.is_empty() {
        rest
    } else {
        rest.strip_prefix(": ").or_else(|| rest.strip_prefix(':'))?
    };
    Some((
        TextPosition {
            file: file.to_string(),
            line: Some(line).filter(|&l| l > 0)?,
            column,
            end,
        },
        rest,
    ))
}

/// Splits a message's head off `line`: `severity: FILE:L:C: `, `FILE:L:C: severity: `,
/// `FILE:L:C` alone, or `severity: ` alone. `None` when the line has no such head.
pub fn message_head(line: &str) -> Option<(MessageHead, &str)> {
    if let Some((sev, rest)) = severity(line) {
        return Some(match position(rest) {
            Some((pos, rest)) => (
                MessageHead {
                    severity: Some(sev),
                    position: Some(pos),
                },
                rest,
            ),
            None => (
                MessageHead {
                    severity: Some(sev),
                    position: None,
                },
                rest,
            ),
        });
    }
    let (pos, rest) = position(line)?;
    let (sev, rest) = match severity(rest) {
        Some((s, r)) => (Some(s), r),
        None => (None, rest),
    };
    Some((
        MessageHead {
            severity: sev,
            position: Some(pos),
        },
        rest,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(file: &str, line: u32, column: u32) -> Option<TextPosition> {
        Some(TextPosition {
            file: file.into(),
            line,
            column,
            end: None,
        })
    }

    #[test]
    fn comments() {
        assert_eq!(line_comment("-- [A] [1.0] x"), Some("[A] [1.0] x"));
        assert_eq!(line_comment("--"), Some(""));
        assert_eq!(line_comment("--x"), None);
        assert_eq!(line_comment("[A] x"), None);
    }

    #[test]
    fn lake_and_bare_lean_heads() {
        let (h, rest) = message_head("info: ././A/B.lean:11:75: [bv] x").unwrap();
        assert_eq!(h.severity, Some("info"));
        assert_eq!(h.position, pos("././A/B.lean", 11, 75));
        assert_eq!(rest, "[bv] x");
        let (h, rest) = message_head("A/B.lean:16:2: error: no goals").unwrap();
        assert_eq!(h.severity, Some("error"));
        assert_eq!(h.position, pos("A/B.lean", 16, 2));
        assert_eq!(rest, "no goals");
        let (h, rest) = message_head("day12.lean:312:0").unwrap();
        assert_eq!(
            (h.severity, h.position, rest),
            (None, pos("day12.lean", 312, 0), "")
        );
        let (h, rest) = message_head("error: Lean exited with code 1").unwrap();
        assert_eq!((h.severity, h.position), (Some("error"), None));
        assert_eq!(rest, "Lean exited with code 1");
        let (h, rest) = message_head("info: [Elab.step] trivial").unwrap();
        assert_eq!(
            (h.severity, h.position, rest),
            (Some("info"), None, "[Elab.step] trivial")
        );
        let (h, rest) = message_head("A.lean:1:2-3:4: error(lean.unknownIdentifier): x").unwrap();
        assert_eq!(h.severity, Some("error"));
        assert_eq!(
            h.position.map(|p| (p.line, p.column, p.end)),
            Some((1, 2, Some((3, 4))))
        );
        assert_eq!(rest, "x");
        let (h, rest) = message_head("info: A.lean:5:0-5:9: [bv] [0.1] y").unwrap();
        assert_eq!(h.position.and_then(|p| p.end), Some((5, 9)));
        assert_eq!(rest, "[bv] [0.1] y");
        for other in [
            "hello world",
            "a b.lean:1:2: x",
            "x.lean:0:1: zero line",
            "x.lean:a:1",
            "informal: x",
            "A.lean:1:2-3: x",
            "error(a b): x",
        ] {
            assert_eq!(message_head(other), None, "{other}");
        }
    }
}
