//! The captured file's text, with conversions between byte offsets, Lean
//! positions and recording ranges (0-based lines, UTF-16 columns).

use recording::SourceRange;

use super::lean_output::messages::{Position, SourceText};

pub struct Source<'a> {
    pub text: &'a str,
    lean: SourceText<'a>,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source {
            text,
            lean: SourceText::new(text),
            line_starts,
        }
    }

    /// The byte offset of a Lean position, if it lies in the text.
    pub fn byte_of(&self, pos: Position) -> Option<usize> {
        self.lean.byte_offset(pos).ok()
    }

    /// 0-based line and UTF-16 column of a byte offset.
    pub fn utf16_at(&self, byte: usize) -> (u32, u32) {
        let byte = byte.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= byte) - 1;
        let start = self.line_starts[line];
        let col = self.text.get(start..byte).map_or(0, utf16_len);
        (line as u32, col as u32)
    }

    pub fn range(&self, start: usize, end: usize) -> SourceRange {
        let (sl, sc) = self.utf16_at(start);
        let (el, ec) = self.utf16_at(end);
        SourceRange::new(sl, sc, el, ec)
    }

    /// Byte offset of a recording position (0-based line, UTF-16 column).
    pub fn byte_of_utf16(&self, line: u32, col: u32) -> usize {
        let Some(&start) = self.line_starts.get(line as usize) else {
            return self.text.len();
        };
        let end = self
            .line_starts
            .get(line as usize + 1)
            .map_or(self.text.len(), |&e| e);
        let mut units = 0u32;
        for (i, c) in self.text[start..end].char_indices() {
            if units >= col {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        end
    }

    /// The byte span of a recording range.
    pub fn bytes_of(&self, r: &SourceRange) -> (usize, usize) {
        (
            self.byte_of_utf16(r.start_line, r.start_col),
            self.byte_of_utf16(r.end_line, r.end_col),
        )
    }

    /// Text of the 0-based line, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        let Some(&start) = self.line_starts.get(line as usize) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line as usize + 1)
            .map_or(self.text.len(), |&e| e - 1);
        self.text.get(start..end.max(start)).unwrap_or("")
    }
}

/// Length of a string in UTF-16 code units: one per character, two for those outside the BMP
/// (the ones UTF-8 writes in four bytes). Counted per byte, which the compiler vectorizes.
fn utf16_len(s: &str) -> usize {
    s.bytes()
        .map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_conversions_round_trip() {
        let s = Source::new("a\n𝔽 x\n");
        let b = s.text.find('x').unwrap();
        assert_eq!(s.utf16_at(b), (1, 3));
        assert_eq!(s.byte_of_utf16(1, 3), b);
        assert_eq!(s.byte_of(Position { line: 2, column: 2 }), Some(b));
        assert_eq!(s.line_text(1), "𝔽 x");
    }

    #[test]
    fn utf16_lengths() {
        for text in [
            "",
            "abc",
            "é",
            "✅️",
            "𝔽",
            "a𝔽é✅️\u{10FFFF}\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}",
        ] {
            assert_eq!(utf16_len(text), text.encode_utf16().count(), "{text:?}");
        }
    }
}
