//! What a copy of VS Code's infoview adds to Lean's text (vscode-lean4's
//! `lean4-infoview/src/infoview/traceExplorer.tsx`, `info.tsx` and `messages.tsx`; see
//! fixtures/README.md, "Shared text"):
//!
//! - a fold marker after a trace node that has children: ` ▶` (folded) or ` ▼` (open), at the
//!   end of the node's last line of text;
//! - a child's class shortened relative to its parent's (`abbreviateCommonPrefix`: the longest
//!   common prefix of dot-separated components is dropped, so `Elab.definition.value` under
//!   `Elab.async` shows as `[definition.value]`, and a child of its parent's class as `[]`);
//!   [`super::trace_text`] resolves `[]` to the parent's class, the only case the shown text
//!   determines; a shortened non-empty class is kept as printed;
//! - the panel's headers: `Messages (N)`, `All Messages (N)`, and a message's position
//!   `FILE:LINE:COLUMN` on a line of its own (read by [`super::prefixes::message_head`]).

/// The fold markers the infoview draws after a node with children.
const FOLD_MARKERS: [&str; 2] = [" ▶", " ▼"];

/// `line` without a trailing fold marker (and anything after it the copy kept: the `⋯` shown
/// while children load, trailing spaces).
pub fn strip_fold_marker(line: &str) -> &str {
    let trimmed = line.trim_end_matches([' ', '⋯']);
    for m in FOLD_MARKERS {
        if let Some(rest) = trimmed.strip_suffix(m) {
            return rest;
        }
    }
    // a marker alone on the line (a node whose text was empty)
    if trimmed.trim_start() == "▶" || trimmed.trim_start() == "▼" {
        return "";
    }
    line
}

/// `Messages (N)` or `All Messages (N)`: the infoview's panel headers.
pub fn is_panel_header(line: &str) -> bool {
    let line = line.trim();
    let Some(rest) = line
        .strip_prefix("All Messages (")
        .or_else(|| line.strip_prefix("Messages ("))
    else {
        return false;
    };
    rest.strip_suffix(')')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        assert_eq!(
            strip_fold_marker("[Elab.async] [0.044870] Lean.addDecl ▼"),
            "[Elab.async] [0.044870] Lean.addDecl"
        );
        assert_eq!(strip_fold_marker("      sorry ▶"), "      sorry");
        assert_eq!(strip_fold_marker("[A] [0.1] x ▶ ⋯"), "[A] [0.1] x");
        assert_eq!(strip_fold_marker("a ▶ b"), "a ▶ b");
        assert_eq!(strip_fold_marker("no marker "), "no marker ");
    }

    #[test]
    fn panel_headers() {
        assert!(is_panel_header("Messages (2)"));
        assert!(is_panel_header("All Messages (37)"));
        assert!(!is_panel_header("Messages (two)"));
        assert!(!is_panel_header("Messages ()"));
        assert!(!is_panel_header("My Messages (2)"));
    }
}
