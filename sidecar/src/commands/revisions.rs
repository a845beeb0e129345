//! `leanscope revisions plan`: which `.lean` files a change touches, from
//! Git objects only (no checkout, no Lean, no network); `revisions run`:
//! measure both sides of that plan, file by file.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::capture::project::find_lake;
use crate::exit;
use crate::revisions::job_summary::{self, Outcome};
use crate::revisions::merge::merge;
use crate::revisions::plan::{plan, Plan, PlanRequest, DEFAULT_MAX_FILES};
use crate::revisions::report::{
    markdown, Report, State, Thresholds, DEFAULT_FLAG_ADDED_MS, DEFAULT_FLAG_MIN_INCREASE_MS,
    DEFAULT_FLAG_RATIO,
};
use crate::revisions::run::{run as run_revisions, RunRequest};
use leanscope::limits::MAX_REVISIONS_REPEAT;
use recording::session::shard::ShardSpec;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// List the .lean files that differ between the merge base of BASE
    /// and HEAD and the head, or refuse (naming the path) when a per-file
    /// measurement would be meaningless.
    Plan(PlanArgs),
    /// Measure both sides of the plan in a new workspace: build each side,
    /// elaborate each selected file under GNU time, base and head
    /// alternating, and write report.json and report.md.
    Run(RunArgs),
    /// Merge the workspaces of a sharded run (`run --shard K/N`, every
    /// shard once) into one new workspace: the report, and with --profile
    /// both sides' sessions and their diff, as one run.
    Merge(MergeArgs),
}

#[derive(clap::Args)]
pub struct MergeArgs {
    /// The shards' workspaces.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// The new folder that receives the merged run (it must not exist).
    #[arg(long)]
    workspace: PathBuf,
    /// Exit 1 when a file is flagged (flags are advisory otherwise).
    #[arg(long)]
    fail_on_flag: bool,
    #[command(flatten)]
    ci: CiFiles,
}

/// What CI reads: the job summary and the step's outputs (`revisions run`,
/// `revisions merge`, `compare`).
#[derive(clap::Args)]
pub(crate) struct CiFiles {
    /// Append the job summary (Markdown: regressions first, then the
    /// details, the rule) to FILE, whatever the outcome, also when nothing
    /// was measured or compared; for CI (GitHub Actions: $GITHUB_STEP_SUMMARY).
    #[arg(long, value_name = "FILE")]
    pub(crate) summary: Option<PathBuf>,
    /// Append `state=`, `regressions=` and `report=` lines to FILE (GitHub
    /// Actions: $GITHUB_OUTPUT), whatever the outcome.
    #[arg(long, value_name = "FILE")]
    pub(crate) outputs: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct PlanArgs {
    #[command(flatten)]
    revs: Revs,
    /// Print the plan as JSON (schemas/revisions-plan.schema.json).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    revs: Revs,
    /// The new folder that receives plan.json, base/, head/, raw/ and the
    /// reports (it must not exist).
    #[arg(long)]
    workspace: PathBuf,
    /// Samples per file and side (medians and spread when more than one).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=MAX_REVISIONS_REPEAT))]
    repeat: u64,
    /// Make each sample a leanscope capture: both sides also get sessions
    /// (WORKSPACE/profiles/base and head) and the report the
    /// per-declaration and per-tactic diff; `leanscope view WORKSPACE`
    /// opens its Diff tab.
    #[arg(long)]
    profile: bool,
    /// Seconds per sample.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    timeout_file: u64,
    /// Seconds per side for the prebuild (`lake build`).
    #[arg(long, default_value_t = 900, value_parser = clap::value_parser!(u64).range(1..))]
    timeout_build: u64,
    /// Seconds for the whole elaboration phase.
    #[arg(long, default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..))]
    timeout_total: u64,
    /// The `lake` to run (default: PATH, then ~/.elan/bin).
    #[arg(long)]
    lake: Option<PathBuf>,
    /// A modified file is flagged when head ≥ this × base (and the
    /// increase is at least --flag-min-increase-ms).
    #[arg(long, default_value_t = DEFAULT_FLAG_RATIO)]
    flag_ratio: f64,
    /// A modified file is flagged when head − base ≥ this many CPU ms (and
    /// the ratio holds).
    #[arg(long, default_value_t = DEFAULT_FLAG_MIN_INCREASE_MS)]
    flag_min_increase_ms: u64,
    /// An added file is flagged at this many CPU ms.
    #[arg(long, default_value_t = DEFAULT_FLAG_ADDED_MS)]
    flag_added_ms: u64,
    /// Exit 1 when a file is flagged (flags are advisory otherwise).
    #[arg(long)]
    fail_on_flag: bool,
    /// Measure only shard K of N of the plan's files (by path, dealt in
    /// turn), for a CI matrix; `revisions merge` puts the shards together.
    #[arg(long, value_name = "K/N", value_parser = ShardSpec::parse)]
    shard: Option<ShardSpec>,
    /// Run Lean without the bubblewrap sandbox, with your environment, files and network, and
    /// take CPU time, wall time and peak memory from leanscope's own accounting instead of GNU
    /// time. The sandbox is Linux only: on macOS and Windows a run needs this flag.
    #[arg(long)]
    unsandboxed: bool,
    #[command(flatten)]
    ci: CiFiles,
}

#[derive(clap::Args)]
struct Revs {
    /// The Git repository (any folder inside it).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// The base revision (branch, tag, commit); the measured base is its
    /// merge base with HEAD.
    #[arg(long)]
    base: String,
    /// The revision under test.
    #[arg(long)]
    head: String,
    /// Library roots, repository-relative folders or files, comma-separated
    /// (default: the source folders of lakefile.toml's default targets,
    /// else the whole repository).
    #[arg(long, value_delimiter = ',')]
    roots: Option<Vec<String>>,
    /// Refuse a change of more .lean files than this.
    #[arg(long, default_value_t = DEFAULT_MAX_FILES)]
    max_files: usize,
}

impl Revs {
    fn request(&self) -> PlanRequest<'_> {
        PlanRequest {
            repo: &self.repo,
            base: &self.base,
            head: &self.head,
            roots: self.roots.clone(),
            max_files: self.max_files,
        }
    }
}

pub fn run(args: Args) -> Result<u8> {
    match args.command {
        Sub::Plan(a) => run_plan(a),
        Sub::Run(a) => run_run(&a),
        Sub::Merge(a) => run_merge(&a),
    }
}

fn run_merge(a: &MergeArgs) -> Result<u8> {
    let report = match merge(&a.shards, &a.workspace) {
        Ok(r) => r,
        Err(e) => return not_run(&a.ci, &a.workspace, &e.to_string(), exit::USAGE),
    };
    finish(&report, &a.ci, &a.workspace, a.fail_on_flag)
}

/// Prints the report, writes the CI files, and says how the run ended.
fn finish(
    report: &Report,
    ci: &CiFiles,
    workspace: &std::path::Path,
    fail_on_flag: bool,
) -> Result<u8> {
    print!("{}", markdown(report));
    write_ci_files(ci, workspace, &Outcome::Report(report))?;
    Ok(match report.state {
        State::Error => {
            eprintln!(
                "leanscope: error: {}",
                report.error.as_deref().unwrap_or("the run failed")
            );
            exit::CAPTURE_FAILED
        }
        _ if fail_on_flag && report.flagged > 0 => exit::POLICY_FAILED,
        _ => exit::OK,
    })
}

/// Says that nothing was measured, and why, on stderr and in the CI files.
fn not_run(ci: &CiFiles, workspace: &std::path::Path, reason: &str, code: u8) -> Result<u8> {
    eprintln!("leanscope: error: {reason}");
    write_ci_files(ci, workspace, &Outcome::NotRun { reason })?;
    Ok(code)
}

/// Appends the job summary and the outputs, when asked for.
fn write_ci_files(ci: &CiFiles, workspace: &std::path::Path, outcome: &Outcome) -> Result<()> {
    let report = workspace.join("report.json");
    for (file, text) in [
        (&ci.summary, job_summary::summary(outcome)),
        (&ci.outputs, job_summary::outputs(outcome, &report)),
    ] {
        if let Some(file) = file {
            append(file, &text).with_context(|| format!("appending to {}", file.display()))?;
        }
    }
    Ok(())
}

/// Appends `text` to `file` (made when missing), as CI's summary and output files expect.
pub(crate) fn append(file: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    f.write_all(text.as_bytes())
}

fn run_run(a: &RunArgs) -> Result<u8> {
    if !(a.flag_ratio.is_finite() && a.flag_ratio >= 1.0) {
        let reason = format!("--flag-ratio {} must be a number ≥ 1", a.flag_ratio);
        return not_run(&a.ci, &a.workspace, &reason, exit::USAGE);
    }
    let lake = match find_lake(a.lake.as_deref(), None) {
        Ok(l) => l,
        Err(e) => return not_run(&a.ci, &a.workspace, &e.to_string(), exit::CAPTURE_FAILED),
    };
    let req = RunRequest {
        plan: a.revs.request(),
        workspace: &a.workspace,
        lake,
        repeat: a.repeat,
        profile: a.profile,
        timeout_file: Duration::from_secs(a.timeout_file),
        timeout_build: Duration::from_secs(a.timeout_build),
        timeout_total: Duration::from_secs(a.timeout_total),
        thresholds: Thresholds {
            ratio: a.flag_ratio,
            min_increase_ms: a.flag_min_increase_ms,
            added_ms: a.flag_added_ms,
        },
        cancel: crate::capture::CancelToken::default(),
        shard: a.shard,
        unsandboxed: a.unsandboxed,
    };
    // Ctrl-C (or a TERM) stops the running sample; the report says so.
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, req.cancel.flag())?;
    }
    let report = match run_revisions(&req, &mut |m| eprintln!("leanscope: {m}")) {
        Ok(r) => r,
        Err(e) => return not_run(&a.ci, &a.workspace, &e.to_string(), exit::USAGE),
    };
    finish(&report, &a.ci, &a.workspace, a.fail_on_flag)
}

fn run_plan(a: PlanArgs) -> Result<u8> {
    let p = match plan(&a.revs.request()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("leanscope: error: {e}");
            return Ok(exit::USAGE);
        }
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&p)?);
    } else {
        print!("{}", describe(&p));
    }
    Ok(exit::OK)
}

/// The plan for a reader: revisions with seven-character labels, then one
/// line per file.
fn describe(p: &Plan) -> String {
    let short = |c: &str| c.chars().take(7).collect::<String>();
    let mut s = format!(
        "base {} at {} (measured: merge base {})\nhead {} at {}\n",
        p.base.rev,
        short(&p.base.commit),
        short(&p.merge_base),
        p.head.rev,
        short(&p.head.commit)
    );
    if p.files.is_empty() {
        s.push_str("no library .lean file differs");
    } else {
        s.push_str(&format!("{} .lean files differ:\n", p.files.len()));
        for f in &p.files {
            s.push_str(&format!(
                "  {:<8}  {}  ({})\n",
                f.status.as_str(),
                f.path,
                f.module
            ));
        }
    }
    if p.files.is_empty() {
        s.push('\n');
    }
    s.push_str(&format!(
        "{} other changed entries not measured\nplan digest {}\n",
        p.ignored_changes, p.plan_digest
    ));
    s
}
