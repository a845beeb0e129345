//! Lake's build log: the job lines `lake build` prints, plain, under `-v`, or as a CI job shows
//! them (each line behind a timestamp, ANSI colours and line resets left in).
//!
//! Derived from Lake's source (repository `leanprover/lean4`, `src/lake/`, cited in
//! `fixtures/README.md`, "Lake's build log"): `Lake.Build.Run`'s `reportJob` prints a finished
//! job as `{icon} [{jobNo}/{totalJobs}]{ (Optional)} {verb} {caption}{ ({time})}`, where the
//! icon is `✔` for a job without output, else its log's highest level (`ℹ` trace and info,
//! `⚠` warning, `✖` error: `LogLevel.icon`); the verb is `JobAction.verb` (`Ran`/`Running`,
//! `Replayed`/`Replaying`, `Fetched`/`Fetching`, `Built`/`Building`; the second of each pair
//! when the job failed); the time is shown when the build is verbose or its output is not a
//! terminal (`showTime := isVerbose || !useAnsi`, so CI logs have it) and is over 0, written by
//! `formatTime`: `{ms}ms` up to 1000 ms, `{s}.{d}s` up to 10000 ms, `{s}s` above. Other lines (a
//! job's replayed log, `Build completed successfully (N jobs).`, `Build summary:`) are not
//! jobs and are skipped.
//!
//! What a job did is kept: only a `Built` job's time is work done in this build; a `Replayed`
//! job's log came from the cache and a `Fetched` one's output from a store, so their times are
//! not elaboration times (Verified-zkEVM/ArkLib#793: CI timings skewed by the cache).

use std::io::BufRead;

use super::error::{InteropError, Result};
use super::read_line_bounded;
use crate::limit;
use crate::limits::{MAX_LAKE_JOBS, MAX_LINE_BYTES};

pub const FORMAT: &str = "Lake build log";

/// What a job did (`Lake.JobAction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JobAction {
    /// `Ran`: no build action is known (a computation, a target's aggregate).
    Ran,
    /// `Replayed`: a cached build's log replayed, nothing rebuilt.
    Replayed,
    /// `Fetched`: the output fetched from a store (a cache), nothing rebuilt.
    Fetched,
    /// `Built`: built in this run.
    Built,
}

impl JobAction {
    /// The verb Lake prints, when the job succeeded and when it failed.
    pub const fn verbs(self) -> (&'static str, &'static str) {
        match self {
            JobAction::Ran => ("Ran", "Running"),
            JobAction::Replayed => ("Replayed", "Replaying"),
            JobAction::Fetched => ("Fetched", "Fetching"),
            JobAction::Built => ("Built", "Building"),
        }
    }

    pub const ALL: [JobAction; 4] = [
        JobAction::Ran,
        JobAction::Replayed,
        JobAction::Fetched,
        JobAction::Built,
    ];

    /// `built`, `replayed`, `fetched`, `ran`.
    pub fn as_str(self) -> &'static str {
        match self {
            JobAction::Ran => "ran",
            JobAction::Replayed => "replayed",
            JobAction::Fetched => "fetched",
            JobAction::Built => "built",
        }
    }

    /// Whether the job's time is work done in this build (not a cache's).
    pub fn is_work(self) -> bool {
        self == JobAction::Built
    }
}

/// The icon in front of a job line: what its log held at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobIcon {
    /// `✔`: no output.
    Ok,
    /// `ℹ`: trace or info output.
    Info,
    /// `⚠`: a warning.
    Warning,
    /// `✖`: an error.
    Error,
}

/// One finished job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LakeJob {
    /// 1-based line of the log.
    pub line: u64,
    pub icon: JobIcon,
    /// `[jobNo/totalJobs]`.
    pub number: u64,
    pub total: u64,
    pub optional: bool,
    pub action: JobAction,
    /// The verb was the failed form (`Building`, …).
    pub failed: bool,
    pub caption: String,
    /// The time Lake printed, in milliseconds as it wrote it (a `12s` is 12000 ms).
    pub time_ms: Option<u64>,
}

impl LakeJob {
    /// The module a caption names, when it is a module name (`Mathlib.Algebra.Group`): words
    /// joined by dots, no spaces, colons or slashes.
    pub fn module(&self) -> Option<&str> {
        let c = self.caption.as_str();
        let plain = !c.is_empty()
            && !c.contains([' ', ':', '/', '\\'])
            && c.split('.').all(|w| !w.is_empty());
        plain.then_some(c)
    }
}

/// What a log held.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LakeLog {
    pub jobs: Vec<LakeJob>,
    /// Lines of the log that were not job lines.
    pub other_lines: u64,
    /// Some job line had a time (the build was verbose or its output not a terminal).
    pub has_times: bool,
}

/// Removes what a terminal or a CI job puts around Lake's text: ANSI escape sequences
/// (`\x1B[…m` colours, `\x1B[2K` line resets), everything before a carriage return (a spinner
/// line overwritten), and a leading ISO-8601 timestamp (`2026-12-07T14:28:35.1234567Z `, GitHub
/// Actions' raw logs).
pub fn strip_decorations(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1B' {
            if chars.peek() == Some(&'[') {
                chars.next();
                // Parameters and intermediates, then one final byte in @..~.
                for n in chars.by_ref() {
                    if ('@'..='~').contains(&n) {
                        break;
                    }
                }
            }
            continue;
        }
        if c == '\r' {
            out.clear();
            continue;
        }
        out.push(c);
    }
    let trimmed = out.trim_end_matches(['\n', '\r']);
    strip_timestamp(trimmed).to_owned()
}

/// `2026-12-07T14:28:35.1234567Z rest` → `rest`.
fn strip_timestamp(s: &str) -> &str {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if b.len() > 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
    {
        if let Some(end) = s.find(' ') {
            if s[..end].ends_with('Z') {
                return &s[end + 1..];
            }
        }
    }
    s
}

/// `12ms`, `1.2s`, `12s` in milliseconds (`formatTime`'s three forms).
pub fn parse_time(t: &str) -> Option<u64> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(ms) = t.strip_suffix("ms") {
        return digits(ms).then(|| ms.parse().ok()).flatten();
    }
    let s = t.strip_suffix('s')?;
    match s.split_once('.') {
        Some((whole, tenth)) if digits(whole) && tenth.len() == 1 && digits(tenth) => {
            let w: u64 = whole.parse().ok()?;
            w.checked_mul(1000)?
                .checked_add(tenth.parse::<u64>().ok()? * 100)
        }
        None if digits(s) => s.parse::<u64>().ok()?.checked_mul(1000),
        _ => None,
    }
}

/// One line as a job, if it is one.
pub fn parse_job_line(line: &str, number: u64) -> Option<LakeJob> {
    let text = strip_decorations(line);
    let mut rest = text.trim_start();
    let (icon, after) = [
        ('✔', JobIcon::Ok),
        ('ℹ', JobIcon::Info),
        ('⚠', JobIcon::Warning),
        ('✖', JobIcon::Error),
    ]
    .iter()
    .find_map(|&(c, i)| rest.strip_prefix(c).map(|r| (i, r)))?;
    rest = after.strip_prefix(' ')?;
    let rest2 = rest.strip_prefix('[')?;
    let (counts, after) = rest2.split_once(']')?;
    let (n, total) = counts.split_once('/')?;
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(n) || !all_digits(total) {
        return None;
    }
    let (number_in_log, total) = (n.parse().ok()?, total.parse().ok()?);
    let (optional, after) = match after.strip_prefix(" (Optional)") {
        Some(r) => (true, r),
        None => (false, after),
    };
    let after = after.strip_prefix(' ')?;
    let (verb, caption) = after.split_once(' ')?;
    let (action, failed) = JobAction::ALL.iter().find_map(|&a| {
        let (ok, bad) = a.verbs();
        if verb == ok {
            Some((a, false))
        } else if verb == bad {
            Some((a, true))
        } else {
            None
        }
    })?;
    // A trailing ` (TIME)` is the time; anything else in brackets belongs to the caption.
    let (caption, time_ms) = match caption.strip_suffix(')').and_then(|c| c.rsplit_once(" (")) {
        Some((c, t)) => match parse_time(t) {
            Some(ms) => (c, Some(ms)),
            None => (caption, None),
        },
        None => (caption, None),
    };
    if caption.is_empty() {
        return None;
    }
    Some(LakeJob {
        line: number,
        icon,
        number: number_in_log,
        total,
        optional,
        action,
        failed,
        caption: caption.to_owned(),
        time_ms,
    })
}

/// Reads a whole log; refuses one with no job line.
pub fn read<R: BufRead>(mut input: R) -> Result<LakeLog> {
    let mut log = LakeLog::default();
    let mut buf = Vec::new();
    let mut number = 0u64;
    let line_limit = limit!(MAX_LINE_BYTES, "the line's length");
    while read_line_bounded(&mut input, &mut buf, line_limit, FORMAT, number + 1)? {
        number += 1;
        let text = String::from_utf8_lossy(&buf);
        match parse_job_line(&text, number) {
            Some(job) => {
                if log.jobs.len() >= MAX_LAKE_JOBS {
                    return Err(InteropError::over(
                        FORMAT,
                        format!("line {number}"),
                        limit!(MAX_LAKE_JOBS, "the number of jobs"),
                    ));
                }
                log.has_times |= job.time_ms.is_some();
                log.jobs.push(job);
            }
            None => log.other_lines += 1,
        }
    }
    if log.jobs.is_empty() {
        return Err(InteropError::invalid(
            FORMAT,
            "$",
            "no job lines (`✔ [N/M] Built MODULE (TIME)`): not a `lake build` log",
        ));
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_lines_in_lakes_forms() {
        let j = parse_job_line("✔ [12/40] Built Demo.Basic (1.2s)", 3).unwrap();
        assert_eq!(
            (
                j.number,
                j.total,
                j.action,
                j.failed,
                j.caption.as_str(),
                j.time_ms
            ),
            (12, 40, JobAction::Built, false, "Demo.Basic", Some(1200))
        );
        assert_eq!(j.module(), Some("Demo.Basic"));
        let j = parse_job_line("⚠ [3/9] Replayed Demo.Warn", 1).unwrap();
        assert_eq!(
            (j.icon, j.action, j.time_ms),
            (JobIcon::Warning, JobAction::Replayed, None)
        );
        let j = parse_job_line("✖ [5/9] Building Demo.Broken (812ms)", 1).unwrap();
        assert_eq!(
            (j.action, j.failed, j.time_ms),
            (JobAction::Built, true, Some(812))
        );
        let j = parse_job_line("✔ [1/9] (Optional) Fetched demo:extraDep (34s)", 1).unwrap();
        assert!(j.optional);
        assert_eq!(
            (j.action, j.time_ms, j.module()),
            (JobAction::Fetched, Some(34_000), None)
        );
        let j = parse_job_line(
            "2026-12-07T14:28:35.1234567Z \u{1B}[1;32m✔ [2/9] Ran job computation (40ms)\u{1B}[m",
            1,
        )
        .unwrap();
        assert_eq!(
            (j.caption.as_str(), j.time_ms),
            ("job computation", Some(40))
        );
        let j = parse_job_line(
            "\u{1B}[2K\r⣾ [1/2] Running Demo\r✔ [2/2] Built Demo (not a time)",
            1,
        )
        .unwrap();
        assert_eq!((j.caption.as_str(), j.time_ms), ("Demo (not a time)", None));
        for not in [
            "Build completed successfully (9 jobs).",
            "✔ [x/9] Built A",
            "✔ [1/9] Compiled A",
            "✔ [1/9] Built ",
            "error: ./Demo.lean:3:0: unsolved goals",
        ] {
            assert!(parse_job_line(not, 1).is_none(), "{not}");
        }
    }

    #[test]
    fn times_as_format_time_writes_them() {
        assert_eq!(parse_time("0ms"), Some(0));
        assert_eq!(parse_time("999ms"), Some(999));
        assert_eq!(parse_time("9.9s"), Some(9900));
        assert_eq!(parse_time("11s"), Some(11_000));
        assert_eq!(parse_time("1.25s"), None);
        assert_eq!(parse_time("s"), None);
        assert_eq!(parse_time("99999999999999999999s"), None);
    }

    #[test]
    fn a_log_without_jobs_is_refused_by_name() {
        let e = read(&b"hello\nworld\n"[..]).unwrap_err().to_string();
        assert!(e.contains("not a `lake build` log"), "{e}");
    }
}
