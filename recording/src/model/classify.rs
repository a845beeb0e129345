//! What kind of step an event is, from Lean's trace class and text.
//!
//! Lean's elaborator opens an `Elab.step` trace node for every tactic it
//! runs (labelled with the tactic's syntax), and also for every term
//! (labelled `expected type: …, term …`) and for commands. Commands are the
//! roots (or `Elab.command` nodes); a step spanning exactly its command is
//! the command's own step, not a tactic.

use super::Recording;

/// The trace class Lean uses for tactic and term elaboration steps.
pub const TACTIC_CLASS: &str = "Elab.step";

/// The text Lean puts in front of a term elaboration step.
const TERM_STEP_PREFIX: &str = "expected type:";

/// The class of a command's elaboration node.
const COMMAND_CLASS: &str = "Elab.command";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Command,
    Tactic,
    Term,
    Other,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Command => "command",
            EventKind::Tactic => "tactic",
            EventKind::Term => "term",
            EventKind::Other => "other",
        }
    }
}

/// Classifies event `i`.
pub fn kind_of(rec: &Recording, i: u32) -> EventKind {
    let class = rec.class(i);
    let parent = rec.parent(i);
    if parent.is_none() || class == COMMAND_CLASS {
        return EventKind::Command;
    }
    if class != TACTIC_CLASS {
        return EventKind::Other;
    }
    if rec.label(i).starts_with(TERM_STEP_PREFIX) {
        return EventKind::Term;
    }
    // The step that elaborates a command's own syntax spans the command.
    match parent {
        Some(p) if rec.class(p) == COMMAND_CLASS && rec.range(p) == rec.range(i) => {
            EventKind::Command
        }
        _ => EventKind::Tactic,
    }
}

/// True when event `i` is a tactic step.
pub fn is_tactic(rec: &Recording, i: u32) -> bool {
    kind_of(rec, i) == EventKind::Tactic
}
