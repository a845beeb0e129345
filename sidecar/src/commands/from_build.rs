//! `leanscope profile --project DIR --from-build`: a session read from what the project's
//! last `lake build` left, with no Lean run. Every `<module>.hb.json` Lean wrote beside an
//! `.olean` under `.lake/build/lib/lean/` becomes one heartbeat recording (its declarations'
//! `elab` and `kernel` heartbeats, placed in `<module>.lean` when the file is found: see
//! `leanscope::interop::hb_json`), written through the same session store and index rows as a
//! captured session, so the folder tree, `query`, `top`, `headroom`, `compare` and the viewer
//! read it as they read any heartbeat session.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use leanscope::interop::hb_json::{self, HbFacts, ModuleSource};
use leanscope::interop::lake_log;
use leanscope::limit;
use leanscope::limits::{MAX_BUILD_DEPTH, MAX_BUILD_MODULES};
use recording::model::file_time;
use recording::session::{
    index_rows, ns_to_ms, write_row, FileEntry, FileStatus, Manifest, NewSession, SessionStatus,
    Target, TargetKind, FILES_DIR,
};
use recording::writer::{AtomicFile, Encoder, NewEvent};
use recording::{CaptureMode, CaptureStatus, ClockKind, Header, Measure, RangeKind, Recording};

use crate::capture::project::Project;
use crate::capture::{timestamp, PROJECT_DIR};
use crate::session::store::SessionStore;

/// Where Lake puts a package's Lean build output, below the project's root.
pub const BUILD_LIB_DIR: [&str; 4] = [".lake", "build", "lib", "lean"];

/// Which Lean first writes `.hb.json`, as far as we could establish (`fixtures/README.md`,
/// "Heartbeat files"): the test and the writer are on Lean's `master`; no release notes through
/// v4.35.0 mention the file.
pub const HB_JSON_SINCE: &str =
    "Lean after v4.35.0 (a nightly; no release through v4.35.0 writes it)";

/// One module of the build: its `.hb.json` and the source it was compiled from.
#[derive(Debug, Clone)]
pub struct BuiltModule {
    pub module: String,
    pub hb_json: PathBuf,
    /// Project-relative, `/`-separated: `Demo/Basic.lean`.
    pub source_rel: String,
}

/// The `.hb.json` files under `lib` (Lake's `lib/lean` folder), sorted by path, and how many
/// `.olean` files it holds.
pub fn find_modules(lib: &Path) -> Result<(Vec<BuiltModule>, usize)> {
    let mut found = Vec::new();
    let mut oleans = 0usize;
    let mut stack: Vec<(PathBuf, usize)> = vec![(lib.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        if depth > MAX_BUILD_DEPTH {
            bail!(
                "{}: {}",
                dir.display(),
                limit!(MAX_BUILD_DEPTH, "the folder's depth")
            );
        }
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))?;
        for entry in entries {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_dir() {
                stack.push((path, depth + 1));
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".olean") {
                oleans += 1;
            }
            if !name.ends_with(hb_json::SUFFIX) {
                continue;
            }
            let rel = path.strip_prefix(lib).unwrap_or(&path);
            let Some(module) = hb_json::module_of(rel) else {
                continue;
            };
            if found.len() >= MAX_BUILD_MODULES {
                bail!(
                    "{}: {}",
                    lib.display(),
                    limit!(MAX_BUILD_MODULES, "the number of .hb.json files")
                );
            }
            let source_rel = format!("{}.lean", module.replace('.', "/"));
            found.push(BuiltModule {
                module,
                hb_json: path,
                source_rel,
            });
        }
    }
    found.sort_by(|a, b| a.source_rel.cmp(&b.source_rel));
    Ok((found, oleans))
}

/// `4.31.0` from `leanprover/lean4:v4.31.0` (a nightly's name as it is).
pub fn lean_version_of(toolchain: &str) -> String {
    let v = toolchain.rsplit(':').next().unwrap_or(toolchain);
    v.strip_prefix('v').unwrap_or(v).to_owned()
}

/// Reads one module's `.hb.json` and writes its recording to `target`.
pub fn write_module(
    project: &Project,
    m: &BuiltModule,
    target: &Path,
) -> Result<(Recording, hb_json::HbWritten)> {
    let file = std::fs::File::open(&m.hb_json)
        .with_context(|| format!("cannot read {}", m.hb_json.display()))?;
    let entries = hb_json::read(std::io::BufReader::new(file))
        .with_context(|| format!("cannot read {}", m.hb_json.display()))?;
    let source_path = project.root.join(&m.source_rel);
    let source = match std::fs::read(&source_path) {
        Ok(bytes) => Some(ModuleSource {
            path: m.source_rel.clone(),
            text: String::from_utf8(bytes)
                .with_context(|| format!("{} is not UTF-8", source_path.display()))?,
        }),
        Err(_) => None,
    };
    let toolchain = project.toolchain.clone().unwrap_or_default();
    let facts = HbFacts {
        module: m.module.clone(),
        lean_version: lean_version_of(&toolchain),
        toolchain,
        from: m
            .hb_json
            .strip_prefix(&project.root)
            .unwrap_or(&m.hb_json)
            .display()
            .to_string(),
    };
    let (file, out) = AtomicFile::create(target)?;
    let (out, written) = hb_json::write_recording(&entries, source.as_ref(), &facts, out)
        .with_context(|| format!("cannot read {}", m.hb_json.display()))?;
    file.publish(out)?;
    Ok((Recording::open(target)?, written))
}

/// Reads the build of the project containing `dir` into a new session at `out` (default
/// `<project>/.leanscope/sessions/<time>/`). Returns the session's directory.
pub fn read_build(dir: &Path, out: Option<PathBuf>) -> Result<PathBuf> {
    let project = Project::containing(dir)?;
    let lib = BUILD_LIB_DIR
        .iter()
        .fold(project.root.clone(), |p, c| p.join(c));
    if !lib.is_dir() {
        bail!(
            "{} has no build output ({}): run `lake build` first",
            project.root.display(),
            lib.display()
        );
    }
    let (modules, oleans) = find_modules(&lib)?;
    if modules.is_empty() {
        let toolchain = project
            .toolchain
            .as_deref()
            .unwrap_or("(no lean-toolchain)");
        if oleans > 0 {
            bail!(
                "{}: the build has {oleans} .olean files but no .hb.json: the toolchain \
                 {toolchain} does not write per-declaration heartbeats; {HB_JSON_SINCE}",
                lib.display()
            );
        }
        bail!(
            "{}: no .hb.json and no .olean files: run `lake build` first",
            lib.display()
        );
    }
    let out = out.unwrap_or_else(|| {
        project
            .root
            .join(PROJECT_DIR)
            .join("sessions")
            .join(timestamp())
    });
    let toolchain = project.toolchain.clone().unwrap_or_default();
    let plan = SessionPlan {
        producer: concat!("leanscope ", env!("CARGO_PKG_VERSION"), " (from build)"),
        project_root: project.root.display().to_string(),
        toolchain,
        notes: vec![format!(
            "read from the build's .hb.json files under {} (no Lean run)",
            lib.strip_prefix(&project.root).unwrap_or(&lib).display()
        )],
        measure: Measure::Heartbeats,
        files: modules
            .iter()
            .map(|m| (m.source_rel.clone(), m.module.clone()))
            .collect(),
    };
    write_session(&plan, &out, |k, target| {
        let (rec, _) = write_module(&project, &modules[k], target)?;
        Ok(Written {
            rec,
            status: FileStatus::Ok,
            elapsed_ms: None,
        })
    })?;
    Ok(out)
}

/// A session to write: its facts and its files (path, module), in order.
pub struct SessionPlan {
    pub producer: &'static str,
    pub project_root: String,
    pub toolchain: String,
    pub notes: Vec<String>,
    pub measure: Measure,
    pub files: Vec<(String, String)>,
}

/// One file's recording as written, with what its entry says.
pub struct Written {
    pub rec: Recording,
    pub status: FileStatus,
    pub elapsed_ms: Option<f64>,
}

/// Writes a complete session at `out` (refused when it exists and is not empty): its files'
/// recordings by `write(k, target)`, through the session store and index rows a capture uses,
/// staged beside `out` and renamed into place at the end.
pub fn write_session(
    plan: &SessionPlan,
    out: &Path,
    mut write: impl FnMut(usize, &Path) -> Result<Written>,
) -> Result<()> {
    crate::session::staged_dir::refuse_non_empty(out)?;
    let manifest = Manifest {
        toolchains: vec![plan.toolchain.clone()],
        notes: plan.notes.clone(),
        ..Manifest::new(NewSession {
            producer: plan.producer.into(),
            project_root: plan.project_root.clone(),
            target: Target {
                kind: TargetKind::Project,
                path: String::new(),
            },
            threshold_ms: 0,
            measure: plan.measure,
            started_unix_ms: 0,
            files: plan
                .files
                .iter()
                .enumerate()
                .map(|(k, (path, module))| {
                    FileEntry::planned(k as u32, path.clone(), module.clone())
                })
                .collect(),
        })
    };
    let staged = crate::session::staged_dir::stage_beside(out)?;
    let mut store = SessionStore::create(staged.path(), manifest)
        .with_context(|| format!("cannot create the session {}", out.display()))?;
    for (k, (path, module)) in plan.files.iter().enumerate() {
        let capture = store.manifest.next_capture;
        let rel = format!("{FILES_DIR}/{k:05}-{module}-{capture}.lsrec");
        let w = write(k, &store.dir.join(&rel))?;
        let rec = w.rec;
        let mut rows = Vec::new();
        for r in index_rows(&rec, k as u32, capture, path) {
            write_row(&r, &mut rows);
        }
        let len = store.append_rows(&rows)?;
        let lean_version = rec.header.lean_version.clone();
        let sm = &mut store.manifest;
        sm.index_bytes = len;
        if !sm.lean_versions.contains(&lean_version) {
            sm.lean_versions.push(lean_version.clone());
        }
        let was = sm.files[k].status;
        let time = file_time(&rec);
        sm.files[k] = FileEntry {
            status: w.status,
            capture: Some(capture),
            recording: Some(rel),
            elapsed_ms: w.elapsed_ms,
            traced_ms: Some(ns_to_ms(time.traced_ns)),
            time_account: Some(recording::model::time_account(&rec)),
            capture_wall_ms: Some(0),
            events: Some(rec.len() as u64),
            declarations: Some(rec.header.declarations.len() as u64),
            lean_errors: Some(u64::from(w.status == FileStatus::Error)),
            source_sha256: Some(rec.header.source_sha256.clone()),
            ..FileEntry::planned(k as u32, path.clone(), module.clone())
        };
        sm.next_capture = capture + 1;
        sm.counts.moved(was, w.status);
        store.commit_file(k as u32, Some(lean_version));
        if k % 256 == 255 {
            store.sync()?;
        }
    }
    store.manifest.status = SessionStatus::Complete;
    store.manifest.completed_unix_ms = Some(0);
    store.finish()?;
    drop(store);
    crate::session::staged_dir::publish(staged, out)?;
    Ok(())
}

/// `leanscope import X.hb.json`: one module's heartbeat file as a recording at `out`. Its
/// source is `source`, else found as Lake lays a build out (`<root>/.lake/build/lib/lean/A/B.hb.json`
/// was compiled from `<root>/A/B.lean`), else the recording has no source.
pub fn import_one(hb: &Path, source: Option<&Path>, out: &Path) -> Result<hb_json::HbWritten> {
    let abs = hb
        .canonicalize()
        .with_context(|| format!("cannot read {}", hb.display()))?;
    // The project root and the module, when the file lies in a Lake build.
    let mut in_build: Option<(PathBuf, String)> = None;
    for dir in abs.ancestors().skip(1) {
        let lib = BUILD_LIB_DIR
            .iter()
            .fold(dir.to_path_buf(), |p, c| p.join(c));
        if let Ok(rel) = abs.strip_prefix(&lib) {
            if let Some(module) = hb_json::module_of(rel) {
                in_build = Some((dir.to_path_buf(), module));
            }
            break;
        }
    }
    let name = abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let module = in_build
        .as_ref()
        .map(|(_, m)| m.clone())
        .or_else(|| hb_json::module_of(Path::new(&name)))
        .unwrap_or_default();
    let source_file = match source {
        Some(p) => Some((p.to_path_buf(), p.display().to_string())),
        None => in_build.as_ref().map(|(root, m)| {
            let rel = format!("{}.lean", m.replace('.', "/"));
            (root.join(&rel), rel)
        }),
    };
    let source = match &source_file {
        Some((path, shown)) => match std::fs::read(path) {
            Ok(bytes) => Some(ModuleSource {
                path: shown.clone(),
                text: String::from_utf8(bytes)
                    .with_context(|| format!("{} is not UTF-8", path.display()))?,
            }),
            Err(e) if source.is_some() => {
                return Err(e).with_context(|| format!("cannot read {}", path.display()))
            }
            Err(_) => None,
        },
        None => None,
    };
    let toolchain = in_build
        .as_ref()
        .and_then(|(root, _)| Project::containing(root).ok())
        .and_then(|p| p.toolchain)
        .unwrap_or_default();
    let facts = HbFacts {
        module,
        lean_version: lean_version_of(&toolchain),
        toolchain,
        from: name,
    };
    let file =
        std::fs::File::open(&abs).with_context(|| format!("cannot read {}", hb.display()))?;
    let entries = hb_json::read(std::io::BufReader::new(file))?;
    let (atomic, w) = AtomicFile::create(out)?;
    let (w, written) = hb_json::write_recording(&entries, source.as_ref(), &facts, w)?;
    atomic.publish(w)?;
    Ok(written)
}

/// The class of a Lake job's event: `lake.built`, `lake.replayed`, `lake.fetched`, `lake.ran`.
pub fn lake_job_class(a: lake_log::JobAction) -> String {
    format!("lake.{}", a.as_str())
}

/// What reading a Lake log found.
#[derive(Debug, Clone, Default)]
pub struct LakeLogRead {
    pub modules: usize,
    /// Module jobs by what they did: built, replayed, fetched, ran.
    pub by_action: Vec<(&'static str, usize)>,
    /// Jobs that are not a module's (targets, facets, computations).
    pub other_jobs: usize,
    pub has_times: bool,
}

/// `leanscope import LOG --format lake-log -o SESSION`: a `lake build` log (plain, `-v`, or a
/// CI job's) as a session of its modules, each with its job's time and what the job did. A
/// module built more than once keeps its last job.
pub fn import_lake_log(log: &Path, out: &Path) -> Result<LakeLogRead> {
    let file =
        std::fs::File::open(log).with_context(|| format!("cannot read {}", log.display()))?;
    let read = lake_log::read(std::io::BufReader::new(file))
        .with_context(|| format!("cannot read {}", log.display()))?;
    let mut last: std::collections::BTreeMap<String, usize> = Default::default();
    let mut other = 0usize;
    for (i, j) in read.jobs.iter().enumerate() {
        match j.module() {
            Some(m) => {
                last.insert(m.to_owned(), i);
            }
            None => other += 1,
        }
    }
    let mut jobs: Vec<&lake_log::LakeJob> = last.values().map(|&i| &read.jobs[i]).collect();
    jobs.sort_by(|a, b| a.caption.cmp(&b.caption));
    if jobs.is_empty() {
        bail!(
            "{}: {} job lines, none of them a module's: nothing to read as files",
            log.display(),
            read.jobs.len()
        );
    }
    let mut notes = vec![format!(
        "read from the Lake build log {} ({} job lines, {} of modules)",
        log.display(),
        read.jobs.len(),
        jobs.len()
    )];
    if !read.has_times {
        notes.push(
            "the log has no job times: Lake prints them under -v or when its output is not a \
             terminal (a CI log)"
                .into(),
        );
    }
    notes.push(
        "only a built module's time is work done in this build: replayed and fetched modules \
         came from a cache"
            .into(),
    );
    let plan = SessionPlan {
        producer: concat!("leanscope ", env!("CARGO_PKG_VERSION"), " (lake log)"),
        project_root: String::new(),
        toolchain: String::new(),
        notes,
        measure: Measure::Time,
        files: jobs
            .iter()
            .map(|j| {
                (
                    format!("{}.lean", j.caption.replace('.', "/")),
                    j.caption.clone(),
                )
            })
            .collect(),
    };
    write_session(&plan, out, |k, target| {
        let j = jobs[k];
        let ns = j.time_ms.map(|ms| ms.saturating_mul(1_000_000));
        let verb = if j.failed {
            j.action.verbs().1
        } else {
            j.action.verbs().0
        };
        let mut file_notes = vec![format!("Lake: {verb} (log line {})", j.line)];
        if !j.action.is_work() {
            file_notes.push(format!(
                "{}: the time is the cache's, not an elaboration time",
                j.action.as_str()
            ));
        }
        let header = Header {
            schema_version: recording::SCHEMA_VERSION,
            capture_mode: CaptureMode::Imported,
            clock: ClockKind::DurationsOnly,
            clock_description: "Lake's job times (formatTime: ms, tenths of s, or s)".into(),
            source_path: plan.files[k].0.clone(),
            module_name: j.caption.clone(),
            elapsed_ns: ns.filter(|_| j.action.is_work()),
            status: if j.failed {
                CaptureStatus::Error
            } else {
                CaptureStatus::Ok
            },
            created_unix_ms: 0,
            producer: plan.producer.into(),
            notes: file_notes,
            threads: vec![recording::Thread {
                id: 0,
                name: "lake".into(),
            }],
            measure: Measure::Time,
            ..Header::default()
        };
        let (file, w) = AtomicFile::create(target)?;
        let mut enc = Encoder::new(w, &header)?;
        enc.push(&NewEvent {
            parent: None,
            class: &lake_job_class(j.action),
            label: &j.caption,
            start_ns: 0,
            duration_ns: ns.unwrap_or(0),
            thread: 0,
            range: None,
            range_kind: RangeKind::None,
        })?;
        file.publish(enc.finish()?)?;
        Ok(Written {
            rec: Recording::open(target)?,
            status: if j.failed {
                FileStatus::Error
            } else {
                FileStatus::Ok
            },
            elapsed_ms: ns.filter(|_| j.action.is_work()).map(ns_to_ms),
        })
    })?;
    let by_action = lake_log::JobAction::ALL
        .iter()
        .map(|a| (a.as_str(), jobs.iter().filter(|j| j.action == *a).count()))
        .filter(|(_, n)| *n > 0)
        .collect();
    Ok(LakeLogRead {
        modules: jobs.len(),
        by_action,
        other_jobs: other,
        has_times: read.has_times,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toolchains_version() {
        assert_eq!(lean_version_of("leanprover/lean4:v4.31.0"), "4.31.0");
        assert_eq!(
            lean_version_of("leanprover/lean4:nightly-2026-11-30"),
            "nightly-2026-11-30"
        );
    }
}
