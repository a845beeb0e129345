//! A small, honest scanner for the top-level declarations of a Lean file.
//!
//! It finds commands that start at column 0 outside comments, and among
//! them declarations (`theorem`, `lemma`, `def`, `abbrev`, `instance`,
//! `structure`, `class`, `inductive`, `example`, `axiom`, `opaque`), with
//! their modifiers, attributes and doc comment. It tracks `namespace` and
//! `section` to give full names. A declaration's range runs from its first
//! token (doc comment or attribute included, as Lean's own command range
//! does) to the last non-blank character before the next command.
//!
//! Its limits: it does not expand macros or notation, so declarations made
//! by them are not found; a command must start at column 0 (Lean style);
//! anonymous instances and examples are named by their line; names are as
//! written (Lean's private-name mangling is not reproduced). Where Lean
//! reports a declaration's name (trace nodes), capture prefers Lean's.

use recording::{Declaration, SourceRange};

const DECLARATION_KEYWORDS: [&str; 11] = [
    "theorem",
    "lemma",
    "def",
    "abbrev",
    "instance",
    "structure",
    "class",
    "inductive",
    "example",
    "axiom",
    "opaque",
];

const MODIFIERS: [&str; 7] = [
    "private",
    "protected",
    "noncomputable",
    "partial",
    "unsafe",
    "nonrec",
    "scoped",
];

/// Words that start a non-declaration command at column 0.
const OTHER_COMMANDS: [&str; 24] = [
    "namespace",
    "section",
    "end",
    "open",
    "variable",
    "universe",
    "set_option",
    "import",
    "attribute",
    "macro",
    "macro_rules",
    "syntax",
    "notation",
    "infix",
    "infixl",
    "infixr",
    "prefix",
    "postfix",
    "elab",
    "elab_rules",
    "mutual",
    "deriving",
    "initialize",
    "export",
];

/// One line of source with what the scanner needs to know about it.
struct Line<'a> {
    text: &'a str,
    /// The line starts inside a block comment.
    starts_in_comment: bool,
    /// The line holds only whitespace and comments.
    blank: bool,
    /// UTF-16 length of the line without trailing whitespace and comments.
    code_end_utf16: u32,
}

fn scan_lines(source: &str) -> Vec<Line<'_>> {
    let mut depth = 0u32;
    let mut lines = Vec::new();
    for text in source.split('\n') {
        let text = text.strip_suffix('\r').unwrap_or(text);
        let starts_in_comment = depth > 0;
        let mut code_end_utf16 = 0u32;
        let mut col = 0u32;
        let mut chars = text.chars().peekable();
        let mut in_string = false;
        while let Some(c) = chars.next() {
            let width = c.len_utf16() as u32;
            if depth > 0 {
                if c == '-' && chars.peek() == Some(&'/') {
                    chars.next();
                    col += 1;
                    depth -= 1;
                } else if c == '/' && chars.peek() == Some(&'-') {
                    chars.next();
                    col += 1;
                    depth += 1;
                }
                col += width;
                continue;
            }
            if in_string {
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        col += n.len_utf16() as u32;
                    }
                } else if c == '"' {
                    in_string = false;
                }
                col += width;
                code_end_utf16 = col;
                continue;
            }
            match c {
                '-' if chars.peek() == Some(&'-') => break,
                '/' if chars.peek() == Some(&'-') => {
                    chars.next();
                    col += 1;
                    depth += 1;
                }
                '"' => {
                    in_string = true;
                    col += width;
                    code_end_utf16 = col;
                    continue;
                }
                c if c.is_whitespace() => {}
                _ => {
                    col += width;
                    code_end_utf16 = col;
                    continue;
                }
            }
            col += width;
        }
        lines.push(Line {
            text,
            starts_in_comment,
            // comments count as blank: a command's extent ends at its last code
            blank: code_end_utf16 == 0,
            code_end_utf16,
        });
    }
    lines
}

/// The first word of `s` (identifier characters, `#`, `@[`).
fn first_word(s: &str) -> &str {
    if s.starts_with("@[") {
        return "@[";
    }
    let end = s
        .char_indices()
        .find(|&(i, c)| !(c.is_alphanumeric() || c == '_' || (i == 0 && c == '#')))
        .map_or(s.len(), |(i, _)| i);
    &s[..end]
}

fn utf16_len(s: &str) -> u32 {
    s.encode_utf16().count() as u32
}

/// Skips attributes (`@[...]`, possibly spanning words) and modifiers at the
/// start of `rest`; returns the remaining text and its offset.
fn skip_modifiers(mut rest: &str) -> &str {
    loop {
        rest = rest.trim_start();
        if rest.starts_with("@[") {
            let mut depth = 0i32;
            let mut cut = rest.len();
            for (i, c) in rest.char_indices() {
                match c {
                    '[' => depth += 1,
                    ']' => {
                        depth -= 1;
                        if depth == 0 {
                            cut = i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            rest = &rest[cut..];
            continue;
        }
        let w = first_word(rest);
        if MODIFIERS.contains(&w) {
            rest = &rest[w.len()..];
            continue;
        }
        return rest;
    }
}

/// A name token: up to whitespace or a binder/colon.
fn name_token(s: &str) -> &str {
    let mut in_guillemets = false;
    let end = s
        .char_indices()
        .find(|&(_, c)| {
            if c == '«' {
                in_guillemets = true;
            } else if c == '»' {
                in_guillemets = false;
            }
            !in_guillemets && (c.is_whitespace() || "([{:⦃⟨".contains(c))
        })
        .map_or(s.len(), |(i, _)| i);
    &s[..end]
}

/// The top-level declarations of `source`, in order.
pub fn scan(source: &str) -> Vec<Declaration> {
    scan_commands(source).0
}

/// The extent of one top-level command in the source: from its first token (doc comment and
/// attributes included) to the last code before the next command (trailing blank lines and
/// comments left out). Lines are 0-based, the end column is UTF-16.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandExtent {
    pub start_line: u32,
    pub end_line: u32,
    pub end_col: u32,
}

/// The top-level declarations of `source` and the extents of all its top-level commands
/// (declarations and others), both in source order.
pub fn scan_commands(source: &str) -> (Vec<Declaration>, Vec<CommandExtent>) {
    let lines = scan_lines(source);
    let mut namespaces: Vec<(String, usize)> = Vec::new();
    let mut found = Vec::new();
    let mut commands = Vec::new();
    // The first line of a doc comment or attribute block waiting for its command.
    let mut pending_doc: Option<u32> = None;
    // The open command: its declaration (if it is one), its first line, its keyword's line.
    let mut current: Option<(Option<Declaration>, u32, u32)> = None;
    let finish = |cur: &mut Option<(Option<Declaration>, u32, u32)>,
                  next_start: usize,
                  found: &mut Vec<Declaration>,
                  commands: &mut Vec<CommandExtent>| {
        if let Some((d, first, start)) = cur.take() {
            // End at the last code before the next command.
            let mut end = next_start;
            while end > start as usize + 1 && lines[end - 1].blank {
                end -= 1;
            }
            let last = end.saturating_sub(1).max(start as usize);
            let extent = CommandExtent {
                start_line: first,
                end_line: last as u32,
                end_col: lines[last].code_end_utf16,
            };
            commands.push(extent);
            if let Some(mut d) = d {
                d.range.end_line = extent.end_line;
                d.range.end_col = extent.end_col;
                found.push(d);
            }
        }
    };
    // Line `n` (a doc comment, an attribute or modifier alone, a `set_option … in`) belongs to
    // the command after it: the open command ends before it (or before what is held already).
    let hold = |current: &mut Option<(Option<Declaration>, u32, u32)>,
                pending_doc: &mut Option<u32>,
                n: usize,
                found: &mut Vec<Declaration>,
                commands: &mut Vec<CommandExtent>| {
        finish(
            current,
            pending_doc.map_or(n, |d| d as usize),
            found,
            commands,
        );
        pending_doc.get_or_insert(n as u32);
    };
    for (n, line) in lines.iter().enumerate() {
        if line.starts_in_comment
            || line.text.is_empty()
            || line.text.starts_with(char::is_whitespace)
        {
            continue;
        }
        let t = line.text;
        if t.starts_with("/--") {
            hold(&mut current, &mut pending_doc, n, &mut found, &mut commands);
            continue;
        }
        if t.starts_with("--") || t.starts_with("/-") {
            continue;
        }
        // `set_option NAME VALUE in` before a command is part of it (Lean's command range
        // starts there), on a line of its own like a doc comment, or on the command's line.
        let t = match strip_set_option_in(t) {
            Some(rest) if rest.trim().is_empty() => {
                hold(&mut current, &mut pending_doc, n, &mut found, &mut commands);
                continue;
            }
            Some(rest) => {
                pending_doc.get_or_insert(n as u32);
                rest
            }
            None => t,
        };
        // Columns of `t` in the line (after a `set_option … in` on the same line).
        let prefix_col = utf16_len(&line.text[..line.text.len() - t.len()]);
        let word = first_word(t);
        let after = skip_modifiers(t);
        if (word == "@[" || MODIFIERS.contains(&word)) && after.trim().is_empty() {
            // `@[simp]` (or `private`) on a line of its own: it belongs to the command on a
            // following line, like a doc comment.
            hold(&mut current, &mut pending_doc, n, &mut found, &mut commands);
            continue;
        }
        let keyword = first_word(after);
        let is_decl = DECLARATION_KEYWORDS.contains(&keyword)
            && (word == "@[" || MODIFIERS.contains(&word) || word == keyword);
        let is_command = is_decl
            || OTHER_COMMANDS.contains(&word)
            || word.starts_with('#')
            || word == "@["
            || MODIFIERS.contains(&word);
        if !is_command {
            continue;
        }
        finish(
            &mut current,
            pending_doc.map_or(n, |d| d as usize),
            &mut found,
            &mut commands,
        );
        let start_line = pending_doc.take().unwrap_or(n as u32);
        match word {
            "namespace" => {
                let name = name_token(t["namespace".len()..].trim_start()).to_string();
                let parts = name.split('.').filter(|p| !p.is_empty()).count();
                namespaces.push((name, parts));
            }
            "section" => namespaces.push((String::new(), 0)),
            "end" => {
                namespaces.pop();
            }
            _ => {}
        }
        if !is_decl {
            current = Some((None, start_line, n as u32));
            continue;
        }
        let name_at = after[keyword.len()..].trim_start();
        let name_col = prefix_col + utf16_len(&t[..t.len() - name_at.len()]);
        let raw =
            if matches!(keyword, "example") || (keyword == "instance" && name_is_absent(name_at)) {
                ""
            } else {
                name_token(name_at)
            };
        let (name, selection) = if raw.is_empty() {
            let kw_col = prefix_col + utf16_len(&t[..t.len() - after.len()]);
            (
                format!("{keyword} (line {})", n + 1),
                SourceRange::new(n as u32, kw_col, n as u32, kw_col + utf16_len(keyword)),
            )
        } else {
            (
                full_name(&namespaces, raw),
                SourceRange::new(n as u32, name_col, n as u32, name_col + utf16_len(raw)),
            )
        };
        let kind = if keyword == "lemma" {
            "theorem"
        } else {
            keyword
        };
        current = Some((
            Some(Declaration {
                name,
                kind: kind.to_string(),
                range: SourceRange::new(start_line, 0, n as u32, 0),
                selection_range: selection,
                generated: false,
            }),
            start_line,
            n as u32,
        ));
    }
    finish(&mut current, lines.len(), &mut found, &mut commands);
    (found, commands)
}

/// What follows one or more `set_option NAME VALUE in` at the start of `t` (a suffix of `t`),
/// or `None` when `t` does not start with one.
fn strip_set_option_in(t: &str) -> Option<&str> {
    let mut rest = t;
    let mut stripped = false;
    while let Some(after) = rest.strip_prefix("set_option") {
        let mut words = after.split_whitespace();
        let (Some(_name), Some(_value), Some("in")) = (words.next(), words.next(), words.next())
        else {
            break;
        };
        // Skip the three words and the whitespace around them.
        let mut r = after;
        for _ in 0..3 {
            r = r.trim_start();
            r = &r[r.find(char::is_whitespace).unwrap_or(r.len())..];
        }
        rest = r.trim_start();
        stripped = true;
    }
    stripped.then_some(rest)
}

/// `instance : Foo` and `instance [..] : Foo` have no name; `instance foo :`
/// and `instance (priority := low) foo :` do.
fn name_is_absent(s: &str) -> bool {
    let s = if s.starts_with("(priority") {
        s.find(')').map_or("", |i| s[i + 1..].trim_start())
    } else {
        s
    };
    s.is_empty()
        || s.starts_with(':')
        || s.starts_with('[')
        || s.starts_with('{')
        || s.starts_with('(')
}

fn full_name(namespaces: &[(String, usize)], raw: &str) -> String {
    if let Some(root) = raw.strip_prefix("_root_.") {
        return root.to_string();
    }
    let mut parts: Vec<&str> = namespaces
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    parts.push(raw);
    parts.join(".")
}

/// The name a declaration has in the source: Lean names a private declaration `X` of module `M`
/// `_private.M.0.X`.
pub fn public_name(name: &str) -> &str {
    name.strip_prefix("_private.")
        .and_then(|rest| rest.split_once(".0.").map(|(_, x)| x))
        .unwrap_or(name)
}

/// The declaration a trace node names, if it names one: `Kernel` checks
/// (`typechecking declarations [X, …]`: the first), asynchronous proofs (`elaborating proof of
/// X`), and `Elab.definition.*` steps (tagged with the declaration's name).
pub fn declaration_named_by<'a>(
    class: &str,
    tag: Option<&'a str>,
    text: &'a str,
) -> Option<&'a str> {
    if class == "Kernel" {
        let names = text.strip_prefix("typechecking declarations [")?;
        let end = names.find([',', ']'])?;
        return Some(names[..end].trim()).filter(|n| !n.is_empty());
    }
    if let Some(name) = text.strip_prefix(ASYNC_PROOF_PREFIX) {
        return Some(name.trim()).filter(|n| !n.is_empty());
    }
    if class.starts_with("Elab.definition") {
        return tag;
    }
    None
}

/// Lean's node for asynchronous proof elaboration: `elaborating proof of NAME`.
pub const ASYNC_PROOF_PREFIX: &str = "elaborating proof of ";

#[cfg(test)]
mod tests {
    use super::*;

    type Brief = (String, String, (u32, u32, u32, u32), (u32, u32));

    fn brief(src: &str) -> Vec<Brief> {
        scan(src)
            .into_iter()
            .map(|d| {
                let r = d.range;
                let s = d.selection_range;
                (
                    d.name,
                    d.kind,
                    (r.start_line, r.start_col, r.end_line, r.end_col),
                    (s.start_col, s.end_col),
                )
            })
            .collect()
    }

    #[test]
    fn finds_declarations_with_namespaces_and_ranges() {
        let src = "/-! module doc -/\n\nnamespace Demo.Clean\n\ndef double (n : Nat) : Nat := n + n\n\ntheorem double_add (m n : Nat) : double (m + n) = double m + double n := by\n  unfold double\n  omega\n\nend Demo.Clean\n";
        assert_eq!(
            brief(src),
            vec![
                (
                    "Demo.Clean.double".into(),
                    "def".into(),
                    (4, 0, 4, 35),
                    (4, 10)
                ),
                (
                    "Demo.Clean.double_add".into(),
                    "theorem".into(),
                    (6, 0, 8, 7),
                    (8, 18)
                ),
            ]
        );
    }

    #[test]
    fn doc_comments_attributes_and_modifiers_belong_to_the_declaration() {
        let src = "/-- Doc\n  more -/\n@[simp] private theorem foo : True := trivial\n\nnoncomputable def bar := 1 -- trailing\n";
        assert_eq!(
            brief(src),
            vec![
                ("foo".into(), "theorem".into(), (0, 0, 2, 45), (24, 27)),
                ("bar".into(), "def".into(), (4, 0, 4, 26), (18, 21)),
            ]
        );
    }

    #[test]
    fn anonymous_instances_examples_and_comments() {
        let src = "/- theorem hidden : True := trivial\n-/\ninstance : Inhabited Nat := ⟨0⟩\nexample : 1 = 1 := rfl\ninstance instFoo : Inhabited Bool := ⟨true⟩\n-- def commented := 1\nsection\ntheorem _root_.top : True := trivial\nend\n";
        let names: Vec<_> = scan(src).into_iter().map(|d| (d.name, d.kind)).collect();
        assert_eq!(
            names,
            vec![
                ("instance (line 3)".into(), "instance".into()),
                ("example (line 4)".into(), "example".into()),
                ("instFoo".into(), "instance".into()),
                ("top".into(), "theorem".into()),
            ]
        );
    }

    #[test]
    fn columns_are_utf16() {
        // 𝔽 is one codepoint, two UTF-16 units.
        let src = "theorem «𝔽x» : True := trivial\n";
        let d = &scan(src)[0];
        assert_eq!(d.name, "«𝔽x»");
        assert_eq!(
            (d.selection_range.start_col, d.selection_range.end_col),
            (8, 13)
        );
        assert_eq!(d.range.end_col, 31);
    }

    #[test]
    fn an_attribute_on_its_own_line_belongs_to_the_declaration_after_it() {
        let src = "/-- Doc -/\n@[simp]\ntheorem foo : True := trivial\n\n@[simp]\nprivate\ndef bar := 1\n";
        assert_eq!(
            brief(src),
            vec![
                ("foo".into(), "theorem".into(), (0, 0, 2, 29), (8, 11)),
                ("bar".into(), "def".into(), (4, 0, 6, 12), (4, 7)),
            ]
        );
    }

    #[test]
    fn set_option_in_belongs_to_the_declaration_after_it() {
        let src = "set_option maxHeartbeats 400000 in\n/-- doc -/\n@[simp] theorem a : True := trivial\n\nset_option maxHeartbeats 1 in set_option pp.all true in theorem b : True := trivial\nset_option maxHeartbeats 5\ntheorem c : True := trivial\n";
        let d = scan(src);
        let got: Vec<_> = d
            .iter()
            .map(|d| {
                (
                    d.name.as_str(),
                    d.range.start_line,
                    d.range.end_line,
                    d.selection_range.start_col,
                )
            })
            .collect();
        assert_eq!(got, [("a", 0, 2, 16), ("b", 4, 4, 64), ("c", 6, 6, 8)]);
    }

    #[test]
    fn every_command_has_an_extent() {
        let src =
            "import Demo\nopen Nat in\ntheorem a : True := trivial -- c\n\n/- block -/\n#check a\n";
        let (_, commands) = scan_commands(src);
        let extents: Vec<_> = commands
            .iter()
            .map(|c| (c.start_line, c.end_line, c.end_col))
            .collect();
        assert_eq!(extents, vec![(0, 0, 11), (1, 1, 11), (2, 2, 27), (5, 5, 8)]);
    }

    #[test]
    fn names_lean_gives_declarations() {
        assert_eq!(
            public_name("_private.Demo.Shapes.0.Demo.Shapes.secret"),
            "Demo.Shapes.secret"
        );
        assert_eq!(public_name("Demo.Shapes.open"), "Demo.Shapes.open");
        assert_eq!(
            declaration_named_by("Kernel", None, "typechecking declarations [Demo.a, Demo.b]"),
            Some("Demo.a")
        );
        assert_eq!(
            declaration_named_by("Kernel", None, "typechecking declaration"),
            None
        );
        assert_eq!(
            declaration_named_by("Elab.async", None, "elaborating proof of Demo.x"),
            Some("Demo.x")
        );
        assert_eq!(
            declaration_named_by("Elab.definition.header", Some("Demo.y"), ""),
            Some("Demo.y")
        );
        assert_eq!(
            declaration_named_by("Elab.step", Some("Lean.Parser.Tactic.simp"), "simp"),
            None
        );
    }
}
