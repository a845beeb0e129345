//! The stock capture: one `lean --json -D…` run in the Lake environment, its messages,
//! stderr and timed trace joined into a recording.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use recording::{
    CaptureMode, CaptureStatus, Header, Measure, NewEvent, Publish, RecordingError,
    RecordingWriter, Severity,
};

use super::declarations;
use super::events::{Event, EventSink};
use super::from_messages;
use super::from_profile;
use super::lake_env::{tail, LakeEnvironment};
use super::lean_output::lean_profile::parse_firefox_profile_file;
use super::lean_output::messages::MessageReader;
use super::lean_output::profiler_lines::parse_stderr;
use super::memory::MemorySampler;
use super::partial;
use super::placer::Placer;
use super::process::{run_watched, RunOptions};
use super::project::{find_lake, module_name, Project};
use super::source::Source;
use super::{CaptureError, CaptureRequest, CaptureResult, Progress};

/// Where leanscope writes inside a user's project (and nowhere else).
pub const PROJECT_DIR: &str = ".leanscope";

/// Lines of Lean's stderr quoted in an error.
const STDERR_QUOTED_LINES: usize = 20;

pub fn capture(
    req: &CaptureRequest,
    env: Option<&LakeEnvironment>,
    scratch: Option<&mut ProfileScratch>,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<CaptureResult, CaptureError> {
    // Measured around the whole capture, so that what happens as it ends
    // (removing Lean's profile file, freeing what was read) counts too.
    let cpu_at_start = self_cpu_ns();
    let mut result = capture_unmeasured(req, env, scratch, opts, progress)?;
    result.overhead_cpu_ms = self_cpu_ns().saturating_sub(cpu_at_start) as f64 / 1e6;
    Ok(result)
}

/// [`capture`] without the measurement of its own CPU time.
fn capture_unmeasured(
    req: &CaptureRequest,
    env: Option<&LakeEnvironment>,
    scratch: Option<&mut ProfileScratch>,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<CaptureResult, CaptureError> {
    let file = &req.file;
    if !file.is_file() {
        return Err(CaptureError::NoSuchFile(file.display().to_string()));
    }
    let project = Project::containing(file)?;
    let relative = project
        .relative(file)
        .ok_or_else(|| CaptureError::NoSuchFile(file.display().to_string()))?;
    let module = module_name(&relative);
    let source_text = std::fs::read(file)
        .map_err(|e| CaptureError::Io(format!("cannot read {}: {e}", file.display())))?;
    let source_text = String::from_utf8(source_text).map_err(|e| {
        CaptureError::BadSource(format!(
            "{} is not UTF-8 (byte {})",
            file.display(),
            e.utf8_error().valid_up_to()
        ))
    })?;
    // The session's environment, when it is this project's; else one taken for this file.
    let taken;
    let env = match env.filter(|e| e.root == project.root) {
        Some(env) => env,
        None => {
            let lake = find_lake(req.lake.as_deref(), project.toolchain.as_deref())?;
            taken = LakeEnvironment::take(&lake, &project.root, opts)?;
            &taken
        }
    };
    progress(Progress::Starting {
        module: module.clone(),
        lake: env.lake.clone(),
    });

    let version = &env.version;
    let work = project.root.join(PROJECT_DIR);
    let tmp = work.join("tmp");
    std::fs::create_dir_all(&tmp)
        .map_err(|e| CaptureError::Io(format!("cannot create {}: {e}", tmp.display())))?;
    // A worker's reused file (emptied now: what Lean leaves in it is this run's), else one
    // for this capture alone, removed when it ends.
    let (profile_path, _cleanup) = match scratch {
        Some(scratch) => (scratch.emptied_in(&tmp)?, None),
        None => {
            let path = tmp.join(profile_name());
            (path.clone(), Some(RemoveOnDrop(path)))
        }
    };
    let heartbeats = req.measure == Measure::Heartbeats;
    // A heartbeat run's profile is not read: `Profile.export` wraps the main thread's nodes
    // (heartbeats) in a `runFrontend` root timed by the clock (`IO.monoNanosNow`), so its samples
    // mix both; the trace messages carry each node's heartbeats alone.
    let mut use_profile = version.supports_profile_output() && !heartbeats;

    let threshold = req.threshold.to_string();
    let mut cmd = env.lean_command();
    cmd.arg("--json");
    cmd.arg("-Dtrace.profiler=true");
    cmd.arg(format!("-Dtrace.profiler.threshold={threshold}"));
    if heartbeats {
        cmd.arg("-Dtrace.profiler.useHeartbeats=true");
    } else {
        // `profiler` times in seconds whatever `useHeartbeats` says: only for time captures.
        cmd.arg("-Dprofiler=true");
        cmd.arg(format!("-Dprofiler.threshold={threshold}"));
    }
    if use_profile {
        cmd.arg(format!(
            "-Dtrace.profiler.output={}",
            profile_path.display()
        ));
        cmd.arg("-Dtrace.profiler.output.pp=true");
    }
    if version.has_profiler_serve() {
        // Lean 4.31's `trace.profiler.serve` would serve the profile and wait for a request
        // at the end of the run: off. A `set_option` of it in the file overrides `-D`, but
        // Lean serves only when no `trace.profiler.output` is given: a run that does not read
        // the profile (heartbeats) still names one, in the scratch file, and never reads it.
        cmd.arg("-Dtrace.profiler.serve=false");
        if !use_profile {
            cmd.arg(format!(
                "-Dtrace.profiler.output={}",
                profile_path.display()
            ));
        }
    }
    // the user's own arguments (`--lean-arg`), before the file as Lean's options go
    cmd.args(&req.lean_args);
    cmd.arg(&relative);
    let mut sampler = (!req.memory.interval.is_zero())
        .then(|| MemorySampler::new(req.memory.interval, req.memory.limit));
    let finished = run_watched(
        &mut cmd,
        opts,
        &mut |lines| progress(Progress::Running { messages: lines }),
        &mut |pid| {
            let over = sampler.as_mut()?.poll(pid)?;
            Some(super::process::Stop::MemoryLimit {
                limit: over.limit,
                reached: over.reached,
            })
        },
    )?;
    progress(Progress::Reading);
    let sampling_cpu_ms = sampler
        .as_ref()
        .map_or(0.0, |s| s.cpu_spent().as_secs_f64() * 1e3);
    let mut stop = partial::stop_of(&finished);
    // Lean writes its profile as it ends: a stopped run's is missing or cut short.
    if stop.is_some() {
        use_profile = false;
    }
    // A stopped Lean may have been cut off in the middle of a line: only whole lines count.
    let stdout: &[u8] = match (&stop, finished.stdout.iter().rposition(|&b| b == b'\n')) {
        (Some(_), Some(last)) => &finished.stdout[..=last],
        (Some(_), None) => &[],
        (None, _) => &finished.stdout,
    };
    let mut messages = Vec::new();
    for m in MessageReader::new(stdout) {
        messages
            .push(m.map_err(|e| CaptureError::BadOutput(format!("Lean's --json output, {e}")))?);
    }
    let stderr = String::from_utf8_lossy(&finished.stderr);
    let report = match parse_stderr(&stderr) {
        Ok(r) => r,
        // What a stopped Lean left on stderr may end anywhere: its profiler lines are extras.
        Err(_) if stop.is_some() => Default::default(),
        Err(e) => return Err(CaptureError::BadOutput(format!("Lean's stderr, {e}"))),
    };
    let src = Source::new(&source_text);
    let diagnostics = from_messages::diagnostics(&messages, &src);
    let has_errors = diagnostics.iter().any(|d| d.severity == Severity::Error);
    match finished.status.code() {
        _ if stop.is_some() => {}
        Some(0) => {}
        Some(1) if has_errors => {}
        code => {
            return Err(CaptureError::LeanFailed {
                status: code.map_or_else(
                    || "was killed by a signal".to_string(),
                    |c| format!("exited with code {c}"),
                ),
                stderr: tail(&stderr, STDERR_QUOTED_LINES),
            })
        }
    }
    let (decls, commands) = declarations::scan_commands(&source_text);
    let mut placer = Placer::new(
        &src,
        from_messages::command_starts(&messages, &src),
        &decls,
        &commands,
    );
    let profile_bytes = std::fs::metadata(&profile_path).map_or(0, |m| m.len());
    // Lives as long as the events, which borrow its node names.
    // An empty file is Lean writing no profile (a reused file is emptied before the run).
    let profile = if use_profile && profile_bytes > 0 && profile_path.is_file() {
        let f = std::fs::File::open(&profile_path)
            .map_err(|e| CaptureError::Io(format!("cannot read Lean's profile: {e}")))?;
        Some(parse_firefox_profile_file(f).map_err(|e| {
            CaptureError::BadOutput(format!("Lean's profile ({}): {e}", profile_path.display()))
        })?)
    } else {
        None
    };
    // A profile's events go straight to the writer (see `from_profile`); the
    // other sources are small and collected first.
    let (mut built, plan) = match &profile {
        Some(profile) => {
            let (built, plan) = from_profile::plan(profile).map_err(|e| {
                CaptureError::BadOutput(format!("Lean's profile ({}): {e}", profile_path.display()))
            })?;
            (built, Some(plan))
        }
        None => {
            let built = if heartbeats {
                let mut b = from_messages::from_traces(&messages, &mut placer, req.measure);
                if !from_messages::has_traces(&messages) {
                    b.notes.push(
                        "Lean printed no trace messages: no step used more heartbeats than the threshold".into(),
                    );
                }
                b
            } else if from_messages::has_traces(&messages) {
                let mut b = from_messages::from_traces(&messages, &mut placer, req.measure);
                if use_profile {
                    b.notes.push(
                        "Lean wrote no timed trace; times come from its trace messages".into(),
                    );
                }
                b
            } else {
                let mut b = from_messages::from_took_lines(&messages, &report.took, &mut placer);
                b.notes.push(if has_errors {
                    "Lean wrote no timed trace because the file has errors; times are the profiler's per-command totals".into()
                } else {
                    "Lean wrote no timed trace; times are the profiler's per-command totals".into()
                });
                b
            };
            (built, None)
        }
    };
    let reports = partial::reports(
        &messages,
        &partial::message_lines(stdout),
        &finished.line_times,
        &src,
        req.measure,
        from_messages::is_report,
    );
    if let Some(stop) = stop.as_mut() {
        stop.in_flight = partial::in_flight(
            &mut built,
            &reports,
            &src,
            &decls,
            &commands,
            finished.wall,
            req.measure,
        );
        built.notes.push(format!(
            "partial: {}; the recording holds what Lean had reported by then",
            stop.detail
        ));
        if let Some(f) = &stop.in_flight {
            built.notes.push(format!(
                "in flight: {} (line {}), running for {:.2} s since Lean's last report; commands Lean finished without reporting anything are not told apart",
                if f.declaration.is_empty() { &f.text } else { &f.declaration },
                f.range.start_line + 1,
                f.running_ns as f64 / 1e9
            ));
        }
    }
    let memory = sampler.filter(|s| s.has_samples()).map(|sampler| {
        let mut track = sampler.into_track();
        partial::attribute_memory(
            &mut track,
            &reports,
            &src,
            &decls,
            &commands,
            stop.as_ref().and_then(|s| s.in_flight.as_ref()),
            stop.as_ref().map(|_| finished.wall),
        );
        track
    });
    if stop.is_none() && !use_profile && !heartbeats {
        built.notes.push(format!(
            "Lean {} cannot write trace.profiler.output (added in 4.8.0); times are durations only",
            version.version
        ));
    }
    if heartbeats {
        built.notes.push(
            "measured in heartbeats (trace.profiler.useHeartbeats); Lean reports no heartbeat total for the file".into(),
        );
    } else if built.elapsed_ns.is_none() {
        built
            .notes
            .push("Lean did not report the file's elapsed time".into());
    }
    let status = if stop.is_some() {
        CaptureStatus::Stopped
    } else if has_errors {
        CaptureStatus::Error
    } else {
        CaptureStatus::Ok
    };
    let header = Header {
        schema_version: recording::SCHEMA_VERSION,
        lean_version: version.version.clone(),
        toolchain: project.toolchain.clone().unwrap_or_default(),
        capture_mode: CaptureMode::Stock,
        threshold_ns: match req.measure {
            Measure::Time | Measure::Untimed => req.threshold.saturating_mul(1_000_000),
            Measure::Heartbeats => req.threshold,
        },
        clock: built.clock,
        clock_description: built.clock_description.clone(),
        source_path: relative.clone(),
        module_name: module.clone(),
        source_sha256: String::new(),
        source_text: source_text.clone(),
        declarations: decls.clone(),
        diagnostics,
        threads: built.threads.clone(),
        elapsed_ns: built.elapsed_ns,
        status,
        created_unix_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
        producer: concat!("leanscope ", env!("CARGO_PKG_VERSION")).into(),
        notes: built.notes.clone(),
        cumulative_times: report
            .cumulative
            .iter()
            .flatten()
            .map(|c| recording::CumulativeTime {
                category: c.category.clone(),
                ns: c.nanoseconds,
            })
            .collect(),
        measure: req.measure,
        stop: stop.clone(),
        memory,
        lean_args: req.lean_args.clone(),
    };
    let out = match &req.output {
        Some(o) => o.clone(),
        None => {
            let dir = work.join("recordings");
            std::fs::create_dir_all(&dir)
                .map_err(|e| CaptureError::Io(format!("cannot create {}: {e}", dir.display())))?;
            dir.join(format!("{module}-{}.lsrec", timestamp()))
        }
    };
    progress(Progress::Writing { path: out.clone() });
    let written = match (&plan, &profile) {
        (Some(plan), Some(profile)) => write(
            &out,
            req.publish,
            &header,
            (profile.node_count(), profile.name_bytes()),
            |sink| from_profile::events(plan, &mut placer, sink),
        ),
        _ => {
            let collected = std::mem::take(&mut built.events);
            let label_bytes = collected.iter().map(|e| e.label.len()).sum();
            write(
                &out,
                req.publish,
                &header,
                (collected.len(), label_bytes),
                |sink| {
                    let count = collected.len() as u64;
                    collected.into_iter().try_for_each(|e| sink.push(e))?;
                    Ok(count)
                },
            )
        }
    };
    let (path, events) = written.map_err(|e| CaptureError::Write(out.display().to_string(), e))?;
    Ok(CaptureResult {
        recording: path,
        status,
        module,
        lean_version: version.version.clone(),
        events,
        declarations: decls.len(),
        errors: header
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count(),
        elapsed_ns: built.elapsed_ns,
        clock: built.clock,
        notes: built.notes,
        lean_wall_ms: finished.wall.as_millis() as u64,
        overhead_cpu_ms: 0.0,
        ingested_bytes: finished.stdout.len() as u64 + finished.stderr.len() as u64 + profile_bytes,
        stop,
        peak_memory_bytes: header.memory.as_ref().map(|m| m.peak_bytes),
        sampling_cpu_ms,
    })
}

/// CPU time this process has used so far, in nanoseconds.
fn self_cpu_ns() -> u64 {
    leanscope::cpu_clock::process_cpu_time()
        .as_nanos()
        .min(u128::from(u64::MAX)) as u64
}

/// Writes a recording of the events `events` hands to its sink (returning their count);
/// `size` is (events, bytes of their labels) as far as known beforehand. Returns the path and
/// the number of events.
fn write(
    out: &Path,
    publish: Publish,
    header: &Header,
    size: (usize, usize),
    events: impl FnOnce(&mut Writer) -> Result<u64, RecordingError>,
) -> Result<(PathBuf, u64), RecordingError> {
    let mut w = Writer(RecordingWriter::create_as(out, header, publish)?);
    // Each event brings at most one new label (and, rarely, a new class).
    w.0.reserve(size.0, size.1);
    let count = events(&mut w)?;
    Ok((w.0.finish()?, count))
}

/// The recording writer as the sink of a capture's events.
struct Writer(RecordingWriter);

impl EventSink<'_> for Writer {
    type Error = RecordingError;

    fn push(&mut self, e: Event<'_>) -> Result<(), RecordingError> {
        self.0
            .push(&NewEvent {
                parent: e.parent,
                class: &e.class,
                label: &e.label,
                start_ns: e.start_ns,
                duration_ns: e.duration_ns,
                thread: e.thread,
                range: e.range,
                range_kind: e.range_kind,
            })
            .map(drop)
    }

    fn upcoming(&mut self, label: &str) {
        self.0.upcoming(label);
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// UTC time as `20261129T101500.123Z`, for file names.
pub fn timestamp() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        now.subsec_millis()
    )
}

/// Days since 1970-01-01 to a (year, month, day) date (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A name for Lean's profile file that no other capture uses.
fn profile_name() -> String {
    format!("profile-{}-{}.json", std::process::id(), unique())
}

/// Where one worker's captures have Lean write its profile: one file,
/// emptied before each run and removed when the worker is done, so that a
/// session does not create and delete a file per capture (on ext4, each
/// inode deleted in the last 30 s or so is skipped, one by one, when the next
/// file is created: in a 2,000-file session that was over a quarter of
/// leanscope's perf samples; `docs/sessions.md`).
#[derive(Debug, Default)]
pub struct ProfileScratch(Option<PathBuf>);

impl ProfileScratch {
    /// The file in `tmp` (the same as last time when it is in the same
    /// folder), emptied if it exists.
    fn emptied_in(&mut self, tmp: &Path) -> Result<PathBuf, CaptureError> {
        let path = match &self.0 {
            Some(p) if p.parent() == Some(tmp) => p.clone(),
            _ => {
                if let Some(old) = self.0.take() {
                    let _ = std::fs::remove_file(old);
                }
                let p = tmp.join(profile_name());
                self.0 = Some(p.clone());
                p
            }
        };
        match std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
        {
            Ok(_) => Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(path),
            Err(e) => Err(CaptureError::Io(format!(
                "cannot empty {}: {e}",
                path.display()
            ))),
        }
    }
}

impl Drop for ProfileScratch {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(20_786), (2026, 11, 29));
        assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
    }
}
