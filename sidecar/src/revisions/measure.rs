//! Running Lean for a revision run and reading its counters from the
//! host: GNU `time` (`/usr/bin/time -f … -o FILE`) wraps the command and
//! writes user and system CPU, wall time and maximum resident set size to
//! a file in the workspace's `raw/` folder, outside the tree Lean runs in,
//! so nothing Lean prints can pass for a counter. Lean's own output is
//! kept beside it (`raw/*.out`, `raw/*.err`). Each command runs in its own
//! process group; a timeout stops the whole group.
//!
//! An unsandboxed run (`revisions run --unsandboxed`, the way to run on macOS and Windows,
//! which have neither bubblewrap nor GNU time) takes the same counters from leanscope's own
//! accounting of the command's process group ([`crate::bench::host::measure`]: `wait4` on
//! Unix, the Job Object on Windows), at 1 ms resolution.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::bench::host::HostError;
use crate::capture::process::{run, RunError, RunOptions};

/// GNU time, the counter source.
pub const GNU_TIME: &str = "/usr/bin/time";
/// What GNU time writes: a marker, wall seconds, user and system CPU
/// seconds, maximum RSS in KiB.
const TIME_FORMAT: &str = "leanscope-time %e %U %S %M";

/// Counters of one finished command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counters {
    /// User plus system CPU time, milliseconds (GNU time's resolution is
    /// 10 ms).
    pub cpu_ms: u64,
    pub wall_ms: u64,
    pub max_rss_kib: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    #[error("{GNU_TIME} (GNU time, Debian package `time`) is missing; it measures every sample")]
    NoGnuTime,
    #[error("{what} was cancelled; its process group was stopped")]
    Cancelled { what: String },
    #[error("{what} did not finish within {seconds} s; its process group was stopped")]
    TimedOut { what: String, seconds: u64 },
    #[error("{what} failed (exit status {status}); its output is in {} and {}", log.display(), err_log.display())]
    Failed {
        what: String,
        status: String,
        log: PathBuf,
        err_log: PathBuf,
    },
    #[error("{what}: {source}")]
    Run { what: String, source: RunError },
    #[error("{what}: {detail}")]
    Host { what: String, detail: String },
    #[error("{what}: GNU time's counters in {} cannot be read: {detail}", file.display())]
    BadCounters {
        what: String,
        file: PathBuf,
        detail: String,
    },
    #[error("writing {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One command to measure.
pub struct Job<'a> {
    /// What it is, for messages (`head Demo/A.lean`).
    pub what: String,
    pub dir: &'a Path,
    pub program: &'a Path,
    pub args: Vec<String>,
    /// `raw/NAME.time`, `.out`, `.err`.
    pub raw: PathBuf,
    pub timeout: Duration,
    /// Set to stop the command (and its process group) early.
    pub cancel: crate::capture::CancelToken,
    /// The run's tag, which a sandbox around the command must pass on.
    pub tag: crate::capture::RunTag,
    /// Counters from leanscope's own accounting instead of GNU time (an unsandboxed run).
    pub own_counters: bool,
}

/// Runs the job under GNU time and returns its counters; a non-zero exit,
/// a timeout or unreadable counters are errors.
pub fn measure(job: &Job) -> Result<Counters, MeasureError> {
    if job.own_counters {
        return measure_by_host(job);
    }
    if !Path::new(GNU_TIME).is_file() {
        return Err(MeasureError::NoGnuTime);
    }
    let time_file = suffixed(&job.raw, ".time");
    let mut cmd = Command::new(GNU_TIME);
    cmd.arg("-f")
        .arg(TIME_FORMAT)
        .arg("-o")
        .arg(&time_file)
        .arg(job.program)
        .args(&job.args)
        .current_dir(job.dir);
    let opts = RunOptions {
        timeout: Some(job.timeout),
        cancel: job.cancel.clone(),
        tag: job.tag.clone(),
        ..RunOptions::default()
    };
    let finished = run(&mut cmd, &opts, &mut |_| {});
    let finished = match finished {
        Ok(f) => f,
        Err(RunError::Cancelled) => {
            return Err(MeasureError::Cancelled {
                what: job.what.clone(),
            })
        }
        Err(RunError::TimedOut(_)) => {
            return Err(MeasureError::TimedOut {
                what: job.what.clone(),
                seconds: job.timeout.as_secs(),
            })
        }
        Err(source) => {
            return Err(MeasureError::Run {
                what: job.what.clone(),
                source,
            })
        }
    };
    let out = suffixed(&job.raw, ".out");
    let err = suffixed(&job.raw, ".err");
    for (path, bytes) in [(&out, &finished.stdout), (&err, &finished.stderr)] {
        std::fs::write(path, bytes).map_err(|source| MeasureError::Io {
            path: path.clone(),
            source,
        })?;
    }
    succeeded(job, &finished.status, out, err)?;
    let text = std::fs::read_to_string(&time_file).map_err(|e| MeasureError::BadCounters {
        what: job.what.clone(),
        file: time_file.clone(),
        detail: e.to_string(),
    })?;
    parse_counters(&text).map_err(|detail| MeasureError::BadCounters {
        what: job.what.clone(),
        file: time_file,
        detail,
    })
}

/// [`measure`] with the counters from leanscope's own accounting of the command's process
/// group; stdout is kept up to [`leanscope::limits::MAX_KEPT_STDOUT`], stderr whole.
fn measure_by_host(job: &Job) -> Result<Counters, MeasureError> {
    let out = suffixed(&job.raw, ".out");
    let err = suffixed(&job.raw, ".err");
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| MeasureError::Io { path, source }
    };
    let err_file = std::fs::File::create(&err).map_err(io(&err))?;
    let mut cmd = Command::new(job.program);
    cmd.args(&job.args).current_dir(job.dir);
    let measured =
        crate::bench::host::measure(&mut cmd, err_file.into(), job.timeout, &job.cancel.flag());
    let m = match measured {
        Ok(m) => m,
        Err(HostError::Interrupted) => {
            return Err(MeasureError::Cancelled {
                what: job.what.clone(),
            })
        }
        Err(HostError::TimedOut { .. }) => {
            return Err(MeasureError::TimedOut {
                what: job.what.clone(),
                seconds: job.timeout.as_secs(),
            })
        }
        Err(e) => {
            return Err(MeasureError::Host {
                what: job.what.clone(),
                detail: e.to_string(),
            })
        }
    };
    std::fs::write(&out, &m.stdout).map_err(io(&out))?;
    succeeded(job, &m.status, out, err)?;
    Ok(Counters {
        cpu_ms: m.cpu_ns / 1_000_000,
        wall_ms: m.wall_ns / 1_000_000,
        max_rss_kib: m.peak_memory_bytes.map_or(0, |b| b / 1024),
    })
}

/// A command that did not exit 0 is a failed sample, its output kept at `out` and `err`.
fn succeeded(
    job: &Job,
    status: &std::process::ExitStatus,
    out: PathBuf,
    err: PathBuf,
) -> Result<(), MeasureError> {
    if status.success() {
        return Ok(());
    }
    Err(MeasureError::Failed {
        what: job.what.clone(),
        status: status
            .code()
            .map_or_else(|| "killed by a signal".into(), |c| c.to_string()),
        log: out,
        err_log: err,
    })
}

/// perf, which could count instructions.
pub const PERF: &str = "/usr/bin/perf";
/// How long the probe of perf's instruction counter may take.
const PERF_PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether `perf stat -e instructions:u` counts on this machine, said for
/// the report: CPU time is the measure either way (instruction counts are
/// not used yet), and the note says why they are not.
pub fn instructions_note() -> String {
    let unused =
        |why: &str| format!("instruction counts are not used ({why}); CPU time is the measure");
    if !Path::new(PERF).is_file() {
        return unused(&format!("{PERF} is missing"));
    }
    let mut cmd = Command::new(PERF);
    cmd.args(["stat", "-x", ",", "-e", "instructions:u", "--", "/bin/true"]);
    let opts = RunOptions {
        timeout: Some(PERF_PROBE_TIMEOUT),
        ..RunOptions::default()
    };
    match run(&mut cmd, &opts, &mut |_| {}) {
        Ok(f) => {
            let err = String::from_utf8_lossy(&f.stderr);
            match err.lines().find(|l| l.contains("instructions")) {
                Some(l) if l.starts_with("<not supported>") || l.starts_with("<not counted>") => {
                    unused("`perf stat -e instructions:u` says <not supported> on this machine: no hardware counters")
                }
                Some(l) if l.split(',').next().is_some_and(|n| n.parse::<u64>().is_ok()) => unused(
                    "`perf stat -e instructions:u` counts on this machine, but leanscope does not read it yet",
                ),
                _ => unused("`perf stat -e instructions:u` printed no count"),
            }
        }
        Err(e) => unused(&format!("`perf stat` failed: {e}")),
    }
}

/// `raw` with `suffix` appended (module names hold dots, so not
/// `with_extension`).
fn suffixed(raw: &Path, suffix: &str) -> PathBuf {
    let mut name = raw.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The counters from GNU time's output file (its last marked line).
pub fn parse_counters(text: &str) -> Result<Counters, String> {
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with("leanscope-time "))
        .ok_or("no leanscope-time line")?;
    let f: Vec<&str> = line.split(' ').skip(1).collect();
    let [wall, user, system, rss] = f.as_slice() else {
        return Err(format!("{line:?} has not four fields"));
    };
    let ms = |s: &str| -> Result<u64, String> {
        let (whole, frac) = s.split_once('.').unwrap_or((s, "0"));
        let whole: u64 = whole.parse().map_err(|_| format!("{s:?} is not seconds"))?;
        let mut frac = frac.to_owned();
        frac.truncate(3);
        while frac.len() < 3 {
            frac.push('0');
        }
        let frac: u64 = frac.parse().map_err(|_| format!("{s:?} is not seconds"))?;
        whole
            .checked_mul(1000)
            .and_then(|w| w.checked_add(frac))
            .ok_or_else(|| format!("{s:?} is too large"))
    };
    Ok(Counters {
        cpu_ms: ms(user)? + ms(system)?,
        wall_ms: ms(wall)?,
        max_rss_kib: rss.parse().map_err(|_| format!("{rss:?} is not KiB"))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_gnu_time_lines() {
        let c = parse_counters(
            "Command exited with non-zero status 1\nleanscope-time 1.50 0.31 0.02 51200\n",
        )
        .unwrap();
        assert_eq!(
            c,
            Counters {
                cpu_ms: 330,
                wall_ms: 1500,
                max_rss_kib: 51200
            }
        );
        assert!(parse_counters("user 9.99\n").is_err());
        assert!(parse_counters("leanscope-time 1 2 3\n").is_err());
    }
}
