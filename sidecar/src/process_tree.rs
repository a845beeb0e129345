//! A child's descendants (Linux: `/proc`; macOS: `libproc`), for stopping
//! those that left its process group.
//!
//! Signalling the child's group reaches `lake` and `lean`, but not a
//! descendant that made a session or group of its own: a revision sample's
//! `bwrap --new-session` puts the sandboxed command in a new session, and if
//! bubblewrap is killed before its child has set its parent-death signal the
//! command outlives it, holding the runner's pipes (and Lean running). The
//! runner therefore also signals every process it finds below the child.

use std::collections::BTreeSet;

/// The process ids below `root` (children, their children, …), read from
/// each `/proc/PID/stat`'s parent field; `root` itself is not included.
/// Processes that vanish while being read are skipped.
pub fn descendants(root: libc::pid_t) -> BTreeSet<libc::pid_t> {
    let parents = parent_links();
    let mut found = BTreeSet::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for &(pid, ppid) in &parents {
            if ppid == p && found.insert(pid) {
                frontier.push(pid);
            }
        }
    }
    found
}

/// Every (pid, parent pid) pair `/proc` lists now.
#[cfg(target_os = "linux")]
fn parent_links() -> Vec<(libc::pid_t, libc::pid_t)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            Some((pid, parent_of(&stat)?))
        })
        .collect()
}

/// Every (pid, parent pid) pair the kernel lists now (`libproc`).
#[cfg(target_os = "macos")]
fn parent_links() -> Vec<(libc::pid_t, libc::pid_t)> {
    use std::mem::size_of;
    // SAFETY: with a null buffer the call only counts the processes.
    let n = unsafe { libc::proc_listallpids(std::ptr::null_mut(), 0) };
    let Ok(n) = usize::try_from(n) else {
        return Vec::new();
    };
    // Room for processes started between the two calls.
    let mut pids: Vec<libc::pid_t> = vec![0; n + 64];
    let bytes = libc::c_int::try_from(pids.len() * size_of::<libc::pid_t>()).unwrap_or(0);
    // SAFETY: the buffer holds `bytes` bytes; the call fills at most that.
    let n = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast(), bytes) };
    pids.truncate(usize::try_from(n).unwrap_or(0));
    let size = size_of::<libc::proc_bsdinfo>() as libc::c_int;
    pids.into_iter()
        .filter(|&pid| pid > 0)
        .filter_map(|pid| {
            // SAFETY: an all-zero proc_bsdinfo is valid; the call fills at
            // most `size` bytes of it.
            let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
            let got = unsafe {
                libc::proc_pidinfo(
                    pid,
                    libc::PROC_PIDTBSDINFO,
                    0,
                    (&mut info as *mut libc::proc_bsdinfo).cast(),
                    size,
                )
            };
            (got == size).then(|| (pid, info.pbi_ppid as libc::pid_t))
        })
        .collect()
}

/// No other Unix is built: none lists descendants, so a stop reaches the
/// process group only.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn parent_links() -> Vec<(libc::pid_t, libc::pid_t)> {
    Vec::new()
}

/// The parent pid in a `/proc/PID/stat` line: the second field after the
/// command name, which is in parentheses and may itself hold `)` or spaces.
#[cfg(any(target_os = "linux", test))]
fn parent_of(stat: &str) -> Option<libc::pid_t> {
    let (_, rest) = stat.rsplit_once(") ")?;
    rest.split(' ').nth(1)?.parse().ok()
}

/// Sends `signal` to each of `pids` (those already gone are skipped).
pub fn signal_each(pids: &BTreeSet<libc::pid_t>, signal: libc::c_int) {
    for &pid in pids {
        // SAFETY: kill(2) on a positive pid has no memory effects.
        unsafe {
            libc::kill(pid, signal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_field_survives_odd_command_names() {
        assert_eq!(parent_of("42 (lean) S 7 42 42 0"), Some(7));
        assert_eq!(parent_of("42 (a) b (c) R 9 42 42 0"), Some(9));
        assert_eq!(parent_of("42 (x y) S 1 42"), Some(1));
        assert_eq!(parent_of("garbage"), None);
    }

    #[cfg(any(target_os = "linux", target_os = "macos"))]
    #[test]
    fn finds_grandchildren_and_not_itself() {
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", "sleep 30 & sleep 30 & wait"])
            .spawn()
            .unwrap();
        let root = child.id() as libc::pid_t;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut found = descendants(root);
        while found.len() < 2 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
            found = descendants(root);
        }
        signal_each(&found, libc::SIGKILL);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(!found.contains(&root));
    }
}
