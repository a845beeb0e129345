//! `leanscope query`: the slowest files, folders, declarations or tactics of
//! a session (streaming its index) or of one recording.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use recording::session::{
    index_rows, query_index, query_index_parallel, query_repeated, query_rows, Counts, QueryKind,
    QueryOutcome, QueryRow, QuerySpec, Repeats, SessionStatus, SortBy, INDEX_FILE,
};
use recording::{Measure, Recording};
use serde::Serialize;

use crate::exit;
use crate::session::committed::CommittedSession;
use crate::session::regular;
use crate::session::store::is_being_written;
use leanscope::limits::MAX_QUERY_READERS;

#[derive(Clone, Copy, clap::ValueEnum)]
enum Kind {
    File,
    Folder,
    Declaration,
    Tactic,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Sort {
    /// Inclusive time.
    Total,
    /// Self time (declarations: outside their tactics; files: outside their declarations).
    #[value(name = "self")]
    SelfTime,
    /// Declarations: the resident memory Lean's process tree gained while each ran (adds a
    /// memoryGrowthBytes column; rows of captures that did not sample memory come last).
    Memory,
}

/// Rows a query prints unless told otherwise.
pub const DEFAULT_LIMIT: usize = 20;

#[derive(clap::Args)]
#[command(after_help = "\
Output: TSV with a header line by default; --json gives one object with the session's status and
counts next to the rows; --jsonl one row per line. Times are milliseconds; lines are 1-based.
A session's rows count only for files its manifest marks committed; folder times are the sums
of their committed files. Warnings (damaged index lines, an interrupted session) go to stderr.
A repeated capture (profile --repeat N): each row's time and self time are the medians of its
runs, with their spread (JSON durationSpread/selfSpread: runs, median, min, max, and q1/q3 from
4 runs; TSV columns runs, durationMin, durationMax, durationQ1, durationQ3, selfMin, selfMax);
folder rows sum the files' medians. Memory gets the same: a declaration's memoryGrowthBytes and
a file's memoryPeakBytes are medians over the runs that sampled memory, with memorySpread (TSV,
with --sort memory: memoryRuns, memoryMin, memoryMax).")]
pub struct Args {
    /// A session directory or a recording (.lsrec).
    source: PathBuf,
    /// What to list.
    #[arg(long, value_enum, default_value = "declaration")]
    kind: Kind,
    /// At most this many rows, longest first.
    #[arg(long, default_value_t = DEFAULT_LIMIT, conflicts_with = "all")]
    limit: usize,
    /// Every matching row (memory grows with the result).
    #[arg(long)]
    all: bool,
    /// Only rows under this project-relative path (whole path components: `A/B` matches
    /// `A/B/C.lean`, not `A/Bc.lean`).
    #[arg(long, value_name = "SUBTREE")]
    path: Option<String>,
    /// Order by total (inclusive) time, self time, or memory growth.
    #[arg(long, value_enum, default_value = "total")]
    sort: Sort,
    #[arg(long, conflicts_with = "jsonl")]
    json: bool,
    #[arg(long)]
    jsonl: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionFacts {
    path: PathBuf,
    status: SessionStatus,
    /// The status is `running` but no leanscope is writing the session.
    interrupted: bool,
    #[serde(flatten)]
    counts: Counts,
    /// A repeated capture's runs per file: the rows are medians.
    #[serde(skip_serializing_if = "Option::is_none")]
    repeats: Option<Repeats>,
    /// Committed files whose recording is partial (Lean was stopped).
    stopped: u64,
}

/// What `--json` prints and `leanscope/query` answers.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    session: Option<SessionFacts>,
    recording: Option<PathBuf>,
    kind: QueryKind,
    sort: &'static str,
    limit: Option<usize>,
    path: Option<String>,
    /// What durationMs and selfMs hold: `ms`, or `heartbeats` for a heartbeat recording or session.
    unit: &'static str,
    matched: u64,
    rows: Vec<QueryRow>,
    warnings: Vec<String>,
    /// A recording Lean did not finish: why it was stopped (its rows are what Lean reported).
    #[serde(skip_serializing_if = "Option::is_none")]
    partial: Option<String>,
    /// Warnings beyond those listed (not serialized).
    #[serde(skip)]
    warning_count: u64,
    #[serde(skip)]
    measure: Measure,
}

/// Why a query source cannot be read.
#[derive(Debug)]
pub enum SourceError {
    /// A directory that is not a readable session.
    Session(anyhow::Error),
    /// A file that is not a readable recording.
    Recording(recording::RecordingError),
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceError::Session(e) => write!(f, "{e:#}"),
            SourceError::Recording(e) => write!(f, "{e}"),
        }
    }
}

/// Runs `spec` on a session directory or a recording.
pub fn answer(source: &Path, spec: &QuerySpec) -> Result<Answer, SourceError> {
    let mut partial = None;
    let (facts, outcome, measure) = if source.is_dir() {
        query_session(source, spec).map_err(SourceError::Session)?
    } else {
        let rec = regular::read(source)
            .map_err(recording::RecordingError::from)
            .and_then(Recording::from_file)
            .map_err(SourceError::Recording)?;
        let path = rec.header.source_path.clone();
        let measure = rec.header.measure;
        partial = rec.header.stop.as_ref().map(|s| s.detail.clone());
        (
            None,
            query_rows(index_rows(&rec, 0, 0, &path), spec),
            measure,
        )
    };
    Ok(Answer {
        session: facts,
        recording: (!source.is_dir()).then(|| source.to_path_buf()),
        kind: spec.kind,
        sort: match spec.sort {
            SortBy::Total => "total",
            SortBy::SelfTime => "self",
            SortBy::MemoryGrowth => "memory",
        },
        limit: spec.limit,
        path: spec.path.clone(),
        unit: row_unit(measure),
        matched: outcome.matched,
        rows: outcome.rows,
        warnings: outcome.warnings,
        partial,
        warning_count: outcome.warning_count,
        measure,
    })
}

pub fn run(a: Args) -> Result<u8> {
    let spec = QuerySpec {
        kind: match a.kind {
            Kind::File => QueryKind::File,
            Kind::Folder => QueryKind::Folder,
            Kind::Declaration => QueryKind::Declaration,
            Kind::Tactic => QueryKind::Tactic,
        },
        sort: match a.sort {
            Sort::Total => SortBy::Total,
            Sort::SelfTime => SortBy::SelfTime,
            Sort::Memory => SortBy::MemoryGrowth,
        },
        limit: (!a.all).then_some(a.limit),
        path: a.path.clone(),
    };
    let outcome = match answer(&a.source, &spec) {
        Ok(x) => x,
        Err(SourceError::Session(e)) => {
            eprintln!("leanscope: error: {e:#}");
            return Ok(exit::USAGE);
        }
        Err(SourceError::Recording(e)) => {
            eprintln!(
                "leanscope: error: {} is neither a session directory nor a readable recording: {e}",
                a.source.display()
            );
            return Ok(exit::USAGE);
        }
    };
    for w in &outcome.warnings {
        eprintln!("leanscope: warning: {w}");
    }
    if outcome.warning_count > outcome.warnings.len() as u64 {
        eprintln!(
            "leanscope: warning: and {} more warnings",
            outcome.warning_count - outcome.warnings.len() as u64
        );
    }
    if let Some(why) = &outcome.partial {
        eprintln!(
            "leanscope: note: the recording is partial ({why}): its rows are what Lean reported before it was stopped"
        );
    }
    if let Some(f) = &outcome.session {
        if f.interrupted {
            eprintln!(
                "leanscope: warning: the session was interrupted (status running, but no leanscope is writing it): {} of {} files completed; `leanscope profile --resume {}` completes it",
                f.counts.completed,
                f.counts.planned,
                f.path.display()
            );
        } else if f.stopped > 0 {
            eprintln!(
                "leanscope: note: {} of the session's files are partial: Lean was stopped (a timeout or the memory limit) and their recordings keep what it reported; `leanscope profile --resume {}` captures them again",
                f.stopped,
                f.path.display()
            );
        } else if f.status != SessionStatus::Complete {
            eprintln!(
                "leanscope: note: the session is {}: {} of {} files completed, {} failed",
                f.status.as_str(),
                f.counts.completed,
                f.counts.planned,
                f.counts.failed
            );
        }
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if a.json {
        serde_json::to_writer_pretty(&mut out, &outcome)?;
        writeln!(out)?;
    } else if a.jsonl {
        for r in &outcome.rows {
            serde_json::to_writer(&mut out, r)?;
            writeln!(out)?;
        }
    } else {
        let repeated = outcome
            .session
            .as_ref()
            .is_some_and(|f| f.repeats.is_some());
        let memory = spec.sort == SortBy::MemoryGrowth;
        write_tsv(&mut out, &outcome.rows, outcome.measure, repeated, memory)?;
    }
    out.flush()?;
    Ok(exit::OK)
}

fn query_session(
    dir: &Path,
    spec: &QuerySpec,
) -> Result<(Option<SessionFacts>, QueryOutcome, Measure)> {
    let manifest = CommittedSession::open(dir)?.manifest;
    let committed = manifest.committed();
    let index_path = dir.join(INDEX_FILE);
    let outcome = match regular::read(&index_path) {
        Ok(f) if manifest.repeats.is_some() => {
            query_repeated(f, manifest.index_bytes, &manifest.committed_runs(), spec)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", index_path.display()))?
        }
        Ok(f) => {
            let len = f.metadata()?.len();
            // One reader per core (each its own open file, so its own offset).
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let mut readers = vec![f];
            for _ in 1..cores.min(MAX_QUERY_READERS) {
                readers.push(regular::read(&index_path)?);
            }
            query_index_parallel(readers, len, manifest.index_bytes, &committed, spec)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", index_path.display()))?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && manifest.index_bytes == 0 => {
            query_index(&[][..], 0, 0, &committed, spec)?
        }
        Err(e) => anyhow::bail!("cannot read {}: {e}", index_path.display()),
    };
    let facts = SessionFacts {
        path: dir.to_path_buf(),
        status: manifest.status,
        interrupted: manifest.status == SessionStatus::Running && !is_being_written(dir),
        counts: manifest.counts,
        repeats: manifest.repeats,
        stopped: manifest
            .files
            .iter()
            .filter(|f| f.status == recording::session::FileStatus::Stopped)
            .count() as u64,
    };
    Ok((Some(facts), outcome, manifest.measure))
}

/// A TSV field: tabs and line breaks become spaces.
fn field(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// What an index row's durationMs and selfMs hold for recordings of `m`.
fn row_unit(m: Measure) -> &'static str {
    match m {
        Measure::Time => "ms",
        Measure::Heartbeats => "heartbeats",
        Measure::Untimed => "nodes",
    }
}

/// With `repeated` (a repeated capture), the spread's columns follow.
fn write_tsv(
    out: &mut impl Write,
    rows: &[QueryRow],
    measure: Measure,
    repeated: bool,
    memory: bool,
) -> std::io::Result<()> {
    let (duration, self_) = match measure {
        Measure::Time => ("durationMs", "selfMs"),
        Measure::Heartbeats => ("durationHeartbeats", "selfHeartbeats"),
        Measure::Untimed => ("nodes", "selfNodes"),
    };
    write!(
        out,
        "kind\tname\tpath\t{duration}\t{self_}\tline\tendLine\tdeclaration\tattribution"
    )?;
    if repeated {
        write!(
            out,
            "\truns\tdurationMin\tdurationMax\tdurationQ1\tdurationQ3\tselfMin\tselfMax"
        )?;
    }
    if memory {
        write!(out, "\tmemoryGrowthBytes")?;
        if repeated {
            write!(out, "\tmemoryRuns\tmemoryMin\tmemoryMax")?;
        }
    }
    writeln!(out)?;
    for r in rows {
        write!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            r.kind.as_str(),
            field(&r.name),
            field(&r.path),
            opt(r.duration_ms),
            opt(r.self_ms),
            opt(r.line),
            opt(r.end_line),
            field(r.declaration.as_deref().unwrap_or("")),
            r.attribution.map(|k| k.as_str()).unwrap_or("")
        )?;
        if repeated {
            let (d, s) = (r.duration_spread, r.self_spread);
            write!(
                out,
                "\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                opt(d.map(|x| x.runs)),
                opt(d.map(|x| x.min)),
                opt(d.map(|x| x.max)),
                opt(d.and_then(|x| x.q1)),
                opt(d.and_then(|x| x.q3)),
                opt(s.map(|x| x.min)),
                opt(s.map(|x| x.max)),
            )?;
        }
        if memory {
            write!(out, "\t{}", opt(r.memory_growth_bytes))?;
            if repeated {
                let m = r.memory_spread.map(|m| m.whole());
                write!(
                    out,
                    "\t{}\t{}\t{}",
                    opt(m.map(|m| m.runs)),
                    opt(m.map(|m| m.min)),
                    opt(m.map(|m| m.max))
                )?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}
