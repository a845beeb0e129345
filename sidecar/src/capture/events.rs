//! The events a capture produces, before they are written.

use std::borrow::Cow;

use recording::{ClockKind, RangeKind, SourceRange, Thread};

use super::status_emoji;

/// One event. Its strings borrow from what it was built from (the profile's node names) where
/// they can, so a large capture does not allocate two strings per event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event<'a> {
    pub parent: Option<u32>,
    pub class: Cow<'a, str>,
    pub label: Cow<'a, str>,
    pub start_ns: u64,
    pub duration_ns: u64,
    pub thread: u32,
    pub range: Option<SourceRange>,
    pub range_kind: RangeKind,
}

/// Everything the join produced.
#[derive(Debug, Default)]
pub struct Built<'a> {
    pub events: Vec<Event<'a>>,
    pub threads: Vec<Thread>,
    pub clock: ClockKind,
    pub clock_description: String,
    /// Lean's elapsed time for the file, when Lean reported it.
    pub elapsed_ns: Option<u64>,
    pub notes: Vec<String>,
}

/// Where events go as they are made.
pub trait EventSink<'a> {
    type Error;

    fn push(&mut self, event: Event<'a>) -> Result<(), Self::Error>;

    /// A label that a push soon will carry: a hint (see `RecordingWriter::upcoming`).
    fn upcoming(&mut self, _label: &str) {}
}

/// An event's label from its node name's parts: the text, else the tag, else the class.
pub fn node_label<'a>((class, tag, text): (&'a str, Option<&'a str>, &'a str)) -> &'a str {
    if text.is_empty() {
        tag.unwrap_or(class)
    } else {
        text
    }
}

/// Splits a trace node name `CLASS[: TAG][: TEXT]` into its parts. A tag is
/// a single name (no spaces), as Lean's syntax kinds are; anything else
/// after the class is text.
///
/// A status emoji in front of the tag or the text (Lean 4.30–4.31 profiles:
/// `Elab.async: ✅️ Lean.addDecl`, `Elab.step: Lean.Parser.Tactic.simp: ✅️ simp`) is dropped
/// as [`status_emoji::normalized`] says, so every release splits the same way.
pub fn split_node_name(name: &str) -> (&str, Option<&str>, &str) {
    let Some((class, rest)) = split_at_colon_space(name) else {
        return (name.trim_end_matches(':').trim_end(), None, "");
    };
    let rest = status_emoji::normalized(class, rest);
    let is_name = |s: &str| !s.is_empty() && !s.contains(char::is_whitespace);
    match split_at_colon_space(rest) {
        Some((tag, text)) if is_name(tag) => {
            (class, Some(tag), status_emoji::normalized(class, text))
        }
        _ if is_name(rest) => (class, Some(rest), ""),
        _ => (class, None, rest),
    }
}

/// `s.split_once(": ")`, without building a substring searcher per call (this runs once
/// per trace node).
#[inline]
fn split_at_colon_space(s: &str) -> Option<(&str, &str)> {
    let bytes = s.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(b':', &bytes[from..]) {
        let at = from + i;
        if bytes.get(at + 1) == Some(&b' ') {
            // `:` and ` ` are ASCII, so both cuts are character boundaries
            return Some((&s[..at], &s[at + 2..]));
        }
        from = at + 1;
    }
    None
}

/// The syntax a node's text shows, if it is syntax leanscope can look for
/// in the source: commands and tactic steps print their syntax; term steps
/// print `expected type: …, term` and the term on the next line.
pub fn searchable_text<'a>(class: &str, text: &'a str) -> Option<&'a str> {
    match class {
        "Elab.command" | "Elab.step" => {
            if text.starts_with("expected type:") {
                text.split_once('\n')
                    .map(|(_, term)| term)
                    .filter(|t| !t.trim().is_empty())
            } else {
                Some(text).filter(|t| !t.trim().is_empty())
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names() {
        assert_eq!(
            split_node_name("Elab.command: Lean.Parser.Command.theorem: theorem a : b := c"),
            (
                "Elab.command",
                Some("Lean.Parser.Command.theorem"),
                "theorem a : b := c"
            )
        );
        assert_eq!(
            split_node_name("Elab.async: elaborating proof of Demo.x"),
            ("Elab.async", None, "elaborating proof of Demo.x")
        );
        assert_eq!(
            split_node_name("Elab.definition.header: Demo.Clean.double"),
            ("Elab.definition.header", Some("Demo.Clean.double"), "")
        );
        assert_eq!(split_node_name("runFrontend: "), ("runFrontend", None, ""));
        assert_eq!(split_node_name("Kernel"), ("Kernel", None, ""));
        assert_eq!(split_node_name("a:b: c"), ("a:b", Some("c"), ""));
        assert_eq!(split_node_name("a::"), ("a", None, ""));
        assert_eq!(split_node_name("a: b:c: d"), ("a", Some("b:c"), "d"));
        assert_eq!(
            split_node_name("Meta.synthInstance: ✅️ Decidable (b = true)"),
            ("Meta.synthInstance", None, "✅️ Decidable (b = true)")
        );
    }

    #[test]
    fn node_names_with_status_emoji_split_as_without() {
        for (with, without) in [
            (
                "Elab.command: Lean.Parser.Command.theorem: ✅️ theorem a : b := c",
                "Elab.command: Lean.Parser.Command.theorem: theorem a : b := c",
            ),
            (
                "Elab.step: Lean.Parser.Tactic.simp: ❌ simp",
                "Elab.step: Lean.Parser.Tactic.simp: simp",
            ),
            ("Elab.async: ✅️ Lean.addDecl", "Elab.async: Lean.addDecl"),
            ("Import: ✅️ importing", "Import: importing"),
            (
                "Kernel: 💥️ typechecking declarations [Demo.x]",
                "Kernel: typechecking declarations [Demo.x]",
            ),
            (
                "Elab.async: ✅️ elaborating proof of Demo.x",
                "Elab.async: elaborating proof of Demo.x",
            ),
        ] {
            assert_eq!(split_node_name(with), split_node_name(without), "{with}");
        }
    }

    #[test]
    fn searchable_texts() {
        assert_eq!(searchable_text("Elab.step", "omega"), Some("omega"));
        assert_eq!(
            searchable_text("Elab.step", "expected type: Nat, term\nn + 1"),
            Some("n + 1")
        );
        assert_eq!(searchable_text("Meta.isDefEq", "a =?= b"), None);
    }
}
