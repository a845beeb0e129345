//! One measured run, with the counters read by the host: wall time from a
//! monotonic clock around the child, user + system CPU time from the
//! kernel's accounting of the child's group ([`Group::wait_with_usage`]:
//! `wait4` on Unix, which includes every descendant the child waited for —
//! `lake` waits for `lean`, `leanscope profile` for `lake` —, the Job
//! Object's on Windows). Nothing the child prints can pass for a counter.

use crate::process_group::{run_tag::RunTag, Group};
use leanscope::limits::MAX_KEPT_STDOUT;
use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What one run measured.
#[derive(Debug, Clone)]
pub struct Measured {
    pub wall_ns: u64,
    pub cpu_ns: u64,
    /// The peak memory the kernel counted ([`crate::process_group::Usage`]).
    pub peak_memory_bytes: Option<u64>,
    pub status: ExitStatus,
    /// The first [`MAX_KEPT_STDOUT`] bytes of its stdout.
    pub stdout: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("waiting for {program}: {source}")]
    Wait {
        program: String,
        source: std::io::Error,
    },
    #[error("{program} did not finish within {seconds} s; its process group was stopped")]
    TimedOut { program: String, seconds: u64 },
    #[error("interrupted; the running command's process group was stopped")]
    Interrupted,
}

/// Runs `cmd` (stdin closed, stdout kept up to a limit, stderr where
/// `stderr` says) in a group of its own and measures it; after
/// `timeout`, or once `cancel` is set, the whole group is killed.
pub fn measure(
    cmd: &mut Command,
    stderr: Stdio,
    timeout: Duration,
    cancel: &Arc<AtomicBool>,
) -> Result<Measured, HostError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr);
    let started = Instant::now();
    let (mut child, group) =
        Group::spawn(cmd, &RunTag::new()).map_err(|source| HostError::Spawn {
            program: program.clone(),
            source,
        })?;
    let mut pipe = child.stdout.take().expect("stdout is piped");
    let reader = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let room = MAX_KEPT_STDOUT.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        kept
    });
    // The watchdog stops the group on timeout or cancel; the child is
    // reaped here, for its CPU time.
    let done = Arc::new(AtomicBool::new(false));
    let why = Arc::new(std::sync::Mutex::new(None::<HostError>));
    let watchdog = {
        let (done, why, cancel, program, group) = (
            done.clone(),
            why.clone(),
            cancel.clone(),
            program.clone(),
            group.clone(),
        );
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                let stop = if cancel.load(Ordering::SeqCst) {
                    Some(HostError::Interrupted)
                } else if started.elapsed() >= timeout {
                    Some(HostError::TimedOut {
                        program: program.clone(),
                        seconds: timeout.as_secs(),
                    })
                } else {
                    None
                };
                if let Some(e) = stop {
                    *why.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    group.kill();
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let waited = group.wait_with_usage(child);
    let wall = started.elapsed();
    done.store(true, Ordering::SeqCst);
    let _ = watchdog.join();
    // Whatever the child left running in its group goes with it.
    group.kill_leftovers();
    let stdout = reader.join().unwrap_or_default();
    let (status, usage) = waited.map_err(|source| HostError::Wait {
        program: program.clone(),
        source,
    })?;
    if let Some(e) = why.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(e);
    }
    Ok(Measured {
        wall_ns: wall.as_nanos().min(u128::from(u64::MAX)) as u64,
        cpu_ns: usage.cpu.as_nanos().min(u128::from(u64::MAX)) as u64,
        peak_memory_bytes: usage.peak_memory_bytes,
        status,
        stdout,
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn counts_the_cpu_of_waited_for_descendants() {
        // A shell that waits for a child which burns CPU: the child's time
        // is the shell's too.
        let mut cmd = Command::new("/bin/sh");
        cmd.args([
            "-c",
            "(i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done); echo done",
        ]);
        let m = measure(
            &mut cmd,
            Stdio::null(),
            Duration::from_secs(60),
            &Arc::default(),
        )
        .unwrap();
        assert!(m.status.success());
        assert_eq!(m.stdout, b"done\n");
        assert!(m.cpu_ns > 10_000_000, "{} ns of CPU", m.cpu_ns);
        // The kernel's peak resident set of the shell or its child: some hundreds of KiB.
        assert!(
            m.peak_memory_bytes.is_some_and(|b| b > 100 << 10),
            "{:?}",
            m.peak_memory_bytes
        );
        assert!(
            m.wall_ns >= m.cpu_ns / 2,
            "wall {} cpu {}",
            m.wall_ns,
            m.cpu_ns
        );
    }

    #[test]
    fn a_timeout_stops_the_whole_group() {
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", "sleep 30 & sleep 30; wait"]);
        let t = Instant::now();
        let e = measure(
            &mut cmd,
            Stdio::null(),
            Duration::from_millis(300),
            &Arc::default(),
        )
        .unwrap_err();
        assert!(matches!(e, HostError::TimedOut { .. }), "{e}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_missing_program_is_named() {
        let mut cmd = Command::new("/nonexistent/lake");
        let e = measure(
            &mut cmd,
            Stdio::null(),
            Duration::from_secs(1),
            &Arc::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("/nonexistent/lake"), "{e}");
    }
}
