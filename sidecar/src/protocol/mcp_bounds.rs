//! How big a reply may be. Every tool's structured result goes through [`fit`]: rows are
//! limited first by the tool's `limit` (default [`DEFAULT_LIMIT`], at most [`MAX_MCP_ROWS`]),
//! long strings are cut at [`MAX_MCP_STRING_CHARS`], and if the JSON is still over
//! [`MAX_MCP_REPLY_BYTES`] the longest arrays lose their tail until it fits. What was cut is
//! counted in the result's `leftOut` (JSON pointer of the array → items left out), so an
//! agent knows to ask for more with a narrower query.

use serde_json::{Map, Value};

pub use crate::limits::{
    MAX_MCP_REPLY_BYTES, MAX_MCP_ROWS, MAX_MCP_STRING_CHARS, MAX_MCP_SUMMARY_BYTES,
};

/// Rows of each list a tool returns unless `limit` says otherwise.
pub const DEFAULT_LIMIT: usize = 10;

/// `limit` checked: the default when absent; an error naming the range otherwise.
pub fn limit(given: Option<usize>) -> Result<usize, String> {
    match given {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_MCP_ROWS).contains(&n) => Ok(n),
        Some(n) => Err(format!(
            "limit {n} is out of range: give 1 to {MAX_MCP_ROWS} (default {DEFAULT_LIMIT})"
        )),
    }
}

/// Cuts `value` (an object) to the bounds and records what was cut under `leftOut`.
pub fn fit(value: &mut Value) {
    cut_strings(value);
    let mut left_out = Map::new();
    while size(value) > MAX_MCP_REPLY_BYTES {
        let mut best = None;
        longest_array(value, "", &mut best);
        let Some((pointer, len, _)) = best else {
            break;
        };
        let keep = len / 2;
        if let Some(Value::Array(items)) = value.pointer_mut(&pointer) {
            items.truncate(keep);
        }
        let before = left_out.get(&pointer).and_then(Value::as_u64).unwrap_or(0);
        left_out.insert(pointer, Value::from(before + (len - keep) as u64));
    }
    if !left_out.is_empty() {
        if let Value::Object(o) = value {
            o.insert("leftOut".into(), Value::Object(left_out));
        }
    }
}

/// `text` cut to [`MAX_MCP_SUMMARY_BYTES`] at a line's end, saying so.
pub fn summary(text: String) -> String {
    if text.len() <= MAX_MCP_SUMMARY_BYTES {
        return text;
    }
    let mut end = 0;
    for (i, _) in text.match_indices('\n') {
        if i + 64 > MAX_MCP_SUMMARY_BYTES {
            break;
        }
        end = i;
    }
    if end == 0 {
        end = MAX_MCP_SUMMARY_BYTES - 64;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
    }
    format!(
        "{}\n… (cut; the structured result has the rest)",
        &text[..end]
    )
}

fn size(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

fn cut_strings(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let Some((at, _)) = s.char_indices().nth(MAX_MCP_STRING_CHARS) {
                s.truncate(at);
                s.push('…');
            }
        }
        Value::Array(items) => items.iter_mut().for_each(cut_strings),
        Value::Object(o) => o.values_mut().for_each(cut_strings),
        _ => {}
    }
}

/// The non-empty array with the most bytes (an array inside an array's items goes with its
/// item): its JSON pointer, length and size.
fn longest_array(v: &Value, at: &str, best: &mut Option<(String, usize, usize)>) {
    match v {
        Value::Array(items) if !items.is_empty() => {
            let bytes = size(v);
            if best.as_ref().is_none_or(|b| bytes > b.2) {
                *best = Some((at.to_string(), items.len(), bytes));
            }
        }
        Value::Object(o) => {
            for (k, child) in o {
                let key = k.replace('~', "~0").replace('/', "~1");
                longest_array(child, &format!("{at}/{key}"), best);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_big_reply_is_cut_to_the_budget_and_says_how_much() {
        let rows: Vec<Value> = (0..5000)
            .map(|i| json!({"name": format!("row {i}"), "ms": i}))
            .collect();
        let mut v = json!({"kept": {"rows": rows}, "small": [1, 2, 3]});
        fit(&mut v);
        assert!(size(&v) <= MAX_MCP_REPLY_BYTES, "{}", size(&v));
        let kept = v["kept"]["rows"].as_array().unwrap().len();
        assert_eq!(v["leftOut"]["/kept/rows"], json!(5000 - kept));
        assert_eq!(v["small"], json!([1, 2, 3]));
    }

    #[test]
    fn a_small_reply_is_untouched() {
        let mut v = json!({"rows": [1, 2], "label": "x".repeat(400)});
        fit(&mut v);
        assert!(v.get("leftOut").is_none());
        assert_eq!(v["rows"], json!([1, 2]));
        assert_eq!(
            v["label"].as_str().unwrap().chars().count(),
            MAX_MCP_STRING_CHARS + 1
        );
    }

    #[test]
    fn a_long_summary_is_cut_at_a_line_end_or_a_character() {
        let lines = "a line of text\n".repeat(500);
        let cut = summary(lines);
        assert!(
            cut.len() <= MAX_MCP_SUMMARY_BYTES && cut.ends_with("the rest)"),
            "{cut}"
        );
        assert!(cut.contains("text\n… (cut"));
        let one = summary("é".repeat(3000));
        assert!(one.len() <= MAX_MCP_SUMMARY_BYTES && one.starts_with("éé"));
        assert_eq!(summary("short".into()), "short");
    }

    #[test]
    fn limits_are_checked() {
        assert_eq!(limit(None), Ok(DEFAULT_LIMIT));
        assert_eq!(limit(Some(3)), Ok(3));
        assert!(limit(Some(0)).unwrap_err().contains("give 1 to 200"));
        assert!(limit(Some(MAX_MCP_ROWS + 1)).is_err());
    }
}
