//! `leanscope compare`: a candidate against a baseline, with tolerances.
//! Exit 0 when the policy passes, 1 on a regression or a triggered
//! `--fail-on-*`, 2 on usage errors or invalid or incomplete input.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use leanscope::interop::{Format, ImportOptions};
use recording::compare::noise::{self, compare_runs, Verdict};
use recording::compare::{
    compare, ensure_complete, Comparison, FailPolicy, Metric, Status, Tolerance, UnmatchedRow,
};
use recording::summary::{GroupBy, Summary};
use recording::AtomicFile;
use serde_json::json;

use super::compare_summary::{self, HeartbeatComparison, Labels};
use super::export::parse_group_by;
use super::inputs::{
    default_grouping, incremental_flags, repeated_session, run_summaries, summarize, Input,
};
use super::revisions::{append, CiFiles};

#[derive(clap::Args)]
pub struct Args {
    /// Recording, session folder, importable file, or summary JSON.
    baseline: PathBuf,
    /// Recording, session folder, importable file, or summary JSON.
    candidate: PathBuf,
    /// The statistic compared: total_ns, self_ns, mean_ns, median_ns, p95_ns,
    /// max_ns, min_ns, calls (and, for LeanProfiler summaries,
    /// total_heartbeats, self_heartbeats, alloc_bytes, peak_live_bytes).
    /// Default mean_ns; total_ns, the only one, with --summary or --outputs.
    #[arg(long, value_parser = parse_metric)]
    metric: Option<Metric>,
    /// Allowed increase in the metric's unit (nanoseconds for *_ns).
    #[arg(long, default_value_t = 0)]
    absolute_tolerance: u64,
    /// Allowed increase in basis points of the baseline (100 = 1 %).
    #[arg(long, default_value_t = 0)]
    relative_tolerance_bps: u64,
    /// Write comparison JSON to this file (`-` for standard output).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Fail when the candidate has rows the baseline lacks.
    #[arg(long)]
    fail_on_new: bool,
    /// Fail when the candidate lacks rows the baseline has.
    #[arg(long)]
    fail_on_missing: bool,
    /// Compare inputs with dropped events or validation issues anyway.
    #[arg(long)]
    allow_incomplete: bool,
    /// Row keys of recordings and sessions (default: declaration when they
    /// have declarations, else name).
    #[arg(long, value_parser = parse_group_by)]
    group_by: Option<GroupBy>,
    /// Nanoseconds per count of folded stacks.
    #[arg(long, default_value_t = 1)]
    unit_ns: u64,
    /// The bootstrap's seed when both inputs are repeated captures (the
    /// same seed and inputs give the same answer).
    #[arg(long, default_value_t = noise::DEFAULT_SEED)]
    seed: u64,
    /// For CI, of two heartbeat sessions (`profile --from-build` of two
    /// builds): the job summary (changed declarations first, by absolute
    /// change) and the outputs (`regressions`: declarations grown past the
    /// tolerances; `report`: the --json file).
    #[command(flatten)]
    ci: CiFiles,
    /// What the summary calls the baseline (default: its path).
    #[arg(long, value_name = "TEXT")]
    baseline_label: Option<String>,
    /// What the summary calls the candidate (default: its path).
    #[arg(long, value_name = "TEXT")]
    candidate_label: Option<String>,
}

impl Args {
    /// The metric compared: as given, else `total_ns` for CI (what the summary
    /// reports), else `mean_ns`.
    fn metric(&self) -> Result<Metric> {
        let ci = self.ci.summary.is_some() || self.ci.outputs.is_some();
        match (self.metric, ci) {
            (Some(m), true) if m != Metric::TotalNs => anyhow::bail!(
                "--summary and --outputs report total heartbeats: give --metric total_ns or none, not {m}"
            ),
            (Some(m), _) => Ok(m),
            (None, true) => Ok(Metric::TotalNs),
            (None, false) => Ok(Metric::MeanNs),
        }
    }
}

/// `view` and `publish`: a diff view against a baseline.
#[derive(clap::Args)]
pub struct DiffArgs {
    /// Also show a diff view of TARGET (the candidate) against this
    /// baseline: a recording, session folder, importable file or summary.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// The statistic the diff view compares (see `compare --metric`).
    #[arg(long, value_parser = parse_metric, default_value = "total_ns", requires = "baseline")]
    pub metric: Metric,
    /// Allowed increase in the metric's unit (nanoseconds for *_ns).
    #[arg(long, default_value_t = 0, requires = "baseline")]
    pub absolute_tolerance: u64,
    /// Allowed increase in basis points of the baseline (100 = 1 %).
    #[arg(long, default_value_t = 0, requires = "baseline")]
    pub relative_tolerance_bps: u64,
    /// Row keys (default: declaration for sessions and recordings with
    /// declarations, else name).
    #[arg(long, value_parser = parse_group_by, requires = "baseline")]
    pub group_by: Option<GroupBy>,
}

impl DiffArgs {
    /// The diff document of `candidate` against the baseline, as JSON
    /// bytes, when a baseline was given.
    pub fn document(&self, candidate: &Path) -> Result<Option<Vec<u8>>> {
        let Some(baseline) = &self.baseline else {
            return Ok(None);
        };
        let tolerance = Tolerance {
            absolute: self.absolute_tolerance,
            relative_bps: self.relative_tolerance_bps,
        };
        let doc = diff_document(baseline, candidate, self.metric, tolerance, self.group_by)
            .context("cannot compare with the baseline")?;
        Ok(Some(serde_json::to_vec(&doc)?))
    }
}

pub fn parse_metric(s: &str) -> Result<Metric, String> {
    Metric::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Metric::ALL.iter().map(|m| m.as_str()).collect();
        format!("unknown metric `{s}`; expected one of {}", names.join(", "))
    })
}

/// The baseline's and the candidate's summaries, grouped alike: by the
/// given grouping, else by declaration when either is a session, else by
/// the baseline's default.
pub fn summarize_pair(
    baseline: &Path,
    candidate: &Path,
    group_by: Option<GroupBy>,
    opts: ImportOptions,
) -> Result<(Summary, Summary)> {
    let base_in = Input::classify(baseline, None::<Format>)?;
    let cand_in = Input::classify(candidate, None::<Format>)?;
    let grouping = match group_by {
        Some(g) => g,
        None if base_in.is_session() || cand_in.is_session() => GroupBy::Declaration,
        None => default_grouping(&base_in, opts)?,
    };
    let given = group_by.is_some();
    let b = summarize(&base_in, grouping, given, opts)
        .with_context(|| format!("baseline {}", baseline.display()))?;
    let c = summarize(&cand_in, grouping, given, opts)
        .with_context(|| format!("candidate {}", candidate.display()))?;
    Ok((b, c))
}

/// Two captures that differ in Lean's incremental-snapshot flags (`--lean-arg --incr-load=…`,
/// `--incr-save=…`, Lean 4.32) elaborated differently: one resumed from a snapshot or paid
/// for saving one. Their times do not compare, so `compare` refuses them, naming the flags.
fn refuse_different_incremental_runs(baseline: &Path, candidate: &Path) -> Result<()> {
    let b = incremental_flags(&Input::classify(baseline, None::<Format>)?)?;
    let c = incremental_flags(&Input::classify(candidate, None::<Format>)?)?;
    if let (Some(b), Some(c)) = (b, c) {
        if b != c {
            let said = |f: &[String]| {
                if f.is_empty() {
                    "none".to_string()
                } else {
                    f.join(", ")
                }
            };
            anyhow::bail!(
                "the baseline and the candidate were captured with different Lean incremental-snapshot flags (baseline: {}; candidate: {}): a run that loads or saves a snapshot does different work, so their times do not compare; capture both with the same --lean-arg --incr-… flags",
                said(&b),
                said(&c)
            );
        }
    }
    Ok(())
}

/// What the viewer's diff view shows (`leanscope view --baseline`, the
/// editor's Compare with Baseline): the comparison JSON of the two inputs,
/// with where they came from and why either is incomplete. Incomplete
/// inputs are compared anyway — a view refuses nothing — but said so.
pub fn diff_document(
    baseline: &Path,
    candidate: &Path,
    metric: Metric,
    tolerance: Tolerance,
    group_by: Option<GroupBy>,
) -> Result<serde_json::Value> {
    // Both sides repeated: the noise-aware rule, as `compare` applies it.
    if let Some(n) = NoiseAware::of(baseline, candidate, group_by)? {
        let mut warnings = Vec::new();
        for (which, runs) in [("baseline", &n.base_runs), ("candidate", &n.cand_runs)] {
            if let Some(e) = runs.iter().find_map(|s| ensure_complete(which, s).err()) {
                warnings.push(e.to_string());
            }
        }
        let (_, doc) = n.compare(
            metric,
            tolerance,
            noise::DEFAULT_SEED,
            &FailPolicy::default(),
            true,
        )?;
        return Ok(json!({
            "baseline": baseline.display().to_string(),
            "candidate": candidate.display().to_string(),
            "warnings": warnings,
            "comparison": doc,
        }));
    }
    let opts = ImportOptions { unit_ns: 1 };
    let (b, c) = summarize_pair(baseline, candidate, group_by, opts)?;
    let mut warnings = Vec::new();
    for (which, s) in [("baseline", &b), ("candidate", &c)] {
        if let Err(e) = ensure_complete(which, s) {
            warnings.push(e.to_string());
        }
    }
    let cmp = compare(&b, &c, metric, tolerance)?;
    Ok(json!({
        "baseline": baseline.display().to_string(),
        "candidate": candidate.display().to_string(),
        "warnings": warnings,
        "comparison": comparison_json(&cmp, &FailPolicy::default(), true, b.group_by),
    }))
}

pub fn run(a: Args) -> Result<u8> {
    if a.ci.summary.is_none() && a.ci.outputs.is_none() {
        return run_comparison(&a);
    }
    let labels = (
        a.baseline_label
            .clone()
            .unwrap_or_else(|| a.baseline.display().to_string()),
        a.candidate_label
            .clone()
            .unwrap_or_else(|| a.candidate.display().to_string()),
    );
    let labels = Labels {
        baseline: &labels.0,
        candidate: &labels.1,
    };
    // The summary and the outputs are written whatever the outcome: CI reads them.
    let (summary, outputs, result) = match ci_comparison(&a) {
        Ok((c, code)) => (
            compare_summary::summary(&c, &labels),
            compare_summary::outputs(&c, a.json.as_deref().filter(|p| p.as_os_str() != "-")),
            Ok(code),
        ),
        Err(e) => (
            compare_summary::failed_summary(&labels, &format!("{e:#}")),
            compare_summary::failed_outputs(),
            Err(e),
        ),
    };
    for (file, text) in [(&a.ci.summary, summary), (&a.ci.outputs, outputs)] {
        if let Some(file) = file {
            append(file, &text).with_context(|| format!("appending to {}", file.display()))?;
        }
    }
    result
}

/// The comparison for CI: the heartbeat comparison the summary reports, then the
/// comparison `compare` always makes (printed, `--json`), whose exit status it returns.
fn ci_comparison(a: &Args) -> Result<(HeartbeatComparison, u8)> {
    let tolerance = Tolerance {
        absolute: a.absolute_tolerance,
        relative_bps: a.relative_tolerance_bps,
    };
    a.metric()?;
    let c = HeartbeatComparison::of(&a.baseline, &a.candidate, tolerance)?;
    let code = run_comparison(a)?;
    Ok((c, code))
}

fn run_comparison(a: &Args) -> Result<u8> {
    let metric = a.metric()?;
    let tolerance = Tolerance {
        absolute: a.absolute_tolerance,
        relative_bps: a.relative_tolerance_bps,
    };
    let policy = FailPolicy {
        fail_on_new: a.fail_on_new,
        fail_on_missing: a.fail_on_missing,
    };
    refuse_different_incremental_runs(&a.baseline, &a.candidate)?;
    // Both sides repeated (`profile --repeat`): the noise-aware rule.
    if let Some(n) = NoiseAware::of(&a.baseline, &a.candidate, a.group_by)? {
        if !a.allow_incomplete {
            for s in &n.base_runs {
                ensure_complete("baseline", s)?;
            }
            for s in &n.cand_runs {
                ensure_complete("candidate", s)?;
            }
        }
        let (base_runs, cand_runs, group_by) = (n.base_runs.len(), n.cand_runs.len(), n.group_by);
        let ((cmp, verdicts), doc) =
            n.compare(metric, tolerance, a.seed, &policy, a.allow_incomplete)?;
        let print = || {
            println!(
                "Both inputs are repeated captures ({} and {} runs): a change beyond the tolerances counts when the two sides' spreads separate, or when a bootstrap interval ({} resamples, {:.0} %, seed {}) of the difference of medians excludes zero.",
                base_runs,
                cand_runs,
                noise::BOOTSTRAP_RESAMPLES,
                noise::CONFIDENCE * 100.0,
                a.seed
            );
            print_comparison(&cmp, &policy, Some(group_by));
            let noisy = verdicts
                .iter()
                .filter(|v| v.rule == noise::Rule::Noise)
                .count();
            println!(
                "Within the noise (beyond the tolerances, but neither rule holds): {noisy} row(s)."
            );
        };
        return write_comparison(a, &doc, print, cmp.policy_failed(&policy));
    }
    let opts = ImportOptions { unit_ns: a.unit_ns };
    let (baseline, candidate) = summarize_pair(&a.baseline, &a.candidate, a.group_by, opts)?;
    if !a.allow_incomplete {
        ensure_complete("baseline", &baseline)?;
        ensure_complete("candidate", &candidate)?;
    }
    let c = compare(&baseline, &candidate, metric, tolerance)?;
    let failed = c.policy_failed(&policy);
    let doc = comparison_json(&c, &policy, a.allow_incomplete, baseline.group_by);
    write_comparison(
        a,
        &doc,
        || print_comparison(&c, &policy, baseline.group_by),
        failed,
    )
}

/// Two repeated captures (`profile --repeat`) to compare by the noise-aware
/// rule: one summary per run of each side, grouped alike (by declaration
/// unless asked otherwise).
struct NoiseAware {
    base_runs: Vec<Summary>,
    cand_runs: Vec<Summary>,
    group_by: GroupBy,
}

impl NoiseAware {
    /// `None` unless both inputs are repeated sessions.
    fn of(baseline: &Path, candidate: &Path, group_by: Option<GroupBy>) -> Result<Option<Self>> {
        let (Some(b), Some(c)) = (repeated_session(baseline), repeated_session(candidate)) else {
            return Ok(None);
        };
        let group_by = group_by.unwrap_or(GroupBy::Declaration);
        Ok(Some(NoiseAware {
            base_runs: run_summaries(&b, group_by)
                .with_context(|| format!("baseline {}", baseline.display()))?,
            cand_runs: run_summaries(&c, group_by)
                .with_context(|| format!("candidate {}", candidate.display()))?,
            group_by,
        }))
    }

    /// The comparison, each matched row's verdict, and its JSON with what
    /// decided each row.
    fn compare(
        &self,
        metric: Metric,
        tolerance: Tolerance,
        seed: u64,
        policy: &FailPolicy,
        allow_incomplete: bool,
    ) -> Result<((Comparison, Vec<Verdict>), serde_json::Value)> {
        let (cmp, verdicts) =
            compare_runs(&self.base_runs, &self.cand_runs, metric, tolerance, seed)?;
        let mut doc = comparison_json(&cmp, policy, allow_incomplete, Some(self.group_by));
        add_noise(
            &mut doc,
            &verdicts,
            (self.base_runs.len(), self.cand_runs.len()),
            seed,
        );
        Ok(((cmp, verdicts), doc))
    }
}

/// Adds what decided each matched row of a noise-aware comparison: its
/// `rule`, the bootstrap `interval` and the runs per side; and the
/// method at the top.
fn add_noise(doc: &mut serde_json::Value, verdicts: &[Verdict], runs: (usize, usize), seed: u64) {
    if let Some(rows) = doc["matched"].as_array_mut() {
        for (row, v) in rows.iter_mut().zip(verdicts) {
            row["rule"] = json!(v.rule);
            row["interval"] = json!([v.interval.0, v.interval.1]);
        }
    }
    doc["noise"] = json!({
        "baseline_runs": runs.0,
        "candidate_runs": runs.1,
        "resamples": noise::BOOTSTRAP_RESAMPLES,
        "confidence": noise::CONFIDENCE,
        "seed": seed,
    });
}

/// Prints the comparison (`print`) and writes its JSON as `--json` asks;
/// the exit status says whether the policy failed.
fn write_comparison(
    a: &Args,
    doc: &serde_json::Value,
    print: impl Fn(),
    failed: bool,
) -> Result<u8> {
    match a.json.as_deref() {
        Some(p) if p.as_os_str() == "-" => {
            println!("{}", serde_json::to_string_pretty(doc)?);
        }
        Some(p) => {
            print();
            let (file, mut w) =
                AtomicFile::create(p).with_context(|| format!("cannot create {}", p.display()))?;
            serde_json::to_writer_pretty(&mut w, doc)?;
            std::io::Write::write_all(&mut w, b"\n")?;
            file.publish(w)?;
            println!("Comparison JSON: {}", p.display());
        }
        None => print(),
    }
    Ok(if failed {
        crate::exit::POLICY_FAILED
    } else {
        crate::exit::OK
    })
}

/// The comparison as JSON (`schemas/comparison.schema.json`): LeanProfiler's
/// comparison fields, plus the grouping.
pub fn comparison_json(
    c: &Comparison,
    policy: &FailPolicy,
    allow_incomplete: bool,
    group_by: Option<GroupBy>,
) -> serde_json::Value {
    let unmatched = |rows: &[UnmatchedRow]| -> Vec<serde_json::Value> {
        rows.iter()
            .map(|r| json!({"key": r.key, "value": r.value, "calls": r.calls}))
            .collect()
    };
    let matched: Vec<serde_json::Value> = c
        .matched
        .iter()
        .map(|r| {
            json!({
                "key": r.key,
                "status": r.status.as_str(),
                "baseline": r.baseline,
                "candidate": r.candidate,
                "delta": delta_json(r.delta),
                "change_bps": r.change_bps,
                "baseline_calls": r.baseline_calls,
                "candidate_calls": r.candidate_calls,
            })
        })
        .collect();
    json!({
        "schema_version": 1,
        "metric": c.metric.as_str(),
        "group_by": group_by.map(GroupBy::as_str),
        "absolute_tolerance": c.tolerance.absolute,
        "relative_tolerance_bps": c.tolerance.relative_bps,
        "has_regression": c.has_regression(),
        "matched": matched,
        "missing": unmatched(&c.missing),
        "new": unmatched(&c.new),
        "fail_on_new": policy.fail_on_new,
        "fail_on_missing": policy.fail_on_missing,
        "allow_incomplete": allow_incomplete,
        "policy_failed": c.policy_failed(policy),
    })
}

/// candidate − baseline of two u64 values as a JSON integer.
fn delta_json(d: i128) -> serde_json::Value {
    match u64::try_from(d) {
        Ok(u) => json!(u),
        Err(_) => json!(i64::try_from(d).unwrap_or(i64::MIN)),
    }
}

fn print_comparison(c: &Comparison, policy: &FailPolicy, group_by: Option<GroupBy>) {
    let (reg, imp) = (c.count(Status::Regression), c.count(Status::Improvement));
    println!(
        "Compared {} matched row(s) with metric {}{}; {reg} regression(s), {imp} improvement(s), {} within tolerance.",
        c.matched.len(),
        c.metric,
        group_by.map(|g| format!(" (grouped by {g})")).unwrap_or_default(),
        c.matched.len() - reg - imp
    );
    println!(
        "Allowed increase: {} absolute units and {} basis points. A matched increase must exceed both; a zero baseline uses the absolute allowance.",
        c.tolerance.absolute, c.tolerance.relative_bps
    );
    for r in c.matched.iter().filter(|r| r.status == Status::Regression) {
        println!(
            "Regression: {}; baseline={}, candidate={}, delta={}, {}.",
            r.key.label(),
            r.baseline,
            r.candidate,
            r.delta,
            match r.change_bps {
                Some(b) => format!("change={b} bps"),
                None => "relative change unavailable".into(),
            }
        );
    }
    for (what, rows, fails) in [
        ("New", &c.new, policy.fail_on_new),
        ("Missing", &c.missing, policy.fail_on_missing),
    ] {
        if !rows.is_empty() {
            println!(
                "{what} rows: {} ({}).",
                rows.len(),
                if fails {
                    "fails this comparison"
                } else {
                    "reported only"
                }
            );
            for r in rows.iter() {
                println!("  {}: {}", r.key.label(), r.value);
            }
        }
    }
}
