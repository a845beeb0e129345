//! Running Lean as a child process in a group of its own (a process group
//! on Unix, a Job Object on Windows: [`crate::process_group`]), with a
//! timeout, cancellation and bounded output.
//!
//! Cancelling or timing out asks the whole group to stop (so `lake` and the
//! `lean` it started both get it: SIGTERM on Unix, also to descendants that
//! left the group and to orphans carrying the run's tag), then kills it
//! after [`KILL_GRACE`].

use crate::process_group::run_tag::{self, RunTag};
use crate::process_group::Group;
use leanscope::limits::{MAX_LEAN_OUTPUT_BYTES, MAX_LINE_TIMES};
use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long Lean gets to stop after SIGTERM before SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// How often the runner looks at the child, the clock and the cancel flag.
const POLL: Duration = Duration::from_millis(10);

/// Shared flag that asks a running capture to stop.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    #[cfg_attr(not(test), allow(dead_code))] // part of the parser's API; tests use it
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// The flag itself, for signal handlers to set.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("cancelled; Lean was stopped")]
    Cancelled,
    #[error("Lean did not finish within {0} s and was stopped")]
    TimedOut(u64),
    #[error("Lean's memory passed the limit of {} MiB (it reached {} MiB) and Lean was stopped", limit >> 20, reached >> 20)]
    MemoryLimit { limit: u64, reached: u64 },
    #[error("Lean printed more than {limit} bytes on {stream}; stopped")]
    OutputTooLarge { stream: &'static str, limit: usize },
    #[error("I/O error while running Lean: {0}")]
    Io(#[from] std::io::Error),
}

/// Why a run was stopped before the program finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Cancelled,
    TimedOut(Duration),
    /// The process tree's resident memory passed `limit` (bytes); it reached `reached`.
    MemoryLimit {
        limit: u64,
        reached: u64,
    },
}

impl Stop {
    /// The error a run that must finish reports for this stop.
    pub fn into_error(self) -> RunError {
        match self {
            Stop::Cancelled => RunError::Cancelled,
            Stop::TimedOut(t) => RunError::TimedOut(t.as_secs()),
            Stop::MemoryLimit { limit, reached } => RunError::MemoryLimit { limit, reached },
        }
    }
}

/// What a finished run produced.
#[derive(Debug)]
pub struct Finished {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: ExitStatus,
    pub wall: Duration,
    /// When each stdout line arrived, since the start (the first [`MAX_LINE_TIMES`] lines).
    pub line_times: Vec<Duration>,
    /// Set when the run was stopped: the output is what came before ([`run_watched`]).
    pub stopped: Option<Stop>,
}

/// Options of one run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub timeout: Option<Duration>,
    pub cancel: CancelToken,
    /// Counts stdout lines as they arrive (for progress reports).
    pub stdout_lines: Arc<AtomicU64>,
    /// Receives the child's process id once it started.
    pub pid: Arc<AtomicU64>,
    /// In the environment of everything the run starts (a sandbox must
    /// pass it on: [`RunTag::env_value`]); a stop stops what carries it.
    pub tag: RunTag,
}

type Collected = (Vec<u8>, Vec<Duration>);

struct Collector {
    handle: JoinHandle<std::io::Result<Collected>>,
}

fn collect(
    mut pipe: impl Read + Send + 'static,
    lines: Option<Arc<AtomicU64>>,
    overflow: Arc<AtomicBool>,
    started: Instant,
) -> Collector {
    let handle = std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut times = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if let Some(l) = &lines {
                let count = buf[..n].iter().filter(|&&b| b == b'\n').count();
                l.fetch_add(count as u64, Ordering::Relaxed);
                let keep = count.min(MAX_LINE_TIMES.saturating_sub(times.len()));
                times.resize(times.len() + keep, started.elapsed());
            }
            if out.len() + n > MAX_LEAN_OUTPUT_BYTES {
                overflow.store(true, Ordering::SeqCst);
                // Keep draining so the child never blocks on a full pipe.
                continue;
            }
            out.extend_from_slice(&buf[..n]);
        }
        Ok((out, times))
    });
    Collector { handle }
}

/// How often `tick` hears how many stdout lines arrived.
const TICK: Duration = Duration::from_millis(250);

/// Runs `cmd` to completion (or until cancelled, timed out or flooding),
/// telling `tick` every [`TICK`] how many stdout lines arrived.
pub fn run(
    cmd: &mut Command,
    opts: &RunOptions,
    tick: &mut dyn FnMut(u64),
) -> Result<Finished, RunError> {
    let finished = run_watched(cmd, opts, tick, &mut |_| None)?;
    match finished.stopped {
        Some(stop) => Err(stop.into_error()),
        None => Ok(finished),
    }
}

/// [`run`], but a run stopped by a cancel, its timeout or `watch` hands back what it had
/// collected, with [`Finished::stopped`] set. `watch` is called with the child's process id
/// each time the runner looks at the child (every [`POLL`]); a `Some` stops the run.
pub fn run_watched(
    cmd: &mut Command,
    opts: &RunOptions,
    tick: &mut dyn FnMut(u64),
    watch: &mut dyn FnMut(u32) -> Option<Stop>,
) -> Result<Finished, RunError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env(run_tag::VAR, opts.tag.env_value());
    let started = Instant::now();
    let (mut child, group) =
        Group::spawn(cmd, &opts.tag).map_err(|source| RunError::Spawn { program, source })?;
    opts.pid.store(u64::from(child.id()), Ordering::SeqCst);
    let overflow_out = Arc::new(AtomicBool::new(false));
    let overflow_err = Arc::new(AtomicBool::new(false));
    let stdout = child.stdout.take().map(|p| {
        collect(
            p,
            Some(opts.stdout_lines.clone()),
            overflow_out.clone(),
            started,
        )
    });
    let stderr = child
        .stderr
        .take()
        .map(|p| collect(p, None, overflow_err.clone(), started));
    let mut stop: Option<RunError> = None;
    let mut stopped: Option<Stop> = None;
    let mut wall_at_stop = None;
    let mut last_tick = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if last_tick.elapsed() >= TICK {
            last_tick = Instant::now();
            tick(opts.stdout_lines.load(Ordering::Relaxed));
        }
        if stop.is_none() {
            stopped = if opts.cancel.is_cancelled() {
                Some(Stop::Cancelled)
            } else if let Some(t) = opts.timeout.filter(|&t| started.elapsed() >= t) {
                Some(Stop::TimedOut(t))
            } else {
                watch(child.id())
            };
            stop = if let Some(s) = stopped {
                wall_at_stop = Some(started.elapsed());
                Some(s.into_error())
            } else if overflow_out.load(Ordering::SeqCst) {
                Some(RunError::OutputTooLarge {
                    stream: "stdout",
                    limit: MAX_LEAN_OUTPUT_BYTES,
                })
            } else if overflow_err.load(Ordering::SeqCst) {
                Some(RunError::OutputTooLarge {
                    stream: "stderr",
                    limit: MAX_LEAN_OUTPUT_BYTES,
                })
            } else {
                None
            };
            if stop.is_some() {
                break terminate(&mut child, &group)?;
            }
        }
        std::thread::sleep(POLL);
    };
    // Whatever the group still holds (a grandchild that outlived its
    // parent) goes too, so nothing keeps the pipes open; the capture ends
    // only once the group is gone (or after a short wait, said nowhere:
    // SIGKILL cannot be refused, only delivered late). A stopped run also
    // stops what carries its tag, until nothing does.
    group.kill_leftovers();
    if stop.is_some() {
        group.kill_tagged(GROUP_GONE_WAIT);
    }
    group.wait_gone(GROUP_GONE_WAIT);
    let (stdout, line_times) = join(stdout)?;
    let (stderr, _) = join(stderr)?;
    if let Some(stopped) = stopped {
        return Ok(Finished {
            stdout,
            stderr,
            status,
            wall: wall_at_stop.unwrap_or_else(|| started.elapsed()),
            line_times,
            stopped: Some(stopped),
        });
    }
    if let Some(e) = stop {
        return Err(e);
    }
    if overflow_out.load(Ordering::SeqCst) {
        return Err(RunError::OutputTooLarge {
            stream: "stdout",
            limit: MAX_LEAN_OUTPUT_BYTES,
        });
    }
    if overflow_err.load(Ordering::SeqCst) {
        return Err(RunError::OutputTooLarge {
            stream: "stderr",
            limit: MAX_LEAN_OUTPUT_BYTES,
        });
    }
    Ok(Finished {
        stdout,
        stderr,
        status,
        wall: started.elapsed(),
        line_times,
        stopped: None,
    })
}

fn join(c: Option<Collector>) -> Result<Collected, RunError> {
    match c {
        None => Ok((Vec::new(), Vec::new())),
        Some(c) => c
            .handle
            .join()
            .map_err(|_| RunError::Io(std::io::Error::other("output reader thread failed")))?
            .map_err(RunError::Io),
    }
}

/// Asks the group to stop, then kills it after the grace period.
fn terminate(child: &mut Child, group: &Group) -> Result<ExitStatus, RunError> {
    group.terminate();
    let deadline = Instant::now() + KILL_GRACE;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        std::thread::sleep(POLL);
    }
    group.kill();
    Ok(child.wait()?)
}

/// How long a run waits for its killed group to disappear.
const GROUP_GONE_WAIT: Duration = Duration::from_secs(1);

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("/bin/sh");
        c.arg("-c").arg(script);
        c
    }

    /// True if `pid` exists and is not a zombie (a killed orphan may wait
    /// for a reaper that containers do not always have).
    pub(crate) fn is_running(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
            .unwrap_or(false)
    }

    #[test]
    fn collects_output_and_status() {
        let opts = RunOptions::default();
        let f = run(
            &mut sh("echo one; echo two; echo err >&2; exit 3"),
            &opts,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(f.stdout, b"one\ntwo\n");
        assert_eq!(f.stderr, b"err\n");
        assert_eq!(f.status.code(), Some(3));
        assert_eq!(opts.stdout_lines.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn cancel_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("grandchild.pid");
        let opts = RunOptions::default();
        let cancel = opts.cancel.clone();
        let script = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            cancel.cancel();
        });
        let started = Instant::now();
        let e = run(&mut sh(&script), &opts, &mut |_| {}).unwrap_err();
        t.join().unwrap();
        assert!(matches!(e, RunError::Cancelled), "{e}");
        assert!(started.elapsed() < Duration::from_secs(10));
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The group was signalled before `run` returned, but the grandchild
        // dies on its own schedule: give it the kill grace period.
        let signalled = Instant::now();
        while is_running(pid) && signalled.elapsed() < KILL_GRACE {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!is_running(pid), "the grandchild {pid} survived");
    }

    #[test]
    fn cancel_stops_a_descendant_in_a_session_of_its_own() {
        // `setsid` takes the grandchild out of the group, as bubblewrap's
        // `--new-session` does; it holds stdout, so a run that did not stop
        // it would wait for it.
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("escaped.pid");
        let opts = RunOptions::default();
        let cancel = opts.cancel.clone();
        let script = format!(
            "setsid sh -c 'echo $$ > {}; exec sleep 30' & wait",
            pidfile.display()
        );
        let t = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(10);
            while !pidfile.exists() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            std::thread::sleep(Duration::from_millis(100));
            cancel.cancel();
            pidfile
        });
        let started = Instant::now();
        let e = run(&mut sh(&script), &opts, &mut |_| {}).unwrap_err();
        let pidfile = t.join().unwrap();
        assert!(matches!(e, RunError::Cancelled), "{e}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(!is_running(pid), "the escaped grandchild {pid} survived");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn cancel_stops_an_orphan_by_its_tag() {
        // The subshell that starts the grandchild exits at once: its parent
        // is then init, so it is neither in the group (`setsid`) nor below
        // the child, as bubblewrap's command is when bubblewrap was stopped
        // before it set its parent-death signal. It holds stdout.
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("orphan.pid");
        let opts = RunOptions::default();
        let cancel = opts.cancel.clone();
        let script = format!(
            "(setsid sh -c 'echo $$ > {}; exec sleep 30' &); exec sleep 30",
            pidfile.display()
        );
        let watched = pidfile.clone();
        let t = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(10);
            while !watched.exists() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            std::thread::sleep(Duration::from_millis(100));
            cancel.cancel();
        });
        let started = Instant::now();
        let e = run(&mut sh(&script), &opts, &mut |_| {}).unwrap_err();
        t.join().unwrap();
        assert!(matches!(e, RunError::Cancelled), "{e}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(!is_running(pid), "the orphan {pid} survived");
    }

    #[test]
    fn sigterm_ignored_then_sigkill_after_grace() {
        let opts = RunOptions {
            timeout: Some(Duration::from_millis(200)),
            ..RunOptions::default()
        };
        let started = Instant::now();
        let e = run(
            &mut sh("trap '' TERM; while true; do sleep 0.05; done"),
            &opts,
            &mut |_| {},
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Lean did not finish within 0 s and was stopped"
        );
        let took = started.elapsed();
        assert!(
            took >= KILL_GRACE && took < KILL_GRACE + Duration::from_secs(5),
            "{took:?}"
        );
    }

    #[test]
    fn a_missing_program_is_named() {
        let e = run(
            &mut Command::new("/no/such/lake"),
            &RunOptions::default(),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("cannot start /no/such/lake: "),
            "{e}"
        );
    }
}
