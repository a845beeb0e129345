//! CPU time (user + system) used so far, by this process or by the calling
//! thread; child processes (Lean) are not counted. What a capture costs
//! leanscope itself, and what memory sampling costs it.

use std::time::Duration;

/// The CPU time this process has used so far.
pub fn process_cpu_time() -> Duration {
    #[cfg(unix)]
    {
        // SAFETY: getrusage only writes the struct it is given.
        let usage = unsafe {
            let mut u: libc::rusage = std::mem::zeroed();
            if libc::getrusage(libc::RUSAGE_SELF, &mut u) != 0 {
                return Duration::ZERO;
            }
            u
        };
        let micros =
            |t: libc::timeval| t.tv_sec.max(0) as u64 * 1_000_000 + t.tv_usec.max(0) as u64;
        Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::System::Threading::{GetCurrentProcess, GetProcessTimes};
        // SAFETY: the pseudo-handle of this process and four FILETIMEs to fill.
        windows::kernel_plus_user(|c, e, k, u| unsafe {
            GetProcessTimes(GetCurrentProcess(), c, e, k, u)
        })
    }
}

/// The CPU time the calling thread has used so far.
pub fn thread_cpu_time() -> Duration {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid pointer to a timespec the call fills.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
            return Duration::ZERO;
        }
        Duration::new(
            u64::try_from(ts.tv_sec).unwrap_or(0),
            u32::try_from(ts.tv_nsec).unwrap_or(0),
        )
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::System::Threading::{GetCurrentThread, GetThreadTimes};
        // SAFETY: the pseudo-handle of this thread and four FILETIMEs to fill.
        windows::kernel_plus_user(|c, e, k, u| unsafe {
            GetThreadTimes(GetCurrentThread(), c, e, k, u)
        })
    }
}

#[cfg(windows)]
mod windows {
    use std::time::Duration;
    use windows_sys::Win32::Foundation::FILETIME;

    /// Kernel plus user time from a Win32 call that fills (creation, exit,
    /// kernel, user) times and returns 0 on failure.
    pub fn kernel_plus_user(
        call: impl FnOnce(&mut FILETIME, &mut FILETIME, &mut FILETIME, &mut FILETIME) -> i32,
    ) -> Duration {
        let zero = FILETIME {
            dwLowDateTime: 0,
            dwHighDateTime: 0,
        };
        let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
        if call(&mut created, &mut exited, &mut kernel, &mut user) == 0 {
            return Duration::ZERO;
        }
        // 100-nanosecond units.
        let ticks = |t: FILETIME| (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
        Duration::from_nanos((ticks(kernel) + ticks(user)).saturating_mul(100))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_clocks_grow_with_work() {
        let (process, thread) = (process_cpu_time(), thread_cpu_time());
        let until = std::time::Instant::now() + Duration::from_millis(200);
        let mut x = 1u64;
        while std::time::Instant::now() < until {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        assert!(process_cpu_time() > process);
        assert!(thread_cpu_time() > thread);
    }
}
