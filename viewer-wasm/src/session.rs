//! A session in the viewer: the manifest, its folder tree, and the index
//! rows of committed files for session-wide rankings.

use recording::model::{file_time, FolderTree, Recording};
use recording::repeats::Spread;
use recording::session::{
    index_rows, ns_to_ms, Committed, FileEntry, FileStatus, IndexRow, Manifest, NewSession,
    RowKind, RunGroups, SessionStatus, Target, TargetKind,
};
use serde_json::{json, Value};

use recording::limits::{MAX_INDEX_LINE_BYTES, MAX_REPORTED_WARNINGS};

use crate::file::matches_filter;
use crate::hotspots::SessionRows;
use crate::limits::{
    MAX_INDEX_ROWS, MAX_MERGED_EVENTS, MAX_MERGED_FILES, MAX_RANKING_ROWS, MAX_SESSION_FILES,
};

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Manifest(#[from] recording::session::SessionError),
    #[error("session.json lists {0} files, over the limit of {MAX_SESSION_FILES}")]
    TooManyFiles(usize),
}

pub struct SessionModel {
    pub manifest: Manifest,
    pub tree: FolderTree,
    /// True when the viewer made the manifest for a lone recording.
    single: bool,
    /// The capture whose rows count, per file (the `Committed` rule).
    committed: Committed,
    /// A repeated capture: the captures of each file's committed runs,
    /// whose rows all count (and are taken together into medians).
    runs: Option<Vec<Vec<u64>>>,
    /// The index rows; of a repeated capture, once the index has ended,
    /// the median rows, with their spreads in `spreads`.
    index: Vec<IndexRow>,
    spreads: Vec<(Option<Spread>, Option<Spread>)>,
    index_pending: Vec<u8>,
    /// Bytes of `index.jsonl` seen so far; rows past the manifest's
    /// `indexBytes` belong to no committed file and are ignored.
    index_seen: u64,
    index_beyond: u64,
    index_skipped: u64,
    index_warnings: Vec<String>,
    index_line: u64,
    /// A lone recording's index rows are still to be computed.
    single_index_pending: bool,
    /// The `hotspot` rows of each file's committed capture.
    hot_rows: SessionRows,
}

impl SessionModel {
    pub fn parse(text: &str) -> Result<SessionModel, SessionError> {
        let manifest = Manifest::from_json(text.as_bytes())?;
        if manifest.files.len() > MAX_SESSION_FILES {
            return Err(SessionError::TooManyFiles(manifest.files.len()));
        }
        Ok(Self::from_manifest(manifest, false))
    }

    fn from_manifest(manifest: Manifest, single: bool) -> SessionModel {
        let tree = FolderTree::build(&manifest.files);
        SessionModel {
            committed: manifest.committed(),
            runs: manifest.repeats.map(|_| manifest.committed_runs()),
            manifest,
            tree,
            single,
            index: Vec::new(),
            spreads: Vec::new(),
            index_pending: Vec::new(),
            index_seen: 0,
            index_beyond: 0,
            index_skipped: 0,
            index_warnings: Vec::new(),
            index_line: 0,
            single_index_pending: false,
            hot_rows: SessionRows::default(),
        }
    }

    /// A session of one recording, opened without a manifest: the file's
    /// entry is filled in once the recording is loaded.
    /// `events` is the event count the host read from the footer (a
    /// size hint only; capped by the bytes that arrive).
    pub fn single(path: &str, events: Option<u64>) -> SessionModel {
        let manifest = Manifest {
            status: SessionStatus::Complete,
            ..Manifest::new(NewSession {
                producer: String::new(),
                project_root: String::new(),
                target: Target {
                    kind: TargetKind::Folder,
                    path: path.to_owned(),
                },
                threshold_ms: 0,
                measure: recording::Measure::Time,
                started_unix_ms: 0,
                files: vec![FileEntry {
                    recording: Some(path.to_owned()),
                    events,
                    ..FileEntry::planned(0, path.to_owned(), String::new())
                }],
            })
        };
        Self::from_manifest(manifest, true)
    }

    /// For a lone recording: takes its facts once it is loaded.
    pub fn fill_single(&mut self, rec: &Recording) {
        if !self.single {
            return;
        }
        const CAPTURE: u64 = 1;
        let f = &self.manifest.files[0];
        let entry = FileEntry {
            status: match rec.header.status {
                recording::CaptureStatus::Ok => FileStatus::Ok,
                recording::CaptureStatus::Error => FileStatus::Error,
                recording::CaptureStatus::Stopped => FileStatus::Stopped,
            },
            capture: Some(CAPTURE),
            recording: f.recording.clone(),
            elapsed_ms: file_time(rec).elapsed_ns.map(ns_to_ms),
            traced_ms: Some(ns_to_ms(file_time(rec).traced_ns)),
            time_account: Some(recording::model::time_account(rec)),
            events: Some(rec.len() as u64),
            declarations: Some(rec.header.declarations.len() as u64),
            source_sha256: Some(rec.header.source_sha256.clone()),
            ..FileEntry::planned(0, f.path.clone(), rec.header.module_name.clone())
        };
        let mut manifest = self.manifest.clone();
        manifest.files[0] = entry;
        manifest.next_capture = CAPTURE + 1;
        manifest.toolchains = vec![rec.header.toolchain.clone()];
        manifest.recount();
        *self = Self::from_manifest(manifest, true);
        // Its index rows (declaration and tactic times) are computed when
        // a ranking first needs them (`fill_single_index`), not at load.
        self.single_index_pending = true;
    }

    /// True when a lone recording was loaded but its index rows were not
    /// computed yet.
    pub fn single_index_pending(&self) -> bool {
        self.single_index_pending
    }

    /// For a lone recording: its index rows, by the same rule as a
    /// session's `index.jsonl` (`recording::session::index_rows`).
    pub fn fill_single_index(&mut self, rec: &Recording) {
        if !self.single_index_pending {
            return;
        }
        const CAPTURE: u64 = 1;
        let path = self.manifest.files[0].path.clone();
        self.index = index_rows(rec, 0, CAPTURE, &path);
        self.single_index_pending = false;
    }

    pub fn is_single(&self) -> bool {
        self.single
    }

    pub fn summary(&self) -> Value {
        let m = &self.manifest;
        let root = self.tree.node(FolderTree::ROOT);
        let problems: Vec<Value> = m
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| !matches!(f.status, FileStatus::Ok))
            .take(1000)
            .map(|(k, f)| json!({"file": k, "path": f.path, "status": f.status.as_str(), "error": f.error}))
            .collect();
        let untimed = m
            .files
            .iter()
            .filter(|f| f.status.is_committed() && f.time_ns().is_none())
            .count();
        json!({
            "single": self.single,
            "measure": m.measure.as_str(),
            "repeats": m.repeats,
            "status": m.status,
            "statusLabel": m.status.reader_label(),
            "target": if m.target.path.is_empty() { "project".to_owned() } else { m.target.path.clone() },
            "targetKind": m.target.kind,
            "projectRoot": m.project_root,
            "toolchains": m.toolchains,
            "startedUnixMs": m.started_unix_ms,
            "completedUnixMs": m.completed_unix_ms,
            "planned": m.counts.planned,
            "completed": m.counts.completed,
            "failed": m.counts.failed,
            "notes": m.notes,
            "files": m.files.len(),
            "totalNs": root.map_or(0, |r| r.total_ns),
            "filesWithoutElapsed": untimed,
            "problemFiles": problems,
        })
    }

    pub fn file(&self, k: usize) -> Option<&FileEntry> {
        self.manifest.files.get(k)
    }

    /// The recordings of file `k`'s runs (a repeated capture): the one
    /// the viewer shows events of (the median run, `shown`) and the
    /// others, whose times are taken with it into medians. `None` for a
    /// file of one capture.
    pub fn runs_of(&self, k: usize) -> Option<Value> {
        let f = self.manifest.files.get(k)?;
        let shown = f.median_run()?;
        let others: Vec<&str> = f
            .runs
            .iter()
            .filter(|r| r.capture != shown.capture)
            .map(|r| r.recording.as_str())
            .collect();
        Some(json!({
            "shown": {"repeat": shown.repeat, "recording": shown.recording},
            "others": others,
        }))
    }

    /// The folder node `n` with its breadcrumbs and children.
    pub fn folder(&self, n: u32) -> Option<Value> {
        let node = self.tree.node(n)?;
        let crumbs: Vec<Value> = self
            .tree
            .ancestry(n)
            .into_iter()
            .filter_map(|a| {
                self.tree
                    .node(a)
                    .map(|x| json!({"node": a, "name": x.name, "path": x.path}))
            })
            .collect();
        let children: Vec<Value> = node.children.iter().map(|&c| self.node_row(c)).collect();
        Some(json!({"node": self.node_row(n), "breadcrumbs": crumbs, "children": children}))
    }

    fn node_row(&self, n: u32) -> Value {
        let Some(x) = self.tree.node(n) else {
            return Value::Null;
        };
        let file = x.file.and_then(|k| self.manifest.files.get(k as usize));
        json!({
            "node": n,
            "name": x.name,
            "path": x.path,
            "isFile": x.is_file(),
            "file": x.file,
            "totalNs": x.total_ns,
            "shareOfParent": self.tree.share_of_parent(n),
            "shareOfSession": self.tree.share_of_session(n),
            "files": x.files,
            "committed": x.committed,
            "failed": x.failed,
            "skipped": x.skipped,
            "pending": x.pending,
            "status": file.map(|f| f.status.as_str()),
            "elapsed": file.map(|f| f.time_ns().is_some()),
            "error": file.and_then(|f| f.error.clone()),
            "events": file.and_then(|f| f.events),
            "runs": file.map(|f| f.runs.len()).filter(|&n| n > 0),
            "spread": file.and_then(|f| f.run_spread()).map(|s| s.whole()),
        })
    }

    /// The node for a path (whole components), or the file node of a file.
    pub fn find(&self, path: &str) -> Option<u32> {
        self.tree.find(path)
    }

    pub fn node_of_file(&self, k: usize) -> Option<u32> {
        let f = self.manifest.files.get(k)?;
        self.tree.find(&f.path)
    }

    /// Feeds bytes of `index.jsonl`; complete lines are parsed. Only the
    /// first `indexBytes` of the index (the rows of committed files) are
    /// read; what follows is counted and ignored.
    pub fn push_index(&mut self, bytes: &[u8]) {
        let room = self.manifest.index_bytes.saturating_sub(self.index_seen);
        let take = usize::try_from(room).map_or(bytes.len(), |r| r.min(bytes.len()));
        self.index_seen += take as u64;
        self.index_beyond += (bytes.len() - take) as u64;
        let bytes = &bytes[..take];
        self.index_pending.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(nl) = self.index_pending[start..].iter().position(|&b| b == b'\n') {
            let line = self.index_pending[start..start + nl].to_vec();
            self.index_line_in(&line);
            start += nl + 1;
        }
        self.index_pending.drain(..start);
        if self.index_pending.len() > MAX_INDEX_LINE_BYTES {
            self.index_line += 1;
            self.warn(format!(
                "index line {} is longer than {MAX_INDEX_LINE_BYTES} bytes; skipped",
                self.index_line
            ));
            self.index_pending.clear();
        }
    }

    /// The index ended; a last line without a newline is a half-written
    /// row and is ignored.
    pub fn end_index(&mut self) -> Value {
        if !self.index_pending.is_empty() {
            self.index_pending.clear();
            self.index_skipped += 1;
            self.warn(format!(
                "the last line of index.jsonl (line {}) is incomplete; ignored",
                self.index_line + 1
            ));
        }
        if self.index_beyond > 0 {
            let n = self.index_beyond;
            self.warn(format!(
                "ignored the last {n} bytes of index.jsonl: they follow the last committed file (an unfinished capture or a damaged tail)"
            ));
        } else if self.index_seen < self.manifest.index_bytes && !self.single {
            let (seen, want) = (self.index_seen, self.manifest.index_bytes);
            self.warn(format!(
                "index.jsonl has {seen} bytes but the manifest committed {want}; rows of the missing part are lost"
            ));
        }
        let run_rows = self.index.len();
        if self.runs.is_some() {
            self.take_medians();
        }
        json!({
            "rows": self.index.len(),
            "runRows": self.runs.is_some().then_some(run_rows),
            "skipped": self.index_skipped,
            "warnings": self.index_warnings,
        })
    }

    /// A repeated capture: its runs' rows become one median row each
    /// (`recording::session::RunGroups`, the rule `query` uses).
    fn take_medians(&mut self) {
        let mut groups = RunGroups::default();
        for r in self.index.drain(..) {
            groups.add(r);
        }
        let medians = groups.into_medians();
        self.spreads = medians.iter().map(|m| (m.duration, m.self_)).collect();
        self.index = medians.into_iter().map(|m| m.row).collect();
    }

    /// Whether a row of file `file`'s capture `capture` counts.
    fn accepts(&self, file: u32, capture: u64) -> bool {
        match &self.runs {
            Some(runs) => runs
                .get(file as usize)
                .is_some_and(|c| c.contains(&capture)),
            None => self.committed.accepts(u64::from(file), capture),
        }
    }

    fn warn(&mut self, w: String) {
        if self.index_warnings.len() < MAX_REPORTED_WARNINGS {
            self.index_warnings.push(w);
        }
    }

    fn index_line_in(&mut self, line: &[u8]) {
        self.index_line += 1;
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            return;
        }
        match serde_json::from_slice::<IndexRow>(line) {
            // Hot spots count the committed capture's rows only (of a repeated capture,
            // its committed run's), and never go into the medians.
            Ok(row) if row.kind == RowKind::HotSpot => {
                if self.committed.accepts(u64::from(row.file), row.capture) {
                    self.hot_rows.push(row);
                } else {
                    self.index_skipped += 1;
                }
            }
            Ok(row) if self.accepts(row.file, row.capture) => {
                if self.index.len() < MAX_INDEX_ROWS {
                    self.index.push(row);
                } else {
                    self.index_skipped += 1;
                }
            }
            Ok(_) => self.index_skipped += 1,
            Err(e) => {
                self.index_skipped += 1;
                let n = self.index_line;
                self.warn(format!("index line {n} is not a valid row: {e}"));
            }
        }
    }

    /// Ranked rows: `kind` is file, folder, declaration or tactic; `under`
    /// a path subtree (whole components); `filter` a substring of the
    /// name or path; `sort` total or self.
    pub fn rank(&self, kind: &str, filter: &str, under: &str, sort: &str, limit: usize) -> Value {
        let under = under.trim_matches('/');
        let inside = |path: &str| {
            under.is_empty()
                || path == under
                || (path.starts_with(under) && path[under.len()..].starts_with('/'))
        };
        let limit = limit.clamp(1, MAX_RANKING_ROWS);
        let mut rows: Vec<Value> = Vec::new();
        let matched;
        match kind {
            "file" | "folder" => {
                let mut nodes: Vec<u32> = (1..self.tree.len() as u32)
                    .filter(|&n| {
                        self.tree.node(n).is_some_and(|x| {
                            x.is_file() == (kind == "file")
                                && inside(&x.path)
                                && matches_filter(filter, &[&x.path])
                        })
                    })
                    .collect();
                matched = nodes.len();
                nodes.sort_by_key(|&n| {
                    std::cmp::Reverse(self.tree.node(n).map_or(0, |x| x.total_ns))
                });
                rows.extend(nodes.into_iter().take(limit).map(|n| self.node_row(n)));
            }
            "declaration" | "tactic" => {
                let want = if kind == "tactic" {
                    RowKind::Tactic
                } else {
                    RowKind::Declaration
                };
                let mut found: Vec<(usize, &IndexRow)> = self
                    .index
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| {
                        r.kind == want
                            && r.duration_ms.is_some()
                            && inside(&r.path)
                            && matches_filter(
                                filter,
                                &[&r.name, &r.path, r.declaration.as_deref().unwrap_or("")],
                            )
                    })
                    .collect();
                matched = found.len();
                let key = |r: &IndexRow| {
                    if sort == "self" {
                        r.self_ms.unwrap_or(0.0)
                    } else {
                        r.duration_ms.unwrap_or(0.0)
                    }
                };
                found.sort_by(|a, b| key(b.1).total_cmp(&key(a.1)));
                rows.extend(found.into_iter().take(limit).map(|(at, r)| {
                    let file = r.file;
                    let (d, s) = self.spreads.get(at).copied().unwrap_or((None, None));
                    json!({
                        "kind": r.kind, "name": r.name, "path": r.path, "file": file,
                        "durationMs": r.duration_ms, "selfMs": r.self_ms,
                        "durationSpread": d, "selfSpread": s,
                        "line": r.line, "endLine": r.end_line,
                        "declaration": r.declaration, "attribution": r.attribution,
                    })
                }));
            }
            _ => matched = 0,
        }
        json!({"kind": kind, "matched": matched, "rows": rows, "indexRows": self.index.len()})
    }

    /// The session's hot spots under folder `under` from its `hotspot` index rows (see
    /// `hotspots::SessionRows::rank`); `indexed` says whether the index had any.
    pub fn hot_rank(
        &mut self,
        under: &str,
        filter: &str,
        class: &str,
        sort: &str,
        limit: usize,
    ) -> Value {
        let indexed = !self.hot_rows.is_empty();
        let heartbeats = self.manifest.measure == recording::Measure::Heartbeats;
        let mut v = self
            .hot_rows
            .rank(under, filter, class, sort, limit, heartbeats);
        if let Value::Object(m) = &mut v {
            m.insert("indexed".into(), json!(indexed));
            m.insert("indexRows".into(), json!(self.index.len()));
        }
        v
    }

    /// The recordings a folder's flame graph merges: each committed file under `under`
    /// with its recording (a repeated capture's median run, the one its view shows), the
    /// most events first, at most [`MAX_MERGED_FILES`] files and [`MAX_MERGED_EVENTS`]
    /// events; `skipped` counts the files left out.
    pub fn merge_plan(&self, under: &str) -> Value {
        let under = under.trim_matches('/');
        let inside = |path: &str| {
            under.is_empty()
                || path == under
                || (path.starts_with(under) && path[under.len()..].starts_with('/'))
        };
        let mut files: Vec<(usize, &str, &str, u64)> = self
            .manifest
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.status.is_committed() && inside(&f.path))
            .filter_map(|(k, f)| {
                let rec = match f.median_run() {
                    Some(run) => Some(run.recording.as_str()),
                    None => f.recording.as_deref(),
                }?;
                Some((k, f.path.as_str(), rec, f.events.unwrap_or(0)))
            })
            .collect();
        files.sort_by(|a, b| b.3.cmp(&a.3).then(a.1.cmp(b.1)));
        let of = files.len();
        let mut events = 0u64;
        let mut plan = Vec::new();
        for &(k, path, rec, n) in &files {
            if plan.len() >= MAX_MERGED_FILES
                || (!plan.is_empty() && events.saturating_add(n) > MAX_MERGED_EVENTS)
            {
                break;
            }
            events = events.saturating_add(n);
            plan.push(json!({"file": k, "path": path, "recording": rec, "events": n}));
        }
        json!({
            "files": plan,
            "of": of,
            "skipped": of - plan.len(),
            "events": events,
            "maxFiles": MAX_MERGED_FILES,
            "maxEvents": MAX_MERGED_EVENTS,
        })
    }
}
