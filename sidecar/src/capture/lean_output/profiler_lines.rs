//! Output of `-Dprofiler=true`.
//!
//! - `<category> took <time>` or `<category> of <declaration> took <time>`, one per line, printed
//!   when a `profileit` section's exclusive time reaches `profiler.threshold`. Inside a command
//!   Lean captures them (`stderrAsMessages`) into an information message at the command's start
//!   (`endPos` is `null`, `data` holds one or more lines); outside commands (`import`, kernel
//!   checks of async theorems) they go to stderr.
//! - At exit, on stderr: `cumulative profiling times:` followed by one `\t<category> <time>` line
//!   per category, sorted by category, summing every measurement (also those under threshold).
//!
//! `<time>` is C++ `setprecision(3)` output: `ms` below one second, `s` from one second on,
//! three significant digits, scientific for large values (`173ms`, `12.3ms`, `1e+03ms`,
//! `4.5s`, `1.23e+03s`).

use crate::decimal::decimal_to_ns;
use crate::limits::MAX_CUMULATIVE_ENTRIES;

/// The line that starts the cumulative block.
pub const CUMULATIVE_HEADER: &str = "cumulative profiling times:";

/// One `… took …` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfilerLine {
    /// e.g. `tactic execution`, `elaboration`, `type checking`, `import`.
    pub category: String,
    /// The `of …` part, e.g. `Lean.Parser.Tactic.omega` for tactic execution.
    pub declaration: Option<String>,
    pub nanoseconds: u64,
}

/// One line of the `cumulative profiling times:` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CumulativeTime {
    pub category: String,
    pub nanoseconds: u64,
}

/// Everything the profiler printed on stderr, with the lines it did not recognise.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StderrReport {
    pub took: Vec<ProfilerLine>,
    /// `None` when the block is missing (Lean was killed, or `profiler` was off).
    pub cumulative: Option<Vec<CumulativeTime>>,
    /// Other lines, in order (panics, `uncaught exception: …`, user output, …).
    pub other: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfilerLinesError {
    #[error("line {line}: malformed `cumulative profiling times` entry {text:?}")]
    MalformedCumulativeEntry { line: usize, text: String },
    #[error("line {line}: more than {limit} cumulative profiling entries")]
    TooManyCumulativeEntries { line: usize, limit: usize },
}

/// Parses `<number>ms` / `<number>s` as printed by `display_profiling_time`.
pub fn parse_profiling_time(text: &str) -> Option<u64> {
    if let Some(number) = text.strip_suffix("ms") {
        decimal_to_ns(number, 6)
    } else if let Some(number) = text.strip_suffix('s') {
        decimal_to_ns(number, 9)
    } else {
        None
    }
}

/// Parses one `… took …` line; `None` if the line is anything else.
pub fn parse_took_line(line: &str) -> Option<ProfilerLine> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let (subject, time) = line.rsplit_once(" took ")?;
    let nanoseconds = parse_profiling_time(time)?;
    if subject.is_empty() {
        return None;
    }
    let (category, declaration) = match subject.split_once(" of ") {
        Some((category, decl)) if !category.is_empty() && !decl.is_empty() => {
            (category, Some(decl.to_string()))
        }
        _ => (subject, None),
    };
    Some(ProfilerLine {
        category: category.to_string(),
        declaration,
        nanoseconds,
    })
}

/// The `… took …` lines of a text (e.g. the `data` of a captured-output message), skipping
/// other lines.
#[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
pub fn parse_took_lines(text: &str) -> Vec<ProfilerLine> {
    text.lines().filter_map(parse_took_line).collect()
}

/// What one line of Lean's profiler output is, read with [`ProfilerLineReader`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfilerLineKind {
    /// `… took …`.
    Took(ProfilerLine),
    /// `cumulative profiling times:`.
    CumulativeHeader,
    /// `\t<category> <time>` inside the cumulative block.
    Cumulative(CumulativeTime),
    /// Anything else (it also ends a cumulative block).
    Other,
}

/// Reads profiler output one line at a time (the one reader of this format: Lean's stderr in a
/// capture, and any log `leanscope import` reads). Line numbers are the caller's, 1-based.
#[derive(Debug, Default)]
pub struct ProfilerLineReader {
    in_block: bool,
    entries: usize,
}

impl ProfilerLineReader {
    /// Classifies `line` (without its newline), given what came before it.
    pub fn line(
        &mut self,
        number: usize,
        line: &str,
    ) -> Result<ProfilerLineKind, ProfilerLinesError> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line == CUMULATIVE_HEADER {
            self.in_block = true;
            self.entries = 0;
            return Ok(ProfilerLineKind::CumulativeHeader);
        }
        if self.in_block {
            if let Some(body) = line.strip_prefix('\t') {
                let parsed = body
                    .rsplit_once(' ')
                    .and_then(|(category, time)| Some((category, parse_profiling_time(time)?)))
                    .filter(|(category, _)| !category.is_empty());
                let Some((category, nanoseconds)) = parsed else {
                    return Err(ProfilerLinesError::MalformedCumulativeEntry {
                        line: number,
                        text: line.to_string(),
                    });
                };
                if self.entries >= MAX_CUMULATIVE_ENTRIES {
                    return Err(ProfilerLinesError::TooManyCumulativeEntries {
                        line: number,
                        limit: MAX_CUMULATIVE_ENTRIES,
                    });
                }
                self.entries += 1;
                return Ok(ProfilerLineKind::Cumulative(CumulativeTime {
                    category: category.to_string(),
                    nanoseconds,
                }));
            }
            self.in_block = false;
        }
        Ok(match parse_took_line(line) {
            Some(took) => ProfilerLineKind::Took(took),
            None => ProfilerLineKind::Other,
        })
    }
}

/// Parses Lean's stderr: `took` lines, the cumulative block, and everything else.
pub fn parse_stderr(stderr: &str) -> Result<StderrReport, ProfilerLinesError> {
    let mut report = StderrReport::default();
    let mut reader = ProfilerLineReader::default();
    for (index, line) in stderr.lines().enumerate() {
        match reader.line(index + 1, line)? {
            ProfilerLineKind::Took(took) => report.took.push(took),
            ProfilerLineKind::CumulativeHeader => report.cumulative = Some(Vec::new()),
            ProfilerLineKind::Cumulative(entry) => {
                if let Some(block) = report.cumulative.as_mut() {
                    block.push(entry);
                }
            }
            ProfilerLineKind::Other => {
                report
                    .other
                    .push(line.strip_suffix('\r').unwrap_or(line).to_string());
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::lean_output::messages::MessageReader;
    use std::path::PathBuf;

    fn fixture(case: &str, file: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/lean-output")
            .join(case)
            .join(file)
    }

    #[test]
    fn took_line_spellings() {
        let line = parse_took_line("tactic execution of Lean.Parser.Tactic.omega took 6.22ms")
            .expect("took line");
        assert_eq!(line.category, "tactic execution");
        assert_eq!(
            line.declaration.as_deref(),
            Some("Lean.Parser.Tactic.omega")
        );
        assert_eq!(line.nanoseconds, 6_220_000);
        let import = parse_took_line("import took 1.85s").expect("took line");
        assert_eq!(
            (
                import.category.as_str(),
                import.declaration,
                import.nanoseconds
            ),
            ("import", None, 1_850_000_000)
        );
        assert_eq!(
            parse_took_line("type checking took 1e+03ms").map(|l| l.nanoseconds),
            Some(1_000_000_000)
        );
        assert_eq!(
            parse_took_line(".olean serialization took 1.23e+03s").map(|l| l.nanoseconds),
            Some(1_230_000_000_000)
        );
        assert_eq!(
            parse_took_line("elaboration took 0.5ms").map(|l| l.nanoseconds),
            Some(500_000)
        );
    }

    #[test]
    fn non_profiler_lines() {
        for line in [
            "",
            "took 3ms",
            "it took forever",
            "x took 3",
            "x took ms",
            "x took -1ms",
        ] {
            assert_eq!(parse_took_line(line), None, "{line:?}");
        }
    }

    #[test]
    fn clean_fixture_stderr() {
        let stderr = std::fs::read_to_string(fixture("clean", "stderr")).expect("fixture");
        let report = parse_stderr(&stderr).expect("parses");
        assert_eq!(report.took.len(), 1);
        assert_eq!(report.took[0].category, "import");
        assert_eq!(report.took[0].nanoseconds, 118_000_000);
        let cumulative = report.cumulative.expect("cumulative block");
        let entries: Vec<_> = cumulative
            .iter()
            .map(|c| (c.category.as_str(), c.nanoseconds))
            .collect();
        assert_eq!(
            entries,
            vec![
                ("compiler new", 947_000),
                ("elaboration", 13_500_000),
                ("import", 118_000_000),
                ("parsing", 926_000),
                ("tactic execution", 30_000_000),
                ("type checking", 3_900_000),
            ]
        );
        assert!(report.other.is_empty());
    }

    #[test]
    fn async_fixture_kernel_line_on_stderr() {
        let stderr = std::fs::read_to_string(fixture("async", "stderr")).expect("fixture");
        let report = parse_stderr(&stderr).expect("parses");
        let categories: Vec<_> = report.took.iter().map(|t| t.category.as_str()).collect();
        assert_eq!(categories, vec!["import", "type checking"]);
        assert_eq!(report.took[1].nanoseconds, 1_320_000);
    }

    #[test]
    fn took_lines_in_captured_messages_match_cumulative_totals() {
        let file = std::fs::File::open(fixture("clean", "stdout")).expect("fixture");
        let mut tactic = 0u64;
        let mut count = 0;
        for message in MessageReader::new(std::io::BufReader::new(file)) {
            let message = message.expect("message");
            assert_eq!(message.end_pos, None, "captured output has no end position");
            for line in parse_took_lines(&message.data) {
                count += 1;
                if line.category == "tactic execution" {
                    tactic += line.nanoseconds;
                    assert!(line.declaration.is_some());
                }
            }
        }
        assert_eq!(count, 18);
        assert_eq!(tactic, 29_320_000);
        let stderr = std::fs::read_to_string(fixture("clean", "stderr")).expect("fixture");
        let cumulative = parse_stderr(&stderr)
            .expect("parses")
            .cumulative
            .expect("block");
        let total = cumulative
            .iter()
            .find(|c| c.category == "tactic execution")
            .map(|c| c.nanoseconds)
            .expect("tactic execution total");
        // the block sums every measurement, the lines only those over threshold (each rounded
        // to three digits), so the printed lines can only fall short by rounding
        assert!(tactic <= total + 30_000);
    }

    #[test]
    fn malformed_cumulative_entry() {
        let stderr = "cumulative profiling times:\n\telaboration 1.5ms\n\tbroken\n";
        assert_eq!(
            parse_stderr(stderr),
            Err(ProfilerLinesError::MalformedCumulativeEntry {
                line: 3,
                text: "\tbroken".to_string()
            })
        );
        let after =
            parse_stderr("cumulative profiling times:\n\tparsing 2ms\nuncaught exception: x\n")
                .expect("parses");
        assert_eq!(after.cumulative.map(|c| c.len()), Some(1));
        assert_eq!(after.other, vec!["uncaught exception: x".to_string()]);
    }

    #[test]
    fn cumulative_entry_limit_edge() {
        let mut stderr = String::from("cumulative profiling times:\n");
        for i in 0..MAX_CUMULATIVE_ENTRIES {
            stderr.push_str(&format!("\tcategory {i} 1ms\n"));
        }
        let report = parse_stderr(&stderr).expect("exactly at the limit");
        assert_eq!(
            report.cumulative.map(|c| c.len()),
            Some(MAX_CUMULATIVE_ENTRIES)
        );
        stderr.push_str("\tone more 1ms\n");
        assert!(matches!(
            parse_stderr(&stderr),
            Err(ProfilerLinesError::TooManyCumulativeEntries {
                limit: MAX_CUMULATIVE_ENTRIES,
                ..
            })
        ));
    }

    #[test]
    fn missing_block_is_none() {
        let report = parse_stderr("import took 118ms\n").expect("parses");
        assert_eq!(report.cumulative, None);
        assert_eq!(report.took.len(), 1);
    }
}
