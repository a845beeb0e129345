//! The status emoji Lean puts in front of a trace node's text (`✅️`, `❌️`, `💥️`): whether the
//! step succeeded, failed or threw. Capture decides per release where a label keeps its emoji
//! (`sidecar/src/capture/status_emoji.rs`); hot-spot keys drop it so that a success and a
//! failure of the same work merge.

/// The three status characters (`checkEmoji`, `crossEmoji`, `bombEmoji` of `Lean.Util.Trace`).
pub const STATUS: [char; 3] = ['\u{2705}', '\u{274C}', '\u{1F4A5}'];

/// Emoji presentation selector Lean appends to each status character (current releases).
const VARIATION_SELECTOR: char = '\u{FE0F}';

/// `text` without a leading status emoji (with or without U+FE0F) and the space after it.
pub fn strip(text: &str) -> &str {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) if STATUS.contains(&c) => {}
        _ => return text,
    }
    let rest = chars.as_str();
    let rest = rest.strip_prefix(VARIATION_SELECTOR).unwrap_or(rest);
    match rest.strip_prefix(' ') {
        Some(r) => r,
        None if rest.is_empty() => rest,
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_each_status_with_or_without_the_selector() {
        for text in [
            "✅️ theorem foo",
            "✅ theorem foo",
            "❌️ theorem foo",
            "❌ theorem foo",
            "💥️ theorem foo",
            "💥 theorem foo",
        ] {
            assert_eq!(strip(text), "theorem foo", "{text:?}");
        }
        assert_eq!(strip("✅️"), "");
        assert_eq!(strip("theorem ✅️ foo"), "theorem ✅️ foo");
        assert_eq!(strip("✅️x"), "✅️x", "an emoji glued to a word is text");
        assert_eq!(strip(""), "");
    }
}
