//! The CPU time (user + system) this process has used so far; child
//! processes (Lean) are not counted. What a capture costs leanscope itself.

use std::time::Duration;

#[cfg(unix)]
pub fn own_cpu_time() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut u) != 0 {
            return Duration::ZERO;
        }
        u
    };
    let micros = |t: libc::timeval| t.tv_sec.max(0) as u64 * 1_000_000 + t.tv_usec.max(0) as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

#[cfg(windows)]
pub fn own_cpu_time() -> Duration {
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, GetProcessTimes};
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: the pseudo-handle of this process and four FILETIMEs to fill.
    let ok = unsafe {
        GetProcessTimes(
            GetCurrentProcess(),
            &mut created,
            &mut exited,
            &mut kernel,
            &mut user,
        )
    };
    if ok == 0 {
        return Duration::ZERO;
    }
    // 100-nanosecond units.
    let ticks = |t: FILETIME| (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
    Duration::from_nanos((ticks(kernel) + ticks(user)).saturating_mul(100))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_with_work() {
        let before = own_cpu_time();
        let until = std::time::Instant::now() + Duration::from_millis(200);
        let mut x = 1u64;
        while std::time::Instant::now() < until {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        assert!(own_cpu_time() > before);
    }
}
