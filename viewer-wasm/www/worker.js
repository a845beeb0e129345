// The viewer's worker. The page fetches this file and wasm-bindgen's
// no-modules glue (viewer_wasm.js), joins them into a Blob and starts the
// worker from its URL. Every byte of data is fetched, streamed and decoded
// here; the page only receives view models.
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

async function fetchOk(url) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`cannot fetch ${url}: ${e.message}`);
  }
  if (!res.ok) throw new Error(`cannot fetch ${url}: HTTP ${res.status}`);
  return res;
}

async function streamInto(res, push, progress) {
  const reader = res.body.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    const n = push(value);
    if (progress) progress(bytes, n);
  }
  return bytes;
}

/** The manifest fetched while the wasm compiles: [url, promise of text]. */
let prefetched = null;

function fetchText(url) {
  return fetchOk(url).then((res) => res.text());
}

const ops = {
  /** `wasm` is the compiled module (or its URL); `prefetchSession`, when
   *  given, is fetched while the wasm instantiates. */
  async init(wasm, prefetchSession) {
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
      res = await fetch(url);
    } catch (e) {
      return { rows: 0, skipped: 0, warnings: [`cannot fetch the index: ${e.message}`] };
    }
    if (res.status === 404) return { rows: 0, skipped: 0, warnings: ['the session has no index.jsonl'] };
    if (!res.ok) return { rows: 0, skipped: 0, warnings: [`cannot fetch the index: HTTP ${res.status}`] };
    await streamInto(res, (chunk) => viewer.pushIndex(chunk));
    return parse(viewer.endIndex());
  },

  sessionSummary() { return parse(viewer.sessionSummary()); },
  folder(node) { return parse(viewer.folder(node)); },
  findPath(path) { return viewer.findPath(path); },
  nodeOfFile(k) { return viewer.nodeOfFile(k); },
  rank(kind, filter, under, sort, limit) { return parse(viewer.rank(kind, filter, under, sort, limit)); },

  async loadFile(k, id) {
    if (loaded.includes(k)) return parse(viewer.fileSummary(k));
    const entry = parse(viewer.fileEntry(k));
    if (!entry.recording) throw new Error(`${entry.path} has no recording (status ${entry.status})`);
    const url = single ? sessionUrl : new URL(entry.recording, sessionUrl).href;
    const t0 = performance.now();
    const res = await fetchOk(url);
    const length = Number(res.headers.get('content-length')) || 0;
    viewer.beginFile(k, length);
    let last = 0;
    await streamInto(res, (chunk) => viewer.pushFile(k, chunk), (bytes, events) => {
      const now = performance.now();
      if (now - last > 100) {
        last = now;
        self.postMessage({ id, progress: { file: k, bytes, length, events } });
      }
    });
    const t1 = performance.now();
    const summary = parse(viewer.endFile(k));
    summary.loadMs = performance.now() - t0;
    summary.streamMs = t1 - t0;
    loaded.push(k);
    while (loaded.length > MAX_LOADED_FILES) viewer.dropFile(loaded.shift());
    return summary;
  },

  fileSummary(k) { return parse(viewer.fileSummary(k)); },
  source(k) { return viewer.source(k); },
  declarations(k, filter, sort) { return parse(viewer.declarations(k, filter, sort)); },
  tactics(k, filter, sort) { return parse(viewer.tactics(k, filter, sort)); },
  lineBars(k) { return parse(viewer.lineBars(k)); },
  declaration(k, d) { return parse(viewer.declaration(k, d)); },
  line(k, line) { return parse(viewer.line(k, line)); },
  event(k, i) { return parse(viewer.event(k, i)); },
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
};

const TRANSFER = Symbol('transfer');
function transfer(value, list) { return { [TRANSFER]: list, value }; }

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    if (!ops[op]) throw new Error(`unknown request ${op}`);
    if (op !== 'init' && !viewer) throw new Error('the viewer is not initialised');
    const out = await ops[op](...args, id);
    if (out && out[TRANSFER]) self.postMessage({ id, value: out.value }, out[TRANSFER]);
    else self.postMessage({ id, value: out });
  } catch (err) {
    self.postMessage({ id, error: String((err && err.message) || err) });
  }
};
