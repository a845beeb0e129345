//! The leanscope viewer's model in WebAssembly. It runs in a Web Worker:
//! recordings are fed to it as byte chunks (as they arrive from `fetch()`)
//! and decoded incrementally; the UI asks it for view models (folder tree,
//! rankings, a file's declarations, tactics and lines, events, timeline
//! layouts), answered as JSON text (the timeline as numbers). All timing
//! comes from the `recording` crate.

pub mod file;
pub mod hotspots;
pub mod limits;
pub mod session;
pub mod timeline;

use std::collections::HashMap;

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use crate::file::{FileModel, RecordingLoad};
use crate::hotspots::{HotView, Merge};
use crate::session::SessionModel;

/// The viewer's state: the open session and its loaded recordings.
#[wasm_bindgen]
#[derive(Default)]
pub struct Viewer {
    session: Option<SessionModel>,
    loads: HashMap<u32, RecordingLoad>,
    files: HashMap<u32, FileModel>,
    /// Another run of a loaded file (a repeated capture) being streamed
    /// in: the file and the load. One at a time; each run's recording is
    /// dropped once its times are taken.
    run_load: Option<(u32, RecordingLoad)>,
    /// Loaded files' hot spots, finished on first use.
    hot: HashMap<u32, HotView>,
    /// Loaded files' hot spots being built while the worker is idle
    /// (`prepareHotSpots`), finished on first use.
    hot_building: HashMap<u32, recording::hotspots::Incremental>,
    /// A folder's files being merged (`beginMerge` … `endMerge`), with the recording
    /// being streamed in; and the last merge's result.
    merge: Option<(Merge, Option<RecordingLoad>)>,
    merged: Option<HotView>,
}

/// The scope of a hot-spot request that means the merged files (else a file number).
const MERGED: i32 = -1;

fn js(msg: impl std::fmt::Display) -> JsError {
    JsError::new(&msg.to_string())
}

fn text(v: Value) -> String {
    v.to_string()
}

#[wasm_bindgen]
impl Viewer {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Viewer {
        Viewer::default()
    }

    fn session(&self) -> Result<&SessionModel, JsError> {
        self.session
            .as_ref()
            .ok_or_else(|| js("no session is open"))
    }

    fn session_mut(&mut self) -> Result<&mut SessionModel, JsError> {
        self.session
            .as_mut()
            .ok_or_else(|| js("no session is open"))
    }

    fn load_mut(&mut self, k: u32) -> Result<&mut RecordingLoad, JsError> {
        self.loads
            .get_mut(&k)
            .ok_or_else(|| js(format!("file {k} is not being loaded")))
    }

    fn file(&self, k: u32) -> Result<&FileModel, JsError> {
        self.files
            .get(&k)
            .ok_or_else(|| js(format!("file {k} is not loaded")))
    }

    fn file_mut(&mut self, k: u32) -> Result<&mut FileModel, JsError> {
        self.files
            .get_mut(&k)
            .ok_or_else(|| js(format!("file {k} is not loaded")))
    }

    /// Opens a session from the text of its `session.json`; returns its
    /// summary.
    #[wasm_bindgen(js_name = openSession)]
    pub fn open_session(&mut self, manifest: &str) -> Result<String, JsError> {
        let s = SessionModel::parse(manifest).map_err(js)?;
        let summary = s.summary();
        self.session = Some(s);
        self.loads.clear();
        self.files.clear();
        self.run_load = None;
        self.hot.clear();
        self.hot_building.clear();
        self.merge = None;
        self.merged = None;
        Ok(text(summary))
    }

    /// Opens a lone recording as a session of one file; `events` is the
    /// footer's event count when the host knows it (negative: unknown).
    #[wasm_bindgen(js_name = openSingle)]
    pub fn open_single(&mut self, path: &str, events: f64) -> String {
        let hint = (events >= 0.0 && events.is_finite()).then_some(events as u64);
        let s = SessionModel::single(path, hint);
        let summary = s.summary();
        self.session = Some(s);
        self.loads.clear();
        self.files.clear();
        self.run_load = None;
        self.hot.clear();
        self.hot_building.clear();
        self.merge = None;
        self.merged = None;
        text(summary)
    }

    #[wasm_bindgen(js_name = sessionSummary)]
    pub fn session_summary(&self) -> Result<String, JsError> {
        Ok(text(self.session()?.summary()))
    }

    /// Feeds bytes of `index.jsonl`.
    #[wasm_bindgen(js_name = pushIndex)]
    pub fn push_index(&mut self, bytes: &[u8]) -> Result<(), JsError> {
        self.session_mut()?.push_index(bytes);
        Ok(())
    }

    /// The index ended; returns rows kept, rows skipped and warnings.
    #[wasm_bindgen(js_name = endIndex)]
    pub fn end_index(&mut self) -> Result<String, JsError> {
        Ok(text(self.session_mut()?.end_index()))
    }

    /// Folder node `node` (0 is the root) with breadcrumbs and children.
    pub fn folder(&self, node: u32) -> Result<String, JsError> {
        self.session()?
            .folder(node)
            .map(text)
            .ok_or_else(|| js(format!("there is no folder node {node}")))
    }

    /// The node at a project-relative path, or -1.
    #[wasm_bindgen(js_name = findPath)]
    pub fn find_path(&self, path: &str) -> Result<i32, JsError> {
        Ok(self.session()?.find(path).map_or(-1, |n| n as i32))
    }

    /// The tree node of file `k`, or -1.
    #[wasm_bindgen(js_name = nodeOfFile)]
    pub fn node_of_file(&self, k: u32) -> Result<i32, JsError> {
        Ok(self
            .session()?
            .node_of_file(k as usize)
            .map_or(-1, |n| n as i32))
    }

    /// Rankings across the session (see `SessionModel::rank`).
    pub fn rank(
        &mut self,
        kind: &str,
        filter: &str,
        under: &str,
        sort: &str,
        limit: u32,
    ) -> Result<String, JsError> {
        let needs_index = matches!(kind, "declaration" | "tactic");
        if let (true, Some(s)) = (needs_index, self.session.as_mut()) {
            if s.single_index_pending() {
                if let Some(f) = self.files.get(&0) {
                    s.fill_single_index(&f.rec);
                }
            }
        }
        Ok(text(self.session()?.rank(
            kind,
            filter,
            under,
            sort,
            limit as usize,
        )))
    }

    /// The manifest entry of file `k`.
    #[wasm_bindgen(js_name = fileEntry)]
    pub fn file_entry(&self, k: u32) -> Result<String, JsError> {
        let f = self
            .session()?
            .file(k as usize)
            .ok_or_else(|| js(format!("the session has no file {k}")))?;
        Ok(text(json!(f)))
    }

    /// Starts streaming file `k`'s recording; `byte_length` is the
    /// response's length when known (0 otherwise).
    #[wasm_bindgen(js_name = beginFile)]
    pub fn begin_file(&mut self, k: u32, byte_length: f64) -> Result<(), JsError> {
        let f = self
            .session()?
            .file(k as usize)
            .ok_or_else(|| js(format!("the session has no file {k}")))?;
        let claimed = f.events.unwrap_or(0);
        self.files.remove(&k);
        self.hot.remove(&k);
        self.hot_building.remove(&k);
        self.loads
            .insert(k, RecordingLoad::new(claimed, byte_length.max(0.0) as u64));
        Ok(())
    }

    /// Pages in up to `bytes` more of file `k`'s event memory while the
    /// worker waits for its bytes; returns whether there is more to do
    /// (see `RecordingLoad::prefault`).
    #[wasm_bindgen(js_name = prefaultFile)]
    pub fn prefault_file(&mut self, k: u32, bytes: u32) -> bool {
        self.loads
            .get_mut(&k)
            .is_some_and(|load| load.prefault(bytes as usize))
    }

    /// Room in file `k`'s input for its next `n` bytes: their address in
    /// the wasm memory. The caller copies the bytes there (in a view made
    /// after this call: the memory may have grown) and then calls
    /// `pushFileSpace`: a response's bytes are copied once, into their
    /// place.
    #[wasm_bindgen(js_name = fileSpace)]
    pub fn file_space(&mut self, k: u32, n: u32) -> Result<u32, JsError> {
        let room = self.load_mut(k)?.space(n as usize).map_err(js)?;
        Ok(room.as_mut_ptr() as usize as u32)
    }

    /// Takes in the `n` bytes written at `fileSpace`'s address; returns
    /// the events decoded so far.
    #[wasm_bindgen(js_name = pushFileSpace)]
    pub fn push_file_space(&mut self, k: u32, n: u32) -> Result<u32, JsError> {
        let load = self.load_mut(k)?;
        if let Err(e) = load.push_space(n as usize) {
            self.loads.remove(&k);
            return Err(js(e));
        }
        Ok(load.event_count() as u32)
    }

    /// Where file `k`'s embedded source text lies in the wasm memory, as
    /// `[address, length]` of its UTF-8 bytes, once, when its header has
    /// arrived (else `undefined`): the worker hashes it with the browser's
    /// SHA-256 (which copies the bytes when called, so a view made right
    /// after this call is safe) while the events decode, and gives the
    /// digest to `endFile`.
    #[wasm_bindgen(js_name = sourceToCheck)]
    pub fn source_to_check(&mut self, k: u32) -> Option<Vec<u32>> {
        let load = self.loads.get_mut(&k)?;
        load.source_to_check()
            .map(|s| vec![s.as_ptr() as usize as u32, s.len() as u32])
    }

    /// The download of file `k` ended: checks the source text against its
    /// SHA-256 (`source_digest`, lowercase hex, when the caller computed
    /// it; else here) and builds the model; returns the file's summary.
    #[wasm_bindgen(js_name = endFile)]
    pub fn end_file(&mut self, k: u32, source_digest: Option<String>) -> Result<String, JsError> {
        let load = self
            .loads
            .remove(&k)
            .ok_or_else(|| js(format!("file {k} is not being loaded")))?;
        let rec = load.finish(source_digest.as_deref()).map_err(js)?;
        if let Some(s) = &mut self.session {
            s.fill_single(&rec);
        }
        let model = FileModel::new(rec);
        let summary = model.summary();
        self.files.insert(k, model);
        Ok(text(summary))
    }

    /// Forgets file `k`.
    #[wasm_bindgen(js_name = dropFile)]
    pub fn drop_file(&mut self, k: u32) {
        self.files.remove(&k);
        self.hot.remove(&k);
        self.hot_building.remove(&k);
        self.loads.remove(&k);
        if self.run_load.as_ref().is_some_and(|(f, _)| *f == k) {
            self.run_load = None;
        }
    }

    /// The runs of file `k` of a repeated capture, as JSON: `shown` (the
    /// median run's `repeat` and `recording`, the one to load as the file)
    /// and `others` (the other runs' recordings, to take in with
    /// `beginRun` … `endRun`); `null` for a file of one capture.
    #[wasm_bindgen(js_name = fileRuns)]
    pub fn file_runs(&self, k: u32) -> Result<String, JsError> {
        Ok(text(
            self.session()?.runs_of(k as usize).unwrap_or(Value::Null),
        ))
    }

    /// Starts streaming another run of the loaded file `k`;
    /// `byte_length` as for `beginFile`.
    #[wasm_bindgen(js_name = beginRun)]
    pub fn begin_run(&mut self, k: u32, byte_length: f64) -> Result<(), JsError> {
        self.file(k)?;
        self.run_load = Some((k, RecordingLoad::new(0, byte_length.max(0.0) as u64)));
        Ok(())
    }

    fn run_load_mut(&mut self) -> Result<&mut RecordingLoad, JsError> {
        self.run_load
            .as_mut()
            .map(|(_, l)| l)
            .ok_or_else(|| js("no run is being loaded"))
    }

    /// As `fileSpace`, for the run being loaded.
    #[wasm_bindgen(js_name = runSpace)]
    pub fn run_space(&mut self, n: u32) -> Result<u32, JsError> {
        let room = self.run_load_mut()?.space(n as usize).map_err(js)?;
        Ok(room.as_mut_ptr() as usize as u32)
    }

    /// As `pushFileSpace`, for the run being loaded.
    #[wasm_bindgen(js_name = pushRunSpace)]
    pub fn push_run_space(&mut self, n: u32) -> Result<u32, JsError> {
        let load = self.run_load_mut()?;
        if let Err(e) = load.push_space(n as usize) {
            self.run_load = None;
            return Err(js(e));
        }
        Ok(load.event_count() as u32)
    }

    /// The run's download ended: its source text is checked against its
    /// SHA-256 here, its times are taken in by its file, and the
    /// recording is dropped.
    #[wasm_bindgen(js_name = endRun)]
    pub fn end_run(&mut self) -> Result<(), JsError> {
        let (k, load) = self
            .run_load
            .take()
            .ok_or_else(|| js("no run is being loaded"))?;
        let rec = load.finish(None).map_err(js)?;
        self.file_mut(k)?.add_run(&rec);
        Ok(())
    }

    /// Every run of file `k` has arrived (the loaded recording is run
    /// `repeat`, the median run): from now on the file's times are
    /// medians over the runs. Returns the file's summary.
    #[wasm_bindgen(js_name = endRuns)]
    pub fn end_runs(&mut self, k: u32, repeat: u32) -> Result<String, JsError> {
        let file = self.file_mut(k)?;
        file.end_runs(repeat).map_err(js)?;
        Ok(text(file.summary()))
    }

    #[wasm_bindgen(js_name = fileSummary)]
    pub fn file_summary(&self, k: u32) -> Result<String, JsError> {
        Ok(text(self.file(k)?.summary()))
    }

    /// The recorded source text of file `k`.
    pub fn source(&self, k: u32) -> Result<String, JsError> {
        Ok(self.file(k)?.source().to_owned())
    }

    /// File `k`'s `declarations` or `tactics` (spans), as `what` says:
    /// those matching `filter`, sorted by `sort`, the first `limit` (all
    /// when absent).
    pub fn list(
        &mut self,
        k: u32,
        what: &str,
        filter: &str,
        sort: &str,
        limit: Option<u32>,
    ) -> Result<String, JsError> {
        let file = self.file_mut(k)?;
        let limit = limit.map(|n| n as usize);
        match what {
            "declarations" => Ok(file.declarations(filter, sort, limit)),
            "tactics" => Ok(text(file.tactics(filter, sort, limit))),
            _ => Err(js(format!("a file has no list of {what:?}"))),
        }
    }

    /// File `k`'s tactic span `t` (its index in source order).
    pub fn tactic(&mut self, k: u32, t: u32) -> Result<String, JsError> {
        self.file_mut(k)?
            .tactic(t as usize)
            .map(text)
            .ok_or_else(|| js(format!("file {k} has no tactic {t}")))
    }

    #[wasm_bindgen(js_name = lineBars)]
    pub fn line_bars(&mut self, k: u32) -> Result<String, JsError> {
        Ok(self.file_mut(k)?.line_bars())
    }

    /// Times up to `events` more events of loaded file `k`'s line bars, a slice of the
    /// work `lineBars` would otherwise do at once; returns whether some is left (false
    /// too when the file is not loaded: `lineBars` then says so).
    #[wasm_bindgen(js_name = lineBarsStep)]
    pub fn line_bars_step(&mut self, k: u32, events: u32) -> bool {
        self.files
            .get_mut(&k)
            .is_some_and(|f| f.line_bars_step(events as usize))
    }

    pub fn declaration(&mut self, k: u32, d: u32) -> Result<String, JsError> {
        self.file_mut(k)?
            .declaration(d as usize)
            .map(text)
            .ok_or_else(|| js(format!("file {k} has no declaration {d}")))
    }

    /// A 0-based source line.
    pub fn line(&mut self, k: u32, line: u32) -> Result<String, JsError> {
        Ok(text(self.file_mut(k)?.line(line)))
    }

    pub fn event(&self, k: u32, i: u32) -> Result<String, JsError> {
        self.file(k)?
            .event(i)
            .map(text)
            .ok_or_else(|| js(format!("file {k} has no event {i}")))
    }

    /// Timeline layout of `[t0, t1)` ns on `width` pixels (see
    /// `timeline::TimelineIndex::layout`).
    pub fn timeline(&self, k: u32, t0: f64, t1: f64, width: u32) -> Result<Vec<f64>, JsError> {
        let f = self.file(k)?;
        Ok(f.timeline().layout(&f.rec, t0, t1, width))
    }

    /// The event of timeline row `row` covering time `t` (ns), or -1.
    #[wasm_bindgen(js_name = eventAt)]
    pub fn event_at(&self, k: u32, row: u32, t: f64) -> Result<f64, JsError> {
        let f = self.file(k)?;
        Ok(f.timeline()
            .event_at(&f.rec, row as usize, t)
            .map_or(-1.0, f64::from))
    }

    /// Labels (first lines) of events, as a JSON array.
    pub fn labels(&self, k: u32, events: &[u32]) -> Result<String, JsError> {
        let f = self.file(k)?;
        let out: Vec<&str> = events
            .iter()
            .map(|&i| {
                if (i as usize) < f.rec.len() {
                    f.rec.label(i).lines().next().unwrap_or("")
                } else {
                    ""
                }
            })
            .collect();
        Ok(text(json!(out)))
    }

    /// Interned strings by id (class names of timeline rectangles).
    pub fn strings(&self, k: u32, ids: &[u32]) -> Result<String, JsError> {
        let f = self.file(k)?;
        let out: Vec<&str> = ids
            .iter()
            .map(|&i| f.rec.strings.get(i as usize).unwrap_or(""))
            .collect();
        Ok(text(json!(out)))
    }

    /// The hot spots of `scope` (a loaded file's number, or -1: the merged files),
    /// built from the file's recording on first use.
    fn hot_view(&mut self, scope: i32) -> Result<&mut HotView, JsError> {
        if scope == MERGED {
            return self
                .merged
                .as_mut()
                .ok_or_else(|| js("no folder's hot spots were merged"));
        }
        let k = u32::try_from(scope).map_err(|_| js(format!("{scope} is not a file")))?;
        let f = self
            .files
            .get(&k)
            .ok_or_else(|| js(format!("file {k} is not loaded")))?;
        let building = &mut self.hot_building;
        Ok(self.hot.entry(k).or_insert_with(|| {
            HotView::new(match building.remove(&k) {
                Some(part) => part.finish(&f.rec),
                None => recording::hotspots::HotSpots::of(&f.rec),
            })
        }))
    }

    /// How far loaded file `k`'s hot spots are: `{"events", "taken", "finished"}`
    /// (`taken`: the events `prepareHotSpots` took in so far).
    #[wasm_bindgen(js_name = hotSpotsPrepared)]
    pub fn hot_spots_prepared(&self, k: u32) -> Result<String, JsError> {
        let f = self.file(k)?;
        let finished = self.hot.contains_key(&k);
        let taken = match self.hot_building.get(&k) {
            Some(part) => part.len(),
            None if finished => f.rec.len(),
            None => 0,
        };
        Ok(text(
            json!({"events": f.rec.len(), "taken": taken, "finished": finished}),
        ))
    }

    /// Builds up to `events` more of loaded file `k`'s hot spots, a slice
    /// of the work its first hot-spot request would otherwise do at once
    /// (the worker calls it while idle after a load); returns whether more
    /// is left (false too when the file is not loaded or its hot spots
    /// are finished).
    #[wasm_bindgen(js_name = prepareHotSpots)]
    pub fn prepare_hot_spots(&mut self, k: u32, events: u32) -> bool {
        let Some(f) = self.files.get(&k) else {
            return false;
        };
        if self.hot.contains_key(&k) {
            return false;
        }
        self.hot_building
            .entry(k)
            .or_insert_with(|| recording::hotspots::Incremental::new(recording::hotspots::By::Key))
            .take_in_slice(&f.rec, events.max(1) as usize)
    }

    /// The bottom-up table of `scope` (see `HotView::rows`).
    #[wasm_bindgen(js_name = hotRows)]
    pub fn hot_rows(
        &mut self,
        scope: i32,
        filter: &str,
        class: &str,
        sort: &str,
        limit: u32,
    ) -> Result<String, JsError> {
        let view = self.hot_view(scope)?;
        Ok(text(view.rows(filter, class, sort, limit as usize)))
    }

    /// Key `key`'s callers (by total, or by self: `by_self`, the bottom-up tree) and
    /// callees in `scope`.
    #[wasm_bindgen(js_name = hotSandwich)]
    pub fn hot_sandwich(&mut self, scope: i32, key: u32, by_self: bool) -> Result<String, JsError> {
        let weight = if by_self {
            recording::hotspots::Weight::Self_
        } else {
            recording::hotspots::Weight::Total
        };
        self.hot_view(scope)?
            .sandwich(key, weight)
            .map(text)
            .ok_or_else(|| js(format!("there is no hot-spot key {key}")))
    }

    /// Key `key`'s occurrences in loaded file `k`.
    #[wasm_bindgen(js_name = hotOccurrences)]
    pub fn hot_occurrences(&mut self, k: u32, key: u32) -> Result<String, JsError> {
        self.hot_view(k as i32)?;
        let (Some(view), Some(f)) = (self.hot.get(&k), self.files.get(&k)) else {
            return Err(js(format!("file {k} is not loaded")));
        };
        Ok(text(hotspots::occurrences(view, &f.rec, key)))
    }

    /// The flame graph of `scope` beneath node `at` (see `HotView::flame`).
    pub fn flame(
        &mut self,
        scope: i32,
        class: &str,
        at: u32,
        min_share: f64,
    ) -> Result<String, JsError> {
        Ok(text(self.hot_view(scope)?.flame(class, at, min_share)))
    }

    /// Bytes `scope`'s hot spots hold and their keys (the memory report).
    #[wasm_bindgen(js_name = hotMemory)]
    pub fn hot_memory(&mut self, scope: i32) -> Result<String, JsError> {
        let view = self.hot_view(scope)?;
        Ok(text(
            json!({"bytes": view.all.heap_bytes(), "keys": view.all.rows.len(), "nodes": view.all.tree.len()}),
        ))
    }

    /// The session's hot spots under folder `under`, from its index's `hotspot` rows.
    #[wasm_bindgen(js_name = sessionHotRows)]
    pub fn session_hot_rows(
        &mut self,
        under: &str,
        filter: &str,
        class: &str,
        sort: &str,
        limit: u32,
    ) -> Result<String, JsError> {
        Ok(text(self.session_mut()?.hot_rank(
            under,
            filter,
            class,
            sort,
            limit as usize,
        )))
    }

    /// The recordings a flame graph of folder `under` merges (`SessionModel::merge_plan`).
    #[wasm_bindgen(js_name = mergePlan)]
    pub fn merge_plan(&self, under: &str) -> Result<String, JsError> {
        Ok(text(self.session()?.merge_plan(under)))
    }

    /// Starts merging the hot spots of folder `under`'s files.
    #[wasm_bindgen(js_name = beginMerge)]
    pub fn begin_merge(&mut self, under: &str) {
        self.merge = Some((Merge::new(under), None));
        self.merged = None;
    }

    /// Starts streaming the next recording to merge; `byte_length` as for `beginFile`.
    #[wasm_bindgen(js_name = beginMergeFile)]
    pub fn begin_merge_file(&mut self, byte_length: f64) -> Result<(), JsError> {
        let (_, load) = self
            .merge
            .as_mut()
            .ok_or_else(|| js("no merge was begun"))?;
        *load = Some(RecordingLoad::new(0, byte_length.max(0.0) as u64));
        Ok(())
    }

    fn merge_load(&mut self) -> Result<&mut RecordingLoad, JsError> {
        self.merge
            .as_mut()
            .and_then(|(_, l)| l.as_mut())
            .ok_or_else(|| js("no recording is being merged"))
    }

    /// As `fileSpace`, for the recording being merged.
    #[wasm_bindgen(js_name = mergeSpace)]
    pub fn merge_space(&mut self, n: u32) -> Result<u32, JsError> {
        let room = self.merge_load()?.space(n as usize).map_err(js)?;
        Ok(room.as_mut_ptr() as usize as u32)
    }

    /// As `pushFileSpace`, for the recording being merged.
    #[wasm_bindgen(js_name = pushMergeSpace)]
    pub fn push_merge_space(&mut self, n: u32) -> Result<u32, JsError> {
        let load = self.merge_load()?;
        if let Err(e) = load.push_space(n as usize) {
            if let Some((_, l)) = &mut self.merge {
                *l = None;
            }
            return Err(js(e));
        }
        Ok(load.event_count() as u32)
    }

    /// The recording being merged arrived: its hot spots are merged in and it is dropped.
    #[wasm_bindgen(js_name = endMergeFile)]
    pub fn end_merge_file(&mut self) -> Result<(), JsError> {
        let (merge, load) = self
            .merge
            .as_mut()
            .ok_or_else(|| js("no merge was begun"))?;
        let load = load
            .take()
            .ok_or_else(|| js("no recording is being merged"))?;
        let rec = load.finish(None).map_err(js)?;
        merge.add(&rec).map_err(js)
    }

    /// Every recording was merged: the result is the scope -1 of the hot-spot requests.
    #[wasm_bindgen(js_name = endMerge)]
    pub fn end_merge(&mut self) -> Result<String, JsError> {
        let (merge, _) = self.merge.take().ok_or_else(|| js("no merge was begun"))?;
        let under = merge.under.clone();
        let view = merge.finish();
        let summary = json!({"under": under, "files": view.all.files, "keys": view.all.rows.len()});
        self.merged = Some(view);
        Ok(text(summary))
    }
}

/// A recording being streamed in on its own (kept for scripts that only
/// decode).
#[wasm_bindgen]
pub struct RecordingStream {
    load: Option<RecordingLoad>,
    events: usize,
}

#[wasm_bindgen]
impl RecordingStream {
    #[wasm_bindgen(constructor)]
    pub fn new() -> RecordingStream {
        RecordingStream {
            load: Some(RecordingLoad::new(0, 0)),
            events: 0,
        }
    }

    /// Feeds the next bytes of the file; decodes every chunk that is complete.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), JsError> {
        let load = self
            .load
            .as_mut()
            .ok_or_else(|| js("the recording already ended"))?;
        load.push(bytes).map_err(js)?;
        self.events = load.event_count();
        Ok(())
    }

    /// Call when the download ended; fails if the recording is incomplete.
    pub fn finish(&mut self) -> Result<(), JsError> {
        let load = self
            .load
            .take()
            .ok_or_else(|| js("the recording already ended"))?;
        let rec = load.finish(None).map_err(js)?;
        self.events = rec.len();
        Ok(())
    }

    /// Events decoded so far.
    #[wasm_bindgen(js_name = eventCount)]
    pub fn event_count(&self) -> usize {
        self.events
    }
}

impl Default for RecordingStream {
    fn default() -> Self {
        Self::new()
    }
}
