//! Where a Lean source sets `maxHeartbeats` and `synthInstance.maxHeartbeats`, with Lean's
//! scoping: a command-level `set_option NAME N` lasts until the end of the current `section` or
//! `namespace` (or the file); `set_option NAME N in CMD` applies to `CMD` only (and chains:
//! `set_option A 1 in set_option B 2 in theorem …`).
//!
//! The scan is lexical, like the declaration scan of a capture: commands start at column 0
//! (Lean style), comments (nested `/- -/`, `--`, doc comments) and string and character
//! literals are skipped, so text that only looks like `set_option` is not read as one. A
//! `set_option` inside a proof (a tactic, indented) is not a command and is not read: it does
//! not change the limit of the command around it (`Core.Context.maxHeartbeats` is fixed when
//! the command starts).

use super::limits::Setting;

/// The two options headroom reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LimitOption {
    /// `maxHeartbeats`: per command, in thousands.
    MaxHeartbeats,
    /// `synthInstance.maxHeartbeats`: per instance search, in thousands.
    SynthInstance,
}

impl LimitOption {
    /// The option's name as a source writes it.
    pub fn name(self) -> &'static str {
        match self {
            LimitOption::MaxHeartbeats => "maxHeartbeats",
            LimitOption::SynthInstance => "synthInstance.maxHeartbeats",
        }
    }

    fn of_name(name: &str) -> Option<LimitOption> {
        [LimitOption::MaxHeartbeats, LimitOption::SynthInstance]
            .into_iter()
            .find(|o| o.name() == name)
    }
}

/// A position in the source: 0-based line, UTF-16 column (as recordings' ranges count).
pub type Position = (u32, u32);

/// A `set_option NAME N in` attached to the command at `target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InOption {
    pub option: LimitOption,
    pub setting: Setting,
    /// Where the command it applies to starts (its first token after the chain).
    pub target: Position,
}

/// What a source sets: the command-level settings in force by position, and the `in` forms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceOptions {
    /// Command-level changes in source order.
    changes: Vec<(Position, Change)>,
    /// `in` forms in source order.
    pub in_options: Vec<InOption>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Change {
    Set(LimitOption, Setting),
    /// `section`/`namespace`: opens this many scopes (one per component of a dotted name).
    Open(usize),
    /// `end`: closes this many scopes.
    Close(usize),
}

/// The command-level settings in force in one scope.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Scope {
    max_heartbeats: Option<Setting>,
    synth_instance: Option<Setting>,
}

impl Scope {
    fn get(&self, o: LimitOption) -> Option<Setting> {
        match o {
            LimitOption::MaxHeartbeats => self.max_heartbeats,
            LimitOption::SynthInstance => self.synth_instance,
        }
    }
    fn set(&mut self, o: LimitOption, s: Setting) {
        match o {
            LimitOption::MaxHeartbeats => self.max_heartbeats = Some(s),
            LimitOption::SynthInstance => self.synth_instance = Some(s),
        }
    }
}

impl SourceOptions {
    /// Scans `source`.
    pub fn scan(source: &str) -> SourceOptions {
        let tokens = tokens(source);
        let mut out = SourceOptions::default();
        let mut i = 0;
        while i < tokens.len() {
            let t = &tokens[i];
            if t.at.1 != 0 {
                i += 1;
                continue;
            }
            match t.text {
                "set_option" => i = out.set_option(&tokens, i),
                "section" | "namespace" => {
                    out.changes
                        .push((t.at, Change::Open(name_parts(&tokens, i + 1))));
                    i += 1;
                }
                "noncomputable" | "public" if next_is(&tokens, i, "section") => {
                    out.changes
                        .push((t.at, Change::Open(name_parts(&tokens, i + 2))));
                    i += 2;
                }
                "mutual" => {
                    out.changes.push((t.at, Change::Open(1)));
                    i += 1;
                }
                "end" => {
                    out.changes
                        .push((t.at, Change::Close(name_parts(&tokens, i + 1))));
                    i += 1;
                }
                _ => i += 1,
            }
        }
        out
    }

    /// Reads the `set_option` at `i` (and the chain of `in` forms after it); returns the index
    /// of the token after what it read.
    fn set_option(&mut self, tokens: &[Token], mut i: usize) -> usize {
        let mut chained = Vec::new();
        loop {
            let at = tokens[i].at;
            let (Some(name), Some(value)) = (tokens.get(i + 1), tokens.get(i + 2)) else {
                return tokens.len();
            };
            let option = LimitOption::of_name(name.text);
            let setting = value.text.parse::<u64>().ok().map(|v| Setting {
                value: v,
                line: at.0 + 1,
            });
            let is_in = next_is(tokens, i + 2, "in");
            let read = match (option, setting) {
                (Some(o), Some(s)) => Some((o, s)),
                _ => None,
            };
            if !is_in {
                if let Some((o, s)) = read {
                    if chained.is_empty() {
                        self.changes.push((at, Change::Set(o, s)));
                    }
                }
                // A chain that ends in a command-level set_option: the `in` forms apply to it,
                // which is no declaration; nothing to attach.
                return i + 3;
            }
            chained.extend(read);
            i += 4;
            match tokens.get(i) {
                Some(t) if t.text == "set_option" => continue,
                Some(t) => {
                    for (option, setting) in chained {
                        self.in_options.push(InOption {
                            option,
                            setting,
                            target: t.at,
                        });
                    }
                    return i;
                }
                None => return i,
            }
        }
    }

    /// The command-level setting of `option` in force at `at` (its latest `set_option` in the
    /// scopes still open there), or `None` when the source sets none.
    pub fn in_force(&self, option: LimitOption, at: Position) -> Option<Setting> {
        let mut stack = vec![Scope::default()];
        for (pos, change) in &self.changes {
            if *pos >= at {
                break;
            }
            match change {
                Change::Set(o, s) => {
                    if let Some(top) = stack.last_mut() {
                        top.set(*o, *s);
                    }
                }
                Change::Open(n) => {
                    let top = stack.last().copied().unwrap_or_default();
                    stack.extend(std::iter::repeat_n(top, *n));
                }
                Change::Close(n) => {
                    // The file's own scope is never closed (Lean reports a stray `end`).
                    let keep = stack.len().saturating_sub(*n).max(1);
                    stack.truncate(keep);
                }
            }
        }
        stack.last().and_then(|s| s.get(option))
    }

    /// The innermost `set_option option N in` attached to a command starting inside `within`
    /// (a declaration's range: from its first token, a doc comment or attribute, or the
    /// `set_option … in` before it, to its end).
    pub fn attached(&self, option: LimitOption, within: (Position, Position)) -> Option<Setting> {
        self.in_options
            .iter()
            .filter(|o| o.option == option && within.0 <= o.target && o.target <= within.1)
            .map(|o| o.setting)
            .next_back()
    }
}

fn next_is(tokens: &[Token], i: usize, text: &str) -> bool {
    tokens.get(i + 1).is_some_and(|t| t.text == text)
}

/// How many scopes the name at `i` opens or closes: one per component of a dotted name on the
/// same line, one without a name.
fn name_parts(tokens: &[Token], i: usize) -> usize {
    match tokens.get(i) {
        Some(t) if t.at.1 != 0 && t.is_ident && i > 0 && tokens[i - 1].at.0 == t.at.0 => {
            split_name(t.text).max(1)
        }
        _ => 1,
    }
}

/// Components of a dotted name, `«»` quoting respected.
fn split_name(name: &str) -> usize {
    let mut quoted = false;
    let mut parts = 1;
    for c in name.chars() {
        match c {
            '«' => quoted = true,
            '»' => quoted = false,
            '.' if !quoted => parts += 1,
            _ => {}
        }
    }
    parts
}

/// One token of the source: an identifier (dotted), a number, or one other character.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token<'a> {
    text: &'a str,
    at: Position,
    is_ident: bool,
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '«'
}

fn is_ident_rest(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\'' || c == '!' || c == '?'
}

/// The tokens of `source` outside comments and literals.
fn tokens(source: &str) -> Vec<Token<'_>> {
    let mut lx = Lexer {
        src: source,
        pos: 0,
        line: 0,
        col: 0,
    };
    let mut out = Vec::new();
    while let Some(c) = lx.peek() {
        let start = lx.pos;
        let at = (lx.line, lx.col);
        if c.is_whitespace() {
            lx.bump();
        } else if lx.rest().starts_with("--") {
            while lx.peek().is_some_and(|c| c != '\n') {
                lx.bump();
            }
        } else if lx.rest().starts_with("/-") {
            lx.block_comment();
        } else if c == '"' {
            lx.string();
        } else if c == 'r' && (lx.rest().starts_with("r\"") || lx.rest().starts_with("r#")) {
            lx.raw_string();
        } else if c == '\'' && lx.char_literal() {
        } else if is_ident_start(c) {
            lx.ident();
            out.push(Token {
                text: &source[start..lx.pos],
                at,
                is_ident: true,
            });
        } else if c.is_ascii_digit() {
            while lx.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                lx.bump();
            }
            out.push(Token {
                text: &source[start..lx.pos],
                at,
                is_ident: false,
            });
        } else {
            lx.bump();
            out.push(Token {
                text: &source[start..lx.pos],
                at,
                is_ident: false,
            });
        }
    }
    out
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    col: u32,
}

impl Lexer<'_> {
    fn rest(&self) -> &str {
        &self.src[self.pos..]
    }
    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 0;
        } else {
            self.col += c.len_utf16() as u32;
        }
        Some(c)
    }
    /// A nested `/- … -/` (doc comments too); an unclosed one runs to the end.
    fn block_comment(&mut self) {
        let mut depth = 0u32;
        while !self.rest().is_empty() {
            if self.rest().starts_with("/-") {
                depth += 1;
                self.bump();
                self.bump();
            } else if self.rest().starts_with("-/") {
                depth -= 1;
                self.bump();
                self.bump();
                if depth == 0 {
                    return;
                }
            } else {
                self.bump();
            }
        }
    }
    fn string(&mut self) {
        self.bump();
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    self.bump();
                }
                '"' => return,
                _ => {}
            }
        }
    }
    /// `r"…"`, `r#"…"#` (any number of `#`).
    fn raw_string(&mut self) {
        self.bump();
        let mut hashes = 0;
        while self.peek() == Some('#') {
            hashes += 1;
            self.bump();
        }
        if self.peek() != Some('"') {
            return;
        }
        self.bump();
        let close = format!("\"{}", "#".repeat(hashes));
        while !self.rest().is_empty() && !self.rest().starts_with(&close) {
            self.bump();
        }
        for _ in 0..close.chars().count() {
            self.bump();
        }
    }
    /// `'a'`, `'\n'`, `'\x41'`: skipped when one starts here (a `'` after an identifier is part
    /// of it and never reaches this).
    fn char_literal(&mut self) -> bool {
        let rest = self.rest();
        let mut chars = rest.char_indices().skip(1);
        let Some((_, c)) = chars.next() else {
            return false;
        };
        let end = if c == '\\' {
            rest[1..]
                .char_indices()
                .skip(2)
                .find(|&(_, c)| c == '\'')
                .map(|(i, _)| i + 2)
                .filter(|&i| i <= 12)
        } else {
            chars.next().filter(|&(_, c)| c == '\'').map(|(i, _)| i + 1)
        };
        match end {
            Some(n) => {
                let stop = self.pos + n;
                while self.pos < stop {
                    self.bump();
                }
                true
            }
            None => {
                self.bump();
                false
            }
        }
    }
    fn ident(&mut self) {
        loop {
            if self.peek() == Some('«') {
                while let Some(c) = self.bump() {
                    if c == '»' {
                        break;
                    }
                }
            } else {
                while self.peek().is_some_and(is_ident_rest) {
                    self.bump();
                }
            }
            let mut it = self.rest().chars();
            if it.next() == Some('.') && it.next().is_some_and(is_ident_start) {
                self.bump();
                continue;
            }
            return;
        }
    }
}
