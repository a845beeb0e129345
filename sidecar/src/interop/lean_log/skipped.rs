//! Lines an import set aside, counted, with the first few named in the recording's notes.

use crate::limits::MAX_NAMED_LINES;

/// Lines set aside, with the first few named.
#[derive(Default)]
pub struct Skipped {
    pub count: u64,
    pub named: Vec<String>,
}

impl Skipped {
    pub fn add(&mut self, line: u64, why: String) {
        self.count += 1;
        if self.named.len() < MAX_NAMED_LINES {
            self.named.push(format!("line {line}: {why}"));
        }
    }

    /// `N what: line A: …; line B: …; and M more`, if any line was set aside.
    pub fn note(&self, what: &str) -> Option<String> {
        (self.count > 0).then(|| {
            let more = self.count - self.named.len() as u64;
            format!(
                "{} {what}: {}{}",
                self.count,
                self.named.join("; "),
                if more > 0 {
                    format!("; and {more} more")
                } else {
                    String::new()
                }
            )
        })
    }
}

/// The first 60 characters of `text`, with `…` if there were more.
pub fn excerpt(text: &str) -> String {
    let mut s: String = text.chars().take(60).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}
