//! How each release line of Lean prints the same run (fixtures/README.md, "Versions of Lean's
//! output"): a case recorded once in the reference layout (`"toolchain": "reference"`) is
//! rendered here for the selected toolchain, so one description of a case yields every
//! version's bytes.
//!
//! The reference layout is that of Lean 4.19–4.29: ascending keys, every message field,
//! `[0.013245]` trace headers, status emoji only where `withTraceNodeBefore` puts it (`Meta.*`),
//! profiler output captured at the position of what each line times. A toolchain's `output`
//! object in `toolchains.json` says what its line does differently.

use serde_json::Value;

use crate::lean_format::escape_json_into;
use crate::limits::MAX_RAW_DEPTH;

/// The toolchain name of cases recorded in the reference layout.
pub const REFERENCE: &str = "reference";

/// What one release line prints differently from the reference layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialect {
    /// `Json.compress` key order: ascending (reference) or descending.
    pub descending_keys: bool,
    /// Message fields this line has; the others are left out.
    pub message_fields: Vec<String>,
    /// Trace headers as `[0.013245s]` (before 4.8) instead of `[0.013245]`.
    pub seconds_suffix: bool,
    /// `withTraceNode` headers carry the status emoji in profile names (4.30–4.31).
    pub emoji_in_profile_names: bool,
    /// `withTraceNode` headers carry the status emoji in trace text (4.30 and later).
    pub emoji_in_trace_text: bool,
    /// Status emoji written with U+FE0F.
    pub variation_selector: bool,
    /// Captured profiler output is reported at the command's start, not at what it times.
    pub took_at_command_start: bool,
}

impl Default for Dialect {
    fn default() -> Self {
        Dialect {
            descending_keys: false,
            message_fields: [
                "caption",
                "data",
                "endPos",
                "fileName",
                "isSilent",
                "keepFullRange",
                "kind",
                "pos",
                "severity",
            ]
            .map(String::from)
            .to_vec(),
            seconds_suffix: false,
            emoji_in_profile_names: false,
            emoji_in_trace_text: false,
            variation_selector: true,
            took_at_command_start: false,
        }
    }
}

impl Dialect {
    /// Reads a toolchain's `output` object; missing keys keep the reference layout.
    pub fn from_json(v: Option<&Value>) -> Result<Dialect, String> {
        let mut d = Dialect::default();
        let Some(v) = v else { return Ok(d) };
        let flag = |key: &str, default: bool| -> Result<bool, String> {
            match v.get(key) {
                None => Ok(default),
                Some(Value::Bool(b)) => Ok(*b),
                Some(other) => Err(format!("`output.{key}` is {other}, not a boolean")),
            }
        };
        d.descending_keys = match v.get("json_key_order").and_then(Value::as_str) {
            None | Some("ascending") => false,
            Some("descending") => true,
            Some(other) => return Err(format!("`output.json_key_order` is {other:?}")),
        };
        if let Some(fields) = v.get("message_fields") {
            d.message_fields = fields
                .as_array()
                .and_then(|a| a.iter().map(|f| f.as_str().map(String::from)).collect())
                .ok_or("`output.message_fields` is not a list of strings")?;
        }
        d.seconds_suffix = match v.get("trace_header").and_then(Value::as_str) {
            None | Some("bracketed") => false,
            Some("seconds-suffix") => true,
            Some(other) => return Err(format!("`output.trace_header` is {other:?}")),
        };
        d.emoji_in_profile_names = flag("status_emoji_in_profile_names", false)?;
        d.emoji_in_trace_text = flag("status_emoji_in_trace_text", false)?;
        d.variation_selector = flag("emoji_variation_selector", true)?;
        d.took_at_command_start = match v.get("took_position").and_then(Value::as_str) {
            None | Some("timed") => false,
            Some("command-start") => true,
            Some(other) => return Err(format!("`output.took_position` is {other:?}")),
        };
        Ok(d)
    }

    /// One `--json` message line of the reference layout as this line prints it.
    /// `command_start` maps a position to the start of the command holding it.
    pub fn message_line(
        &self,
        line: &str,
        command_start: &dyn Fn(u64, u64) -> Option<(u64, u64)>,
    ) -> Result<String, String> {
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("recorded line is not JSON: {e}"))?;
        let Value::Object(mut fields) = v else {
            return Err("recorded line is not a JSON object".into());
        };
        let is_trace = fields.get("kind").and_then(Value::as_str) == Some("trace");
        if let Some(Value::String(data)) = fields.get_mut("data") {
            if is_trace {
                *data = self.trace_text(data);
            } else if !self.variation_selector {
                *data = data.replace('\u{FE0F}', "");
            }
        }
        let is_took = fields.get("severity").and_then(Value::as_str) == Some("information")
            && fields
                .get("data")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.is_empty() && d.lines().all(|l| l.contains(" took ")));
        if self.took_at_command_start && is_took {
            let pos = fields.get("pos").cloned().unwrap_or(Value::Null);
            let (line, column) = (pos["line"].as_u64(), pos["column"].as_u64());
            if let (Some(l), Some(c)) = (line, column) {
                if let Some((sl, sc)) = command_start(l, c) {
                    fields.insert("pos".into(), serde_json::json!({"line": sl, "column": sc}));
                }
            }
        }
        fields.retain(|k, _| self.message_fields.iter().any(|f| f == k));
        let mut out = String::with_capacity(line.len());
        self.write_value(&mut out, &Value::Object(fields));
        Ok(out)
    }

    /// The text of a trace message of the reference layout as this line prints it.
    pub fn trace_text(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 64);
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&self.trace_line(line));
        }
        out
    }

    fn trace_line(&self, line: &str) -> String {
        let rest = line.trim_start_matches(' ');
        let indent = &line[..line.len() - rest.len()];
        let Some((class, time, text)) = timed_header(rest) else {
            return self.selector(line);
        };
        let time = if self.seconds_suffix {
            format!("[{time}s]")
        } else {
            format!("[{time}]")
        };
        let text = if self.emoji_in_trace_text && gains_emoji(class, text) {
            format!("{} {text}", self.check())
        } else {
            text.to_string()
        };
        let sep = if text.is_empty() { "" } else { " " };
        self.selector(&format!("{indent}[{class}] {time}{sep}{text}"))
    }

    fn check(&self) -> &'static str {
        if self.variation_selector {
            "\u{2705}\u{FE0F}"
        } else {
            "\u{2705}"
        }
    }

    fn selector(&self, s: &str) -> String {
        if self.variation_selector {
            s.to_string()
        } else {
            s.replace('\u{FE0F}', "")
        }
    }

    /// A profile node name (`CLASS[: TAG][: TEXT]`) of the reference layout as this line
    /// writes it.
    pub fn profile_name(&self, name: &str) -> String {
        if !self.emoji_in_profile_names {
            return self.selector(name);
        }
        let Some((class, rest)) = name.split_once(": ") else {
            return self.selector(name);
        };
        let (head, text) = match rest.split_once(": ") {
            Some((tag, text)) if !tag.contains(char::is_whitespace) => {
                (format!("{class}: {tag}: "), text)
            }
            _ => (format!("{class}: "), rest),
        };
        if text.is_empty() || !gains_emoji(class, text) {
            return self.selector(name);
        }
        self.selector(&format!("{head}{} {text}", self.check()))
    }

    /// A Firefox profile of the reference layout as this line writes it: node names per
    /// [`Dialect::profile_name`], keys in this line's order, every other byte as recorded.
    pub fn profile(&self, text: &str) -> Result<String, String> {
        let mut raw = RawJson::parse(text)?;
        if let RawJson::Obj(top) = &mut raw {
            for (key, threads) in top.iter_mut() {
                if key != "threads" {
                    continue;
                }
                let RawJson::Arr(threads) = threads else {
                    continue;
                };
                for thread in threads {
                    let RawJson::Obj(fields) = thread else {
                        continue;
                    };
                    for (k, strings) in fields.iter_mut() {
                        if let (true, RawJson::Arr(items)) = (k == "stringArray", strings) {
                            for item in items {
                                if let RawJson::Str(s) = item {
                                    *s = self.profile_name(s);
                                }
                            }
                        }
                    }
                }
            }
        }
        let mut out = String::with_capacity(text.len() + 1024);
        raw.write(&mut out, self.descending_keys);
        Ok(out)
    }

    fn write_value(&self, out: &mut String, v: &Value) {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                if self.descending_keys {
                    keys.reverse();
                }
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('"');
                    escape_json_into(out, k);
                    out.push_str("\":");
                    self.write_value(out, &map[k]);
                }
                out.push('}');
            }
            Value::String(s) => {
                out.push('"');
                escape_json_into(out, s);
                out.push('"');
            }
            other => out.push_str(&other.to_string()),
        }
    }
}

/// Does a node of `class` with this text get `withTraceNode`'s status emoji (4.30 and later)?
/// `Meta.*` nodes have their own on every release; the frontend's root has no message.
fn gains_emoji(class: &str, text: &str) -> bool {
    let has_one = text.starts_with(['\u{2705}', '\u{274C}', '\u{1F4A5}']);
    !has_one && class != "runFrontend" && class != "Meta" && !class.starts_with("Meta.")
}

/// `[CLASS] [SECONDS] TEXT` → (class, seconds, text).
fn timed_header(rest: &str) -> Option<(&str, &str, &str)> {
    let inner = rest.strip_prefix('[')?;
    let (class, after) = inner.split_once("] [")?;
    if class.is_empty() || class.contains(char::is_whitespace) {
        return None;
    }
    let (time, text) = after.split_once(']')?;
    if !time.contains('.') || !time.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let text = text.strip_prefix(' ').unwrap_or(text);
    Some((class, time, text))
}

/// JSON kept as written (numbers as their text), to re-print with another key order.
#[derive(Debug, Clone, PartialEq)]
enum RawJson {
    Atom(String),
    Str(String),
    Arr(Vec<RawJson>),
    Obj(Vec<(String, RawJson)>),
}

impl RawJson {
    fn parse(text: &str) -> Result<RawJson, String> {
        let bytes = text.as_bytes();
        let mut at = 0;
        let v = Self::value(text, bytes, &mut at, 0)?;
        skip_ws(bytes, &mut at);
        if at != bytes.len() {
            return Err(format!("recorded profile: trailing text at byte {at}"));
        }
        Ok(v)
    }

    fn value(text: &str, b: &[u8], at: &mut usize, depth: usize) -> Result<RawJson, String> {
        if depth > MAX_RAW_DEPTH {
            return Err("recorded profile nests too deep".into());
        }
        skip_ws(b, at);
        match b.get(*at) {
            Some(b'{') => {
                *at += 1;
                let mut fields = Vec::new();
                loop {
                    skip_ws(b, at);
                    if b.get(*at) == Some(&b'}') {
                        *at += 1;
                        return Ok(RawJson::Obj(fields));
                    }
                    let RawJson::Str(key) = Self::value(text, b, at, depth + 1)? else {
                        return Err(format!("recorded profile: key expected at byte {at}"));
                    };
                    skip_ws(b, at);
                    if b.get(*at) != Some(&b':') {
                        return Err(format!("recorded profile: `:` expected at byte {at}"));
                    }
                    *at += 1;
                    fields.push((key, Self::value(text, b, at, depth + 1)?));
                    skip_ws(b, at);
                    if b.get(*at) == Some(&b',') {
                        *at += 1;
                    }
                }
            }
            Some(b'[') => {
                *at += 1;
                let mut items = Vec::new();
                loop {
                    skip_ws(b, at);
                    if b.get(*at) == Some(&b']') {
                        *at += 1;
                        return Ok(RawJson::Arr(items));
                    }
                    items.push(Self::value(text, b, at, depth + 1)?);
                    skip_ws(b, at);
                    if b.get(*at) == Some(&b',') {
                        *at += 1;
                    }
                }
            }
            Some(b'"') => {
                let start = *at;
                *at += 1;
                while let Some(&c) = b.get(*at) {
                    *at += 1;
                    match c {
                        b'\\' => *at += 1,
                        b'"' => break,
                        _ => {}
                    }
                }
                let literal = text
                    .get(start..*at)
                    .ok_or_else(|| format!("recorded profile: bad string at byte {start}"))?;
                serde_json::from_str::<String>(literal)
                    .map(RawJson::Str)
                    .map_err(|e| format!("recorded profile: bad string at byte {start}: {e}"))
            }
            Some(_) => {
                let start = *at;
                while let Some(&c) = b.get(*at) {
                    if matches!(c, b',' | b']' | b'}') || c.is_ascii_whitespace() {
                        break;
                    }
                    *at += 1;
                }
                if start == *at {
                    return Err(format!("recorded profile: value expected at byte {start}"));
                }
                Ok(RawJson::Atom(text[start..*at].to_string()))
            }
            None => Err("recorded profile ends early".into()),
        }
    }

    fn write(&self, out: &mut String, descending: bool) {
        match self {
            RawJson::Atom(a) => out.push_str(a),
            RawJson::Str(s) => {
                out.push('"');
                escape_json_into(out, s);
                out.push('"');
            }
            RawJson::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out, descending);
                }
                out.push(']');
            }
            RawJson::Obj(fields) => {
                let mut order: Vec<&(String, RawJson)> = fields.iter().collect();
                order.sort_by(|a, b| a.0.cmp(&b.0));
                if descending {
                    order.reverse();
                }
                out.push('{');
                for (i, (k, v)) in order.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('"');
                    escape_json_into(out, k);
                    out.push_str("\":");
                    v.write(out, descending);
                }
                out.push('}');
            }
        }
    }
}

fn skip_ws(b: &[u8], at: &mut usize) {
    while b.get(*at).is_some_and(u8::is_ascii_whitespace) {
        *at += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_431() -> Dialect {
        Dialect {
            emoji_in_profile_names: true,
            emoji_in_trace_text: true,
            ..Dialect::default()
        }
    }

    #[test]
    fn profile_names_per_line() {
        let d = line_431();
        assert_eq!(
            d.profile_name(
                "Elab.command: Lean.Parser.Command.theorem: theorem foo : True := trivial"
            ),
            "Elab.command: Lean.Parser.Command.theorem: ✅️ theorem foo : True := trivial"
        );
        assert_eq!(
            d.profile_name("Elab.async: Lean.addDecl"),
            "Elab.async: ✅️ Lean.addDecl"
        );
        assert_eq!(d.profile_name("Import: importing"), "Import: ✅️ importing");
        assert_eq!(
            d.profile_name("Meta.synthInstance: ✅️ Decidable p"),
            "Meta.synthInstance: ✅️ Decidable p"
        );
        assert_eq!(d.profile_name("runFrontend: "), "runFrontend: ");
        assert_eq!(
            Dialect::default().profile_name("Import: importing"),
            "Import: importing"
        );
    }

    #[test]
    fn trace_text_per_line() {
        let text = "[Elab.command] [0.005061] def x := 1\n  [Meta.synthInstance] [0.001000] ✅️ Inhabited Nat\n      continued [1, 2]\n  [Kernel] [0.001152] typechecking declarations [x]";
        assert_eq!(
            line_431().trace_text(text),
            "[Elab.command] [0.005061] ✅️ def x := 1\n  [Meta.synthInstance] [0.001000] ✅️ Inhabited Nat\n      continued [1, 2]\n  [Kernel] [0.001152] ✅️ typechecking declarations [x]"
        );
        let old = Dialect {
            seconds_suffix: true,
            variation_selector: false,
            ..Dialect::default()
        };
        assert_eq!(
            old.trace_text(text),
            "[Elab.command] [0.005061s] def x := 1\n  [Meta.synthInstance] [0.001000s] ✅ Inhabited Nat\n      continued [1, 2]\n  [Kernel] [0.001152s] typechecking declarations [x]"
        );
    }

    #[test]
    fn messages_per_line() {
        let line = r#"{"caption":"","data":"simp took 3ms\n","endPos":null,"fileName":"A.lean","isSilent":false,"keepFullRange":false,"kind":"[anonymous]","pos":{"column":4,"line":7},"severity":"information"}"#;
        let old = Dialect {
            descending_keys: true,
            message_fields: [
                "caption",
                "data",
                "endPos",
                "fileName",
                "keepFullRange",
                "pos",
                "severity",
            ]
            .map(String::from)
            .to_vec(),
            took_at_command_start: true,
            ..Dialect::default()
        };
        let start = |l: u64, _c: u64| (l == 7).then_some((5, 0));
        assert_eq!(
            old.message_line(line, &start).expect("renders"),
            r#"{"severity":"information","pos":{"line":5,"column":0},"keepFullRange":false,"fileName":"A.lean","endPos":null,"data":"simp took 3ms\n","caption":""}"#
        );
        assert_eq!(
            Dialect::default()
                .message_line(line, &start)
                .expect("renders"),
            line
        );
    }

    #[test]
    fn profiles_keep_numbers_as_written() {
        let p = r#"{"meta":{"startTime":259231447.812903},"threads":[{"name":"1","samples":{"time":[1.5,2]},"stringArray":["Import: importing","runFrontend: "]}]}"#;
        assert_eq!(Dialect::default().profile(p).expect("renders"), p);
        let out = Dialect {
            descending_keys: true,
            ..line_431()
        }
        .profile(p)
        .expect("renders");
        assert_eq!(
            out,
            r#"{"threads":[{"stringArray":["Import: ✅️ importing","runFrontend: "],"samples":{"time":[1.5,2]},"name":"1"}],"meta":{"startTime":259231447.812903}}"#
        );
        assert!(Dialect::default().profile("{\"a\":").is_err());
    }
}
