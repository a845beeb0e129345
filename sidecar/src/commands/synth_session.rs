//! `leanscope synth-session`: a deterministic synthetic session (manifest,
//! index and recordings) written through the same session store and index
//! rows as `leanscope profile`, for tests, benchmarks and demos of the
//! viewer. Every file is a `leanscope synth`
//! recording re-labelled with the file's path; some files fail and some
//! report Lean errors, so every status shows.

use std::path::{Path, PathBuf};

use crate::session::store::SessionStore;
use anyhow::{bail, Context, Result};
use recording::limits::MAX_ERROR_CHARS;
use recording::model::file_time;
use recording::session::{
    index_rows, ns_to_ms, write_row, FileEntry, FileStatus, Manifest, NewSession, SessionStatus,
    Target, TargetKind, FILES_DIR,
};
use recording::synth::{synthetic_bytes, SynthParams};
use recording::text::cap_chars;
use recording::writer::{AtomicFile, Encoder, NewEvent};
use recording::{CaptureStatus, Diagnostic, Recording, Severity, SourceRange};

#[derive(clap::Args)]
pub struct Args {
    /// The new session directory (refused when it exists and is not empty).
    #[arg(long, short)]
    out: PathBuf,
    /// Number of planned files.
    #[arg(long, default_value_t = 8)]
    files: u32,
    /// Events per file, on average.
    #[arg(long, default_value_t = 2000)]
    events: u64,
    #[arg(long, default_value_t = 2)]
    threads: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Every N-th file fails (0: none).
    #[arg(long, default_value_t = 7)]
    fail_every: u32,
    /// Every N-th file reports a Lean error (0: none).
    #[arg(long, default_value_t = 5)]
    error_every: u32,
    /// The session status to write (default: complete, or partial when a file failed).
    #[arg(long)]
    status: Option<String>,
}

/// The synthetic project's file paths: nested folders, one with a
/// non-BMP character in its name.
pub fn synthetic_path(k: u32) -> String {
    const GROUPS: [&str; 3] = ["Algebra", "Analysis", "Topology"];
    const SUBS: [&str; 3] = ["Basic", "Lemmas", "Ring"];
    if k == 3 {
        return "Synth/Unicode/𝔽ield.lean".into();
    }
    if k.is_multiple_of(4) {
        return format!("Synth/File{k}.lean");
    }
    let g = GROUPS[(k % 3) as usize];
    let s = SUBS[((k / 3) % 3) as usize];
    format!("Synth/{g}/{s}/File{k}.lean")
}

fn module_of(path: &str) -> String {
    path.trim_end_matches(".lean").replace('/', ".")
}

pub fn run(a: Args) -> Result<u8> {
    crate::session::staged_dir::refuse_non_empty(&a.out)?;
    let status_override = match a.status.as_deref() {
        None => None,
        Some("running") => Some(SessionStatus::Running),
        Some("complete") => Some(SessionStatus::Complete),
        Some("partial") => Some(SessionStatus::Partial),
        Some("cancelled") => Some(SessionStatus::Cancelled),
        Some(other) => {
            bail!("unknown session status {other:?} (running, complete, partial, cancelled)")
        }
    };
    let manifest = Manifest {
        toolchains: vec!["synthetic".into()],
        notes: vec!["synthetic session written by `leanscope synth-session`".into()],
        ..Manifest::new(NewSession {
            producer: concat!("leanscope ", env!("CARGO_PKG_VERSION"), " (synth-session)").into(),
            project_root: "/synthetic/project".into(),
            target: Target {
                kind: TargetKind::Project,
                path: String::new(),
            },
            threshold_ms: 0,
            measure: recording::Measure::Time,
            started_unix_ms: 0,
            files: (0..a.files)
                .map(|k| {
                    let path = synthetic_path(k);
                    FileEntry::planned(k, path.clone(), module_of(&path))
                })
                .collect(),
        })
    };
    // Written beside the target and renamed into place at the end.
    let staged = crate::session::staged_dir::stage_beside(&a.out)?;
    let mut store = SessionStore::create(staged.path(), manifest)
        .with_context(|| format!("cannot create the session {}", a.out.display()))?;
    for k in 0..a.files {
        let id = k as usize;
        let path = synthetic_path(k);
        if a.fail_every > 0 && k % a.fail_every == a.fail_every - 1 {
            let f = &mut store.manifest.files[id];
            let was = f.status;
            f.status = FileStatus::Failed;
            f.capture_wall_ms = Some(12);
            f.error = Some(cap_chars(
                "synthetic failure: lean exited with code 1 (out of memory)",
                MAX_ERROR_CHARS,
            ));
            store.manifest.counts.moved(was, FileStatus::Failed);
            store.commit_file(k, None);
            continue;
        }
        let capture = store.manifest.next_capture;
        let events = a.events * (2 + u64::from(k * 7 % 5)) / 4;
        let lean_error = a.error_every > 0 && k % a.error_every == a.error_every - 1;
        let module = module_of(&path);
        let rel = format!("{FILES_DIR}/{k:05}-{module}-{capture}.lsrec");
        let rec = write_file(
            &a,
            k,
            events.max(1),
            &path,
            lean_error,
            &store.dir.join(&rel),
        )?;
        // The session engine's commit order: recording published, rows
        // appended, then the file staged for the journal.
        let mut rows = Vec::new();
        for r in index_rows(&rec, k, capture, &path) {
            write_row(&r, &mut rows);
        }
        let len = store.append_rows(&rows)?;
        let lean_version = rec.header.lean_version.clone();
        let m = &mut store.manifest;
        m.index_bytes = len;
        if !m.lean_versions.contains(&lean_version) {
            m.lean_versions.push(lean_version.clone());
        }
        let was = m.files[id].status;
        m.files[id] = FileEntry {
            status: match rec.header.status {
                CaptureStatus::Ok => FileStatus::Ok,
                CaptureStatus::Error => FileStatus::Error,
                CaptureStatus::Stopped => FileStatus::Stopped,
            },
            capture: Some(capture),
            recording: Some(rel),
            elapsed_ms: file_time(&rec).elapsed_ns.map(ns_to_ms),
            traced_ms: Some(ns_to_ms(file_time(&rec).traced_ns)),
            time_account: Some(recording::model::time_account(&rec)),
            capture_wall_ms: Some(40),
            events: Some(rec.len() as u64),
            declarations: Some(rec.header.declarations.len() as u64),
            lean_errors: Some(u64::from(lean_error)),
            source_sha256: Some(rec.header.source_sha256.clone()),
            ..FileEntry::planned(k, path.clone(), module)
        };
        m.next_capture = capture + 1;
        m.counts.moved(was, m.files[id].status);
        store.commit_file(k, Some(lean_version));
        // Committed in groups, as the engine does (the session is staged
        // and renamed into place at the end, so a kill loses nothing).
        if k % 256 == 255 {
            store.sync()?;
        }
    }
    let m = &mut store.manifest;
    m.status = status_override.unwrap_or(if m.counts.failed > 0 {
        SessionStatus::Partial
    } else {
        SessionStatus::Complete
    });
    if m.status != SessionStatus::Running {
        m.completed_unix_ms = Some(0);
    }
    store.finish()?;
    drop(store);
    crate::session::staged_dir::publish(staged, &a.out)?;
    println!("{}", a.out.display());
    Ok(crate::exit::OK)
}

/// Writes file `k`'s recording: the synthetic recording for its seed with
/// the file's path, module and (synthetic) elapsed time.
fn write_file(
    a: &Args,
    k: u32,
    events: u64,
    path: &str,
    lean_error: bool,
    target: &Path,
) -> Result<Recording> {
    let bytes = synthetic_bytes(&SynthParams {
        seed: a.seed.wrapping_mul(1_000_003).wrapping_add(u64::from(k)),
        events,
        threads: a.threads,
    })?;
    let rec = Recording::from_bytes(&bytes)?;
    let mut header = rec.header.clone();
    header.source_path = path.to_owned();
    header.module_name = module_of(path);
    header.source_sha256 = recording::sha256_hex(header.source_text.as_bytes());
    // The synthetic clock starts the file at 0 (imports take its first
    // 40 ms), so its end is the file's synthetic elapsed time.
    header.elapsed_ns = rec.window().map(|w| w.end);
    if lean_error {
        header.status = CaptureStatus::Error;
        let line = header
            .declarations
            .first()
            .map_or(0, |d| d.range.start_line);
        header.diagnostics.push(Diagnostic {
            severity: Severity::Error,
            range: SourceRange::new(line, 0, line, 7),
            text: "synthetic error: unsolved goals".into(),
        });
    }
    let (file, out) = AtomicFile::create(target)?;
    let mut enc = Encoder::new(out, &header)?;
    for i in 0..rec.len() as u32 {
        enc.push(&NewEvent {
            parent: rec.parent(i),
            class: rec.class(i),
            label: rec.label(i),
            start_ns: rec.start(i),
            duration_ns: rec.inclusive_ns(i),
            thread: u32::from(rec.thread(i)),
            range: rec.range(i),
            range_kind: rec.range_kind(i),
        })?;
    }
    file.publish(enc.finish()?)?;
    let rec = Recording::open(target)?;
    debug_assert_eq!(file_time(&rec).elapsed_ns, header.elapsed_ns);
    Ok(rec)
}
