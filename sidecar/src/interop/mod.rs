//! Other profilers' formats: importers (streaming, bounded by the named
//! limits in [`crate::limits`]) that turn them into recordings, exporters that
//! write recordings in them, and readers of summary JSON (leanscope's and
//! LeanProfiler's).

pub mod chrome;
pub mod error;
pub mod firefox;
pub mod folded;
pub mod hb_json;
mod json_write;
pub mod lake_log;
pub mod lean_log;
pub mod leanprofiler_summary;
pub mod radar;
pub mod sink;
pub mod speedscope;
pub mod summary_json;

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use recording::summary::{Summary, SUMMARY_FORMAT};
use recording::{CaptureMode, ClockKind, Header, Measure, Recording};

pub use error::{InteropError, Result};

use crate::limit;
use crate::limits::Limit;
use sink::TraceSink;

/// A file format leanscope reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A leanscope recording (.lsrec).
    Recording,
    /// Chrome/Perfetto trace-event JSON (also LeanProfiler's traces).
    Chrome,
    /// Firefox Profiler processed profile (Lean's `trace.profiler.output`).
    Firefox,
    /// Folded/collapsed stacks (perf, inferno, py-spy).
    Folded,
    /// What Lean prints: a `lean --profile [--json]` log (stdout and stderr
    /// merged, or stdout alone), or `trace.profiler` trees as text.
    LeanProfile,
    /// leanscope summary JSON.
    Summary,
    /// LeanProfiler summary JSON (schema version 1).
    LeanprofilerSummary,
    /// speedscope JSON (leanscope writes it; it does not read it).
    Speedscope,
    /// Lean's per-declaration heartbeat file (`X.hb.json`, written beside `X.olean`).
    HbJson,
    /// A `lake build` log (plain, `-v`, or a CI job's): imported as a session of modules.
    LakeLog,
    /// radar's measurements (JSON lines `{"metric", "value", "unit"}`), read as a summary.
    Radar,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Recording => "leanscope recording",
            Format::Chrome => "Chrome trace",
            Format::Firefox => "Firefox profile",
            Format::Folded => "folded stacks",
            Format::LeanProfile => lean_log::FORMAT,
            Format::Summary => "leanscope summary",
            Format::LeanprofilerSummary => "LeanProfiler summary",
            Format::Speedscope => "speedscope profile",
            Format::HbJson => hb_json::FORMAT,
            Format::LakeLog => lake_log::FORMAT,
            Format::Radar => radar::FORMAT,
        }
    }

    /// Whether `import` turns this format into a recording.
    pub fn is_importable(self) -> bool {
        matches!(
            self,
            Format::Chrome | Format::Firefox | Format::Folded | Format::LeanProfile
        )
    }

    pub fn is_summary(self) -> bool {
        matches!(
            self,
            Format::Summary | Format::LeanprofilerSummary | Format::Radar
        )
    }
}

/// How many bytes format detection looks at.
pub const SNIFF_BYTES: usize = 64 * 1024;

/// Recognizes a file's format from its first bytes.
pub fn detect(path: &Path) -> Result<Format> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    let named = |e: std::io::Error| {
        std::io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display()))
    };
    File::open(path)
        .map_err(named)?
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(named)?;
    detect_bytes(&head).ok_or_else(|| {
        InteropError::Unrecognized(format!(
            "{}: unrecognized format (not a recording, Chrome trace, Firefox profile, folded stacks, \
             Lean output (a `lean --profile`/`--json` log or trace.profiler text) or summary JSON); \
             name it with --format",
            path.display()
        ))
    })
}

/// Recognizes a format from the start of a file.
pub fn detect_bytes(head: &[u8]) -> Option<Format> {
    if head.starts_with(&recording::MAGIC) {
        return Some(Format::Recording);
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let first = text.iter().copied().find(|b| !b.is_ascii_whitespace())?;
    let has = |needle: &str| memchr::memmem::find(text, needle.as_bytes()).is_some();
    if is_lean_output(text) {
        return Some(Format::LeanProfile);
    }
    match first {
        b'[' => Some(Format::Chrome),
        b'{' => {
            if has("\"traceEvents\"") {
                Some(Format::Chrome)
            } else if has(&format!("\"{SUMMARY_FORMAT}\"")) {
                Some(Format::Summary)
            } else if has("\"schema_version\"") && (has("\"event_timings\"") || has("\"rows\"")) {
                Some(Format::LeanprofilerSummary)
            } else if has("\"metric\"") && has("\"value\"") && !has("\"rows\"") {
                Some(Format::Radar)
            } else if has("\"entries\"") && has("\"owner\"") && has("\"phase\"") {
                Some(Format::HbJson)
            } else if has("speedscope.app/file-format-schema") {
                Some(Format::Speedscope)
            } else if has("\"meta\"") || has("\"threads\"") {
                Some(Format::Firefox)
            } else {
                None
            }
        }
        _ => {
            let text = String::from_utf8_lossy(text);
            let line = text.lines().find(|l| !l.trim().is_empty())?;
            let (_, count) = line.trim_end().rsplit_once(' ')?;
            count.parse::<f64>().ok().map(|_| Format::Folded)
        }
    }
}

/// Whether the start of a file is Lean's output: a JSON message line of
/// `lean --json`, a profiler line (`… took 12ms`, `cumulative profiling
/// times:`), a trace tree's header (`[Elab.command] …`, also quoted by
/// `#guard_msgs` as `info: [Elab.command] …`) at the start of the first line, or anywhere a
/// timed header or `took` line behind what users put in front of shared output (`-- `,
/// indentation, `info: FILE:L:C: `, see [`lean_log`]).
fn is_lean_output(head: &[u8]) -> bool {
    use crate::capture::lean_output::messages::parse_message_line;
    use crate::capture::lean_output::prefixes::{line_comment, message_head};
    use crate::capture::lean_output::profiler_lines::{parse_took_line, CUMULATIVE_HEADER};
    use crate::capture::lean_output::trace_text::parse_trace_text;
    let text = String::from_utf8_lossy(head);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty()).peekable();
    let Some(&first) = lines.peek() else {
        return false;
    };
    if first.starts_with('{') {
        // The sniffed head may end inside a long first message: then its keys tell.
        let keys = ["\"fileName\":", "\"severity\":", "\"pos\":{", "\"data\":"];
        return parse_message_line(1, first).is_ok() || keys.iter().all(|k| first.contains(k));
    }
    let trace = first.strip_prefix("info: ").unwrap_or(first);
    if trace.starts_with('[')
        && !trace.starts_with("[{")
        && parse_trace_text(trace.trim_end_matches('⏎')).is_ok()
    {
        return true;
    }
    // a header behind a copy's prefixes: timed, or untimed (a trace printed without
    // `trace.profiler`) with a class spelled as Lean names trace classes (`Elab.step`, `bv`)
    let trace_header = |l: &str| {
        let l = crate::capture::lean_output::infoview::strip_fold_marker(l.trim_start());
        l.starts_with('[')
            && parse_trace_text(l.trim_end_matches('⏎'))
                .ok()
                .and_then(|f| {
                    f.node(0)
                        .map(|n| n.timing.is_some() || is_trace_class_name(f.class(0)))
                })
                .unwrap_or(false)
    };
    lines.any(|l| {
        if l == CUMULATIVE_HEADER {
            return true;
        }
        if l.starts_with('{') {
            return false;
        }
        let l = line_comment(l).unwrap_or(l);
        let l = message_head(l).map_or(l, |(_, rest)| rest);
        parse_took_line(l).is_some() || trace_header(l)
    })
}

/// Whether `class` is spelled as a Lean trace class: dot-separated identifiers of ASCII
/// letters, digits and `_`, each starting with a letter (`Elab.step`, `Meta.synthInstance`,
/// `bv`). Other bracketed words (`[INFO]`-like tags are upper case too, so the rule is only
/// what keeps JSON arrays and folded frames out).
fn is_trace_class_name(class: &str) -> bool {
    !class.is_empty()
        && class.split('.').all(|part| {
            part.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// Reads one line (with its `\n`) into `buf`, refusing lines longer than
/// `max` without reading them whole. Returns false at the end.
pub fn read_line_bounded<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: Limit,
    format: &'static str,
    line: u64,
) -> Result<bool> {
    buf.clear();
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(!buf.is_empty());
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if (buf.len() + take) as u64 > max.value + 1 {
            return Err(InteropError::over(format, format!("line {line}"), max));
        }
        buf.extend_from_slice(&chunk[..take]);
        input.consume(take);
        if done {
            return Ok(true);
        }
    }
}

/// Options of importing.
#[derive(Debug, Clone, Copy)]
pub struct ImportOptions {
    /// Nanoseconds per count of folded stacks.
    pub unit_ns: u64,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { unit_ns: 1 }
    }
}

/// What an import produced.
#[derive(Debug, Clone)]
pub struct ImportReport {
    pub format: Format,
    pub events: u64,
    pub threads: usize,
    /// What the importer set aside or could not tell (also in the recording's notes).
    pub warnings: Vec<String>,
}

pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Imports `input` (of `format`, or detected) and writes the recording to
/// `out`, with `spill_dir` holding the temporary spill file.
pub fn import_to<W: Write>(
    input: &Path,
    format: Option<Format>,
    opts: ImportOptions,
    spill_dir: &Path,
    out: W,
) -> Result<(W, ImportReport)> {
    import_to_placed(input, format, opts, None, Measure::Time, spill_dir, out)
}

/// [`import_to`], with the Lean source a Lean log's positions are placed in, and what the
/// input measures (heartbeats: only Lean's Firefox profile made with them).
pub fn import_to_placed<W: Write>(
    input: &Path,
    format: Option<Format>,
    opts: ImportOptions,
    source: Option<&LeanSource>,
    measure: Measure,
    spill_dir: &Path,
    out: W,
) -> Result<(W, ImportReport)> {
    let format = match format {
        Some(f) => f,
        None => detect(input)?,
    };
    if !format.is_importable() {
        return Err(InteropError::Unrecognized(format!(
            "{}: a {} cannot be imported as a recording{}",
            input.display(),
            format.name(),
            if format.is_summary() {
                "; summary and compare read it directly"
            } else {
                ""
            }
        )));
    }
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    import_reader_placed(
        File::open(input)?,
        &name,
        format,
        opts,
        source,
        measure,
        spill_dir,
        out,
    )
}

/// Imports from any reader; `name` names the input in the header.
pub fn import_reader<R: Read, W: Write>(
    file: R,
    name: &str,
    format: Format,
    opts: ImportOptions,
    spill_dir: &Path,
    out: W,
) -> Result<(W, ImportReport)> {
    import_reader_placed(
        file,
        name,
        format,
        opts,
        None,
        Measure::Time,
        spill_dir,
        out,
    )
}

/// The Lean file a log was made from: its positions become ranges in it,
/// and the recording embeds it.
#[derive(Debug, Clone)]
pub struct LeanSource {
    /// As the user named it.
    pub path: String,
    pub text: String,
}

impl LeanSource {
    /// Reads a source file (UTF-8, at most the recording's source limit).
    pub fn read(path: &Path) -> Result<LeanSource> {
        let limit = recording::limits::MAX_SOURCE_BYTES;
        let len = std::fs::metadata(path)
            .map_err(|e| {
                std::io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display()))
            })?
            .len();
        if len > limit as u64 {
            return Err(InteropError::over(
                lean_log::FORMAT,
                path.display().to_string(),
                limit!(
                    recording::limits::MAX_SOURCE_BYTES,
                    "the source file's size"
                ),
            ));
        }
        let bytes = std::fs::read(path)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            InteropError::invalid(
                lean_log::FORMAT,
                path.display().to_string(),
                format!(
                    "the source is not UTF-8 (byte {})",
                    e.utf8_error().valid_up_to()
                ),
            )
        })?;
        Ok(LeanSource {
            path: path.display().to_string(),
            text,
        })
    }
}

/// [`import_reader`], with the Lean source a Lean log's positions are placed in.
#[allow(clippy::too_many_arguments)]
pub fn import_reader_placed<R: Read, W: Write>(
    file: R,
    name: &str,
    format: Format,
    opts: ImportOptions,
    source: Option<&LeanSource>,
    measure: Measure,
    spill_dir: &Path,
    out: W,
) -> Result<(W, ImportReport)> {
    if measure == Measure::Heartbeats && !matches!(format, Format::Firefox | Format::LeanProfile) {
        return Err(InteropError::Unrecognized(format!(
            "{name}: --measure heartbeats reads only Lean's output (trace.profiler with trace.profiler.useHeartbeats=true: its Firefox profile, or its trace trees as text), not a {}",
            format.name()
        )));
    }
    if source.is_some() && format != Format::LeanProfile {
        return Err(InteropError::Unrecognized(format!(
            "{name}: a source file places only Lean output's positions, not a {}'s",
            format.name()
        )));
    }
    if !format.is_importable() {
        return Err(InteropError::Unrecognized(format!(
            "{name}: a {} cannot be imported as a recording",
            format.name()
        )));
    }
    let mut sink = TraceSink::new(format.name(), spill_dir)?;
    let mut header = Header {
        capture_mode: CaptureMode::Imported,
        clock: ClockKind::Measured,
        producer: format!("leanscope {} import", env!("CARGO_PKG_VERSION")),
        created_unix_ms: unix_ms(),
        source_path: name.to_owned(),
        ..Header::default()
    };
    match format {
        Format::Chrome => {
            let imported = chrome::import(file, &mut sink)?;
            header.clock_description = "Chrome trace-event timestamps (microseconds)".into();
            if let Some(h) = imported.header {
                let mode = h.capture_mode;
                header = Header {
                    capture_mode: CaptureMode::Imported,
                    producer: header.producer,
                    created_unix_ms: header.created_unix_ms,
                    ..h
                };
                header
                    .notes
                    .push(format!("exported by leanscope from a {mode} capture"));
            }
        }
        Format::Firefox if measure == Measure::Heartbeats => {
            firefox::import_heartbeats(file, &mut sink)?;
            header.measure = Measure::Heartbeats;
            header.clock_description =
                "Lean's heartbeat counter (trace.profiler.useHeartbeats: the profile's \"milliseconds\" are heartbeats × 1000)".into();
            header.notes.push(
                "measured in heartbeats; the main thread's runFrontend root, timed by the clock, is left out".into(),
            );
        }
        Format::Firefox => {
            firefox::import(file, &mut sink)?;
            header.clock_description = "Firefox profile sample times (milliseconds)".into();
        }
        Format::Folded => {
            folded::import(
                BufReader::with_capacity(1 << 16, file),
                &mut sink,
                opts.unit_ns,
            )?;
            header.clock = ClockKind::DurationsOnly;
            header.clock_description = format!(
                "folded-stack counts of {} ns each, laid out back to back",
                opts.unit_ns
            );
        }
        Format::LeanProfile => {
            let log = lean_log::import(
                BufReader::with_capacity(1 << 16, file),
                &mut sink,
                source.map(|s| s.text.as_str()),
                measure,
            )?;
            header.clock = ClockKind::DurationsOnly;
            header.measure = if log.untimed {
                Measure::Untimed
            } else {
                measure
            };
            header.clock_description = match header.measure {
                Measure::Time => "durations Lean printed (profiler lines: three significant digits; trace headers: microseconds), laid out back to back".into(),
                Measure::Heartbeats => "heartbeats Lean printed in trace headers (trace.profiler.useHeartbeats), laid out back to back".into(),
                Measure::Untimed => "none: Lean printed the trace without times (no trace.profiler); each event spans the trace nodes of its subtree, laid out back to back".into(),
            };
            header.cumulative_times = log.cumulative;
            if log
                .diagnostics
                .iter()
                .any(|d| d.severity == recording::Severity::Error)
            {
                header.status = recording::CaptureStatus::Error;
            }
            header.diagnostics = log.diagnostics;
            match source {
                Some(src) => {
                    header.source_path = src.path.clone();
                    header.source_text = src.text.clone();
                    header.declarations = crate::capture::declarations::scan(&src.text);
                    header.notes.push(format!(
                        "positions placed in {} as given with --source (Lean's positions, converted to UTF-16)",
                        src.path
                    ));
                }
                None => {
                    if let Some(f) = log.file_name {
                        header.source_path = f;
                    }
                    header.notes.push(
                        "no source file was given (--source): positions are kept in the labels as FILE:LINE:COLUMN, without ranges".into(),
                    );
                }
            }
        }
        _ => unreachable!("checked above"),
    }
    header
        .notes
        .push(format!("imported from the {} {name}", format.name()));
    let events = sink.event_count();
    let threads = sink.threads.len();
    let warnings = sink.notes.clone();
    let out = sink.finish(header, out)?;
    Ok((
        out,
        ImportReport {
            format,
            events,
            threads,
            warnings,
        },
    ))
}

/// Imports `input` into a recording file published atomically at `out`.
pub fn import_file(
    input: &Path,
    format: Option<Format>,
    opts: ImportOptions,
    out: &Path,
) -> Result<ImportReport> {
    import_file_placed(input, format, opts, None, out)
}

/// [`import_file`], with the Lean source a Lean log's positions are placed in.
pub fn import_file_placed(
    input: &Path,
    format: Option<Format>,
    opts: ImportOptions,
    source: Option<&LeanSource>,
    out: &Path,
) -> Result<ImportReport> {
    import_file_measured(input, format, opts, source, Measure::Time, out)
}

/// [`import_file_placed`], with what the input measures.
pub fn import_file_measured(
    input: &Path,
    format: Option<Format>,
    opts: ImportOptions,
    source: Option<&LeanSource>,
    measure: Measure,
    out: &Path,
) -> Result<ImportReport> {
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (file, writer) = recording::AtomicFile::create(out)?;
    let (writer, report) = import_to_placed(input, format, opts, source, measure, &dir, writer)?;
    file.publish(writer)?;
    Ok(report)
}

/// Imports bytes of `format` into an encoded recording in memory (the
/// spill file goes to the system's temporary folder).
pub fn import_from_bytes(data: &[u8], format: Format) -> Result<Vec<u8>> {
    let (bytes, _) = import_reader(
        data,
        "input",
        format,
        ImportOptions::default(),
        &std::env::temp_dir(),
        Vec::new(),
    )?;
    Ok(bytes)
}

/// Imports `input` into a temporary recording and decodes it.
pub fn import_recording(
    input: &Path,
    format: Option<Format>,
    opts: ImportOptions,
) -> Result<Recording> {
    let tmp = tempfile::NamedTempFile::new()?;
    let dir = tmp
        .path()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir);
    let (writer, _) = import_to(
        input,
        format,
        opts,
        &dir,
        std::io::BufWriter::new(tmp.reopen()?),
    )?;
    drop(writer);
    Ok(Recording::open(tmp.path())?)
}

/// Reads a summary JSON file (leanscope's or LeanProfiler's).
pub fn read_summary(path: &Path, format: Format) -> Result<Summary> {
    let name = format.name();
    if format == Format::Radar {
        let ms = radar::read(std::io::BufReader::new(File::open(path)?))?;
        return radar::to_summary(&ms);
    }
    let value = summary_json::read_json(File::open(path)?, name)?;
    match format {
        Format::Summary => summary_json::parse(&value),
        _ => leanprofiler_summary::parse(&value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_formats_from_their_first_bytes() {
        let cases: [(&[u8], Option<Format>); 10] = [
            (b"[{\"ph\":\"X\"}]", Some(Format::Chrome)),
            (
                b"  {\"displayTimeUnit\":\"ns\",\"traceEvents\":[]}",
                Some(Format::Chrome),
            ),
            (b"{\"meta\":{},\"threads\":[]}", Some(Format::Firefox)),
            (
                b"{\"format\":\"leanscope-summary\",\"rows\":[]}",
                Some(Format::Summary),
            ),
            (
                b"{\"schema_version\":1,\"event_timings\":[]}",
                Some(Format::LeanprofilerSummary),
            ),
            (b"main;foo;bar 12\nmain 3\n", Some(Format::Folded)),
            (
                b"import took 354ms\ncumulative profiling times:\n\timport 354ms\n",
                Some(Format::LeanProfile),
            ),
            (b"hello world\n", None),
            (b"{\"what\":1}", None),
            (b"", None),
        ];
        for (bytes, want) in cases {
            assert_eq!(
                detect_bytes(bytes),
                want,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn untimed_traces_as_shared_are_lean_output() {
        for text in [
            "-- [Elab.step] trivial\n--   [Elab.step] skip\n",
            "info: ././A.lean:6:0: [Elab.step] expected type: Prop, term\n    True\n",
            "A.lean:6:0: error: unsolved goals\n[Elab.step] trivial\n",
            "\u{25bc} 6:0-8:9: information:\n[Elab.step] trivial \u{25bc}\n  [] skip\n",
            "    [Elab.step] trivial\n      [Elab.step] skip\n",
            "/-\n[Meta.synthInstance] \u{2705}\u{fe0f} Inhabited Nat\n-/\n",
        ] {
            assert_eq!(
                detect_bytes(text.as_bytes()),
                Some(Format::LeanProfile),
                "{text}"
            );
        }
        // bracketed words that are not trace classes stay out
        for text in ["x\n  [\"a b\", 1]\n", "x\n[1.5] y\n", "x\n[a-b] y\n"] {
            assert_ne!(
                detect_bytes(text.as_bytes()),
                Some(Format::LeanProfile),
                "{text}"
            );
        }
    }

    #[test]
    fn long_lines_are_refused_at_the_limit() {
        let text = format!("{}\n{}\n", "a".repeat(10), "b".repeat(11));
        let mut input = std::io::BufReader::with_capacity(4, text.as_bytes());
        let mut buf = Vec::new();
        let ten = limit!(crate::limits::MAX_LINE_BYTES, "the line's length").with_value(10);
        // 10 bytes plus the newline fit a limit of 10.
        assert!(read_line_bounded(&mut input, &mut buf, ten, "test", 1).unwrap());
        assert_eq!(buf.len(), 11);
        let e = read_line_bounded(&mut input, &mut buf, ten, "test", 2).unwrap_err();
        assert!(
            e.to_string()
                .contains("line 2: the line's length is over the limit of 10"),
            "{e}"
        );
    }
}
