//! The report of a revision run: per file the base and head medians,
//! their spread, the ratio and change, and the advisory flag, as
//! `report.json` (`schemas/revisions-report.schema.json`) and
//! `report.md`.
//!
//! Flags follow the usual advisory thresholds: a modified file is flagged
//! when head ≥ ratio × base **and** head − base ≥ the minimum increase; an
//! added file when head ≥ the added-file cost; a removed file never. With
//! several samples per side, a changed median counts only when the two
//! sides' min–max ranges separate or a seeded bootstrap interval of the
//! difference of medians excludes zero (`recording::compare::noise`, the
//! rule `compare` uses for repeated captures); otherwise it is noise, never
//! flagged.

use recording::compare::noise::{self, Rule};
use recording::compare::Tolerance;
use recording::session::shard::ShardSpec;
use serde::{Deserialize, Serialize};

use super::measure::Counters;
use super::plan::{FileStatus, Plan};

/// The report format's version.
pub const REPORT_SCHEMA_VERSION: u64 = 2;
/// `--flag-ratio` by default.
pub const DEFAULT_FLAG_RATIO: f64 = 1.5;
/// `--flag-min-increase-ms` by default (30 CPU s).
pub const DEFAULT_FLAG_MIN_INCREASE_MS: u64 = 30_000;
/// `--flag-added-ms` by default (150 CPU s).
pub const DEFAULT_FLAG_ADDED_MS: u64 = 150_000;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    pub ratio: f64,
    pub min_increase_ms: u64,
    pub added_ms: u64,
}

/// The flagging rule's defaults (`revisions run` without `--flag-*`).
impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            ratio: DEFAULT_FLAG_RATIO,
            min_increase_ms: DEFAULT_FLAG_MIN_INCREASE_MS,
            added_ms: DEFAULT_FLAG_ADDED_MS,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Base,
    Head,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Base => "base",
            Side::Head => "head",
        }
    }
}

/// One measured sample, bound to its run, side and revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    pub run_id: String,
    /// 0-based, in the order the samples ran.
    pub index: u64,
    pub repeat: u64,
    pub side: Side,
    pub commit: String,
    pub path: String,
    pub counters: Counters,
    /// With `--profile`: the sample's recording, in `raw/`.
    pub recording: Option<String>,
}

/// One side of one file: its samples' CPU, the median, the spread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideSummary {
    pub samples: u64,
    pub cpu_ms: Vec<u64>,
    pub median_cpu_ms: u64,
    pub median_wall_ms: u64,
    pub max_rss_kib: u64,
    pub spread_cpu_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileReport {
    pub path: String,
    pub module: String,
    pub status: FileStatus,
    pub base: Option<SideSummary>,
    pub head: Option<SideSummary>,
    /// head / base median CPU; `null` unless modified with a non-zero base.
    pub ratio: Option<f64>,
    /// head − base median CPU; `null` unless modified.
    pub change_cpu_ms: Option<i64>,
    /// With several samples per side: the change is within the noise
    /// (`rule` is `noise`).
    pub noise: bool,
    pub flagged: bool,
    /// With several samples per side of a modified file: what decided
    /// whether its change counts (`tolerance` when the medians are equal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<Rule>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Complete,
    NoChanges,
    Error,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Revisions {
    pub base_tip: String,
    pub merge_base: String,
    pub head: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u64,
    pub advisory: bool,
    pub state: State,
    pub run_id: String,
    pub plan_digest: String,
    pub revisions: Revisions,
    /// What the comparison uses: `cpu_time` (user + system, GNU time).
    pub measure: String,
    pub measure_note: String,
    pub repeat: u64,
    pub thresholds: Thresholds,
    /// Empty unless `state` is `complete`: partial counts never enter a
    /// comparison.
    pub files: Vec<FileReport>,
    pub samples: Vec<Sample>,
    /// Why the state is `error`.
    pub error: Option<String>,
    pub flagged: u64,
    /// With `--profile` and a complete run: the per-declaration and
    /// per-tactic diff of the two sides' sessions.
    pub profile: Option<super::profile::ProfileDiff>,
    /// A shard's run (`--shard K/N`): it measured shard K of the plan's
    /// files only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardSpec>,
    /// A merged run (`revisions merge`): the shards' run ids, in shard
    /// order (each sample keeps its shard's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_runs: Vec<String>,
}

impl Report {
    /// A run's report before anything is measured: `complete`, no files,
    /// no samples.
    pub fn start(
        plan: &Plan,
        run_id: String,
        measure_note: String,
        repeat: u64,
        thresholds: Thresholds,
    ) -> Report {
        Report {
            schema_version: REPORT_SCHEMA_VERSION,
            advisory: true,
            state: State::Complete,
            run_id,
            plan_digest: plan.plan_digest.clone(),
            revisions: Revisions {
                base_tip: plan.base.commit.clone(),
                merge_base: plan.merge_base.clone(),
                head: plan.head.commit.clone(),
            },
            measure: "cpu_time".into(),
            measure_note,
            repeat,
            thresholds,
            files: Vec::new(),
            samples: Vec::new(),
            error: None,
            flagged: 0,
            profile: None,
            shard: None,
            merged_runs: Vec::new(),
        }
    }

    /// With `--profile`: writes both sides' sessions from the samples'
    /// recordings and adds their diff; a failure makes the run `error`.
    pub fn add_profile(&mut self, ws: &std::path::Path, plan: &Plan) {
        match super::profile::write_sessions(ws, plan, &self.samples)
            .and_then(|()| super::profile::diff(ws))
        {
            Ok(d) => self.profile = Some(d),
            Err(e) => {
                self.state = State::Error;
                self.error = Some(format!("the profile diff: {e}"));
                self.files.clear();
                self.flagged = 0;
            }
        }
    }
}

/// What GNU time measures, said in every report.
pub const MEASURE_NOTE: &str = "CPU time (user + system) of `lake env lean -j1 FILE` from GNU time, 10 ms resolution. One file at a time, base and head alternating; other load on the machine still disturbs CPU time.";
/// The same with `--profile`.
pub const PROFILE_MEASURE_NOTE: &str = "CPU time (user + system) of `leanscope profile FILE` (Lean with its profiler on, run through `lake env lean`, plus leanscope's capture) from GNU time, 10 ms resolution. One file at a time, base and head alternating; other load on the machine still disturbs CPU time. Declaration and tactic times are from the profile of each file's median sample.";

/// The median of `values` (nearest rank), and max − min.
fn median_spread(values: &[u64]) -> (u64, u64) {
    let mut v = values.to_vec();
    v.sort_unstable();
    if v.is_empty() {
        return (0, 0);
    }
    let n = v.len() as u64;
    let median = v[recording::model::nearest_rank(50, n) - 1];
    (median, v[v.len() - 1] - v[0])
}

fn summarize(samples: &[&Sample]) -> Option<SideSummary> {
    if samples.is_empty() {
        return None;
    }
    let cpu: Vec<u64> = samples.iter().map(|s| s.counters.cpu_ms).collect();
    let wall: Vec<u64> = samples.iter().map(|s| s.counters.wall_ms).collect();
    let (median_cpu_ms, spread_cpu_ms) = median_spread(&cpu);
    Some(SideSummary {
        samples: samples.len() as u64,
        median_cpu_ms,
        median_wall_ms: median_spread(&wall).0,
        max_rss_kib: samples
            .iter()
            .map(|s| s.counters.max_rss_kib)
            .max()
            .unwrap_or(0),
        spread_cpu_ms,
        cpu_ms: cpu,
    })
}

/// Checks that `samples` are exactly the ones the run `run_id` of `plan`
/// took, `repeat` times each: every sample bound to that run, to its
/// side's revision (base: the merge base; head: the head), to a planned
/// file that has that side (an added file has no base, a removed one no
/// head) and to a repeat of the run; no (side, file, repeat) twice and
/// none missing. The first problem, named; a comparison only ever counts
/// samples that pass.
pub fn check_samples(
    run_id: &str,
    plan: &Plan,
    repeat: u64,
    samples: &[Sample],
) -> Result<(), String> {
    use std::collections::HashSet;
    let mut seen: HashSet<(Side, &str, u64)> = HashSet::new();
    for (k, s) in samples.iter().enumerate() {
        let at = || {
            format!(
                "sample {k} ({} {}, repeat {})",
                s.side.as_str(),
                s.path,
                s.repeat + 1
            )
        };
        if s.run_id != run_id {
            return Err(format!(
                "{} is from run {}, not from this run ({run_id}): a foreign sample",
                at(),
                s.run_id
            ));
        }
        let file = plan
            .files
            .iter()
            .find(|f| f.path == s.path)
            .ok_or_else(|| {
                format!(
                    "{}: {} is not in the plan: an unexpected sample",
                    at(),
                    s.path
                )
            })?;
        let (present, commit) = match s.side {
            Side::Base => (file.base_blob.is_some(), &plan.merge_base),
            Side::Head => (file.head_blob.is_some(), &plan.head.commit),
        };
        if !present {
            return Err(format!(
                "{}: the file is {} in the plan and has no {} side: an unexpected sample",
                at(),
                file.status.as_str(),
                s.side.as_str()
            ));
        }
        if &s.commit != commit {
            return Err(format!(
                "{} was measured at {}, not at the {} revision {commit}",
                at(),
                s.commit,
                s.side.as_str()
            ));
        }
        if s.repeat >= repeat {
            return Err(format!(
                "{}: the run has {repeat} repeats: an unexpected sample",
                at()
            ));
        }
        if !seen.insert((s.side, s.path.as_str(), s.repeat)) {
            return Err(format!("{} appears twice: a duplicate sample", at()));
        }
    }
    for f in &plan.files {
        for (side, present) in [
            (Side::Base, f.base_blob.is_some()),
            (Side::Head, f.head_blob.is_some()),
        ] {
            for r in 0..repeat {
                if present && !seen.contains(&(side, f.path.as_str(), r)) {
                    return Err(format!(
                        "no sample of {} {} in repeat {}: the run is incomplete",
                        side.as_str(),
                        f.path,
                        r + 1
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The per-file comparison of a complete run.
pub fn compare(plan: &Plan, samples: &[Sample], t: &Thresholds) -> Vec<FileReport> {
    plan.files
        .iter()
        .map(|f| {
            let of = |side| {
                let s: Vec<&Sample> = samples
                    .iter()
                    .filter(|s| s.path == f.path && s.side == side)
                    .collect();
                summarize(&s)
            };
            let (base, head) = (of(Side::Base), of(Side::Head));
            let mut r = FileReport {
                path: f.path.clone(),
                module: f.module.clone(),
                status: f.status,
                ratio: None,
                change_cpu_ms: None,
                noise: false,
                flagged: false,
                rule: None,
                base,
                head,
            };
            match (f.status, &r.base, &r.head) {
                (FileStatus::Modified, Some(b), Some(h)) => {
                    let change = h.median_cpu_ms as i64 - b.median_cpu_ms as i64;
                    r.change_cpu_ms = Some(change);
                    r.ratio = (b.median_cpu_ms > 0)
                        .then(|| h.median_cpu_ms as f64 / b.median_cpu_ms as f64);
                    if b.samples > 1 && h.samples > 1 {
                        // Any change of the medians is weighed against the
                        // noise; the flag's thresholds apply after.
                        let exact = Tolerance {
                            absolute: 0,
                            relative_bps: 0,
                        };
                        let v = noise::decide(
                            &b.cpu_ms,
                            &h.cpu_ms,
                            &exact,
                            noise::DEFAULT_SEED,
                            &f.path,
                        );
                        r.rule = Some(v.rule);
                        r.noise = v.rule == Rule::Noise;
                    }
                    r.flagged = !r.noise
                        && h.median_cpu_ms as f64 >= t.ratio * b.median_cpu_ms as f64
                        && change >= t.min_increase_ms as i64;
                }
                (FileStatus::Added, _, Some(h)) => r.flagged = h.median_cpu_ms >= t.added_ms,
                _ => {}
            }
            r
        })
        .collect()
}

/// CPU milliseconds as seconds with two decimals (`12.34`).
pub(super) fn secs(ms: u64) -> String {
    format!("{}.{:02}", ms / 1000, (ms % 1000) / 10)
}

/// `report.md`: a table per file, seven-character revision labels, the
/// measurement's limits.
pub fn markdown(r: &Report) -> String {
    let short = |c: &str| c.chars().take(7).collect::<String>();
    let mut s = format!(
        "# leanscope revisions run {}\n\nbase {} (merge base of base tip {}) → head {}; state **{}**{}; advisory.\n\n",
        r.run_id,
        short(&r.revisions.merge_base),
        short(&r.revisions.base_tip),
        short(&r.revisions.head),
        match r.state {
            State::Complete => "complete",
            State::NoChanges => "no_changes",
            State::Error => "error",
        },
        if r.repeat > 1 {
            format!(", {} samples per side (medians, spread = max − min)", r.repeat)
        } else {
            String::new()
        }
    );
    if let Some(spec) = r.shard {
        s.push_str(&format!(
            "Shard {} of {}: this run measured its files of the plan only.\n\n",
            spec.index, spec.count
        ));
    } else if !r.merged_runs.is_empty() {
        s.push_str(&format!(
            "Merged from {} shards (runs {}).\n\n",
            r.merged_runs.len(),
            r.merged_runs.join(", ")
        ));
    }
    if let Some(e) = &r.error {
        s.push_str(&format!(
            "**Error:** {e}\n\nNo comparison is made from a partial run.\n\n"
        ));
    }
    if r.state == State::Complete {
        s.push_str("| file | status | base CPU s | head CPU s | base wall s | head wall s | ratio | change CPU s | spread s | flag |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for f in &r.files {
            let cpu = cpu_cell;
            let wall = |x: &Option<SideSummary>| {
                x.as_ref().map_or("—".into(), |x| secs(x.median_wall_ms))
            };
            let spread = [&f.base, &f.head]
                .iter()
                .filter_map(|x| x.as_ref().map(|x| x.spread_cpu_ms))
                .max()
                .unwrap_or(0);
            let change = f.change_cpu_ms.map_or("—".into(), signed_secs);
            let flag = verdict_cell(f, "**flagged**", "");
            s.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                f.path,
                f.status.as_str(),
                cpu(&f.base),
                cpu(&f.head),
                wall(&f.base),
                wall(&f.head),
                ratio_cell(f.ratio),
                change,
                secs(spread),
                flag
            ));
        }
        s.push('\n');
    }
    s.push_str(&flag_rule(r));
    s.push_str("\n\n");
    if let Some(p) = &r.profile {
        profile_markdown(&mut s, p);
    }
    s.push_str(&format!("Measurement: {}\n", r.measure_note));
    s
}

/// A side's median CPU seconds, `—` for a side without the file.
pub(super) fn cpu_cell(side: &Option<SideSummary>) -> String {
    side.as_ref().map_or("—".into(), |x| secs(x.median_cpu_ms))
}

/// What came of a file: `flagged` when it is, `noise` when its change is
/// within the noise, else `plain`.
pub(super) fn verdict_cell(
    f: &FileReport,
    flagged: &'static str,
    plain: &'static str,
) -> &'static str {
    if f.flagged {
        flagged
    } else if f.noise {
        "noise"
    } else {
        plain
    }
}

/// head / base as `1.25×`, `—` without a ratio.
pub(super) fn ratio_cell(ratio: Option<f64>) -> String {
    ratio.map_or("—".into(), |x| format!("{x:.2}×"))
}

/// A change of CPU milliseconds as signed seconds (`+1.20`, `−0.05`).
pub(super) fn signed_secs(c: i64) -> String {
    format!("{}{}", sign(c), secs(c.unsigned_abs()))
}

/// Nanoseconds as milliseconds with one decimal.
pub(super) fn ms_of_ns(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1e6)
}

/// A change in nanoseconds as signed milliseconds (`+3.5`, `−0.2`).
pub(super) fn signed_ms_of_ns(c: i64) -> String {
    format!("{}{}", sign(c), ms_of_ns(c.unsigned_abs()))
}

fn sign(c: i64) -> &'static str {
    if c < 0 {
        "−"
    } else {
        "+"
    }
}

/// When a file is flagged, and (with repeats) when a change is noise: one
/// sentence, said in `report.md` and in the job summary.
pub(super) fn flag_rule(r: &Report) -> String {
    format!(
        "Flags: a modified file when head ≥ {:.2}× base and ≥ +{} CPU s; an added file at ≥ {} CPU s; removed files never{}.",
        r.thresholds.ratio,
        secs(r.thresholds.min_increase_ms),
        secs(r.thresholds.added_ms),
        if r.repeat > 1 {
            "; a change whose sides' ranges overlap and whose bootstrap interval of the difference of medians holds zero is noise"
        } else {
            ""
        }
    )
}

/// Characters of a name shown in `report.md` (a tactic's text can be long).
const MARKDOWN_NAME_CHARS: usize = 60;

/// A name as one line of a Markdown table cell: code, `|` escaped, new
/// lines as spaces, cut to [`MARKDOWN_NAME_CHARS`].
pub(crate) fn cell(name: &str) -> String {
    let one_line: String = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut short: String = one_line.chars().take(MARKDOWN_NAME_CHARS).collect();
    if short.len() < one_line.len() {
        short.push('…');
    }
    format!("`{}`", short.replace('`', "'").replace('|', "\\|"))
}

/// Rows of the profile diff shown in `report.md` per list (report.json
/// has more).
const MARKDOWN_ROWS: usize = 20;

fn profile_markdown(s: &mut String, p: &super::profile::ProfileDiff) {
    let ms = ms_of_ns;
    let change = signed_ms_of_ns;
    for (title, d) in [("Declarations", &p.declarations), ("Tactics", &p.tactics)] {
        let c = &d.counts;
        s.push_str(&format!(
            "## {title} (profiled)\n\n{} in both sides, {} new, {} removed{}; total time in ms of each file's median sample ({} and {}).\n\n",
            c.matched,
            c.new,
            c.removed,
            if title == "Declarations" { format!(", {} renamed", c.renamed) } else { String::new() },
            p.base_session,
            p.head_session
        ));
        let what = |r: &Option<String>, line: Option<u32>, name: &str| match (r, line) {
            (Some(decl), Some(l)) => format!("{} ({}, line {l})", cell(name), cell(decl)),
            _ => cell(name),
        };
        if !d.matched.is_empty() {
            s.push_str(
                "| file | name | base ms | head ms | change ms |\n|---|---|---:|---:|---:|\n",
            );
            for m in d.matched.iter().take(MARKDOWN_ROWS) {
                s.push_str(&format!(
                    "| `{}` | {} | {} | {} | {} |\n",
                    m.file,
                    what(&m.declaration, m.line, &m.name),
                    ms(m.base_ns),
                    ms(m.head_ns),
                    change(m.change_ns)
                ));
            }
            s.push('\n');
        }
        for (label, rows) in [("New", &d.new), ("Removed", &d.removed)] {
            if rows.is_empty() {
                continue;
            }
            s.push_str(&format!("{label}: "));
            let list: Vec<String> = rows
                .iter()
                .take(MARKDOWN_ROWS)
                .map(|r| {
                    format!(
                        "{} in `{}` ({} ms)",
                        what(&r.declaration, r.line, &r.name),
                        r.file,
                        ms(r.ns)
                    )
                })
                .collect();
            s.push_str(&list.join(", "));
            s.push_str(".\n\n");
        }
        if !d.renamed.is_empty() {
            let list: Vec<String> = d
                .renamed
                .iter()
                .take(MARKDOWN_ROWS)
                .map(|r| {
                    format!(
                        "`{}` → `{}` in `{}` ({} → {} ms)",
                        r.base_name,
                        r.head_name,
                        r.file,
                        ms(r.base_ns),
                        ms(r.head_ns)
                    )
                })
                .collect();
            s.push_str(&format!("Renamed: {}.\n\n", list.join(", ")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::revisions::plan::{PlannedChange, Revision};
    use crate::revisions::roots::RootsFrom;

    fn plan(status: FileStatus) -> Plan {
        Plan {
            schema_version: 1,
            base: Revision {
                rev: "b".into(),
                commit: "b".repeat(40),
            },
            head: Revision {
                rev: "h".into(),
                commit: "h".repeat(40),
            },
            merge_base: "m".repeat(40),
            roots: vec![String::new()],
            roots_from: RootsFrom::Repository,
            max_files: 32,
            files: vec![PlannedChange {
                path: "A.lean".into(),
                module: "A".into(),
                status,
                base_blob: None,
                head_blob: None,
            }],
            ignored_changes: 0,
            plan_digest: String::new(),
        }
    }

    fn samples(base: &[u64], head: &[u64]) -> Vec<Sample> {
        let mk = |side, cpu_ms| Sample {
            run_id: "r".into(),
            index: 0,
            repeat: 0,
            side,
            commit: String::new(),
            path: "A.lean".into(),
            counters: Counters {
                cpu_ms,
                wall_ms: cpu_ms,
                max_rss_kib: 1,
            },
            recording: None,
        };
        base.iter()
            .map(|&c| mk(Side::Base, c))
            .chain(head.iter().map(|&c| mk(Side::Head, c)))
            .collect()
    }

    const T: Thresholds = Thresholds {
        ratio: 1.5,
        min_increase_ms: 30_000,
        added_ms: 150_000,
    };

    #[test]
    fn thresholds_at_their_edges() {
        let flag = |b: u64, h: u64| {
            compare(&plan(FileStatus::Modified), &samples(&[b], &[h]), &T)[0].flagged
        };
        assert!(flag(60_000, 90_000), "exactly 1.5× and exactly +30 s");
        assert!(flag(100_000, 150_000), "exactly 1.5×, +50 s");
        assert!(!flag(100_000, 149_990), "+50 s but just under 1.5×");
        assert!(!flag(50_000, 79_990), "1.6× but just under +30 s");
        assert!(flag(50_000, 80_000));
        let added = |h: u64| compare(&plan(FileStatus::Added), &samples(&[], &[h]), &T)[0].flagged;
        assert!(added(150_000));
        assert!(!added(149_990));
        let removed = compare(&plan(FileStatus::Removed), &samples(&[900_000], &[]), &T);
        assert!(!removed[0].flagged);
    }

    #[test]
    fn only_the_runs_own_samples_pass() {
        let mut p = plan(FileStatus::Modified);
        p.files[0].base_blob = Some("1".repeat(40));
        p.files[0].head_blob = Some("2".repeat(40));
        let good = || {
            let mut v = samples(&[10, 11], &[12, 13]);
            for (k, s) in v.iter_mut().enumerate() {
                s.repeat = (k % 2) as u64;
                s.commit = match s.side {
                    Side::Base => "m".repeat(40),
                    Side::Head => "h".repeat(40),
                };
            }
            v
        };
        assert_eq!(check_samples("r", &p, 2, &good()), Ok(()));
        let refused = |change: &dyn Fn(&mut Vec<Sample>), want: &str| {
            let mut v = good();
            change(&mut v);
            let e = check_samples("r", &p, 2, &v).unwrap_err();
            assert!(e.contains(want), "{e}");
        };
        refused(&|v| v[1].run_id = "other".into(), "a foreign sample");
        refused(&|v| v[0].path = "B.lean".into(), "not in the plan");
        refused(
            &|v| v[2].commit = "m".repeat(40),
            "not at the head revision",
        );
        refused(&|v| v[3].repeat = 2, "the run has 2 repeats");
        refused(&|v| v[1].repeat = 0, "a duplicate sample");
        refused(
            &|v| {
                v.pop();
            },
            "no sample of head A.lean in repeat 2",
        );
        // An added file has no base side to sample.
        let mut added = plan(FileStatus::Added);
        added.files[0].head_blob = Some("2".repeat(40));
        let mut v = samples(&[10], &[12]);
        for s in &mut v {
            s.commit = match s.side {
                Side::Base => "m".repeat(40),
                Side::Head => "h".repeat(40),
            };
        }
        let e = check_samples("r", &added, 1, &v).unwrap_err();
        assert!(e.contains("has no base side"), "{e}");
        assert_eq!(check_samples("r", &added, 1, &v[1..]), Ok(()));
    }

    #[test]
    fn a_change_within_the_spread_is_noise() {
        let p = plan(FileStatus::Modified);
        let r = &compare(
            &p,
            &samples(&[60_000, 100_000, 61_000], &[95_000, 96_000, 97_000]),
            &T,
        )[0];
        assert_eq!(r.base.as_ref().unwrap().median_cpu_ms, 61_000);
        assert_eq!(r.change_cpu_ms, Some(35_000));
        assert!(r.noise && !r.flagged, "35 s change, the ranges overlap");
        assert_eq!(r.rule, Some(Rule::Noise));
        let r = &compare(
            &p,
            &samples(&[60_000, 61_000, 62_000], &[95_000, 96_000, 97_000]),
            &T,
        )[0];
        assert!(!r.noise && r.flagged);
        assert_eq!(r.rule, Some(Rule::SpreadsSeparate));
        // One sample per side: no rule, the thresholds alone.
        let r = &compare(&p, &samples(&[60_000], &[95_000]), &T)[0];
        assert_eq!((r.rule, r.noise, r.flagged), (None, false, true));
    }
}
