//! The status emoji Lean puts in front of a trace node's text (`✅️`, `❌️`, `💥️`), and where it
//! puts them per release (fixtures/README.md, "Versions of Lean's output").
//!
//! `Meta.*` nodes carry one on every release (`withTraceNodeBefore`); from 4.30 (lean4#12698)
//! every `withTraceNode` header does too, in profile names (4.30–4.31) and in trace text (4.30
//! and later, lean4#13072 moved it to the renderer). Older releases wrote the emoji without
//! U+FE0F. Capture reads a node the same way on every release: the emoji of a node whose class
//! gained it in 4.30 is dropped from its text; a `Meta.*` node keeps its own, which says whether
//! the check succeeded.

pub use recording::status_emoji::strip;

/// Does this class keep its status emoji in leanscope's labels (it has one on every release)?
pub fn class_keeps_status(class: &str) -> bool {
    class == "Meta" || class.starts_with("Meta.")
}

/// A node's text as capture reads it: the status emoji of a class that gained it in 4.30
/// removed, so that every release yields the same text.
pub fn normalized<'a>(class: &str, text: &'a str) -> &'a str {
    if class_keeps_status(class) {
        text
    } else {
        strip(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_nodes_keep_theirs() {
        assert_eq!(
            normalized("Meta.synthInstance", "✅️ Decidable p"),
            "✅️ Decidable p"
        );
        assert_eq!(normalized("Elab.command", "✅️ def x := 1"), "def x := 1");
        assert_eq!(
            normalized("Kernel", "✅️ typechecking declarations [x]"),
            "typechecking declarations [x]"
        );
    }
}
