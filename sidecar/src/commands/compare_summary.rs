//! `leanscope compare --summary FILE --outputs FILE`: what CI reads of a comparison of two
//! heartbeat sessions (`profile --from-build` of a base and a head build). The summary is
//! GitHub-flavoured Markdown (GitHub Actions reads it from `$GITHUB_STEP_SUMMARY`): the
//! declarations whose heartbeats changed, largest absolute change first, with base, head,
//! change and percentage; new and removed declarations and every file's total in collapsible
//! `<details>` blocks; what was compared, that the counts are exact, and the flag rule. The
//! outputs are `name=value` lines (`$GITHUB_OUTPUT`): `state`, `regressions` (flagged
//! declarations) and `report` (the comparison JSON, when `--json` wrote one).
//!
//! The flag rule is `compare`'s own ([`Tolerance`]): a declaration is flagged when its total
//! heartbeats grew by more than both tolerances; with the default zero tolerances, any growth.
//! The cells and the escaping are the revision report's (`revisions::report`,
//! `revisions::job_summary`), so both summaries read alike.

use std::path::Path;

use anyhow::{bail, Result};
use leanscope::interop::ImportOptions;
use recording::compare::{compare, Comparison, MatchedRow, Metric, Status, Tolerance};
use recording::summary::{GroupBy, SummaryKey};
use recording::Measure;

use super::compare::summarize_pair;
use crate::revisions::job_summary::{inline, state_name};
use crate::revisions::report::cell;

/// Changed declarations listed in the summary's first table (the comparison JSON has all).
const CHANGED_ROWS: usize = 50;
/// New, removed, and files' rows listed in each collapsible block.
const DETAIL_ROWS: usize = 100;

/// Two heartbeat sessions compared by declaration and by file, on total heartbeats.
pub struct HeartbeatComparison {
    pub declarations: Comparison,
    pub files: Comparison,
}

impl HeartbeatComparison {
    /// Compares `baseline` with `candidate`; both must be heartbeat sessions (their counts are
    /// what makes the comparison exact).
    pub fn of(baseline: &Path, candidate: &Path, tolerance: Tolerance) -> Result<Self> {
        let opts = ImportOptions { unit_ns: 1 };
        let (b, c) = summarize_pair(baseline, candidate, Some(GroupBy::Declaration), opts)?;
        for (which, s, path) in [("baseline", &b, baseline), ("candidate", &c, candidate)] {
            if s.measure != Measure::Heartbeats {
                bail!(
                    "--summary reports heartbeat sessions (`profile --from-build`), and the {which} {} measures {}: for timed revisions use `revisions run --summary`",
                    path.display(),
                    measure_word(s.measure)
                );
            }
        }
        let declarations = compare(&b, &c, Metric::TotalNs, tolerance)?;
        let (bf, cf) = summarize_pair(baseline, candidate, Some(GroupBy::File), opts)?;
        let files = compare(&bf, &cf, Metric::TotalNs, tolerance)?;
        Ok(HeartbeatComparison {
            declarations,
            files,
        })
    }

    /// Declarations whose heartbeats grew past the tolerances.
    pub fn flagged(&self) -> usize {
        self.declarations.count(Status::Regression)
    }
}

fn measure_word(m: Measure) -> &'static str {
    match m {
        Measure::Time => "time",
        Measure::Heartbeats => "heartbeats",
        Measure::Untimed => "nothing (an untimed trace)",
    }
}

/// What the two sides are called in the summary's title (`base abc1234`).
pub struct Labels<'a> {
    pub baseline: &'a str,
    pub candidate: &'a str,
}

/// The `name=value` lines of a comparison made (`report`: the comparison JSON's path).
pub fn outputs(c: &HeartbeatComparison, report: Option<&Path>) -> String {
    format!(
        "state={}\nregressions={}\nreport={}\n",
        state_name(crate::revisions::report::State::Complete),
        c.flagged(),
        report.map(|p| p.display().to_string()).unwrap_or_default()
    )
}

/// The `name=value` lines of a comparison that could not be made.
pub fn failed_outputs() -> String {
    format!(
        "state={}\nregressions=0\nreport=\n",
        state_name(crate::revisions::report::State::Error)
    )
}

/// The summary of a comparison that could not be made: the error, on one line.
pub fn failed_summary(labels: &Labels, reason: &str) -> String {
    format!(
        "## leanscope: heartbeats of {} → {}\n\n**The comparison failed:** {}\n\nNo comparison was made.\n",
        inline(labels.baseline),
        inline(labels.candidate),
        inline(reason)
    )
}

/// `name` and `file` of a row's key (a declaration's name and its source file).
fn name_and_file(key: &SummaryKey) -> (String, Option<String>) {
    match key {
        SummaryKey::Leanscope(k) => (k.name.clone(), k.file.as_deref().map(str::to_owned)),
        other => (other.label(), None),
    }
}

/// `1234567` as `1,234,567`: heartbeat counts are long.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A signed change of counts: `+1,000`, `−20`, `0`.
fn signed_count(delta: i128) -> String {
    let magnitude = count(u64::try_from(delta.unsigned_abs()).unwrap_or(u64::MAX));
    match delta.signum() {
        1 => format!("+{magnitude}"),
        -1 => format!("−{magnitude}"),
        _ => magnitude,
    }
}

/// A change in basis points as a percentage (`+12.34 %`), signed as `delta` is (a change below
/// a hundredth of a percent is still `+0.00 %`, not `0.00 %`); `—` without a base.
fn percent(change_bps: Option<i64>, delta: i128) -> String {
    match change_bps {
        None => "—".into(),
        Some(b) => {
            let sign = match delta.signum() {
                1 => "+",
                -1 => "−",
                _ => "",
            };
            let m = b.unsigned_abs();
            format!("{sign}{}.{:02} %", m / 100, m % 100)
        }
    }
}

fn verdict(s: Status) -> &'static str {
    match s {
        Status::Regression => "**flagged**",
        Status::Improvement => "fewer",
        Status::WithinTolerance => "within the tolerance",
    }
}

/// The flag rule, in one sentence.
fn rule(t: &Tolerance) -> String {
    if t.absolute == 0 && t.relative_bps == 0 {
        "A declaration is flagged when its heartbeats grew at all (no tolerance).".into()
    } else {
        format!(
            "A declaration is flagged when its heartbeats grew by more than {} and by more than {} of its base count.",
            count(t.absolute),
            percent(Some(i64::try_from(t.relative_bps).unwrap_or(i64::MAX)), 0)
        )
    }
}

/// The summary's Markdown.
pub fn summary(c: &HeartbeatComparison, labels: &Labels) -> String {
    let d = &c.declarations;
    let mut s = format!(
        "## leanscope: heartbeats of {} → {}\n\n",
        inline(labels.baseline),
        inline(labels.candidate)
    );
    let mut changed: Vec<&MatchedRow> = d.matched.iter().filter(|m| m.delta != 0).collect();
    changed.sort_by(|a, b| {
        b.delta
            .unsigned_abs()
            .cmp(&a.delta.unsigned_abs())
            .then_with(|| a.key.cmp(&b.key))
    });
    s.push_str(&format!(
        "### Declarations whose heartbeats changed: {} ({} flagged)\n\n",
        changed.len(),
        c.flagged()
    ));
    if changed.is_empty() {
        s.push_str(&format!(
            "No declaration's heartbeats changed among the {} in both builds.\n\n",
            d.matched.len()
        ));
    } else {
        s.push_str("| declaration | file | base | head | change | % | verdict |\n|---|---|---:|---:|---:|---:|---|\n");
        for m in changed.iter().take(CHANGED_ROWS) {
            let (name, file) = name_and_file(&m.key);
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                cell(&name),
                file.as_deref().map_or("—".into(), cell),
                count(m.baseline),
                count(m.candidate),
                signed_count(m.delta),
                percent(m.change_bps, m.delta),
                verdict(m.status)
            ));
        }
        if changed.len() > CHANGED_ROWS {
            s.push_str(&format!(
                "\n{} more changed; the comparison JSON lists them all.\n",
                changed.len() - CHANGED_ROWS
            ));
        }
        s.push('\n');
    }
    for (rows, title, base_side) in [
        (&d.new, "New declarations (head only)", false),
        (&d.missing, "Removed declarations (base only)", true),
    ] {
        if rows.is_empty() {
            continue;
        }
        s.push_str(&format!(
            "<details><summary>{title}: {}</summary>\n\n| declaration | file | {} |\n|---|---|---:|\n",
            rows.len(),
            if base_side { "base" } else { "head" }
        ));
        for r in rows.iter().take(DETAIL_ROWS) {
            let (name, file) = name_and_file(&r.key);
            s.push_str(&format!(
                "| {} | {} | {} |\n",
                cell(&name),
                file.as_deref().map_or("—".into(), cell),
                count(r.value)
            ));
        }
        s.push_str("\n</details>\n\n");
    }
    files(&mut s, &c.files);
    let (b_decls, c_decls) = (
        d.matched.len() + d.missing.len(),
        d.matched.len() + d.new.len(),
    );
    s.push_str(&format!(
        "**What was compared.** The heartbeats Lean counted for each declaration (elaboration and kernel checking, auxiliary declarations rolled up to the one that caused them) while building each side, as it wrote them to the `.hb.json` file beside each `.olean`: {b_decls} declarations in {} files in the base, {c_decls} in {} in the head. leanscope ran no Lean of its own: the counts are the builds' own.\n\n",
        c.files.matched.len() + c.files.missing.len(),
        c.files.matched.len() + c.files.new.len(),
    ));
    s.push_str("**The counts are exact.** Heartbeats count Lean's small allocations, not time: the same source, dependencies and toolchain give the same count on any machine, so every change above is the change's own and no noise rule applies.\n\n");
    s.push_str(&format!(
        "**The rule.** {} New and removed declarations are listed, not flagged. Flags are advisory.\n",
        rule(&d.tolerance)
    ));
    s
}

/// A file's row: its path, base and head totals (`None` on the side without it), the change
/// and the change in basis points.
type FileRow = (String, Option<u64>, Option<u64>, i128, Option<i64>);

/// Every file's total heartbeats, changed ones first, collapsed.
fn files(s: &mut String, f: &Comparison) {
    let mut rows: Vec<FileRow> = Vec::new();
    for m in &f.matched {
        rows.push((
            name_and_file(&m.key).0,
            Some(m.baseline),
            Some(m.candidate),
            m.delta,
            m.change_bps,
        ));
    }
    for r in &f.new {
        rows.push((
            name_and_file(&r.key).0,
            None,
            Some(r.value),
            i128::from(r.value),
            None,
        ));
    }
    for r in &f.missing {
        rows.push((
            name_and_file(&r.key).0,
            Some(r.value),
            None,
            -i128::from(r.value),
            None,
        ));
    }
    if rows.is_empty() {
        return;
    }
    rows.sort_by(|a, b| {
        b.3.unsigned_abs()
            .cmp(&a.3.unsigned_abs())
            .then_with(|| a.0.cmp(&b.0))
    });
    let changed = rows.iter().filter(|r| r.3 != 0).count();
    s.push_str(&format!(
        "<details><summary>Files: {changed} of {} changed</summary>\n\n| file | base | head | change | % |\n|---|---:|---:|---:|---:|\n",
        rows.len()
    ));
    let side = |v: Option<u64>| v.map_or("—".into(), count);
    for (name, b, h, delta, bps) in rows.iter().take(DETAIL_ROWS) {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            cell(name),
            side(*b),
            side(*h),
            signed_count(*delta),
            percent(*bps, *delta)
        ));
    }
    if rows.len() > DETAIL_ROWS {
        s.push_str(&format!(
            "\n{} more files; the comparison JSON lists them all.\n",
            rows.len() - DETAIL_ROWS
        ));
    }
    s.push_str("\n</details>\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use recording::compare::UnmatchedRow;
    use recording::summary::LeanscopeKey;

    fn key(name: &str, file: &str) -> SummaryKey {
        let mut k = LeanscopeKey::named(name);
        k.file = Some(file.into());
        SummaryKey::Leanscope(k)
    }

    fn matched(t: &Tolerance, name: &str, file: &str, b: u64, c: u64) -> MatchedRow {
        MatchedRow {
            key: key(name, file),
            status: t.classify(b, c),
            baseline: b,
            candidate: c,
            delta: i128::from(c) - i128::from(b),
            change_bps: recording::compare::change_bps(b, c),
            baseline_calls: 1,
            candidate_calls: 1,
        }
    }

    fn comparison(t: Tolerance) -> HeartbeatComparison {
        let decls = Comparison {
            metric: Metric::TotalNs,
            tolerance: t,
            matched: vec![
                matched(&t, "Demo.same", "Demo/A.lean", 300, 300),
                matched(&t, "Demo.small", "Demo/A.lean", 1_000, 1_020),
                matched(&t, "Demo.big", "Demo/B.lean", 5_700, 9_700),
                matched(&t, "Demo.less", "Demo/B.lean", 2_000, 1_000),
            ],
            missing: vec![UnmatchedRow {
                key: key("Demo.gone", "Demo/A.lean"),
                value: 77,
                calls: 1,
            }],
            new: vec![UnmatchedRow {
                key: key("Demo.fresh", "Demo/B.lean"),
                value: 1_234_567,
                calls: 1,
            }],
        };
        let files = Comparison {
            metric: Metric::TotalNs,
            tolerance: t,
            matched: vec![
                matched(&t, "Demo/A.lean", "Demo/A.lean", 1_377, 1_320),
                matched(&t, "Demo/B.lean", "Demo/B.lean", 7_700, 1_245_267),
            ],
            missing: vec![],
            new: vec![],
        };
        HeartbeatComparison {
            declarations: decls,
            files,
        }
    }

    const LABELS: Labels = Labels {
        baseline: "base abc1234",
        candidate: "head def5678",
    };

    #[test]
    fn changed_declarations_come_first_by_absolute_change_with_exact_counts() {
        let c = comparison(Tolerance::default());
        let s = summary(&c, &LABELS);
        assert!(s.starts_with("## leanscope: heartbeats of base abc1234 → head def5678\n"));
        assert!(s.contains("### Declarations whose heartbeats changed: 3 (2 flagged)"));
        let big = s
            .find(
                "| `Demo.big` | `Demo/B.lean` | 5,700 | 9,700 | +4,000 | +70.17 % | **flagged** |",
            )
            .expect(&s);
        let less = s
            .find("| `Demo.less` | `Demo/B.lean` | 2,000 | 1,000 | −1,000 | −50.00 % | fewer |")
            .expect(&s);
        let small = s
            .find("| `Demo.small` | `Demo/A.lean` | 1,000 | 1,020 | +20 | +2.00 % | **flagged** |")
            .expect(&s);
        assert!(big < less && less < small, "{s}");
        assert!(
            !s.contains("`Demo.same` |"),
            "unchanged rows are not listed: {s}"
        );
        assert!(s.contains("New declarations (head only): 1"));
        assert!(s.contains("| `Demo.fresh` | `Demo/B.lean` | 1,234,567 |"));
        assert!(s.contains("Removed declarations (base only): 1"));
        assert!(s.contains("Files: 2 of 2 changed"));
        assert!(
            s.contains("| `Demo/B.lean` | 7,700 | 1,245,267 | +1,237,567 | +16072.29 % |"),
            "{s}"
        );
        assert!(s.contains("5 declarations in 2 files in the base, 5 in 2 in the head"));
        assert!(s.contains("The counts are exact."));
        assert!(s.contains("grew at all (no tolerance)"));
        assert_eq!(
            outputs(&c, Some(Path::new("/w/comparison.json"))),
            "state=complete\nregressions=2\nreport=/w/comparison.json\n"
        );
    }

    #[test]
    fn the_tolerances_decide_what_is_flagged_and_are_said() {
        let t = Tolerance {
            absolute: 100,
            relative_bps: 500,
        };
        let c = comparison(t);
        assert_eq!(c.flagged(), 1);
        let s = summary(&c, &LABELS);
        assert!(s.contains("changed: 3 (1 flagged)"), "{s}");
        assert!(
            s.contains("| +20 | +2.00 % | within the tolerance |"),
            "{s}"
        );
        assert!(s.contains("grew by more than 100 and by more than 5.00 % of its base count"));
        assert_eq!(
            outputs(&c, None),
            "state=complete\nregressions=1\nreport=\n"
        );
    }

    #[test]
    fn nothing_changed_says_so() {
        let t = Tolerance::default();
        let c = HeartbeatComparison {
            declarations: Comparison {
                metric: Metric::TotalNs,
                tolerance: t,
                matched: vec![matched(&t, "Demo.same", "Demo/A.lean", 300, 300)],
                missing: vec![],
                new: vec![],
            },
            files: Comparison {
                metric: Metric::TotalNs,
                tolerance: t,
                matched: vec![matched(&t, "Demo/A.lean", "Demo/A.lean", 300, 300)],
                missing: vec![],
                new: vec![],
            },
        };
        let s = summary(&c, &LABELS);
        assert!(s.contains("changed: 0 (0 flagged)"));
        assert!(s.contains("No declaration's heartbeats changed among the 1 in both builds."));
        assert!(s.contains("Files: 0 of 1 changed"));
    }

    #[test]
    fn a_failure_is_one_escaped_line_and_an_error_state() {
        let s = failed_summary(&LABELS, "cannot read <x>\n | y");
        assert!(s.contains("**The comparison failed:** cannot read &lt;x&gt; \\| y"));
        assert_eq!(failed_outputs(), "state=error\nregressions=0\nreport=\n");
    }

    #[test]
    fn counts_and_percentages() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000), "1,000");
        assert_eq!(count(320_000_000), "320,000,000");
        assert_eq!(signed_count(-1_500), "−1,500");
        assert_eq!(signed_count(0), "0");
        assert_eq!(percent(Some(5), 1), "+0.05 %");
        assert_eq!(percent(Some(0), 1), "+0.00 %");
        assert_eq!(percent(Some(0), 0), "0.00 %");
        assert_eq!(percent(Some(-12_345), -7), "−123.45 %");
        assert_eq!(percent(None, 3), "—");
    }
}
