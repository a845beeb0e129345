//! [`Group`] on Unix: a process group, the descendants that left it, and
//! the processes that carry the run's tag.

use super::run_tag::{tagged, RunTag};
use leanscope::process_tree::{descendants, signal_each};
use std::collections::BTreeSet;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A child leading a process group of its own, and what a stop found
/// below it. Clones share the processes found.
#[derive(Debug, Clone)]
pub struct Group {
    pgid: libc::pid_t,
    tag: RunTag,
    /// The descendants and tagged processes found by a stop.
    found: Arc<Mutex<BTreeSet<libc::pid_t>>>,
}

impl Group {
    /// Starts `cmd` as the leader of a new process group. `tag` is the
    /// run's, in the child's environment (set by the caller).
    pub fn spawn(cmd: &mut Command, tag: &RunTag) -> io::Result<(Child, Group)> {
        let child = cmd.process_group(0).spawn()?;
        let pgid = libc::pid_t::try_from(child.id()).unwrap_or(0);
        let group = Group {
            pgid,
            tag: tag.clone(),
            found: Arc::default(),
        };
        Ok((child, group))
    }

    fn found(&self) -> std::sync::MutexGuard<'_, BTreeSet<libc::pid_t>> {
        self.found.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Finds what is below the child and what carries the tag (while their
    /// parents still link them to the child), then asks them all to stop:
    /// SIGTERM to the group and to each.
    pub fn terminate(&self) {
        let mut found = self.found();
        found.extend(descendants(self.pgid));
        found.extend(tagged(&self.tag));
        signal_group(self.pgid, libc::SIGTERM);
        signal_each(&found, libc::SIGTERM);
    }

    /// SIGKILL to the group, to what a stop found and what is below those
    /// now, and to what carries the tag.
    pub fn kill(&self) {
        let mut found = self.found();
        let below: Vec<_> = found.iter().flat_map(|&p| descendants(p)).collect();
        found.extend(below);
        found.extend(descendants(self.pgid));
        found.extend(tagged(&self.tag));
        signal_group(self.pgid, libc::SIGKILL);
        signal_each(&found, libc::SIGKILL);
    }

    /// SIGKILL to whatever the group still holds once the child is gone (a
    /// grandchild that outlived its parent), and to what a stop found.
    pub fn kill_leftovers(&self) {
        signal_group(self.pgid, libc::SIGKILL);
        signal_each(&self.found(), libc::SIGKILL);
    }

    /// SIGKILL to every process carrying the tag, again and again until
    /// none is left (a process forked meanwhile carries it too), at most
    /// for `limit`.
    pub fn kill_tagged(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            let now = tagged(&self.tag);
            if now.is_empty() || Instant::now() >= deadline {
                return;
            }
            signal_each(&now, libc::SIGKILL);
            self.found().extend(now);
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits until no process of the group and none a stop found is left
    /// (`kill(…, 0)` fails), at most `limit`: SIGKILL cannot be refused,
    /// only delivered late.
    pub fn wait_gone(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        // SAFETY: signal 0 only checks that the group or process exists.
        let alive = |p: libc::pid_t| unsafe { libc::kill(p, 0) } == 0;
        let found = self.found().clone();
        while (alive(-self.pgid) || found.iter().any(|&p| alive(p))) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits for the child and returns its status, the user + system CPU time of it and of
    /// every descendant it waited for (`wait4`: `lake` waits for `lean`), and the largest
    /// resident set among them. The child must not have been waited for yet.
    pub fn wait_with_usage(&self, child: Child) -> io::Result<(ExitStatus, super::Usage)> {
        let pid = libc::pid_t::try_from(child.id()).unwrap_or(0);
        let mut status = 0;
        // SAFETY: an all-zero rusage is valid; wait4 on our own child.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        loop {
            // SAFETY: wait4 writes only the status and usage it is given.
            let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            if r == pid {
                break;
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        // `child` was reaped above; dropping it does not wait again.
        drop(child);
        let micros =
            |t: libc::timeval| t.tv_sec.max(0) as u64 * 1_000_000 + t.tv_usec.max(0) as u64;
        let cpu = Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime));
        // `ru_maxrss` is in KiB on Linux and in bytes on macOS.
        let unit: u64 = if cfg!(target_os = "macos") { 1 } else { 1024 };
        let peak = u64::try_from(usage.ru_maxrss).ok().filter(|&r| r > 0);
        Ok((
            ExitStatus::from_raw(status),
            super::Usage {
                cpu,
                peak_memory_bytes: peak.map(|r| r.saturating_mul(unit)),
            },
        ))
    }
}

fn signal_group(pgid: libc::pid_t, signal: libc::c_int) {
    if pgid > 0 {
        // SAFETY: kill(2) with a negative pid signals a process group; it
        // has no memory effects. The group was created for this child.
        unsafe {
            libc::kill(-pgid, signal);
        }
    }
}
