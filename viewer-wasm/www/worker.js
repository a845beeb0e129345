// The viewer's worker. The page fetches this file and wasm-bindgen's
// no-modules glue (viewer_wasm.js), joins them into a Blob and starts the
// worker from its URL. Every byte of data is fetched, streamed and decoded
// here (a recording's body is read by this worker's own reader worker and
// handed over; see readElsewhere); the page only receives view models.
/* global wasm_bindgen */
'use strict';

let viewer = null;
let memory = null;
let sessionUrl = null;
/** True when a lone recording is open (sessionUrl is the recording). */
let single = false;

/** Files kept decoded at once; older ones are dropped. */
const MAX_LOADED_FILES = 3;
const loaded = [];

function parse(text) { return JSON.parse(text); }

const JSON_TEXT = Symbol('json text');
/** An answer the wasm wrote as JSON text, posted as the text: the page
 *  parses it once, instead of this worker parsing it and the message
 *  copying the object graph. */
function json(text) { return { [JSON_TEXT]: text }; }

/** Data is fetched past the browser's HTTP cache: a recording is read
 *  once, as it streams, and writing tens of megabytes into the disk cache
 *  on the way would take time from the decoding. */
const DATA = { cache: 'no-store' };

async function fetchOk(url) {
  let res;
  try {
    res = await fetch(url, DATA);
  } catch (e) {
    throw new Error(`cannot fetch ${url}: ${e.message}`);
  }
  if (!res.ok) throw new Error(`cannot fetch ${url}: HTTP ${res.status}`);
  return res;
}

/** How much one read of a response body takes at most. */
const READ_BYTES = 1 << 21;

/** A reader of `res`'s body and how to read the next piece. Where the
 *  browser allows, pieces are read into one buffer used over and over:
 *  tens of megabytes then stream through two megabytes, instead of each
 *  piece taking fresh memory for the garbage collector to reclaim. */
function bodyReader(res) {
  try {
    const reader = res.body.getReader({ mode: 'byob' });
    let buffer = new ArrayBuffer(READ_BYTES);
    return async () => {
      const { done, value } = await reader.read(new Uint8Array(buffer));
      if (value) buffer = value.buffer;
      return { done, value };
    };
  } catch {
    const reader = res.body.getReader();
    return () => reader.read();
  }
}

/** Bytes of event memory paged in per slice while waiting for the network
 *  (about a millisecond of page faults). */
const PREFAULT_BYTES = 1 << 20;

/** While file `k` loads, pages in the memory its events will fill a slice
 *  at a time, yielding to the event loop between slices so that arriving
 *  bytes are taken in first (see RecordingLoad::prefault): the time spent
 *  waiting for the network (for the header, and between pieces when the
 *  decoding is ahead) then pays for page faults that decoding would
 *  otherwise take. Ends when all is paged in or the load ended. */
function prefaultWhileWaiting(k) {
  return whileIdle(() => viewer.prefaultFile(k, PREFAULT_BYTES));
}

/** Events of a loaded file's hot spots built in one slice while the worker
 *  is idle: a few milliseconds, the most a request arriving meanwhile
 *  waits. */
const HOT_SLICE_EVENTS = 1 << 16;

/** Events of a file's line bars timed in one slice (viewer.lineBarsStep):
 *  a few milliseconds, the most a request arriving meanwhile waits. */
const LINE_SLICE_EVENTS = 1 << 16;

/** Builds loaded file `k`'s hot spots a slice at a time while nothing
 *  else asks (viewer.prepareHotSpots): the Hot spots tab and the flame
 *  graph then only finish them (the tree's totals and the keys' rows).
 *  Ends once they are built, finished by a request, or the file was
 *  dropped. */
function prepareHotSpotsWhileIdle(k) {
  return whileIdle(() => viewer.prepareHotSpots(k, HOT_SLICE_EVENTS));
}

/** Calls `step` until it returns false, yielding to the event loop
 *  between calls, so that a message that arrives is handled first. Yields
 *  by a message to itself, not setTimeout, which browsers slow down when
 *  nested. */
async function whileIdle(step) {
  const channel = new MessageChannel();
  const yieldToEvents = () => new Promise((ok) => {
    channel.port1.onmessage = ok;
    channel.port2.postMessage(null);
  });
  try {
    while (step()) await yieldToEvents();
  } finally {
    channel.port1.close();
  }
}

async function streamInto(res, push, progress) {
  const read = bodyReader(res);
  let bytes = 0;
  for (;;) {
    const { done, value } = await read();
    if (done) break;
    bytes += value.byteLength;
    const n = push(value);
    if (progress) progress(bytes, n);
  }
  return bytes;
}

/** Pieces of one recording's body in flight from the reader at once: its
 *  buffers, each given back once its bytes were taken in. */
const READER_BUFFERS = 4;

/** The reader: a worker of this worker's own that fetches recordings (with
 *  this file's fetchOk) and hands their bodies' pieces over, transferred
 *  (not copied). Reading a
 *  response body costs its thread the stream's own work for each piece
 *  (tens of microseconds to a millisecond each, hundreds of pieces for a
 *  big recording); in the reader, that work runs beside the decoding
 *  instead of between its steps. Each piece's buffer comes back once its
 *  bytes were taken in, so at most READER_BUFFERS pieces wait here. */
const READER_SOURCE = `'use strict';
const DATA = ${JSON.stringify(DATA)};
${fetchOk}
const reads = new Map();
onmessage = (e) => {
  const m = e.data;
  const r = reads.get(m.id);
  if (m.fetch) read(m.id, m.fetch, m.buffers);
  else if (r && m.give) {
    r.out--;
    if (r.byob) r.free.push(m.give);
    if (r.wake) r.wake();
  } else if (r && m.cancel) {
    r.cancelled = true;
    if (r.reader) r.reader.cancel().catch(() => {});
    if (r.wake) r.wake();
  }
};
async function read(id, url, buffers) {
  const r = { free: buffers, out: 0, byob: false, reader: null, wake: null, cancelled: false };
  reads.set(id, r);
  try {
    let res;
    try {
      res = await fetchOk(url);
    } catch (e) {
      postMessage({ id, error: String((e && e.message) || e), unfetched: true });
      return;
    }
    postMessage({ id, length: Number(res.headers.get('content-length')) || 0 });
    try {
      r.reader = res.body.getReader({ mode: 'byob' });
      r.byob = true;
    } catch {
      r.reader = res.body.getReader();
    }
    for (;;) {
      while (!r.cancelled && r.out >= buffers.length) {
        await new Promise((ok) => { r.wake = ok; });
        r.wake = null;
      }
      if (r.cancelled) return;
      const { done, value } = r.byob ? await r.reader.read(new Uint8Array(r.free.pop())) : await r.reader.read();
      if (done) break;
      r.out++;
      postMessage({ id, piece: value }, [value.buffer]);
    }
    postMessage({ id, done: true });
  } catch (e) {
    postMessage({ id, error: String((e && e.message) || e) });
  } finally {
    reads.delete(id);
  }
}`;

let reader = null;
let nextRead = 1;
const reading = new Map();

/** Starts the reader, once (at init, so that a worker's start-up is not
 *  part of the first load); false where nested workers cannot start or
 *  cannot fetch. */
function startReader() {
  if (reader !== null) return;
  try {
    reader = new Worker(URL.createObjectURL(new Blob([READER_SOURCE], { type: 'text/javascript' })));
    reader.onmessage = (e) => { const r = reading.get(e.data.id); if (r) r(e.data); };
    reader.onerror = (e) => {
      for (const r of reading.values()) r({ error: `the reader failed: ${e.message}`, unfetched: true });
    };
  } catch {
    reader = false;
  }
}

/** Streams the body at `url` through the reader: `onLength(contentLength)`
 *  once the response arrived, then `push(piece)` per piece; resolves when
 *  the body ended. Without nested workers (or if the reader cannot
 *  start), the body is read on this thread. */
async function readElsewhere(url, onLength, push) {
  startReader();
  if (!reader) return readHere(url, onLength, push);
  try {
    return await readInReader(url, onLength, push);
  } catch (e) {
    if (!e.unfetched) throw e;
    // The reader could not fetch what this worker may: a host whose
    // fetches are answered for the page's own workers only (VS Code's
    // webview answers a nested worker's fetch with 404). Read here, and
    // from now on, when that works.
    const bytes = await readHere(url, onLength, push);
    stopReader();
    return bytes;
  }
}

async function readHere(url, onLength, push) {
  const res = await fetchOk(url);
  onLength(Number(res.headers.get('content-length')) || 0);
  return streamInto(res, push);
}

/** Reads on this thread from now on (the host said nested workers cannot
 *  fetch, or a fetch showed it). */
function stopReader() {
  if (reader) reader.terminate();
  reader = false;
}

function readInReader(url, onLength, push) {
  const id = nextRead++;
  const buffers = Array.from({ length: READER_BUFFERS }, () => new ArrayBuffer(READ_BYTES));
  let started = false;
  return new Promise((resolve, reject) => {
    reading.set(id, (m) => {
      try {
        // Unfetched: nothing of the body was taken in, so it may be read again.
        if (m.error) throw Object.assign(new Error(m.error), { unfetched: !!m.unfetched && !started });
        if (m.done) { reading.delete(id); resolve(); return; }
        if (m.length !== undefined) { started = true; onLength(m.length); return; }
        push(m.piece);
        reader.postMessage({ id, give: m.piece.buffer }, [m.piece.buffer]);
      } catch (e) {
        reading.delete(id);
        reader.postMessage({ id, cancel: true });
        reject(e);
      }
    });
    reader.postMessage({ id, fetch: url, buffers }, buffers);
  });
}

/** The SHA-256 (lowercase hex) of a recording's source text, computed by
 *  the browser (natively, off this thread) while the events decode; the
 *  wasm compares it with the recorded one. Resolves to undefined when the
 *  browser cannot hash (no crypto.subtle outside secure contexts): the wasm
 *  then hashes the text itself. */
function sourceDigest(bytes) {
  if (!bytes) return null;
  if (!(self.crypto && self.crypto.subtle)) return Promise.resolve(undefined);
  return self.crypto.subtle.digest('SHA-256', bytes).then(
    (d) => Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join(''),
    () => undefined,
  );
}

/** The manifest fetched while the wasm compiles: [url, promise of text]. */
let prefetched = null;

/** Copies `chunk` straight into the decoder's input, in pieces of at most
 *  a read's size: `space(n)` gives the address, `pushSpace(n)` takes the
 *  bytes in and returns the events decoded so far. */
function copyIn(chunk, space, pushSpace) {
  let events = 0;
  for (let at = 0; at < chunk.byteLength; at += READ_BYTES) {
    const piece = chunk.subarray(at, at + READ_BYTES);
    const to = space(piece.byteLength);
    new Uint8Array(memory.buffer, to, piece.byteLength).set(piece);
    events = pushSpace(piece.byteLength);
  }
  return events;
}

function fetchText(url) {
  return fetchOk(url).then((res) => res.text());
}

const ops = {
  /** `wasm` is the compiled module (or its URL); `prefetchSession`, when
   *  given, is fetched while the wasm instantiates; `readerWorker: false`
   *  (the page's configuration, from a host whose nested workers cannot
   *  fetch) reads recordings on this thread. */
  async init(wasm, prefetchSession, readerWorker) {
    if (readerWorker === false) stopReader();
    startReader();
    if (prefetchSession) {
      const text = fetchText(prefetchSession);
      text.catch(() => {}); // reported when openSession asks for it
      prefetched = [prefetchSession, text];
    }
    const exports = await wasm_bindgen({ module_or_path: wasm });
    memory = exports.memory;
    viewer = new wasm_bindgen.Viewer();
    return true;
  },

  async openSession(url) {
    sessionUrl = url;
    single = false;
    loaded.length = 0;
    const early = prefetched && prefetched[0] === url ? prefetched[1] : null;
    prefetched = null;
    return parse(viewer.openSession(await (early || fetchText(url))));
  },

  openSingle(url, name, events) {
    sessionUrl = url;
    single = true;
    loaded.length = 0;
    return parse(viewer.openSingle(name, typeof events === 'number' ? events : -1));
  },

  async loadIndex(url) {
    let res;
    try {
      res = await fetch(url, DATA);
    } catch (e) {
      return { rows: 0, skipped: 0, warnings: [`cannot fetch the index: ${e.message}`] };
    }
    if (res.status === 404) return { rows: 0, skipped: 0, warnings: ['the session has no index.jsonl'] };
    if (!res.ok) return { rows: 0, skipped: 0, warnings: [`cannot fetch the index: HTTP ${res.status}`] };
    await streamInto(res, (chunk) => viewer.pushIndex(chunk));
    return parse(viewer.endIndex());
  },

  sessionSummary() { return parse(viewer.sessionSummary()); },
  folder(node) { return json(viewer.folder(node)); },
  findPath(path) { return viewer.findPath(path); },
  nodeOfFile(k) { return viewer.nodeOfFile(k); },
  rank(kind, filter, under, sort, limit) { return json(viewer.rank(kind, filter, under, sort, limit)); },

  async loadFile(k, id) {
    if (loaded.includes(k)) return parse(viewer.fileSummary(k));
    const entry = parse(viewer.fileEntry(k));
    // A repeated capture: the median run is the file shown, the other
    // runs' times are taken in after it.
    const runs = single ? null : parse(viewer.fileRuns(k));
    const recording = runs ? runs.shown.recording : entry.recording;
    if (!recording) throw new Error(`${entry.path} has no recording (status ${entry.status})`);
    const url = single ? sessionUrl : new URL(recording, sessionUrl).href;
    const t0 = performance.now();
    let length = 0;
    const begin = (contentLength) => {
      length = contentLength;
      viewer.beginFile(k, length);
      prefaultWhileWaiting(k);
    };
    let bytes = 0;
    let last = 0;
    let digest = null;
    let decodeMs = 0;
    const push = (chunk) => {
      const p0 = performance.now();
      const events = copyIn(chunk, (n) => viewer.fileSpace(k, n), (n) => viewer.pushFileSpace(k, n));
      decodeMs += performance.now() - p0;
      if (!digest) {
        const at = viewer.sourceToCheck(k);
        digest = sourceDigest(at && new Uint8Array(memory.buffer, at[0], at[1]));
      }
      // Progress four times a second: each update repaints the page's
      // banner, work on the other core that a load competes with (every
      // 100 ms made a 3M-event load 5% slower).
      bytes += chunk.byteLength;
      if (p0 - last > 250) {
        last = p0;
        self.postMessage({ id, progress: { file: k, bytes, length, events } });
      }
      return events;
    };
    await readElsewhere(url, begin, push);
    const t1 = performance.now();
    const sourceDigested = digest ? await digest : undefined;
    const t2 = performance.now();
    let summary = parse(viewer.endFile(k, sourceDigested));
    if (runs) {
      const count = runs.others.length + 1;
      for (const [j, other] of runs.others.entries()) {
        self.postMessage({ id, progress: { file: k, run: j + 2, runs: count } });
        try {
          await readElsewhere(new URL(other, sessionUrl).href, (len) => viewer.beginRun(k, len),
            (chunk) => copyIn(chunk, (n) => viewer.runSpace(n), (n) => viewer.pushRunSpace(n)));
          viewer.endRun();
        } catch (e) {
          viewer.dropFile(k);
          throw new Error(`run ${other} of ${entry.path}: ${e.message}`);
        }
      }
      summary = parse(viewer.endRuns(k, runs.shown.repeat));
    }
    // Where the load's time went: the whole, its stream (fetch to the
    // last byte), the wasm's decoding of what arrived, and the end (the
    // forest linked, the source checked).
    summary.loadMs = performance.now() - t0;
    summary.streamMs = t1 - t0;
    summary.decodeMs = decodeMs;
    summary.endMs = performance.now() - t2;
    loaded.push(k);
    while (loaded.length > MAX_LOADED_FILES) viewer.dropFile(loaded.shift());
    return summary;
  },

  /** Starts building file `k`'s hot spots while idle; answers at once. */
  prepareHotSpots(k) { prepareHotSpotsWhileIdle(k); },
  hotSpotsPrepared(k) { return parse(viewer.hotSpotsPrepared(k)); },
  fileSummary(k) { return parse(viewer.fileSummary(k)); },
  source(k) { return viewer.source(k); },
  list(k, what, filter, sort, limit) { return json(viewer.list(k, what, filter, sort, limit)); },
  tactic(k, t) { return json(viewer.tactic(k, t)); },
  /** File `k`'s line bars, timed a slice at a time: a request arriving
   *  meanwhile (the Hot spots tab clicked as the file opens) is answered
   *  between two slices, not after them all. */
  async lineBars(k) {
    await whileIdle(() => viewer.lineBarsStep(k, LINE_SLICE_EVENTS));
    return json(viewer.lineBars(k));
  },
  declaration(k, d) { return json(viewer.declaration(k, d)); },
  line(k, line) { return json(viewer.line(k, line)); },
  event(k, i) { return json(viewer.event(k, i)); },
  eventAt(k, row, t) { return viewer.eventAt(k, row, t); },

  /** Layout of a window, with labels of the wide rectangles and the class
   *  names of all. */
  timeline(k, t0, t1, width, labelPx) {
    const rects = viewer.timeline(k, t0, t1, width);
    const wide = [];
    const classes = new Set();
    for (let r = 0; r < rects.length; r += 6) {
      classes.add(rects[r + 5]);
      if (rects[r + 4] === 1 && rects[r + 2] - rects[r + 1] >= labelPx) wide.push(rects[r + 3]);
    }
    const classIds = [...classes];
    const labelTexts = wide.length ? parse(viewer.labels(k, Uint32Array.from(wide))) : [];
    const classNames = parse(viewer.strings(k, Uint32Array.from(classIds)));
    const labels = {};
    wide.forEach((e, j) => { labels[e] = labelTexts[j]; });
    const names = {};
    classIds.forEach((c, j) => { names[c] = classNames[j]; });
    return transfer({ rects, labels, classNames: names }, [rects.buffer]);
  },

  memory() { return { wasmBytes: memory ? memory.buffer.byteLength : 0 }; },

  // ---- hot spots (recording::hotspots through viewer-wasm/src/hotspots.rs) ----
  // `scope` is a loaded file's number, or -1: the folder merged by mergeFolder.
  hotRows(scope, filter, cls, sort, limit) { return json(viewer.hotRows(scope, filter, cls, sort, limit)); },
  hotSandwich(scope, key, bySelf) { return json(viewer.hotSandwich(scope, key, bySelf)); },
  hotOccurrences(k, key) { return json(viewer.hotOccurrences(k, key)); },
  hotMemory(scope) { return parse(viewer.hotMemory(scope)); },
  flame(scope, cls, at, minShare) { return json(viewer.flame(scope, cls, at, minShare)); },
  sessionHotRows(under, filter, cls, sort, limit) { return json(viewer.sessionHotRows(under, filter, cls, sort, limit)); },

  /** Merges the hot spots of folder `under`'s committed recordings (each
   *  file's median run for a repeated capture), streamed one at a time:
   *  each is decoded, its hot spots merged in, and dropped. At most the
   *  plan's cap of files and events, the largest first. */
  async mergeFolder(under, id) {
    if (single) throw new Error('a lone recording has no folder to merge');
    const plan = parse(viewer.mergePlan(under));
    const t0 = performance.now();
    viewer.beginMerge(under);
    for (const [j, f] of plan.files.entries()) {
      self.postMessage({ id, progress: { merge: { done: j, of: plan.files.length, path: f.path } } });
      try {
        await readElsewhere(new URL(f.recording, sessionUrl).href, (len) => viewer.beginMergeFile(len),
          (chunk) => copyIn(chunk, (n) => viewer.mergeSpace(n), (n) => viewer.pushMergeSpace(n)));
        viewer.endMergeFile();
      } catch (e) {
        throw new Error(`${f.path}: ${e.message}`);
      }
    }
    const done = parse(viewer.endMerge());
    return { ...done, of: plan.of, skipped: plan.skipped, events: plan.events, maxFiles: plan.maxFiles, maxEvents: plan.maxEvents, ms: performance.now() - t0 };
  },
};

// ---- diff view: a comparison of a baseline with this data ----
// The document is `leanscope compare`'s JSON (schemas/comparison.schema.json)
// wrapped with where the two inputs came from (`leanscope view --baseline`,
// the editor's Compare with Baseline).
let diff = null;

/** One row per key: matched rows with their status, then missing
 *  (baseline only) and new (candidate only). */
function diffModel(doc) {
  const c = doc && doc.comparison;
  if (!c || !Array.isArray(c.matched) || !Array.isArray(c.missing) || !Array.isArray(c.new)) {
    throw new Error('the diff document has no comparison (matched, missing and new rows)');
  }
  const rows = [];
  const add = (key, status, baseline, candidate, delta, changeBps, calls, rule, interval) => {
    const k = key || {};
    rows.push({
      status,
      // By key: the class says what kind of work (`Elab.step simp`).
      name: c.group_by === 'key' && k.class ? [k.class, k.name].filter(Boolean).join(' ') : String(k.name ?? ''),
      file: k.file ?? k.module ?? null,
      declaration: k.declaration ?? null,
      line: k.line ?? null,
      baseline,
      candidate,
      delta,
      changeBps: changeBps ?? null,
      calls,
      // Of repeated captures: what decided the row (tolerance,
      // spreads_separate, bootstrap or noise) and the bootstrap interval.
      rule: rule ?? null,
      interval: Array.isArray(interval) ? interval : null,
    });
  };
  for (const m of c.matched) add(m.key, m.status, m.baseline, m.candidate, m.delta, m.change_bps, m.candidate_calls, m.rule, m.interval);
  for (const m of c.missing) add(m.key, 'missing', m.value, null, -m.value, null, m.calls);
  for (const m of c.new) add(m.key, 'new', null, m.value, m.value, null, m.calls);
  // Largest increase first; improvements last.
  rows.sort((a, b) => b.delta - a.delta || a.name.localeCompare(b.name));
  const counts = { regression: 0, improvement: 0, within_tolerance: 0, new: 0, missing: 0, noise: 0 };
  for (const r of rows) {
    counts[r.status] = (counts[r.status] || 0) + 1;
    if (r.rule === 'noise') counts.noise += 1;
  }
  return {
    rows,
    counts,
    metric: c.metric,
    groupBy: c.group_by ?? null,
    absoluteTolerance: c.absolute_tolerance,
    relativeToleranceBps: c.relative_tolerance_bps,
    noise: c.noise ?? null,
    baseline: doc.baseline ?? null,
    candidate: doc.candidate ?? null,
    warnings: Array.isArray(doc.warnings) ? doc.warnings : [],
  };
}

function diffFacts(d) {
  const { rows, ...facts } = d;
  return { ...facts, rowCount: rows.length };
}

Object.assign(ops, {
  async loadDiff(url) {
    const res = await fetchOk(url);
    diff = diffModel(parse(await res.text()));
    return diffFacts(diff);
  },

  /** A document the host sent (the VS Code extension). */
  setDiff(doc) {
    diff = diffModel(doc);
    return diffFacts(diff);
  },

  /** Rows whose name, file or declaration contains `filter`, under the
   *  folder or file `under` ('' = all), at most `limit`, and the largest
   *  baseline or candidate value among them (the bars' scale). */
  diffRows(filter, under, limit) {
    if (!diff) throw new Error('no diff was loaded');
    const f = filter.toLowerCase();
    const inside = (p) => under === '' || (p !== null && (p === under || p.startsWith(`${under}/`)));
    const hits = diff.rows.filter((r) => inside(r.file)
      && (f === '' || r.name.toLowerCase().includes(f)
        || (r.file || '').toLowerCase().includes(f) || (r.declaration || '').toLowerCase().includes(f)));
    let max = 0;
    for (const r of hits) max = Math.max(max, r.baseline ?? 0, r.candidate ?? 0);
    return { rows: hits.slice(0, limit), matched: hits.length, max };
  },
});

const TRANSFER = Symbol('transfer');
function transfer(value, list) { return { [TRANSFER]: list, value }; }

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    if (!ops[op]) throw new Error(`unknown request ${op}`);
    if (op !== 'init' && !viewer) throw new Error('the viewer is not initialised');
    const out = await ops[op](...args, id);
    if (out && out[TRANSFER]) self.postMessage({ id, value: out.value }, out[TRANSFER]);
    else if (out && out[JSON_TEXT] !== undefined) self.postMessage({ id, json: out[JSON_TEXT] });
    else self.postMessage({ id, value: out });
  } catch (err) {
    self.postMessage({ id, error: String((err && err.message) || err) });
  }
};
