//! Text as views and sessions keep it: cut to a bound, the cut marked.

/// Cuts a text to at most `max` characters, marking the cut.
pub fn cap_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::MAX_ERROR_CHARS;

    #[test]
    fn cap_chars_at_the_edge() {
        let at = "x".repeat(MAX_ERROR_CHARS);
        assert_eq!(cap_chars(&at, MAX_ERROR_CHARS), at);
        let over = "𝔽".repeat(MAX_ERROR_CHARS + 1);
        let capped = cap_chars(&over, MAX_ERROR_CHARS);
        assert_eq!(capped.chars().count(), MAX_ERROR_CHARS);
        assert!(capped.ends_with('…'));
    }
}
