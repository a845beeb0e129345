//! The job summary of a revision run: GitHub-flavoured Markdown for a CI
//! run's page (`revisions run --summary FILE`, which GitHub Actions reads
//! from `$GITHUB_STEP_SUMMARY`). Regressions come first, per file and then
//! per declaration of the flagged files; every file's declarations and the
//! tactics follow in collapsible `<details>` blocks; the flag and noise rule
//! used is said. A run that did not measure (a refused plan, no toolchain)
//! or failed says what happened: the summary is never empty.
//!
//! Beside it, `--outputs FILE` appends `name=value` lines (the format of
//! `$GITHUB_OUTPUT`): `state`, `regressions` (flagged files) and `report`.

use std::collections::BTreeMap;
use std::path::Path;

use super::profile::{MatchedRow, OneSideRow, ProfileDiff};
use super::report::{
    cell, cpu_cell, flag_rule, ms_of_ns, ratio_cell, signed_ms_of_ns, signed_secs, verdict_cell,
    FileReport, Report, State,
};

/// Declarations listed per flagged file in the regressions section.
const REGRESSION_ROWS: usize = 10;

/// What a run came to.
pub enum Outcome<'a> {
    /// A report was written (complete, no changes, or error).
    Report(&'a Report),
    /// Nothing was measured: the plan was refused, no toolchain was found,
    /// an option was bad. `reason` is the error leanscope printed.
    NotRun { reason: &'a str },
}

/// The summary's Markdown.
pub fn summary(outcome: &Outcome) -> String {
    match outcome {
        Outcome::NotRun { reason } => format!(
            "## leanscope: not measured\n\n**leanscope could not measure this change:** {}\n\nNo file was measured, so there is no comparison.\n",
            inline(reason)
        ),
        Outcome::Report(r) => report_summary(r),
    }
}

/// `name=value` lines for the step's outputs.
pub fn outputs(outcome: &Outcome, report_path: &Path) -> String {
    match outcome {
        Outcome::NotRun { .. } => "state=not_run\nregressions=0\nreport=\n".into(),
        Outcome::Report(r) => format!(
            "state={}\nregressions={}\nreport={}\n",
            state_name(r.state),
            r.flagged,
            report_path.display()
        ),
    }
}

pub(crate) fn state_name(s: State) -> &'static str {
    match s {
        State::Complete => "complete",
        State::NoChanges => "no_changes",
        State::Error => "error",
    }
}

/// Text on one line, safe inside Markdown prose (no HTML, no table bars).
pub(crate) fn inline(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
}

fn short(c: &str) -> String {
    c.chars().take(7).collect()
}

fn report_summary(r: &Report) -> String {
    let part = match (&r.shard, r.merged_runs.len()) {
        (Some(spec), _) => format!(" (shard {} of {}: its files only)", spec.index, spec.count),
        (None, n) if n > 0 => format!(" ({n} shards merged)"),
        _ => String::new(),
    };
    let mut s = format!(
        "## leanscope: base {} → head {}{part}\n\n",
        short(&r.revisions.merge_base),
        short(&r.revisions.head)
    );
    match r.state {
        State::NoChanges => {
            s.push_str("**No changes:** this pull request changes no library `.lean` file, so nothing was measured.\n");
            return s;
        }
        State::Error => {
            s.push_str(&format!(
                "**The run failed:** {}\n\nNo comparison is made from a partial run. Samples taken before it stopped: {} (kept in the workspace's `raw/`).\n",
                inline(r.error.as_deref().unwrap_or("the run failed")),
                r.samples.len()
            ));
            return s;
        }
        State::Complete => {}
    }
    let flagged: Vec<&FileReport> = r.files.iter().filter(|f| f.flagged).collect();
    s.push_str(&format!("### Regressions: {}\n\n", flagged.len()));
    if flagged.is_empty() {
        s.push_str(&format!(
            "No file is flagged among the {} measured.\n\n",
            r.files.len()
        ));
    } else {
        files_table(&mut s, &flagged);
        if let Some(p) = &r.profile {
            for f in &flagged {
                flagged_declarations(&mut s, p, &f.path);
            }
        }
    }
    let all: Vec<&FileReport> = r.files.iter().collect();
    s.push_str(&format!(
        "<details><summary>All {} measured files</summary>\n\n",
        all.len()
    ));
    files_table(&mut s, &all);
    s.push_str("</details>\n\n");
    if let Some(p) = &r.profile {
        declarations_by_file(&mut s, p);
        tactics(&mut s, p);
    }
    s.push_str(&format!("**The rule.** {}", flag_rule(r)));
    if r.repeat > 1 {
        s.push_str(&format!(
            " {} samples per side; medians are compared.",
            r.repeat
        ));
    } else {
        s.push_str(" One sample per side: the noise rule needs `repeat` ≥ 2.");
    }
    s.push_str(&format!(
        " Flags are advisory.\n\n**Measurement.** {}\n",
        inline(&r.measure_note)
    ));
    s
}

fn files_table(s: &mut String, files: &[&FileReport]) {
    s.push_str("| file | status | base CPU s | head CPU s | ratio | change CPU s | verdict |\n|---|---|---:|---:|---:|---:|---|\n");
    for f in files {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} |\n",
            f.path,
            f.status.as_str(),
            cpu_cell(&f.base),
            cpu_cell(&f.head),
            ratio_cell(f.ratio),
            f.change_cpu_ms.map_or("—".into(), signed_secs),
            verdict_cell(f, "**regression**", "ok")
        ));
    }
    s.push('\n');
}

/// The declarations of a flagged file that grew most, and its new ones.
fn flagged_declarations(s: &mut String, p: &ProfileDiff, file: &str) {
    let grown: Vec<&MatchedRow> = p
        .declarations
        .matched
        .iter()
        .filter(|m| m.file == file && m.change_ns > 0)
        .take(REGRESSION_ROWS)
        .collect();
    let new: Vec<&OneSideRow> = p
        .declarations
        .new
        .iter()
        .filter(|m| m.file == file)
        .take(REGRESSION_ROWS)
        .collect();
    if grown.is_empty() && new.is_empty() {
        return;
    }
    s.push_str(&format!(
        "Declarations of `{file}` that grew (ms of the median sample's profile):\n\n"
    ));
    s.push_str("| declaration | base ms | head ms | change ms |\n|---|---:|---:|---:|\n");
    for m in grown {
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            cell(&m.name),
            ms_of_ns(m.base_ns),
            ms_of_ns(m.head_ns),
            signed_ms_of_ns(m.change_ns)
        ));
    }
    for n in new {
        s.push_str(&format!(
            "| {} (new) | — | {} | +{} |\n",
            cell(&n.name),
            ms_of_ns(n.ns),
            ms_of_ns(n.ns)
        ));
    }
    s.push('\n');
}

/// One `<details>` per file: its declarations in both sides (largest
/// change first), new, removed and renamed.
fn declarations_by_file(s: &mut String, p: &ProfileDiff) {
    let d = &p.declarations;
    let mut files: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut change: BTreeMap<&str, i64> = BTreeMap::new();
    for m in &d.matched {
        files.entry(&m.file).or_default().push(format!(
            "| {} | {} | {} | {} |",
            cell(&m.name),
            ms_of_ns(m.base_ns),
            ms_of_ns(m.head_ns),
            signed_ms_of_ns(m.change_ns)
        ));
        *change.entry(&m.file).or_default() += m.change_ns;
    }
    for (rows, label, is_new) in [(&d.new, "new", true), (&d.removed, "removed", false)] {
        for r in rows {
            let (base, head, c) = if is_new {
                ("—".to_string(), ms_of_ns(r.ns), r.ns as i64)
            } else {
                (ms_of_ns(r.ns), "—".to_string(), -(r.ns as i64))
            };
            files.entry(&r.file).or_default().push(format!(
                "| {} ({label}) | {base} | {head} | {} |",
                cell(&r.name),
                signed_ms_of_ns(c)
            ));
            *change.entry(&r.file).or_default() += c;
        }
    }
    for r in &d.renamed {
        files.entry(&r.file).or_default().push(format!(
            "| {} (renamed from {}) | {} | {} | {} |",
            cell(&r.head_name),
            cell(&r.base_name),
            ms_of_ns(r.base_ns),
            ms_of_ns(r.head_ns),
            signed_ms_of_ns(r.change_ns)
        ));
        *change.entry(&r.file).or_default() += r.change_ns;
    }
    let c = &d.counts;
    s.push_str(&format!(
        "### Declarations\n\n{} in both sides, {} new, {} removed, {} renamed; total time in ms of each file's median sample.{}\n\n",
        c.matched,
        c.new,
        c.removed,
        c.renamed,
        if c.matched + c.new + c.removed + c.renamed > listed(p) {
            " Only the largest changes are listed; `report.json` counts them all."
        } else {
            ""
        }
    ));
    for (file, rows) in &files {
        s.push_str(&format!(
            "<details><summary><code>{}</code>: {} declaration(s), {} ms</summary>\n\n| declaration | base ms | head ms | change ms |\n|---|---:|---:|---:|\n",
            inline(file),
            rows.len(),
            signed_ms_of_ns(change[file])
        ));
        for row in rows {
            s.push_str(row);
            s.push('\n');
        }
        s.push_str("\n</details>\n\n");
    }
}

fn listed(p: &ProfileDiff) -> u64 {
    let d = &p.declarations;
    (d.matched.len() + d.new.len() + d.removed.len() + d.renamed.len()) as u64
}

/// The tactics that changed most, collapsed.
fn tactics(s: &mut String, p: &ProfileDiff) {
    let t = &p.tactics;
    if t.matched.is_empty() && t.new.is_empty() && t.removed.is_empty() {
        return;
    }
    s.push_str(&format!(
        "<details><summary>Tactics: {} in both sides, {} new, {} removed</summary>\n\n| file | tactic | declaration | base ms | head ms | change ms |\n|---|---|---|---:|---:|---:|\n",
        t.counts.matched, t.counts.new, t.counts.removed
    ));
    let decl = |d: &Option<String>, l: Option<u32>| match (d, l) {
        (Some(d), Some(l)) => format!("{} line {l}", cell(d)),
        (Some(d), None) => cell(d),
        _ => "—".into(),
    };
    for m in t.matched.iter().take(REGRESSION_ROWS * 2) {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            m.file,
            cell(&m.name),
            decl(&m.declaration, m.line),
            ms_of_ns(m.base_ns),
            ms_of_ns(m.head_ns),
            signed_ms_of_ns(m.change_ns)
        ));
    }
    for (rows, label) in [(&t.new, "new"), (&t.removed, "removed")] {
        for r in rows.iter().take(REGRESSION_ROWS) {
            let (b, h) = if label == "new" {
                ("—".to_string(), ms_of_ns(r.ns))
            } else {
                (ms_of_ns(r.ns), "—".to_string())
            };
            s.push_str(&format!(
                "| `{}` | {} ({label}) | {} | {b} | {h} | — |\n",
                r.file,
                cell(&r.name),
                decl(&r.declaration, r.line)
            ));
        }
    }
    s.push_str("\n</details>\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_did_not_measure_says_why() {
        let s = summary(&Outcome::NotRun {
            reason: "refused: lean-toolchain differs <between> the | sides",
        });
        assert!(s.contains("not measured"));
        assert!(s.contains("refused: lean-toolchain differs &lt;between&gt; the \\| sides"));
        let o = outputs(
            &Outcome::NotRun { reason: "x" },
            Path::new("/w/report.json"),
        );
        assert_eq!(o, "state=not_run\nregressions=0\nreport=\n");
    }

    #[test]
    fn inline_text_keeps_one_line() {
        assert_eq!(inline("a\n  b\tc"), "a b c");
    }
}
