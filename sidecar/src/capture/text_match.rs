//! Finding a piece of Lean's pretty-printed text in the source.
//!
//! Lean prints syntax re-indented and re-spaced, so the search ignores
//! whitespace on both sides: every other character must match, in order.
//! A hit gives the source bytes from the first to the last matched
//! character; a miss gives nothing, and the caller does not guess.

/// Finds `needle` in `hay[from..to]`, ignoring whitespace; returns the byte
/// range `(start, end)` in `hay`.
pub fn find_loose(hay: &str, from: usize, to: usize, needle: &str) -> Option<(usize, usize)> {
    let to = to.min(hay.len());
    if from >= to || !hay.is_char_boundary(from) || !hay.is_char_boundary(to) {
        return None;
    }
    let wanted: Vec<char> = needle.chars().filter(|c| !c.is_whitespace()).collect();
    let first = *wanted.first()?;
    let region = &hay[from..to];
    for (i, c) in region.char_indices() {
        if c != first {
            continue;
        }
        if let Some(end) = match_at(region, i, &wanted) {
            return Some((from + i, from + end));
        }
    }
    None
}

fn match_at(region: &str, start: usize, wanted: &[char]) -> Option<usize> {
    let mut chars = region[start..].char_indices().map(|(j, c)| (start + j, c));
    let mut end = start;
    for &w in wanted {
        let (j, c) = chars.by_ref().find(|(_, c)| !c.is_whitespace())?;
        if c != w {
            return None;
        }
        end = j + c.len_utf8();
    }
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_reindentation() {
        let src = "theorem t : True := by\n  induction n with\n  | zero => simp\n  | succ k ih =>\n    omega\n";
        let needle = "induction n with\n| zero => simp\n| succ k ih =>\n  omega";
        let (s, e) = find_loose(src, 0, src.len(), needle).unwrap();
        assert_eq!(
            &src[s..e],
            "induction n with\n  | zero => simp\n  | succ k ih =>\n    omega"
        );
    }

    #[test]
    fn respects_the_window_and_misses_honestly() {
        let src = "omega\nomega\n";
        assert_eq!(find_loose(src, 1, src.len(), "omega"), Some((6, 11)));
        assert_eq!(find_loose(src, 0, 4, "omega"), None);
        assert_eq!(find_loose(src, 0, src.len(), "simp"), None);
        assert_eq!(find_loose(src, 0, src.len(), "  "), None);
    }

    #[test]
    fn non_ascii() {
        let src = "theorem 𝔽_refl : 𝔽 = 𝔽 := rfl";
        let (s, e) = find_loose(src, 0, src.len(), "𝔽 = 𝔽").unwrap();
        assert_eq!(&src[s..e], "𝔽 = 𝔽");
    }
}
