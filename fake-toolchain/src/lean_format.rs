//! Byte-exact imitations of how Lean prints things, for output the fake generates
//! (fixtures/README.md, "Formats", cites the Lean source of each rule).

/// `Lean.Json.escape`: `"`, `\`, LF and CR escaped, other characters below U+0020 as `\u00xx`
/// (lowercase hex), everything else verbatim.
pub fn escape_json_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

/// A JSON string literal as Lean writes it.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    escape_json_into(&mut out, s);
    out.push('"');
    out
}

/// A field writer for [`write_object`].
pub type FieldWriter<'a> = Box<dyn FnOnce(&mut String) + 'a>;

/// Writes an object the way `Json.compress` of current Lean does: no whitespace, keys in
/// ascending order.
pub fn write_object(out: &mut String, mut fields: Vec<(&str, FieldWriter<'_>)>) {
    fields.sort_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (i, (key, write)) in fields.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        escape_json_into(out, key);
        out.push_str("\":");
        write(out);
    }
    out.push('}');
}

/// Writes a JSON array from already formatted elements.
pub fn write_array<I: IntoIterator<Item = S>, S: AsRef<str>>(out: &mut String, items: I) {
    out.push('[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item.as_ref());
    }
    out.push(']');
}

/// `Float.toString`: C++ `std::to_string(double)`, i.e. `%f`.
pub fn float_to_string(x: f64) -> String {
    format!("{x:.6}")
}

/// `toJson (x : Float)`: `JsonNumber.fromFloat?` then `JsonNumber.toString`, which prints 0 as
/// `0` and otherwise the `%f` digits without trailing fractional zeros.
pub fn json_number_from_float(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    let mut s = float_to_string(x);
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    s
}

/// Monotonic nanoseconds as Lean turns them into Float seconds.
pub fn seconds(ns: u64) -> f64 {
    ns as f64 / 1_000_000_000.0
}

/// C++ `display_profiling_time`: `setprecision(3)` (`%.3g`), `ms` below a second, `s` above.
pub fn display_profiling_time(ns: u64) -> String {
    let secs = ns as f64 / 1e9;
    if secs < 1.0 {
        format!("{}ms", format_g3(secs * 1000.0))
    } else {
        format!("{}s", format_g3(secs))
    }
}

/// `printf("%.3g", v)` for non-negative finite `v`.
pub fn format_g3(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let sci = format!("{v:.2e}"); // e.g. "1.23e3", "1.00e3", "4.50e-5"
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let strip = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if (-4..3).contains(&exp) {
        let decimals = (2 - exp) as usize;
        strip(format!("{v:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mantissa.to_string()), exp.abs())
    }
}

/// A Lean `Position` as JSON.
pub fn position_json(line: u64, column: u64) -> String {
    format!("{{\"column\":{column},\"line\":{line}}}")
}

/// One `lean --json` message line (current Lean field set and key order), without newline.
pub fn message_line(
    file_name: &str,
    pos: (u64, u64),
    end_pos: Option<(u64, u64)>,
    severity: &str,
    data: &str,
    kind: &str,
) -> String {
    let mut out = String::with_capacity(data.len() + 200);
    write_object(
        &mut out,
        vec![
            ("caption", Box::new(|o: &mut String| o.push_str("\"\""))),
            (
                "data",
                Box::new(|o: &mut String| o.push_str(&json_string(data))),
            ),
            (
                "endPos",
                Box::new(move |o: &mut String| match end_pos {
                    Some((l, c)) => o.push_str(&position_json(l, c)),
                    None => o.push_str("null"),
                }),
            ),
            (
                "fileName",
                Box::new(|o: &mut String| o.push_str(&json_string(file_name))),
            ),
            ("isSilent", Box::new(|o: &mut String| o.push_str("false"))),
            (
                "keepFullRange",
                Box::new(|o: &mut String| o.push_str("false")),
            ),
            (
                "kind",
                Box::new(|o: &mut String| o.push_str(&json_string(kind))),
            ),
            (
                "pos",
                Box::new(move |o: &mut String| o.push_str(&position_json(pos.0, pos.1))),
            ),
            (
                "severity",
                Box::new(|o: &mut String| o.push_str(&json_string(severity))),
            ),
        ],
    );
    out
}

/// `SerialMessage.toString` (what `lean` prints without `--json`): information messages are
/// their text; warnings and errors get `file:line:col: severity[(name)]: ` in front. A caption
/// goes on its own line before the text. The result always ends with a newline.
pub fn message_plain_text(
    file_name: &str,
    pos: (u64, u64),
    severity: &str,
    caption: &str,
    data: &str,
    kind: Option<&str>,
) -> String {
    let mut text = data.to_string();
    if !caption.is_empty() {
        text = format!("{caption}:\n{text}");
    }
    if severity == "warning" || severity == "error" {
        let name = kind
            .and_then(|k| k.strip_suffix("._namedError"))
            .map(|n| format!("({n})"))
            .unwrap_or_default();
        text = format!("{file_name}:{}:{}: {severity}{name}: {text}", pos.0, pos.1);
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_matches_lean() {
        assert_eq!(
            json_string("a\"b\\c\nd\re\tf\u{1}"),
            "\"a\\\"b\\\\c\\nd\\re\\u0009f\\u0001\""
        );
        assert_eq!(json_string("𝔽 ✅️ µs \u{7f}"), "\"𝔽 ✅️ µs \u{7f}\"");
    }

    #[test]
    fn float_printing_matches_lean() {
        assert_eq!(float_to_string(0.013245), "0.013245");
        assert_eq!(
            json_number_from_float(259_231_447.812_903),
            "259231447.812903"
        );
        assert_eq!(json_number_from_float(100.0), "100");
        assert_eq!(json_number_from_float(1.5), "1.5");
        assert_eq!(json_number_from_float(0.0), "0");
        assert_eq!(json_number_from_float(0.000_000_1), "0");
        assert_eq!(json_number_from_float(1234.567), "1234.567");
    }

    #[test]
    fn profiling_time_matches_cxx_setprecision_3() {
        assert_eq!(display_profiling_time(173_400_000), "173ms");
        assert_eq!(display_profiling_time(12_345_000), "12.3ms");
        assert_eq!(display_profiling_time(500_000), "0.5ms");
        assert_eq!(display_profiling_time(999_600_000), "1e+03ms");
        assert_eq!(display_profiling_time(1_500_000_000), "1.5s");
        assert_eq!(display_profiling_time(1_234_000_000_000), "1.23e+03s");
        assert_eq!(display_profiling_time(45), "4.5e-05ms");
        assert_eq!(display_profiling_time(0), "0ms");
        assert_eq!(format_g3(0.000123456), "0.000123");
    }

    #[test]
    fn message_line_key_order() {
        let line = message_line("A.lean", (1, 2), None, "error", "x", "[anonymous]");
        assert_eq!(
            line,
            "{\"caption\":\"\",\"data\":\"x\",\"endPos\":null,\"fileName\":\"A.lean\",\"isSilent\":false,\"keepFullRange\":false,\"kind\":\"[anonymous]\",\"pos\":{\"column\":2,\"line\":1},\"severity\":\"error\"}"
        );
    }

    #[test]
    fn plain_text_messages() {
        assert_eq!(
            message_plain_text(
                "B.lean",
                (9, 8),
                "error",
                "",
                "Unknown identifier `x`",
                Some("lean.unknownIdentifier._namedError")
            ),
            "B.lean:9:8: error(lean.unknownIdentifier): Unknown identifier `x`\n"
        );
        assert_eq!(
            message_plain_text(
                "B.lean",
                (1, 0),
                "warning",
                "",
                "declaration uses `sorry`",
                Some("hasSorry")
            ),
            "B.lean:1:0: warning: declaration uses `sorry`\n"
        );
        assert_eq!(
            message_plain_text("B.lean", (1, 0), "information", "", "took 1ms\n", None),
            "took 1ms\n"
        );
    }
}
