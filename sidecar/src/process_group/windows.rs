//! [`Group`] on Windows: a Job Object that holds the child from its first
//! instruction, and so everything it starts.

use super::run_tag::RunTag;
use std::io;
use std::os::windows::io::AsRawHandle;
use std::os::windows::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::sync::Arc;
use std::time::{Duration, Instant};
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectBasicAccountingInformation,
    JobObjectExtendedLimitInformation, QueryInformationJobObject, SetInformationJobObject,
    TerminateJobObject, JOBOBJECT_BASIC_ACCOUNTING_INFORMATION,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::{
    OpenThread, ResumeThread, CREATE_SUSPENDED, THREAD_SUSPEND_RESUME,
};

/// The exit code of a process ended by a stop.
const STOPPED_EXIT_CODE: u32 = 1;

/// A job handle, closed when the last clone of its [`Group`] goes (which,
/// with *kill on job close*, also ends what is still in it).
#[derive(Debug)]
struct Job(HANDLE);

// SAFETY: a job handle may be used and closed from any thread.
unsafe impl Send for Job {}
// SAFETY: every call made with it is thread-safe in Win32.
unsafe impl Sync for Job {}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: a handle this value owns, closed once.
        unsafe {
            CloseHandle(self.0);
        }
    }
}

/// A child in a Job Object of its own. Clones share the job.
#[derive(Debug, Clone)]
pub struct Group {
    job: Arc<Job>,
}

impl Group {
    /// Starts `cmd` suspended, puts it in a new job that ends everything
    /// in it when closed, then lets it run: nothing it starts can escape
    /// the job. The run's tag is in the child's environment (set by the
    /// caller) but not needed to find anything here.
    pub fn spawn(cmd: &mut Command, _tag: &RunTag) -> io::Result<(Child, Group)> {
        // SAFETY: no security attributes, no name: a new anonymous job.
        let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if handle.is_null() {
            return Err(io::Error::last_os_error());
        }
        let job = Job(handle);
        // SAFETY: an all-zero limit structure is valid; one flag is set.
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        // SAFETY: the structure and its size match the information class.
        let ok = unsafe {
            SetInformationJobObject(
                job.0,
                JobObjectExtendedLimitInformation,
                (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
                std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut child = cmd.creation_flags(CREATE_SUSPENDED).spawn()?;
        // SAFETY: the job and the child's process handle are both open.
        let assigned = unsafe { AssignProcessToJobObject(job.0, child.as_raw_handle() as HANDLE) };
        if assigned == 0 {
            let e = io::Error::last_os_error();
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
        if let Err(e) = resume_threads(child.id()) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
        Ok((child, Group { job: Arc::new(job) }))
    }

    /// Ends every process of the job. Windows has no polite stop for a
    /// console program without a console of its own: this is the kill.
    pub fn terminate(&self) {
        self.kill();
    }

    /// Ends every process of the job.
    pub fn kill(&self) {
        // SAFETY: an open job handle.
        unsafe {
            TerminateJobObject(self.job.0, STOPPED_EXIT_CODE);
        }
    }

    /// Ends whatever the job still holds once the child is gone.
    pub fn kill_leftovers(&self) {
        self.kill();
    }

    /// Nothing escapes the job: there is nothing to look for by tag.
    pub fn kill_tagged(&self, _limit: Duration) {}

    /// Waits until the job holds no process, at most `limit`.
    pub fn wait_gone(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while self.accounting().is_some_and(|a| a.ActiveProcesses > 0) && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits for the child and returns its status, the user + kernel CPU time of every
    /// process the job ever held, and the job's peak committed memory.
    pub fn wait_with_usage(&self, mut child: Child) -> io::Result<(ExitStatus, super::Usage)> {
        let status = child.wait()?;
        let cpu = self.accounting().map_or(Duration::ZERO, |a| {
            // 100-nanosecond units.
            let ticks = a.TotalUserTime.max(0) as u64 + a.TotalKernelTime.max(0) as u64;
            Duration::from_nanos(ticks.saturating_mul(100))
        });
        Ok((
            status,
            super::Usage {
                cpu,
                peak_memory_bytes: self.peak_memory(),
            },
        ))
    }

    /// The most memory the job's processes had committed together.
    fn peak_memory(&self) -> Option<u64> {
        // SAFETY: an all-zero structure is valid; the call fills it.
        let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        // SAFETY: the structure and its size match the information class.
        let ok = unsafe {
            QueryInformationJobObject(
                self.job.0,
                JobObjectExtendedLimitInformation,
                (&mut info as *mut JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
                std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
                std::ptr::null_mut(),
            )
        };
        (ok != 0 && info.PeakJobMemoryUsed > 0).then_some(info.PeakJobMemoryUsed as u64)
    }

    fn accounting(&self) -> Option<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION> {
        // SAFETY: an all-zero structure is valid; the call fills it.
        let mut info: JOBOBJECT_BASIC_ACCOUNTING_INFORMATION = unsafe { std::mem::zeroed() };
        // SAFETY: the structure and its size match the information class.
        let ok = unsafe {
            QueryInformationJobObject(
                self.job.0,
                JobObjectBasicAccountingInformation,
                (&mut info as *mut JOBOBJECT_BASIC_ACCOUNTING_INFORMATION).cast(),
                std::mem::size_of::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>() as u32,
                std::ptr::null_mut(),
            )
        };
        (ok != 0).then_some(info)
    }
}

/// Resumes every thread of process `pid` (a process started suspended has
/// one), found in a snapshot of the system's threads.
fn resume_threads(pid: u32) -> io::Result<()> {
    // SAFETY: a snapshot of all threads; closed below.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: an all-zero entry with its size set, as the API asks.
    let mut entry: THREADENTRY32 = unsafe { std::mem::zeroed() };
    entry.dwSize = std::mem::size_of::<THREADENTRY32>() as u32;
    let mut resumed = 0;
    // SAFETY: an open snapshot and an entry of the right size.
    let mut more = unsafe { Thread32First(snapshot, &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: opens one thread of our own child.
            let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) };
            if !thread.is_null() {
                // SAFETY: an open thread handle, closed right after.
                unsafe {
                    ResumeThread(thread);
                    CloseHandle(thread);
                }
                resumed += 1;
            }
        }
        // SAFETY: as above.
        more = unsafe { Thread32Next(snapshot, &mut entry) } != 0;
    }
    // SAFETY: the snapshot handle opened above.
    unsafe {
        CloseHandle(snapshot);
    }
    if resumed == 0 {
        return Err(io::Error::other(format!(
            "cannot resume process {pid}: none of its threads was found"
        )));
    }
    Ok(())
}
