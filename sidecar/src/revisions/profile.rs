//! `revisions run --profile`: every sample is a leanscope capture of the
//! file (`leanscope profile FILE`, run in the side's sandbox under GNU
//! time, so its counters include the capture's own cost), kept in `raw/`.
//! After the last sample, each side becomes an ordinary session
//! (`profiles/base`, `profiles/head`) holding, per file, the recording of
//! its median sample (by CPU time, the report's median), and the report
//! gains the per-declaration and per-tactic diff of the two sessions:
//! declarations matched by file and name, new and removed ones listed
//! apart, and a removed and a new declaration of one file whose text
//! differs only in its name listed as renamed. `leanscope view WORKSPACE`
//! opens the viewer's Diff tab on the two sessions.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use recording::compare::{compare, Comparison, Metric, Tolerance};
use recording::session::{
    Counts, FileEntry, Manifest, SessionStatus, Target, TargetKind, SESSION_SCHEMA_VERSION,
};
use recording::summary::{GroupBy, SummaryKey};
use recording::{Measure, Recording};
use serde::{Deserialize, Serialize};

use super::plan::Plan;
use super::report::{Sample, Side};
use crate::capture::source::Source;
use crate::capture::DEFAULT_THRESHOLD_MS;
use crate::session::engine::recording_name;
use crate::session::entry::{committed, Committed};
use crate::session::store::SessionStore;
use leanscope::limits::MAX_LISTED;

/// The workspace folder holding the two sides' sessions.
pub const PROFILES_DIR: &str = "profiles";
/// Where a sample's capture writes inside the side's tree (the only place
/// the sandbox lets it write); the recording is moved to `raw/` at once.
pub const TREE_OUT_DIR: &str = ".leanscope/revisions";
/// What the diff compares: a declaration's or a tactic's total time.
pub const DIFF_METRIC: Metric = Metric::TotalNs;

/// The side's session in the workspace.
pub fn side_session(ws: &Path, side: Side) -> PathBuf {
    ws.join(PROFILES_DIR).join(side.as_str())
}

/// A profiled revision run's workspace: its two sessions, when `dir` is one.
pub fn sessions_of(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let (base, head) = (side_session(dir, Side::Base), side_session(dir, Side::Head));
    let is_session = |d: &Path| d.join(recording::session::MANIFEST_FILE).is_file();
    (dir.join("report.json").is_file() && is_session(&base) && is_session(&head))
        .then_some((base, head))
}

/// The diff view's document of a profiled workspace: the head session against the base
/// session, as `leanscope view WORKSPACE` shows it (`leanscope/compareRevisions` and the MCP
/// `revisions` tool answer it).
pub fn diff_of_workspace(ws: &Path) -> Result<serde_json::Value, String> {
    crate::commands::compare::diff_document(
        &side_session(ws, Side::Base),
        &side_session(ws, Side::Head),
        Metric::TotalNs,
        Tolerance::default(),
        None,
    )
    .map_err(|e| format!("{e:#}"))
}

/// leanscope's own binary, which a profiled sample runs in the sandbox.
pub fn leanscope_exe() -> Result<PathBuf, String> {
    std::env::current_exe().map_err(|e| format!("cannot find leanscope's own program: {e}"))
}

/// The arguments of a profiled sample of `path` (relative to the tree)
/// writing `out` (relative to the tree too).
pub fn sample_args(lake: &Path, path: &str, out: &str) -> Vec<String> {
    let lake = lake.to_string_lossy().into_owned();
    ["profile", path, "--lake", &lake, "--out", out]
        .map(str::to_owned)
        .to_vec()
}

/// Moves a sample's recording from the tree to `raw` and checks that it is
/// a readable recording of `path`; returns its name in `raw/`.
pub fn collect(tree_out: &Path, raw: &Path, path: &str) -> Result<String, String> {
    std::fs::rename(tree_out, raw).map_err(|e| {
        format!(
            "the capture of {path} left no recording at {}: {e}",
            tree_out.display()
        )
    })?;
    let rec = Recording::open(raw).map_err(|e| {
        format!(
            "the recording of {path} ({}) is unreadable: {e}",
            raw.display()
        )
    })?;
    let recorded = &rec.header.source_path;
    if recorded != path && !path.ends_with(&format!("/{recorded}")) {
        return Err(format!(
            "the recording {} is of {recorded:?}, not of {path}",
            raw.display()
        ));
    }
    Ok(raw
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default())
}

/// Writes `profiles/base` and `profiles/head`: per side, one session with,
/// per file of that side, the recording of its median sample by CPU time.
pub fn write_sessions(ws: &Path, plan: &Plan, samples: &[Sample]) -> Result<(), String> {
    for side in [Side::Base, Side::Head] {
        write_session(ws, plan, samples, side)?;
    }
    Ok(())
}

fn write_session(ws: &Path, plan: &Plan, samples: &[Sample], side: Side) -> Result<(), String> {
    let dir = side_session(ws, side);
    let files: Vec<_> = plan
        .files
        .iter()
        .filter(|f| match side {
            Side::Base => f.base_blob.is_some(),
            Side::Head => f.head_blob.is_some(),
        })
        .collect();
    let manifest = Manifest {
        schema_version: SESSION_SCHEMA_VERSION,
        producer: concat!("leanscope ", env!("CARGO_PKG_VERSION")).into(),
        project_root: ws.join(side.as_str()).display().to_string(),
        target: Target {
            kind: TargetKind::Project,
            path: String::new(),
        },
        threshold_ms: DEFAULT_THRESHOLD_MS,
        measure: Measure::Time,
        toolchains: Vec::new(),
        lean_versions: Vec::new(),
        started_unix_ms: now_ms(),
        completed_unix_ms: None,
        status: SessionStatus::Running,
        counts: Counts::default(),
        index_bytes: 0,
        next_capture: 1,
        notes: vec![format!(
            "the {} side of revision run {}: per file, the sample whose CPU time is the median",
            side.as_str(),
            samples.first().map_or("", |s| s.run_id.as_str())
        )],
        shard: None,
        merge: None,
        repeats: None,
        // Each sample took its own Lake environment in its sandbox.
        lake_env: None,
        files: files
            .iter()
            .enumerate()
            .map(|(i, f)| FileEntry::planned(i as u32, f.path.clone(), f.module.clone()))
            .collect(),
    };
    let failed = |e: crate::session::store::StoreError| format!("{}: {e}", dir.display());
    let mut store = SessionStore::create(&dir, manifest).map_err(failed)?;
    for (id, f) in files.iter().enumerate() {
        let mine: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.side == side && s.path == f.path)
            .collect();
        let raw = median_sample(&mine)
            .and_then(|s| s.recording.as_deref())
            .ok_or_else(|| format!("{} {} has no profiled sample", side.as_str(), f.path))?;
        let rel = recording_name(id as u32, &f.module, 1);
        let to = dir.join(&rel);
        // On disk before the manifest names it (`finish` syncs `files/`).
        std::fs::copy(ws.join("raw").join(raw), &to)
            .and_then(|_| std::fs::File::open(&to)?.sync_all())
            .map_err(|e| format!("copying {raw} into {}: {e}", dir.display()))?;
        let rec = Recording::open(&to).map_err(|e| format!("{}: {e}", to.display()))?;
        let planned = store.manifest.files[id].clone();
        let Committed { entry, rows } = committed(&rec, planned, 1, rel, None);
        let len = store.append_rows(&rows).map_err(failed)?;
        let m = &mut store.manifest;
        m.index_bytes = len;
        if !m.lean_versions.contains(&rec.header.lean_version) {
            m.lean_versions.push(rec.header.lean_version.clone());
        }
        if !rec.header.toolchain.is_empty() && !m.toolchains.contains(&rec.header.toolchain) {
            m.toolchains.push(rec.header.toolchain.clone());
        }
        m.files[id] = entry;
        m.next_capture = 2;
        m.recount();
        store.commit_file(id as u32, Some(rec.header.lean_version.clone()));
    }
    // One sync for all the files: `finish` syncs the index and writes the
    // manifest that commits them.
    store.manifest.status = SessionStatus::Complete;
    store.manifest.completed_unix_ms = Some(now_ms());
    store.finish().map_err(failed)
}

/// The sample whose CPU time is the median (nearest rank; the earlier
/// sample on a tie), as the report's median.
fn median_sample<'a>(samples: &[&'a Sample]) -> Option<&'a Sample> {
    let mut v = samples.to_vec();
    v.sort_by_key(|s| (s.counters.cpu_ms, s.index));
    let rank = recording::model::nearest_rank(50, v.len() as u64);
    v.get(rank.checked_sub(1)?).copied()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The per-declaration and per-tactic diff of a profiled run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileDiff {
    /// The two sessions, relative to the workspace.
    pub base_session: String,
    pub head_session: String,
    /// What the values are: `total_ns`, nanoseconds of a row's total time
    /// in the median sample.
    pub metric: String,
    pub declarations: RowDiff,
    pub tactics: RowDiff,
}

/// Rows of one grouping: those in both sides, those only in the head
/// (`new`), only in the base (`removed`) and, for declarations, removed
/// and new ones that differ only in their name (`renamed`). Each list
/// holds at most [`MAX_LISTED`] rows (matched: the largest changes first);
/// `counts` counts them all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowDiff {
    pub counts: RowCounts,
    pub matched: Vec<MatchedRow>,
    pub new: Vec<OneSideRow>,
    pub removed: Vec<OneSideRow>,
    pub renamed: Vec<RenamedRow>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowCounts {
    pub matched: u64,
    pub new: u64,
    pub removed: u64,
    pub renamed: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchedRow {
    pub file: String,
    /// The declaration, or the tactic's text.
    pub name: String,
    /// The tactic's declaration and 1-based line (tactics only).
    pub declaration: Option<String>,
    pub line: Option<u32>,
    pub base_ns: u64,
    pub head_ns: u64,
    pub change_ns: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OneSideRow {
    pub file: String,
    pub name: String,
    pub declaration: Option<String>,
    pub line: Option<u32>,
    pub ns: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenamedRow {
    pub file: String,
    pub base_name: String,
    pub head_name: String,
    pub base_ns: u64,
    pub head_ns: u64,
    pub change_ns: i64,
}

/// The diff of the workspace's two sessions.
pub fn diff(ws: &Path) -> Result<ProfileDiff, String> {
    let (base, head) = (side_session(ws, Side::Base), side_session(ws, Side::Head));
    let grouped = |g: GroupBy| -> Result<Comparison, String> {
        let (b, h) = (side_summary(&base, g)?, side_summary(&head, g)?);
        compare(&b, &h, DIFF_METRIC, Tolerance::default()).map_err(|e| e.to_string())
    };
    let bodies = (bodies(&base)?, bodies(&head)?);
    let rel = |p: &Path| {
        p.strip_prefix(ws)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    };
    Ok(ProfileDiff {
        base_session: rel(&base),
        head_session: rel(&head),
        metric: DIFF_METRIC.as_str().into(),
        declarations: row_diff(grouped(GroupBy::Declaration)?, Some(&bodies)),
        tactics: row_diff(grouped(GroupBy::Tactic)?, None),
    })
}

/// A side's rows grouped by `g`; none for a side without files (a change
/// that only adds files has an empty base, one that only removes an
/// empty head).
fn side_summary(session: &Path, g: GroupBy) -> Result<recording::summary::Summary, String> {
    let s = crate::session::committed::CommittedSession::open(session)
        .map_err(|e| format!("{}: {e}", session.display()))?;
    if s.recordings().map_err(|e| e.to_string())?.is_empty() {
        return Ok(recording::summary::SummaryBuilder::new(g).finish());
    }
    let opts = leanscope::interop::ImportOptions { unit_ns: 1 };
    let input =
        crate::commands::inputs::Input::classify(session, None).map_err(|e| format!("{e:#}"))?;
    crate::commands::inputs::summarize(&input, g, true, opts).map_err(|e| format!("{e:#}"))
}

/// (file, declaration) → the declaration's text with its name cut out.
type Bodies = HashMap<(String, String), String>;

/// The bodies of every declaration in a session's recordings.
fn bodies(session: &Path) -> Result<Bodies, String> {
    let s = crate::session::committed::CommittedSession::open(session)
        .map_err(|e| format!("{}: {e}", session.display()))?;
    let mut out = Bodies::new();
    for r in s.recordings().map_err(|e| e.to_string())? {
        let rec = crate::session::committed::read_recording(&r.path).map_err(|e| e.to_string())?;
        let h = &rec.header;
        let src = Source::new(&h.source_text);
        for d in &h.declarations {
            let (start, end) = src.bytes_of(&d.range);
            let (name_start, name_end) = src.bytes_of(&d.selection_range);
            let text = |a: usize, b: usize| h.source_text.get(a..b).unwrap_or("");
            if !(start <= name_start && name_end <= end) {
                continue;
            }
            let body = format!("{}\u{0}{}", text(start, name_start), text(name_end, end));
            out.insert((h.source_path.clone(), d.name.clone()), body);
        }
    }
    Ok(out)
}

fn row_diff(c: Comparison, bodies: Option<&(Bodies, Bodies)>) -> RowDiff {
    let parts = |k: &SummaryKey| match k {
        SummaryKey::Leanscope(k) => (
            k.file.as_deref().unwrap_or("").to_owned(),
            k.name.clone(),
            k.declaration.as_deref().map(str::to_owned),
            k.line,
        ),
        SummaryKey::LeanProfiler(k) => (String::new(), k.name.clone(), None, None),
    };
    let one = |r: &recording::compare::UnmatchedRow| {
        let (file, name, declaration, line) = parts(&r.key);
        OneSideRow {
            file,
            name,
            declaration,
            line,
            ns: r.value,
        }
    };
    let mut removed: Vec<OneSideRow> = c.missing.iter().map(one).collect();
    let mut new: Vec<OneSideRow> = c.new.iter().map(one).collect();
    let mut renamed = Vec::new();
    if let Some((base, head)) = bodies {
        let body =
            |map: &Bodies, r: &OneSideRow| map.get(&(r.file.clone(), r.name.clone())).cloned();
        let mut i = 0;
        while i < removed.len() {
            let b = body(base, &removed[i]);
            let at = b.as_ref().and_then(|b| {
                new.iter()
                    .position(|n| n.file == removed[i].file && body(head, n).as_ref() == Some(b))
            });
            match at {
                Some(j) => {
                    let (old, now) = (removed.remove(i), new.remove(j));
                    renamed.push(RenamedRow {
                        change_ns: now.ns as i64 - old.ns as i64,
                        file: old.file,
                        base_name: old.name,
                        head_name: now.name,
                        base_ns: old.ns,
                        head_ns: now.ns,
                    });
                }
                None => i += 1,
            }
        }
    }
    let mut matched: Vec<MatchedRow> = c
        .matched
        .iter()
        .map(|r| {
            let (file, name, declaration, line) = parts(&r.key);
            MatchedRow {
                file,
                name,
                declaration,
                line,
                base_ns: r.baseline,
                head_ns: r.candidate,
                change_ns: r.delta.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
            }
        })
        .collect();
    matched.sort_by_key(|r| std::cmp::Reverse(r.change_ns.unsigned_abs()));
    new.sort_by_key(|r| std::cmp::Reverse(r.ns));
    removed.sort_by_key(|r| std::cmp::Reverse(r.ns));
    let counts = RowCounts {
        matched: matched.len() as u64,
        new: new.len() as u64,
        removed: removed.len() as u64,
        renamed: renamed.len() as u64,
    };
    matched.truncate(MAX_LISTED);
    new.truncate(MAX_LISTED);
    removed.truncate(MAX_LISTED);
    renamed.truncate(MAX_LISTED);
    RowDiff {
        counts,
        matched,
        new,
        removed,
        renamed,
    }
}
