//! A place in a Lean source: the one type every event, memory mark and view holds.

use serde::{Deserialize, Serialize};

/// A source range: 0-based lines, 0-based UTF-16 columns, end-exclusive.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub struct SourceRange {
    pub start_line: u32,
    pub start_col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

impl SourceRange {
    pub fn new(start_line: u32, start_col: u32, end_line: u32, end_col: u32) -> Self {
        SourceRange {
            start_line,
            start_col,
            end_line,
            end_col,
        }
    }

    /// True when `other` lies entirely inside `self` (bounds included).
    pub fn contains(&self, other: &SourceRange) -> bool {
        (self.start_line, self.start_col) <= (other.start_line, other.start_col)
            && (other.end_line, other.end_col) <= (self.end_line, self.end_col)
    }

    /// True when the start does not come after the end.
    pub fn is_well_formed(&self) -> bool {
        (self.start_line, self.start_col) <= (self.end_line, self.end_col)
    }
}
