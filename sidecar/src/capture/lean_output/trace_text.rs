//! The text of a trace message, as `MessageData.format` renders a tree of `.trace` nodes.
//!
//! Each node is one header line `[class] [seconds] text` followed by its children; a node at
//! depth `d` starts `2·d` spaces in, further lines of its own text start `2·d + 4` spaces in,
//! and several top-level trees are separated by a newline (see fixtures/README.md, "Trace text").
//! A line that `ppDedent` moves one step left (`where` of a definition) sits at `2·d + 2` and
//! belongs to the text of the node at depth `d`.
//!
//! Header spellings:
//! - `[Elab.command] [0.013245] text`: Lean 4.8 and later (`TraceData` times, `Float.toString`
//!   of the duration in seconds);
//! - `[Elab.command] [0.013245s] text`: before 4.8 (the time was part of the message text);
//! - `[Elab.command] text`: a node without timing (its class was enabled directly).
//!
//! With `trace.profiler.useHeartbeats` the bracketed number counts heartbeats, not seconds
//! (`Float.toString` of the difference of two `IO.getNumHeartbeats`, e.g. `[52000.000000]`);
//! nothing in the text tells them apart, so callers that set that option read
//! [`TraceTiming::whole_units`] instead of [`TraceTiming::nanoseconds`].
//!
//! Copies of the infoview ([`super::infoview`]) differ in two ways this reader accepts: a
//! child's class may be shown relative to its parent's, and `[]` (the parent's own class) is
//! read as the parent's class; and a declaration name the copy wrapped onto the next line (one
//! identifier at `2·d + 2` right after a one-line header) joins its header's text with a space.

use super::siblings::{Siblings, SubtreeEnd};
use crate::decimal::decimal_to_ns;
use crate::limits::{MAX_TRACE_DEPTH, MAX_TRACE_NODES};

/// How a header spelled its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimingStyle {
    /// `[0.013245]` (Lean 4.8 and later).
    Bracketed,
    /// `[0.013245s]` (before Lean 4.8).
    SecondsSuffix,
}

/// The time printed in a node header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceTiming {
    /// The printed duration. Lean prints six fractional digits of seconds, so this is a multiple
    /// of 1000 (microsecond resolution).
    /// (Saturates at `u64::MAX` for a number over 18446744073.709551615, which only a count of
    /// heartbeats reaches.)
    pub nanoseconds: u64,
    /// The printed number rounded to a whole unit: the heartbeats of a
    /// `trace.profiler.useHeartbeats` run (Lean prints whole counts with `.000000`).
    pub whole_units: u64,
    pub style: TimingStyle,
}

/// One node of a trace tree; see [`TraceForest`] for its class, children and parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceNode {
    class: u32,
    pub timing: Option<TraceTiming>,
    /// The node's text; further lines keep their indentation relative to the first.
    pub text: String,
    parent: Option<u32>,
    /// One past the id of the last node of this node's subtree.
    end: u32,
    /// 0 for a top-level node.
    pub depth: u32,
    /// Children Lean left out (`N more entries... (increase `maxTraceChildren` to see more)`).
    pub omitted_children: u64,
    /// The 1-based line of the text the node's header is on.
    pub line: u32,
}

/// All trees of one trace message. Nodes are stored in the order Lean printed them (depth-first
/// pre-order) and identified by their index; class names are shared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceForest {
    nodes: Vec<TraceNode>,
    classes: Vec<String>,
}

impl TraceForest {
    #[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn node(&self, id: usize) -> Option<&TraceNode> {
        self.nodes.get(id)
    }

    /// All nodes in the order Lean printed them (depth-first pre-order).
    #[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
    pub fn nodes(&self) -> &[TraceNode] {
        &self.nodes
    }

    /// The trace class of a node, e.g. `Elab.command`.
    pub fn class(&self, id: usize) -> &str {
        self.nodes
            .get(id)
            .and_then(|n| self.classes.get(n.class as usize))
            .map_or("", String::as_str)
    }

    #[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
    pub fn parent(&self, id: usize) -> Option<usize> {
        self.nodes.get(id)?.parent.map(|p| p as usize)
    }

    /// Ids of the top-level nodes.
    pub fn roots(&self) -> Siblings<'_, TraceNode> {
        Siblings::roots(&self.nodes)
    }

    /// Ids of a node's children, in printed order.
    pub fn children(&self, id: usize) -> Siblings<'_, TraceNode> {
        Siblings::children(&self.nodes, id)
    }
}

impl SubtreeEnd for TraceNode {
    fn subtree_end(&self) -> usize {
        self.end as usize
    }
}

/// Why a text is not a trace tree. Line numbers are 1-based lines of the message text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceTextError {
    #[error("line {line}: expected a trace node header `[class] …` but found {found:?}")]
    NotAHeader { line: usize, found: String },
    #[error("line {line}: indentation of {indent} spaces fits no open trace node")]
    BadIndent { line: usize, indent: usize },
    #[error("the trace has more than {limit} nodes")]
    TooManyNodes { limit: usize },
    #[error("line {line}: the trace nests deeper than {limit} levels")]
    TooDeep { line: usize, limit: usize },
    #[error("the text is empty")]
    Empty,
}

/// A parsed header line (after its indentation).
struct Header<'a> {
    class: &'a str,
    timing: Option<TraceTiming>,
    text: &'a str,
}

fn parse_header(rest: &str) -> Option<Header<'_>> {
    let inner = rest.strip_prefix('[')?;
    let close = inner.find(']')?;
    let class = &inner[..close];
    // an empty class is the infoview's `[]`: the caller resolves it against the parent
    if class.chars().any(|c| c == '[' || c.is_whitespace()) {
        return None;
    }
    let after = &inner[close + 1..];
    let (timing, text) = match parse_timing(after) {
        Some((timing, text)) => (Some(timing), text),
        None => (None, after),
    };
    let text = if let Some(t) = text.strip_prefix(' ') {
        t
    } else if text.is_empty() {
        text
    } else {
        return None;
    };
    Some(Header {
        class,
        timing,
        text,
    })
}

/// ` [0.013245]` or ` [0.013245s]` at the start of `after`, with the rest of the line.
fn parse_timing(after: &str) -> Option<(TraceTiming, &str)> {
    let inner = after.strip_prefix(" [")?;
    let close = inner.find(']')?;
    let number = &inner[..close];
    let (number, style) = match number.strip_suffix('s') {
        Some(n) => (n, TimingStyle::SecondsSuffix),
        None => (number, TimingStyle::Bracketed),
    };
    // `Float.toString` always prints a fraction; requiring one keeps `[1] text` as text
    let (whole, fraction) = number.split_once('.')?;
    if whole.is_empty()
        || fraction.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !fraction.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole_units = decimal_to_ns(number, 0)?;
    let nanoseconds = decimal_to_ns(number, 9).unwrap_or(u64::MAX);
    Some((
        TraceTiming {
            nanoseconds,
            whole_units,
            style,
        },
        &inner[close + 1..],
    ))
}

/// `N more entries... (increase `maxTraceChildren` to see more)`
fn parse_omitted(rest: &str) -> Option<u64> {
    let (count, tail) = rest.split_once(' ')?;
    if !tail.starts_with("more entries...") {
        return None;
    }
    count.parse().ok()
}

/// Parses the text of one trace message into its trees.
pub fn parse_trace_text(text: &str) -> Result<TraceForest, TraceTextError> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let mut builder = Builder::default();
    for (index, line) in text.split('\n').enumerate() {
        let line_number = index + 1;
        let rest = line.trim_start_matches(' ');
        let indent = line.len() - rest.len();
        let Some(&top) = builder.open.last() else {
            let header = match (indent, parse_header(rest)) {
                (0, Some(h)) if !h.class.is_empty() => h,
                _ => {
                    return Err(TraceTextError::NotAHeader {
                        line: line_number,
                        found: line.chars().take(80).collect(),
                    })
                }
            };
            builder.push(header, 0, line_number)?;
            continue;
        };
        let depth = builder.open.len() - 1;
        let continuation_indent = 2 * depth + 4;
        if rest.is_empty() {
            // a blank line inside a node's text
            builder.forest.nodes[top].text.push('\n');
            continue;
        }
        if indent >= continuation_indent {
            let node = &mut builder.forest.nodes[top];
            // a header with an empty message (`[Elab.step] `) has its text on the next lines
            if !node.text.is_empty() {
                node.text.push('\n');
            }
            node.text.push_str(&line[continuation_indent..]);
            continue;
        }
        if indent % 2 == 1 || indent > 2 * depth + 2 {
            return Err(TraceTextError::BadIndent {
                line: line_number,
                indent,
            });
        }
        let level = indent / 2;
        if let Some(header) = parse_header(rest) {
            builder.close_to(level);
            builder.push(header, level, line_number)?;
        } else if let (Some(count), true) = (parse_omitted(rest), level > 0) {
            builder.close_to(level);
            if let Some(&parent) = builder.open.last() {
                builder.forest.nodes[parent].omitted_children += count;
            }
        } else if indent == 2 * depth + 2 && is_wrapped_name(&builder.forest.nodes[top], rest) {
            // an infoview copy wrapped the header's last word (a declaration name)
            let node = &mut builder.forest.nodes[top];
            node.text.push(' ');
            node.text.push_str(rest);
        } else if indent == 2 * depth + 2 {
            // `ppDedent` (a `where` clause): a line of the open node's text one indentation
            // step left of its other lines, where no child header is
            let node = &mut builder.forest.nodes[top];
            node.text.push('\n');
            node.text.push_str(rest);
        } else {
            return Err(TraceTextError::NotAHeader {
                line: line_number,
                found: rest.chars().take(80).collect(),
            });
        }
    }
    builder.close_to(0);
    if builder.forest.nodes.is_empty() {
        return Err(TraceTextError::Empty);
    }
    Ok(builder.forest)
}

/// Lean's words that `ppDedent` puts at `2·d + 2` (the start of a clause, never a name).
const DEDENTED_KEYWORDS: [&str; 4] = ["where", "deriving", "termination_by", "decreasing_by"];

/// Whether `rest`, at `2·d + 2` right after `node`'s one-line header, is a declaration name
/// wrapped by a copy: one word with a `.` (a qualified name) that is not a keyword.
fn is_wrapped_name(node: &TraceNode, rest: &str) -> bool {
    !node.text.is_empty()
        && !node.text.contains('\n')
        && !rest.contains(char::is_whitespace)
        && rest.contains('.')
        && !DEDENTED_KEYWORDS.contains(&rest)
}

#[derive(Default)]
struct Builder {
    forest: TraceForest,
    /// open[d] = id of the open node at depth d
    open: Vec<usize>,
    class_ids: std::collections::HashMap<String, u32>,
}

impl Builder {
    /// Closes open nodes until `depth` remain.
    fn close_to(&mut self, depth: usize) {
        let end = self.forest.nodes.len() as u32;
        while self.open.len() > depth {
            if let Some(id) = self.open.pop() {
                self.forest.nodes[id].end = end;
            }
        }
    }

    fn push(
        &mut self,
        header: Header<'_>,
        depth: usize,
        line: usize,
    ) -> Result<(), TraceTextError> {
        if self.forest.nodes.len() >= MAX_TRACE_NODES {
            return Err(TraceTextError::TooManyNodes {
                limit: MAX_TRACE_NODES,
            });
        }
        if depth > MAX_TRACE_DEPTH {
            return Err(TraceTextError::TooDeep {
                line,
                limit: MAX_TRACE_DEPTH,
            });
        }
        let parent = self.open.last().copied();
        let class_name = match (header.class, parent) {
            ("", Some(p)) => {
                let c = self.forest.nodes[p].class as usize;
                self.forest.classes[c].clone()
            }
            ("", None) => {
                return Err(TraceTextError::NotAHeader {
                    line,
                    found: "[]".into(),
                })
            }
            (c, _) => c.to_string(),
        };
        let class = match self.class_ids.get(class_name.as_str()) {
            Some(&c) => c,
            None => {
                let c = self.forest.classes.len() as u32;
                self.forest.classes.push(class_name.clone());
                self.class_ids.insert(class_name, c);
                c
            }
        };
        let id = self.forest.nodes.len();
        self.forest.nodes.push(TraceNode {
            class,
            timing: header.timing,
            text: header.text.to_string(),
            parent: self.open.last().map(|&p| p as u32),
            end: id as u32 + 1,
            depth: depth as u32,
            omitted_children: 0,
            line: line as u32,
        });
        self.open.push(id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::lean_output::messages::MessageReader;
    use std::path::PathBuf;

    fn trace_messages(case: &str) -> Vec<String> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/lean-output")
            .join(case)
            .join("stdout.traces");
        let file = std::fs::File::open(path).expect("fixture");
        MessageReader::new(std::io::BufReader::new(file))
            .map(|m| m.expect("message"))
            .filter(|m| m.data.starts_with('['))
            .map(|m| m.data)
            .collect()
    }

    fn children(forest: &TraceForest, id: usize) -> Vec<usize> {
        forest.children(id).collect()
    }

    #[test]
    fn clean_async_proof_tree() {
        let traces = trace_messages("clean");
        let le_double = traces
            .iter()
            .find(|t| t.starts_with("[Elab.async] ") && t.contains("proof of Demo.Clean.le_double"))
            .expect("async trace of le_double");
        let forest = parse_trace_text(le_double).expect("parses");
        assert_eq!(forest.roots().collect::<Vec<_>>(), vec![0]);
        assert_eq!(forest.len(), 9);
        let root = &forest.nodes()[0];
        assert_eq!(forest.class(0), "Elab.async");
        assert_eq!(root.text, "elaborating proof of Demo.Clean.le_double");
        assert_eq!(
            root.timing,
            Some(TraceTiming {
                nanoseconds: 11_980_000,
                whole_units: 0,
                style: TimingStyle::Bracketed
            })
        );
        let value = children(&forest, 0)[0];
        assert_eq!(forest.class(value), "Elab.definition.value");
        let seq = children(&forest, value)[0];
        assert_eq!(forest.class(seq), "Elab.step");
        assert_eq!(
            forest.nodes()[seq].text,
            "induction n with\n| zero => exact Nat.le_refl 0\n| succ k ih =>\n  unfold double at *\n  omega"
        );
        let induction = children(&forest, seq)[0];
        assert_eq!(forest.nodes()[induction].depth, 3);
        let alternatives = children(&forest, induction);
        assert_eq!(alternatives.len(), 2);
        let succ = alternatives[1];
        assert_eq!(forest.nodes()[succ].text, "unfold double at *\nomega");
        let omega = children(&forest, succ)[1];
        assert_eq!(forest.nodes()[omega].text, "omega");
        assert_eq!(
            forest.nodes()[omega].timing.map(|t| t.nanoseconds),
            Some(5_817_000)
        );
        assert!(children(&forest, omega).is_empty());
        assert_eq!(forest.parent(omega), Some(succ));
        // children never outlast their parent
        for id in 0..forest.len() {
            if let (Some(p), Some(t)) = (forest.parent(id), forest.nodes()[id].timing) {
                let parent = forest.nodes()[p].timing.expect("timed parent");
                assert!(t.nanoseconds <= parent.nanoseconds);
            }
        }
    }

    #[test]
    fn command_header_keeps_multiline_text() {
        let traces = trace_messages("clean");
        let forest = parse_trace_text(&traces[1]).expect("parses");
        assert_eq!(forest.class(0), "Elab.command");
        assert_eq!(
            forest.nodes()[0].text,
            "theorem double_add (m n : Nat) : double (m + n) = double m + double n := by\n  unfold double\n  omega"
        );
        assert_eq!(children(&forest, 0), vec![1]);
        assert_eq!(forest.nodes()[1].text, "Demo.Clean.double_add");
    }

    #[test]
    fn old_header_style_with_seconds_suffix() {
        let traces = trace_messages("clean-v4.7.0");
        let forest = parse_trace_text(&traces[0]).expect("parses");
        let def = &forest.nodes()[0];
        assert_eq!(def.text, "def double (n : Nat) : Nat := n + n");
        assert_eq!(
            def.timing,
            Some(TraceTiming {
                nanoseconds: 5_061_000,
                whole_units: 0,
                style: TimingStyle::SecondsSuffix
            })
        );
        assert_eq!(children(&forest, 0).len(), 3);
        assert_eq!(forest.class(3), "Kernel");
        for text in &traces {
            let forest = parse_trace_text(text).expect("parses");
            assert!(forest
                .nodes()
                .iter()
                .all(|n| n.timing.map(|t| t.style) == Some(TimingStyle::SecondsSuffix)));
        }
    }

    #[test]
    fn emoji_and_untimed_nodes() {
        let text = "[Meta.synthInstance] [0.001204] ✅️ Decidable (b = true)\n  [Meta.debug] plain text\n  [Meta.synthInstance] ❌️ [1] not a time";
        let forest = parse_trace_text(text).expect("parses");
        assert_eq!(forest.nodes()[0].text, "✅️ Decidable (b = true)");
        assert_eq!(forest.nodes()[1].timing, None);
        assert_eq!(forest.nodes()[1].text, "plain text");
        assert_eq!(forest.nodes()[2].timing, None);
        assert_eq!(forest.nodes()[2].text, "❌️ [1] not a time");
        assert_eq!(forest.class(1), "Meta.debug");
    }

    #[test]
    fn several_top_level_trees_and_omitted_children() {
        let text = "[A] [0.5] a\n  [B] [0.2] b\n    [C] [0.1] c\n  3 more entries... (increase `maxTraceChildren` to see more)\n[D] [0.25] d\n";
        let forest = parse_trace_text(text).expect("parses");
        assert_eq!(forest.roots().collect::<Vec<_>>(), vec![0, 3]);
        assert_eq!(forest.nodes()[0].omitted_children, 3);
        assert_eq!(forest.nodes()[2].depth, 2);
        assert_eq!(
            forest.nodes()[3].timing.map(|t| t.nanoseconds),
            Some(250_000_000)
        );
        assert_eq!(forest.nodes()[3].text, "d");
    }

    #[test]
    fn header_text_lines_that_look_like_nodes() {
        // a continuation line of B's text starts with `[` but is indented as text (2·1 + 4)
        let text = "[A] [0.5] a\n  [B] [0.2] xs =\n      [1, 2]\n  [C] [0.1] c";
        let forest = parse_trace_text(text).expect("parses");
        assert_eq!(forest.len(), 3);
        assert_eq!(forest.nodes()[1].text, "xs =\n[1, 2]");
        assert_eq!(forest.parent(2), Some(0));
        assert_eq!(children(&forest, 0), vec![1, 2]);
    }

    #[test]
    fn rejects_non_traces() {
        assert!(matches!(
            parse_trace_text("elaboration took 3.07ms\n"),
            Err(TraceTextError::NotAHeader { line: 1, .. })
        ));
        assert_eq!(
            parse_trace_text(""),
            Err(TraceTextError::NotAHeader {
                line: 1,
                found: String::new()
            })
        );
        assert!(matches!(
            parse_trace_text("[A] [0.1] a\n   [B] [0.1] odd"),
            Err(TraceTextError::BadIndent { line: 2, indent: 3 })
        ));
        let text = parse_trace_text("[A] [0.1] a\n    [B] [0.1] is text").expect("parses");
        assert_eq!(
            text.len(),
            1,
            "four spaces under a depth-0 node belong to its text"
        );
        assert!(matches!(
            parse_trace_text("[A] [0.1] a\n  [B] [0.1] b\n      x\n   y"),
            Err(TraceTextError::BadIndent { line: 4, indent: 3 })
        ));
        assert!(matches!(
            parse_trace_text("[A] [0.1] a\n[B] [0.1] b\nnot a node"),
            Err(TraceTextError::NotAHeader { line: 3, .. })
        ));
        assert!(matches!(
            parse_trace_text("[A] [0.1] a\n  [B] [0.1] b\n  not a node"),
            Err(TraceTextError::NotAHeader { line: 3, .. })
        ));
    }

    #[test]
    fn dedented_where_lines_belong_to_the_text() {
        let text = "[Elab.command] [0.007096] def sumTo (n : Nat) : Nat := go n 0\n  where\n      go : Nat → Nat → Nat\n        | 0, acc => acc\n  [Kernel] [0.001377] typechecking declarations [sumTo]";
        let forest = parse_trace_text(text).expect("parses");
        assert_eq!(forest.len(), 2);
        assert_eq!(
            forest.nodes()[0].text,
            "def sumTo (n : Nat) : Nat := go n 0\nwhere\n  go : Nat → Nat → Nat\n    | 0, acc => acc"
        );
        assert_eq!(forest.class(1), "Kernel");
        assert_eq!(forest.parent(1), Some(0));
    }

    #[test]
    fn heartbeat_counts_read_whole() {
        // `Float.toString` of a heartbeat difference: whole counts, six zero decimals; a count
        // past u64 nanoseconds (over 1.8·10¹⁰) still reads exactly as heartbeats.
        let forest = parse_trace_text(
            "[Elab.command] [52000.000000] theorem t : True := trivial\n  [Elab.step] [98765432109.000000] trivial",
        )
        .unwrap();
        let t = |id: usize| forest.nodes()[id].timing.unwrap();
        assert_eq!(t(0).whole_units, 52_000);
        assert_eq!(t(0).nanoseconds, 52_000_000_000_000);
        assert_eq!(t(1).whole_units, 98_765_432_109);
        assert_eq!(t(1).nanoseconds, u64::MAX);
    }

    #[test]
    fn depth_limit_edge() {
        let mut text = String::new();
        for depth in 0..=MAX_TRACE_DEPTH {
            text.push_str(&" ".repeat(2 * depth));
            text.push_str("[X] [0.000001] x\n");
        }
        let forest = parse_trace_text(&text).expect("exactly at the depth limit");
        assert_eq!(forest.len(), MAX_TRACE_DEPTH + 1);
        assert_eq!(
            forest.nodes()[MAX_TRACE_DEPTH].depth as usize,
            MAX_TRACE_DEPTH
        );
        text.push_str(&" ".repeat(2 * (MAX_TRACE_DEPTH + 1)));
        text.push_str("[X] [0.000001] x");
        assert!(matches!(
            parse_trace_text(&text),
            Err(TraceTextError::TooDeep {
                limit: MAX_TRACE_DEPTH,
                ..
            })
        ));
    }

    #[test]
    fn node_limit_edge() {
        let mut text = String::with_capacity(MAX_TRACE_NODES * 10 + 10);
        for _ in 0..MAX_TRACE_NODES {
            text.push_str("[X] [0.1]\n");
        }
        let forest = parse_trace_text(&text).expect("exactly at the node limit");
        assert_eq!(forest.len(), MAX_TRACE_NODES);
        assert_eq!(forest.roots().count(), MAX_TRACE_NODES);
        assert_eq!(forest.nodes()[0].text, "");
        drop(forest);
        text.push_str("[X] [0.1]");
        assert_eq!(
            parse_trace_text(&text),
            Err(TraceTextError::TooManyNodes {
                limit: MAX_TRACE_NODES
            })
        );
    }

    #[test]
    fn infoview_empty_class_is_the_parents() {
        let forest =
            parse_trace_text("[Elab.step] [0.5] a\n  [] [0.2] b\n    [Meta] [0.1] c\n      [] d")
                .expect("parses");
        let classes: Vec<&str> = (0..forest.len()).map(|i| forest.class(i)).collect();
        assert_eq!(classes, ["Elab.step", "Elab.step", "Meta", "Meta"]);
        assert_eq!(forest.nodes()[3].line, 4);
        // a root has no parent to resolve against
        assert!(matches!(
            parse_trace_text("[] [0.1] x"),
            Err(TraceTextError::NotAHeader { line: 1, .. })
        ));
    }

    #[test]
    fn a_wrapped_declaration_name_joins_its_header() {
        let forest = parse_trace_text(
            "[Elab.async] [477266413.000000] ✅️ elaborating proof of\n  A.B.baseChange_bijective",
        )
        .expect("parses");
        assert_eq!(forest.len(), 1);
        assert_eq!(
            forest.nodes()[0].text,
            "✅️ elaborating proof of A.B.baseChange_bijective"
        );
        // `where` stays a line of its own
        let forest = parse_trace_text("[Elab.command] [0.1] def f := g\n  where").unwrap();
        assert_eq!(forest.nodes()[0].text, "def f := g\nwhere");
    }
}
