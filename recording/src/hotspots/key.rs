//! Hot-spot keys: what kind of work an event is, so that the same work merges.
//!
//! A key is an event's trace class and its label *normalised*. The rules, in order (each
//! with an example in the tests below and in `docs/hot-spots.md`):
//!
//! 1. The status emoji Lean puts in front of a node (`✅️`, `❌️`, `💥️`) is dropped: a
//!    success and a failure of the same check are the same work.
//!    `✅️ Decidable (b = true)` → `Decidable (b = true)`.
//! 2. Whitespace runs fold to one space, and hygiene marks go: `And.intro✝` → `And.intro`.
//! 3. Numbers that differ between runs of the same work go: metavariables and universe
//!    variables (`?m.123` → `?m`, `?u.7` → `?u`), hygienic and unique names (`_hyg.12` →
//!    `_hyg`, `_uniq.3` → `_uniq`), and auxiliary definitions (`foo._proof_23` →
//!    `foo._proof_*`, `_lambda_4`, `match_5`, `_eq_2`, `_private.…`).
//! 4. By class:
//!    - `Elab.step`: a tactic by its name, the first token of its syntax
//!      (`simp only [List.length_append]` → `simp`; `t1 <;> t2` → `<;>`); a term step
//!      (`expected type: T, term\nfoo x`) → `term` and the term's first token (`term foo`);
//!      a command's own step by its keyword (see `Elab.command`).
//!    - `Elab.command`: the command's keyword, after doc comments, attributes and
//!      modifiers (`@[simp] private theorem foo …` → `theorem`).
//!    - Other `Elab.*` classes name the declaration they work on; the name goes, so the
//!      work of every declaration merges: `Elab.definition.value [Demo.double]` →
//!      `Elab.definition.value`, `elaborating proof of Demo.double` → `elaborating proof of …`.
//!    - Everything else (`Meta.*` goals and unifications, `Kernel` checks by what they
//!      check, imported frame names) keeps its text, after rules 1–3.
//! 5. A key longer than [`MAX_KEY_CHARS`](crate::limits::MAX_KEY_CHARS) characters is cut
//!    there and ends in `…`.
//!
//! The raw label is never lost: every occurrence is an event of the recording, whose
//! label is kept whole.

use crate::limits::MAX_KEY_CHARS;
use crate::status_emoji;

/// What kind of work a key is: its trace class and its normalised text (empty when the
/// class alone says it).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub class: String,
    pub name: String,
}

impl Key {
    pub fn new(class: impl Into<String>, name: impl Into<String>) -> Key {
        Key {
            class: class.into(),
            name: name.into(),
        }
    }

    /// The key of an event of class `class` labelled `label`.
    pub fn of(class: &str, label: &str) -> Key {
        Key::new(cut(class), normalise(class, label))
    }

    /// The bucket that holds the keys past a limit.
    pub fn other() -> Key {
        Key::new(OTHER_CLASS, "")
    }

    pub fn is_other(&self) -> bool {
        self.class == OTHER_CLASS && self.name.is_empty()
    }

    /// `class name`, or the class alone (or the name alone, without a class): what people
    /// read.
    pub fn label(&self) -> String {
        if self.name.is_empty() {
            self.class.clone()
        } else if self.class.is_empty() {
            // An imported frame without a category.
            self.name.clone()
        } else {
            format!("{} {}", self.class, self.name)
        }
    }
}

/// The class of the bucket past a limit (no trace class has spaces or brackets).
pub const OTHER_CLASS: &str = "(other)";

/// The trace class of Lean's tactic, term and command steps.
const STEP_CLASS: &str = "Elab.step";
/// The trace class of a command's elaboration.
const COMMAND_CLASS: &str = "Elab.command";
/// What Lean writes in front of a term step.
const TERM_PREFIX: &str = "expected type:";

/// The normalised text of an event of class `class` labelled `label` (rules 1–5).
pub fn normalise(class: &str, label: &str) -> String {
    let text = general(status_emoji::strip(label.trim_start()));
    let text = match class {
        STEP_CLASS => step_name(&text),
        COMMAND_CLASS => match command_keyword(&text) {
            "" => first_token(&text).to_owned(),
            keyword => keyword.to_owned(),
        },
        c if c.starts_with("Elab.") => without_declaration(&text),
        _ => text,
    };
    cut(&text)
}

/// Rules 2 and 3: whitespace folded, hygiene marks and run-specific numbers dropped.
fn general(label: &str) -> String {
    let mut out = String::with_capacity(label.len().min(4 * MAX_KEY_CHARS));
    let mut chars = label.chars().peekable();
    let mut space = false;
    while let Some(c) = chars.next() {
        // Enough for a cut key: the rest cannot change what is kept.
        if out.len() > 4 * MAX_KEY_CHARS {
            break;
        }
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        match c {
            // `x✝`, `x✝¹`: an inaccessible name's mark and its superscript.
            '✝' => {
                while chars.peek().is_some_and(|d| SUPERSCRIPTS.contains(*d)) {
                    chars.next();
                }
            }
            '.' | '_'
                if chars.peek().is_some_and(char::is_ascii_digit) && after_numbered(&out, c) =>
            {
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                }
                if c == '_' {
                    out.push_str("_*");
                }
            }
            _ => out.push(c),
        }
    }
    out
}

const SUPERSCRIPTS: &str = "⁰¹²³⁴⁵⁶⁷⁸⁹";

/// Does `out`, about to get `c` and then digits, end in a name whose number differs
/// between runs? `?m` `?u` `_hyg` `_uniq` take `.N` (dropped); `_proof` `_lambda`
/// `match` `_eq` `_private` … take `_N` (made `_*`).
fn after_numbered(out: &str, c: char) -> bool {
    let word_start = out
        .rfind(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '?' || ch == '\''))
        .map_or(0, |i| i + out[i..].chars().next().map_or(1, char::len_utf8));
    let word = &out[word_start..];
    match c {
        '.' => {
            (word.starts_with('?') && word.len() > 1)
                || matches!(word, "_hyg" | "_uniq" | "_private")
        }
        _ => {
            [
                "_proof", "_lambda", "match", "_eq", "_cstage", "_spec", "_closed", "_aux",
            ]
            .iter()
            .any(|w| word == *w || word.ends_with(&format!(".{w}")))
                || word == "eq"
        }
    }
}

/// Rule 4 for `Elab.step`: a tactic's name, `term` and a term's first token, or a
/// command's keyword.
fn step_name(text: &str) -> String {
    if let Some(rest) = text.strip_prefix(TERM_PREFIX) {
        // `expected type: T, term S`: T may hold commas, S follows the last `, term `.
        return match rest.rfind(", term") {
            Some(i) => {
                let term = rest[i + ", term".len()..].trim_start();
                match first_token(term) {
                    "" => "term".to_owned(),
                    t => format!("term {t}"),
                }
            }
            None => "term".to_owned(),
        };
    }
    if top_level_contains(text, "<;>") {
        return "<;>".to_owned();
    }
    let head = command_keyword(text);
    if head.is_empty() {
        first_token(text).to_owned()
    } else {
        head.to_owned()
    }
}

/// The first token of some syntax: an identifier-like run, or one symbol character run
/// (`·`, `(`, `<;>`).
fn first_token(text: &str) -> &str {
    let text = text.trim_start();
    // `#eval`, `#check`: a command keyword starts with `#`.
    let end = text
        .char_indices()
        .find(|&(i, c)| !(is_name_char(c) || (i == 0 && c == '#')))
        .map_or(text.len(), |(i, _)| i);
    if end > 0 {
        return &text[..end];
    }
    // A symbol: up to the next space or name character.
    let end = text
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c.is_whitespace() || is_name_char(c) || "([{⟨".contains(c))
        .map_or(text.len(), |(i, _)| i);
    &text[..end]
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '\'' | '!' | '?' | '✝')
}

/// Does `needle` occur in `text` outside brackets?
fn top_level_contains(text: &str, needle: &str) -> bool {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' | '⟨' => depth += 1,
            ')' | ']' | '}' | '⟩' => depth -= 1,
            _ if depth <= 0 && text[i..].starts_with(needle) => return true,
            _ => {}
        }
    }
    false
}

/// Modifiers that may stand before a command's keyword.
const MODIFIERS: [&str; 10] = [
    "private",
    "protected",
    "public",
    "noncomputable",
    "partial",
    "unsafe",
    "nonrec",
    "scoped",
    "local",
    "meta",
];

/// Keywords a command's syntax starts with, after its modifiers.
const COMMANDS: [&str; 28] = [
    "theorem",
    "lemma",
    "def",
    "abbrev",
    "instance",
    "example",
    "structure",
    "class",
    "inductive",
    "opaque",
    "axiom",
    "namespace",
    "section",
    "end",
    "open",
    "variable",
    "universe",
    "set_option",
    "attribute",
    "macro",
    "macro_rules",
    "syntax",
    "elab",
    "notation",
    "infixl",
    "infixr",
    "deriving",
    "#eval",
];

/// A command's keyword after its doc comment, attributes and modifiers; "" when the text
/// does not start with a known command (or the first token, for `Elab.command`, below).
fn command_keyword(text: &str) -> &str {
    let mut rest = text.trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("/--") {
            rest = r.find("-/").map_or("", |i| &r[i + 2..]).trim_start();
        } else if let Some(r) = rest.strip_prefix("@[") {
            rest = skip_bracketed(r).trim_start();
        } else {
            let t = first_token(rest);
            if MODIFIERS.contains(&t) {
                rest = rest[t.len()..].trim_start();
            } else if COMMANDS.contains(&t) {
                return t;
            } else {
                return "";
            }
        }
    }
}

/// `text` after the `]` that closes a bracket already opened.
fn skip_bracketed(text: &str) -> &str {
    let mut depth = 1;
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return &text[i + 1..];
                }
            }
            _ => {}
        }
    }
    ""
}

/// Rule 4 for `Elab.*` classes other than steps and commands: a label that is one name
/// (the declaration worked on) goes; `… of NAME` becomes `… of …`.
fn without_declaration(text: &str) -> String {
    let is_name = |s: &str| !s.is_empty() && s.chars().all(is_name_char);
    if is_name(text) {
        return String::new();
    }
    match text.rsplit_once(" of ") {
        Some((head, name)) if is_name(name) => format!("{head} of …"),
        _ => text.to_owned(),
    }
}

/// At most [`MAX_KEY_CHARS`] characters, ending in `…` when cut.
fn cut(text: &str) -> String {
    crate::text::cap_chars(text, MAX_KEY_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(class: &str, label: &str) -> String {
        Key::of(class, label).name
    }

    #[test]
    fn status_emoji_and_whitespace_go() {
        assert_eq!(
            k("Meta.synthInstance", "✅️ Decidable (b = true)"),
            "Decidable (b = true)"
        );
        assert_eq!(
            k("Meta.synthInstance", "❌ Decidable  (b =\n true)"),
            "Decidable (b = true)"
        );
        assert_eq!(
            k("Meta.isDefEq", "💥️ ?m.123 =?= ?u.7 + x✝¹"),
            "?m =?= ?u + x"
        );
    }

    #[test]
    fn run_specific_numbers_go() {
        assert_eq!(
            k(
                "Kernel",
                "typechecking declarations [Rat.FiniteAdeleRing.padicEquiv._proof_23]"
            ),
            "typechecking declarations [Rat.FiniteAdeleRing.padicEquiv._proof_*]"
        );
        assert_eq!(
            k("Kernel", "typechecking declarations [Foo.bar]"),
            "typechecking declarations [Foo.bar]"
        );
        assert_eq!(
            k("Meta.isDefEq", "x._hyg.12 =?= _uniq.3"),
            "x._hyg =?= _uniq"
        );
        assert_eq!(
            k("Compiler", "Foo.match_5 and Foo._lambda_4"),
            "Foo.match_* and Foo._lambda_*"
        );
        assert_eq!(
            k("Meta.isDefEq", "List.length_append 3.5"),
            "List.length_append 3.5"
        );
        assert_eq!(
            k("Meta.isDefEq", "x.12"),
            "x.12",
            "a field projection keeps its number"
        );
    }

    #[test]
    fn tactics_by_name() {
        assert_eq!(k("Elab.step", "simp only [List.length_append]"), "simp");
        assert_eq!(k("Elab.step", "omega"), "omega");
        assert_eq!(k("Elab.step", "exact Nat.le_refl 0"), "exact");
        assert_eq!(k("Elab.step", "(apply And.intro✝) <;> trivial"), "<;>");
        assert_eq!(k("Elab.step", "· simp"), "·");
        assert_eq!(k("Elab.step", "simp_all?"), "simp_all?");
        assert_eq!(k("Elab.step", "rw [foo] at h"), "rw");
        assert_eq!(k("Elab.step", "\n  have foo := bar a\n  sorry"), "have");
    }

    #[test]
    fn terms_and_commands() {
        assert_eq!(
            k("Elab.step", "expected type: n + k = k + n, term\nby omega"),
            "term by"
        );
        assert_eq!(
            k("Elab.step", "expected type: Nat × Nat, term\n(1, 2)"),
            "term ("
        );
        assert_eq!(
            k("Elab.step", "expected type: <not-available>, term"),
            "term"
        );
        assert_eq!(k("Elab.step", "theorem foo : 1 = 1 := rfl"), "theorem");
        assert_eq!(
            k(
                "Elab.command",
                "@[simp] private theorem foo : True := trivial"
            ),
            "theorem"
        );
        assert_eq!(
            k("Elab.command", "/-- doc -/\nnoncomputable def x := 1"),
            "def"
        );
        assert_eq!(
            k("Elab.command", "#check foo"),
            "#check",
            "an unknown command: its first token"
        );
    }

    #[test]
    fn declaration_names_of_elab_classes_go() {
        assert_eq!(k("Elab.definition.value", "Demo.Clean.double"), "");
        assert_eq!(
            k("Elab.async", "elaborating proof of Demo.Clean.double_add"),
            "elaborating proof of …"
        );
        assert_eq!(k("Elab.async", "Lean.addDecl"), "");
        assert_eq!(
            k("Elab.structure", "building the structure"),
            "building the structure"
        );
        assert_eq!(
            Key::of("Elab.definition.value", "Demo.x").label(),
            "Elab.definition.value"
        );
        assert_eq!(
            Key::of("Meta.synthInstance", "✅️ Inhabited Nat").label(),
            "Meta.synthInstance Inhabited Nat"
        );
    }

    #[test]
    fn huge_labels_are_cut_at_the_limit() {
        let label = "x ".repeat(100_000);
        let name = k("Meta.isDefEq", &label);
        assert_eq!(name.chars().count(), MAX_KEY_CHARS);
        assert!(name.ends_with('…'));
        assert_eq!(
            k("Meta.isDefEq", &"y".repeat(MAX_KEY_CHARS))
                .chars()
                .count(),
            MAX_KEY_CHARS
        );
    }
}
