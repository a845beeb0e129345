//! `leanscope bench FILES… | DIR`: what profiling costs on these files, end
//! to end (see `bench`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use recording::AtomicFile;

use crate::bench::host::{measure, HostError};
use crate::bench::report::{report, text, Setup};
use crate::bench::schedule::schedule;
use crate::bench::{Mode, Sample};
use crate::capture::project::{find_lake, module_name, Project};
use crate::capture::DEFAULT_THRESHOLD_MS;
use crate::exit;
use crate::session::discover::discover;
use recording::limits::MAX_REPEATS;

#[derive(clap::Args)]
pub struct Args {
    /// Lean files, or folders of them, of one Lake project.
    #[arg(required = true)]
    targets: Vec<PathBuf>,
    /// Measured runs of each file in each mode.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=MAX_REPEATS as i64))]
    repeats: u32,
    /// Discarded runs of each file in each mode before the measured ones.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=MAX_REPEATS as i64))]
    warmup: u32,
    /// Write the report as JSON to this file (`-` for standard output).
    #[arg(long)]
    json: Option<PathBuf>,
    /// The lake to use for both modes (default: lake on PATH, then ~/.elan/bin/lake).
    #[arg(long)]
    lake: Option<PathBuf>,
    /// The profiled runs' threshold in milliseconds (as `profile --threshold`).
    #[arg(long, default_value_t = DEFAULT_THRESHOLD_MS)]
    threshold: u64,
    /// Stop a run (and its process group) after this many seconds; the bench then fails.
    #[arg(long, default_value_t = 1800)]
    timeout: u64,
}

/// The files of the targets, as (project-relative path, module).
fn files_of(project: &Project, targets: &[PathBuf]) -> Result<Vec<(String, String)>> {
    let mut files: Vec<(String, String)> = Vec::new();
    for t in targets {
        let inside = Project::containing(t)?;
        if inside.root != project.root {
            bail!(
                "{} is in the project {}, not in {}: bench the files of one project at a time",
                t.display(),
                inside.root.display(),
                project.root.display()
            );
        }
        if t.is_dir() {
            let dir = t
                .canonicalize()
                .with_context(|| format!("cannot read {}", t.display()))?;
            let (found, notes) =
                discover(project, &dir).with_context(|| format!("cannot list {}", t.display()))?;
            for n in notes {
                eprintln!("leanscope: note: {n}");
            }
            files.extend(found.into_iter().map(|f| (f.path, f.module)));
        } else {
            if t.extension().and_then(|e| e.to_str()) != Some("lean") {
                bail!("{} is not a .lean file or a folder", t.display());
            }
            let rel = project.relative(t).with_context(|| {
                format!("{} is not inside {}", t.display(), project.root.display())
            })?;
            let module = module_name(&rel);
            files.push((rel, module));
        }
    }
    let mut seen = std::collections::HashSet::new();
    files.retain(|(p, _)| seen.insert(p.clone()));
    if files.is_empty() {
        bail!(
            "no .lean files to bench in {}",
            targets
                .iter()
                .map(|t| t.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(files)
}

/// A run that failed ends the bench: no report from partial counts.
fn run_failed(why: &str) -> u8 {
    eprintln!("leanscope: error: {why}\nleanscope: no report was written");
    exit::CAPTURE_FAILED
}

/// The last lines of a run's stderr, for an error message.
fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(5)..].join("\n")
}

pub fn run(a: Args) -> Result<u8> {
    let project = Project::containing(&a.targets[0])?;
    let files = files_of(&project, &a.targets)?;
    let lake = find_lake(a.lake.as_deref(), project.toolchain.as_deref())?;
    let me = std::env::current_exe().context("cannot find the leanscope binary itself")?;
    let work = project.root.join(crate::capture::PROJECT_DIR);
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    let scratch = tempfile::Builder::new()
        .prefix("bench-")
        .tempdir_in(&work)
        .with_context(|| format!("cannot create a scratch folder in {}", work.display()))?;
    let cancel = Arc::new(AtomicBool::new(false));
    let term = Arc::new(AtomicBool::new(false));
    for (sig, flag) in [
        (signal_hook::consts::SIGINT, &cancel),
        (signal_hook::consts::SIGTERM, &term),
    ] {
        signal_hook::flag::register(sig, flag.clone())?;
        signal_hook::flag::register(sig, cancel.clone())?;
    }
    let timeout = Duration::from_secs(a.timeout);
    let runs = schedule(files.len(), a.repeats, a.warmup);
    eprintln!(
        "leanscope: bench of {} files: {} runs ({} repeats and {} warm-ups per file and mode), with {}",
        files.len(),
        runs.len(),
        a.repeats,
        a.warmup,
        lake.display()
    );
    let mut samples = Vec::with_capacity(runs.len());
    for (k, r) in runs.iter().enumerate() {
        let (path, _) = &files[r.file];
        let what = match r.mode {
            Mode::Plain => "plain",
            Mode::Profiled => "profiled",
        };
        let when = r
            .repeat
            .map_or("warm-up".to_string(), |n| format!("repeat {}", n + 1));
        eprintln!(
            "leanscope: run {}/{}: {path} {what} ({when})",
            k + 1,
            runs.len()
        );
        let recording = scratch.path().join(format!("run-{k}.lsrec"));
        let mut cmd = match r.mode {
            Mode::Plain => {
                let mut c = Command::new(&lake);
                c.args(["env", "lean", path.as_str()]);
                c
            }
            Mode::Profiled => {
                let mut c = Command::new(&me);
                c.args(["profile", path.as_str(), "--json", "--threshold"])
                    .arg(a.threshold.to_string())
                    .arg("--lake")
                    .arg(&lake)
                    .arg("-o")
                    .arg(&recording);
                c
            }
        };
        cmd.current_dir(&project.root);
        let err_path = scratch.path().join(format!("run-{k}.err"));
        let err = std::fs::File::create(&err_path)
            .with_context(|| format!("cannot create {}", err_path.display()))?;
        let m = match measure(&mut cmd, Stdio::from(err), timeout, &cancel) {
            Ok(m) => m,
            Err(HostError::Interrupted) => {
                eprintln!("leanscope: interrupted; the running command was stopped and no report was written");
                return Ok(if term.load(Ordering::SeqCst) {
                    exit::TERMINATED
                } else {
                    exit::INTERRUPTED
                });
            }
            Err(e) => return Ok(run_failed(&format!("{path} {what}: {e}"))),
        };
        // 0, or 1 when Lean reported errors in the file (both modes
        // elaborate it all the same).
        let code = m.status.code();
        if !matches!(code, Some(0) | Some(1)) {
            return Ok(run_failed(&format!(
                "{path} {what} failed ({}):\n{}",
                code.map_or("killed by a signal".to_string(), |c| format!(
                    "exit status {c}"
                )),
                tail(&err_path)
            )));
        }
        let leanscope_cpu_ns = match r.mode {
            Mode::Plain => None,
            Mode::Profiled => {
                let facts: serde_json::Value =
                    serde_json::from_slice(&m.stdout).with_context(|| {
                        format!(
                            "{path}: `leanscope profile --json` printed no facts:\n{}",
                            tail(&err_path)
                        )
                    })?;
                let ms = facts["overheadCpuMs"].as_f64().with_context(|| {
                    format!("{path}: `leanscope profile --json` gave no overheadCpuMs")
                })?;
                Some((ms * 1e6).round().max(0.0) as u64)
            }
        };
        let _ = std::fs::remove_file(&recording);
        let _ = std::fs::remove_file(&err_path);
        samples.push(Sample {
            file: r.file,
            mode: r.mode,
            repeat: r.repeat,
            wall_ns: m.wall_ns,
            cpu_ns: m.cpu_ns,
            leanscope_cpu_ns,
        });
    }
    let r = report(
        Setup {
            project_root: project.root.display().to_string(),
            lake: lake.display().to_string(),
            threshold_ms: a.threshold,
            repeats: a.repeats,
            warmup: a.warmup,
            files,
        },
        samples,
    );
    match a.json.as_deref() {
        Some(p) if p.as_os_str() == "-" => println!("{}", serde_json::to_string_pretty(&r)?),
        Some(p) => {
            print!("{}", text(&r));
            let (file, mut w) =
                AtomicFile::create(p).with_context(|| format!("cannot create {}", p.display()))?;
            serde_json::to_writer_pretty(&mut w, &r)?;
            std::io::Write::write_all(&mut w, b"\n")?;
            file.publish(w)?;
            println!("Bench JSON: {}", p.display());
        }
        None => print!("{}", text(&r)),
    }
    Ok(exit::OK)
}
