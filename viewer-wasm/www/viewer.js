// The leanscope viewer page. It never parses data: a Web Worker (started
// from a Blob URL) streams and decodes everything with the WebAssembly
// model and answers with view models, which this file renders.
'use strict';
(() => {
  const SCRIPT_URL = document.currentScript ? document.currentScript.src : document.baseURI;
  const $ = (id) => document.getElementById(id);
  const el = (tag, props, ...kids) => {
    const e = document.createElement(tag);
    if (props) for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === null) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (k === 'dataset') Object.assign(e.dataset, v);
      // Through the CSSOM: the CSP allows no inline style attributes.
      else if (k === 'style') e.style.cssText = v;
      else e.setAttribute(k, v);
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  };

  // ---- formatting (the same units as recording::Measure::format) ----
  // A negative time (before the clock's zero) in the unit of its
  // magnitude; `scale` (a magnitude) picks the unit instead, so that
  // values shown together share one. A recording measured in heartbeats
  // (its summary's `measure`) prints heartbeats, never a time.
  function viewMeasure() {
    const fs = state.fileSummary;
    if (fs && fs.measure) return fs.measure;
    return (state.summary && state.summary.measure) || 'time';
  }
  function fmtHb(hb, scale) {
    const m = Math.abs(scale === undefined ? hb : scale);
    for (const [s, p] of [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']]) {
      if (m >= s) {
        const v = hb / s;
        const a = Math.abs(v);
        return `${a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2)} ${p} hb`;
      }
    }
    return `${Math.round(hb) + 0} hb`;
  }
  function fmtNs(ns, scale) {
    if (ns === null || ns === undefined) return '—';
    if (viewMeasure() === 'heartbeats') return fmtHb(ns, scale);
    const m = Math.abs(scale === undefined ? ns : scale);
    if (m >= 1e9) return `${(ns / 1e9).toFixed(3)} s`;
    if (m >= 1e6) return `${(ns / 1e6).toFixed(1)} ms`;
    if (m >= 1e3) return `${(ns / 1e3).toFixed(0)} µs`;
    return `${Math.round(ns) + 0} ns`;
  }
  /** The timeline's window: both ends in the unit of the larger one. */
  function fmtWindow(t0, t1) {
    const scale = Math.max(Math.abs(t0), Math.abs(t1));
    return `${fmtNs(Math.round(t0), scale)} – ${fmtNs(Math.round(t1), scale)} (${fmtNs(Math.round(t1 - t0))} shown)`;
  }
  /** A count with thousands separators. Not toLocaleString: its first
   *  call loads the browser's number formatting, tens of milliseconds of
   *  the page's main thread while a load's progress is shown. */
  const fmtCount = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  // Index rows hold milliseconds, or heartbeats for a heartbeat session.
  const rowNs = (ms) => Math.round(viewMeasure() === 'heartbeats' ? ms : ms * 1e6);
  const fmtMs = (ms) => (ms === null || ms === undefined ? '—'
    : viewMeasure() === 'heartbeats' ? fmtHb(ms) : fmtNs(Math.round(ms * 1e6)));
  const pct = (share) => (share === null || share === undefined ? '—' : `${(share * 100).toFixed(1)}%`);
  const rangeText = (r) => (r ? `${r.startLine + 1}:${r.startCol + 1}–${r.endLine + 1}:${r.endCol + 1}` : 'no range');
  const badge = (kind) => el('span', { class: `badge ${kind}`, title: RANGE_KIND_HELP[kind] || '', text: kind });
  const RANGE_KIND_HELP = {
    exact: 'source range reported by Lean',
    matched: 'source range found by leanscope in the command text',
    inherited: 'source range taken from the enclosing operation',
    none: 'no source range',
  };

  // ---- host (VS Code webview, iframe parent) ----
  const vscodeApi = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : null; // eslint-disable-line no-undef
  function postHost(msg) {
    if (vscodeApi) vscodeApi.postMessage(msg);
    else if (window.parent && window.parent !== window) window.parent.postMessage(msg, '*');
  }

  // ---- worker ----
  let worker = null;
  let nextId = 1;
  const pending = new Map();
  function post(op, args) {
    return new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject, op });
      worker.postMessage({ id, op, args });
    });
  }
  // Requests made before the worker answered `init` (clicks on a first
  // view the server rendered) wait for it, in order.
  let workerStarted;
  let workerFailed;
  const workerReady = new Promise((resolve, reject) => { workerStarted = resolve; workerFailed = reject; });
  workerReady.catch(() => {}); // reported where the start failed
  function call(op, ...args) {
    return workerReady.then(() => post(op, args));
  }
  function onWorkerMessage(e) {
    const m = e.data;
    const p = pending.get(m.id);
    if (!p) return;
    if (m.progress) { onProgress(m.progress); return; }
    pending.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(m.error));
    else if (m.json !== undefined) p.resolve(JSON.parse(m.json));
    else p.resolve(m.value);
  }
  async function startWorker(config) {
    const base = config.assets ? new URL(config.assets, document.baseURI).href : SCRIPT_URL;
    // The wasm downloads and compiles while the worker's code arrives; the
    // compiled module is handed to the worker.
    const wasmUrl = new URL('viewer_wasm_bg.wasm', base).href;
    const wasmModule = compileWasm(wasmUrl);
    const [glue, code] = await Promise.all(['viewer_wasm.js', 'worker.js'].map(async (f) => {
      const url = new URL(f, base).href;
      const res = await fetch(url);
      if (!res.ok) throw new Error(`cannot load ${url}: HTTP ${res.status}`);
      return res.text();
    }));
    const blob = new Blob([glue, '\n', code], { type: 'text/javascript' });
    worker = new Worker(URL.createObjectURL(blob));
    worker.onmessage = onWorkerMessage;
    worker.onerror = (e) => showBanner(`The viewer's worker failed: ${e.message}`, true);
    // The session's manifest is fetched while the wasm instantiates.
    const session = config.session ? new URL(config.session, document.baseURI).href : null;
    await post('init', [await wasmModule, session, config.readerWorker !== false]);
    workerStarted();
  }
  async function compileWasm(url) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`cannot load ${url}: HTTP ${res.status}`);
    if (WebAssembly.compileStreaming && (res.headers.get('content-type') || '').startsWith('application/wasm')) {
      return WebAssembly.compileStreaming(res);
    }
    return WebAssembly.compile(await res.arrayBuffer());
  }

  // ---- state ----
  const state = {
    summary: null, node: 0, folder: null, tab: 'files', filter: '', sort: 'total',
    file: null, fileEntry: null, fileSummary: null, scopeFile: false, lines: [], bars: new Map(), barSpreads: new Map(), maxNs: 0,
    decls: null, sel: null, selRange: null, declRange: null, listRows: [], listIndex: -1, folderIndex: -1,
    indexInfo: null, diff: null,
  };
  const debug = { firstPaintMs: null, fileLoads: [], state, call, fmtNs };
  window.__leanscope = debug;

  function showBanner(text, isError) {
    const b = $('banner');
    b.hidden = !text;
    b.textContent = text || '';
    b.classList.toggle('error', !!isError);
    // The host (the VS Code extension) logs errors where the user looks
    // for them, its output channel.
    if (isError && text) postHost({ type: 'leanscope.error', message: text });
  }

  // ---- session ----
  async function openData(config) {
    // The link the page was opened with; opening the session must not
    // overwrite it before it is restored.
    const initialHash = location.hash;
    restoring = true;
    try {
      await openDataInner(config);
    } finally {
      restoring = false;
    }
    await restoreFromHash(initialHash);
  }

  async function openDataInner(config) {
    if (config.diff) {
      // Small next to the data; loaded first so a link to the diff tab works.
      try {
        showDiff(await call('loadDiff', new URL(config.diff, document.baseURI).href));
      } catch (e) {
        showBanner(`Cannot read the diff: ${e.message}`, true);
      }
    }
    if (config.session) {
      const url = new URL(config.session, document.baseURI).href;
      state.summary = await call('openSession', url);
      const indexUrl = config.index ? new URL(config.index, document.baseURI).href : new URL('index.jsonl', url).href;
      renderSession();
      await openFolder(0, { fromHash: true });
      markFirstPaint();
      call('loadIndex', indexUrl).then((info) => {
        state.indexInfo = info;
        if (info.warnings && info.warnings.length) showBanner(`Index: ${info.warnings.join('; ')}`, false);
        if (!state.scopeFile) renderList();
      }, (e) => showBanner(`Cannot read the index: ${e.message}`, true));
    } else if (config.recording) {
      const url = new URL(config.recording, document.baseURI).href;
      const name = config.recordingName || decodeURIComponent(url.split('/').pop());
      state.summary = await call('openSingle', url, name, config.recordingEvents ?? -1);
      renderSession();
      await openFolder(0, {});
      markFirstPaint();
      await openFile(0);
      state.summary = await call('sessionSummary');
      renderSession();
      await openFolder(0, { keepFile: true });
    } else {
      showBanner('No session or recording was given to the viewer.', false);
    }
  }

  /** The first view the server put in the configuration (the session's
   *  summary and root folder, the viewer model's own answers from the same
   *  session.json, see sidecar/src/first_view.rs): painted before the
   *  worker and its wasm are ready, then replaced by the worker's answers.
   *  Not used when the link opens somewhere else. */
  function showFirstView(config) {
    const v = config.firstView;
    if (!v || !config.session || !v.summary || !v.folder || location.hash.length > 1) return;
    firstViewOnly = true;
    state.summary = v.summary;
    state.folder = v.folder;
    state.node = 0;
    renderSession();
    renderFolder();
    renderCrumbs();
    $('list-scope').textContent = 'Loading…';
    debug.firstView = firstViewSnapshot();
    markFirstPaint();
  }
  // Until the worker opened the data, the first view is only to look at:
  // clicks and keys wait for the real one (a link changed meanwhile is
  // opened by openData, which reads location.hash when it starts).
  let firstViewOnly = false;
  for (const type of ['click', 'keydown']) {
    document.addEventListener(type, (e) => {
      if (firstViewOnly) { e.stopPropagation(); e.preventDefault(); }
    }, true);
  }
  /** What the folder view shows (compared by the tests with the worker's). */
  function firstViewSnapshot() {
    return ['crumbs', 'session-status', 'session-counts', 'problems', 'folder-total', 'folder-list']
      .map((id) => [id, $(id).innerHTML]);
  }
  debug.firstViewSnapshot = firstViewSnapshot;

  function markFirstPaint() {
    requestAnimationFrame(() => {
      if (debug.firstPaintMs === null) debug.firstPaintMs = performance.now();
    });
  }

  function renderSession() {
    const s = state.summary;
    const pill = $('session-status');
    pill.hidden = false;
    pill.className = `pill ${s.statusLabel}`;
    pill.textContent = s.statusLabel;
    pill.title = s.statusLabel === 'interrupted'
      ? 'The session is marked running, but its capture stopped (crash or kill): what is shown is what was committed.'
      : `session ${s.statusLabel}`;
    $('session-counts').textContent = s.single
      ? ''
      : `${s.completed} of ${s.planned} files captured · ${s.failed} failed · total ${fmtNs(s.totalNs)}`
        + (s.repeats ? ` · repeated capture: ${s.repeats.runs} runs per file (${s.repeats.warmup} warm-up discarded), every time is a median over the runs` : '');
    const probs = $('problems');
    probs.replaceChildren();
    const problems = s.problemFiles.filter((p) => p.status !== 'ok');
    probs.hidden = problems.length === 0;
    if (s.filesWithoutElapsed > 0 && !s.single) {
      probs.hidden = false;
      probs.append(el('div', { class: 'muted note', text: `${s.filesWithoutElapsed} file(s) have no elapsed time from Lean; their time is unknown and not counted in folder totals.` }));
    }
    if (problems.length) probs.append(virtualRows(problems, problemRow, PROBLEM_ROW_H));
  }

  const PROBLEM_ROW_H = 18;
  function problemRow(p) {
    return el('div', { class: `problem ${p.status}`, dataset: { path: p.path } },
      el('span', { class: 'status', text: p.status }),
      el('a', { text: p.path, href: '#', onclick: (e) => { e.preventDefault(); revealPath(p.path, p.file); } }),
      p.error ? el('span', { class: 'muted', text: ` — ${p.error}` }) : null);
  }

  /** A list of fixed-height rows of which only those in view (and a few
   *  around) are in the DOM; its scrolling parent scrolls it. */
  function virtualRows(items, make, rowH) {
    const box = el('div', { class: 'virtual', style: `height:${items.length * rowH}px` });
    let shown = '';
    function update() {
      const scroller = box.parentElement;
      const view = scroller ? scroller.clientHeight || 120 : 120;
      const top = scroller ? Math.max(0, scroller.scrollTop - box.offsetTop) : 0;
      const from = Math.max(0, Math.floor(top / rowH) - 5);
      const to = Math.min(items.length, Math.ceil((top + view) / rowH) + 5);
      if (shown === `${from}:${to}`) return;
      shown = `${from}:${to}`;
      const rows = [];
      for (let i = from; i < to; i++) {
        const r = make(items[i]);
        r.style.top = `${i * rowH}px`;
        rows.push(r);
      }
      box.replaceChildren(...rows);
    }
    update();
    requestAnimationFrame(() => {
      update();
      if (box.parentElement) box.parentElement.addEventListener('scroll', update, { passive: true });
    });
    return box;
  }

  async function revealPath(path, file) {
    const n = await call('findPath', path.split('/').slice(0, -1).join('/'));
    if (n >= 0) await openFolder(n, {});
    if (file !== undefined && file !== null) {
      const entry = state.folder.children.find((c) => c.file === file);
      if (entry && (entry.status === 'ok' || entry.status === 'error')) await openFile(file);
    }
  }

  // ---- folder tree ----
  async function openFolder(node, opts) {
    state.folder = await call('folder', node);
    state.node = node;
    if (!opts.keepFile) state.scopeFile = false;
    state.folderIndex = -1;
    renderFolder();
    renderCrumbs();
    renderList();
    writeHash();
  }

  function renderCrumbs() {
    const c = $('crumbs');
    c.replaceChildren();
    const crumbs = state.folder.breadcrumbs;
    crumbs.forEach((b, i) => {
      if (i > 0) c.append(el('span', { class: 'sep', text: '/' }));
      c.append(el('a', { text: b.node === 0 ? 'session' : b.name, dataset: { node: b.node }, onclick: () => openFolder(b.node, {}) }));
    });
    if (state.fileEntry && state.scopeFile) {
      c.append(el('span', { class: 'sep', text: '/' }));
      c.append(el('a', { text: state.fileEntry.path.split('/').pop(), onclick: () => selectNone() }));
    }
    if (state.sel && state.sel.title) {
      c.append(el('span', { class: 'sep', text: '›' }));
      c.append(el('span', { text: state.sel.title }));
    }
  }

  function shareRow(shareParent, shareSession) {
    return el('div', { class: 'share' },
      el('div', { class: 'track' }, el('div', { class: 'fill', style: `width:${((shareParent || 0) * 100).toFixed(2)}%` })),
      el('span', { class: 'of-parent', text: `${pct(shareParent)} of parent` }),
      el('span', { class: 'of-session', text: `${pct(shareSession)} of session` }));
  }

  function renderFolder() {
    const f = state.folder;
    $('folder-total').textContent = `${f.node.path || 'session'} · ${fmtNs(f.node.totalNs)} · ${f.node.files} files`;
    const list = $('folder-list');
    list.replaceChildren();
    for (const c of f.children) {
      const cls = [c.isFile ? 'file' : 'folder', c.status || ''].join(' ');
      const status = c.isFile && c.status !== 'ok' ? el('span', { class: 'badge', text: c.status }) : null;
      const extra = c.isFile ? null : el('span', { class: 'path', text: `${c.files} files${c.failed ? `, ${c.failed} failed` : ''}` });
      const li = el('li', {
        class: cls, title: c.error || c.path,
        dataset: { node: c.node, path: c.path, totalNs: c.totalNs, file: c.file ?? '' },
        onclick: () => activateFolderRow(c),
      },
      el('span', { class: 'name' }, c.name, status, extra),
      el('span', { class: 'time', text: c.committed ? fmtNs(c.totalNs) : '—' }),
      shareRow(c.shareOfParent, c.shareOfSession));
      list.append(li);
    }
    if (f.children.length === 0) list.append(el('li', { class: 'muted', text: 'No files.' }));
  }

  function activateFolderRow(c) {
    if (!c.isFile) return openFolder(c.node, {});
    if (c.status === 'ok' || c.status === 'error') return openFile(c.file);
    showBanner(`${c.path}: ${c.status}${c.error ? ` — ${c.error}` : ''}`, c.status === 'failed');
    return null;
  }

  // ---- list panel (files / declarations / tactics) ----
  const LIST_LIMIT = 500;
  async function renderList() {
    const list = $('list');
    if (state.tab === 'diff' && !state.diff) state.tab = 'files';
    for (const b of document.querySelectorAll('#tabs button')) b.setAttribute('aria-selected', String(b.dataset.tab === state.tab));
    const under = state.folder ? state.folder.node.path : '';
    let rows = [];
    let scope = '';
    const fileScope = state.scopeFile && state.file !== null && state.tab !== 'files';
    try {
      if (state.tab === 'diff') {
        const within = fileScope && !state.summary.single ? state.fileEntry.path : (state.summary.single ? '' : under);
        const r = await call('diffRows', state.filter, within, LIST_LIMIT);
        rows = r.rows.map((x) => diffRow(x, r.max));
        const d = state.diff;
        scope = `${r.matched} of ${d.rowCount} compared rows${within ? ` in ${within}` : ''}, largest increase first · `
          + `${d.metric} vs baseline ${d.baseline} · a regression exceeds ${fmtValue(d.absoluteTolerance)} and ${d.relativeToleranceBps} bps`
          + (d.noise ? ` and the noise (medians of ${noiseText(d.noise)})` : '');
      } else if (fileScope) {
        const k = state.file;
        const what = state.tab === 'declarations' ? 'declarations' : 'tactics';
        // The first LIST_LIMIT rows in the chosen order (the slowest first
        // by default), as the session rankings do.
        const r = await call('list', k, what, state.filter, state.sort, LIST_LIMIT);
        rows = r.rows.map((x) => (what === 'declarations' ? declRow(x) : tacticRow(x)));
        const runs = state.fileSummary && state.fileSummary.runs;
        scope = `${r.matched} of ${r.of} ${what} in ${state.fileEntry.path} (${runs ? `medians over its ${runs.runs} runs` : 'from its recording'})`;
        if (r.matched > r.rows.length) scope += `, the first ${r.rows.length} listed`;
      } else {
        const kind = { files: 'file', declarations: 'declaration', tactics: 'tactic' }[state.tab];
        const r = await call('rank', kind, state.filter, under, state.sort, LIST_LIMIT);
        rows = r.rows.map((x) => (kind === 'file' ? fileRow(x) : indexRow(x)));
        const where = under || 'the session';
        scope = kind === 'file'
          ? `${r.matched} files in ${where}`
          : `${r.matched} ${state.tab} in ${where} (session index, ${r.indexRows} rows)`;
        if (kind !== 'file' && state.indexInfo === null && !state.summary.single) scope += ' — loading the index…';
      }
    } catch (e) {
      scope = `Cannot list: ${e.message}`;
    }
    state.listRows = rows;
    state.listIndex = -1;
    $('list-scope').textContent = scope;
    list.replaceChildren(...rows.map((r) => r.li));
  }

  /** A time over the runs of a repeated capture ({runs, median, min,
   *  max, q1?, q3?}, in ns or heartbeats): how many runs, min–max and,
   *  from four runs, the interquartile range. */
  function spreadText(sp) {
    if (!sp) return '';
    const scale = sp.max;
    const iqr = sp.q1 !== null && sp.q1 !== undefined ? ` · IQR ${fmtNs(sp.q1, scale)}–${fmtNs(sp.q3, scale)}` : '';
    return `median of ${sp.runs} run${sp.runs === 1 ? '' : 's'} · min–max ${fmtNs(sp.min, scale)}–${fmtNs(sp.max, scale)}${iqr}`;
  }
  /** A spread of index-row milliseconds (or heartbeats) in the page's unit. */
  function msSpread(sp) {
    if (!sp) return null;
    const ns = (v) => (v === null || v === undefined ? v : rowNs(v));
    return { runs: sp.runs, median: ns(sp.median), min: ns(sp.min), max: ns(sp.max), q1: ns(sp.q1), q3: ns(sp.q3) };
  }
  function timeCells(totalNs, selfNs, spread) {
    return el('span', { class: 'time' },
      el('span', { class: 'total', text: fmtNs(totalNs) }),
      selfNs !== undefined ? el('span', { class: 'muted self', text: ` · self ${fmtNs(selfNs)}` }) : null,
      spread ? el('span', { class: 'muted spread', title: spreadText(spread), text: ` · ${spread.runs} runs ${fmtNs(spread.min, spread.max)}–${fmtNs(spread.max)}` }) : null);
  }
  /** A details fact: the time, and its spread over runs. */
  function timeFact(ns, spread, none) {
    if (ns === null || ns === undefined) return none;
    return spread ? `${fmtNs(ns)} (${spreadText(spread)})` : fmtNs(ns);
  }
  /** Which run the operations and the timeline come from, for a file of a
   *  repeated capture. */
  function runNote() {
    const r = state.fileSummary && state.fileSummary.runs;
    return r ? `Times are medians over ${r.runs} runs; operations and the timeline are run ${r.shownRepeat + 1}'s, the median run.` : null;
  }

  function fileRow(x) {
    const li = el('li', { class: `file ${x.status}`, dataset: { kind: 'file', path: x.path, totalNs: x.totalNs, file: x.file } },
      el('span', { class: 'name' }, x.path, x.status !== 'ok' ? el('span', { class: 'badge', text: x.status }) : null),
      timeCells(x.totalNs, undefined, x.spread), shareRow(x.shareOfParent, x.shareOfSession));
    const act = () => activateFolderRow(x);
    li.addEventListener('click', act);
    return { li, act };
  }

  function indexRow(x) {
    const totalNs = rowNs(x.durationMs);
    const selfNs = x.selfMs === null ? undefined : rowNs(x.selfMs);
    const li = el('li', { dataset: { kind: x.kind, name: x.name, path: x.path, durationMs: x.durationMs, selfMs: x.selfMs ?? '' } },
      el('span', { class: 'name' }, x.name, x.attribution ? badge(x.attribution) : null,
        el('span', { class: 'path', text: `${x.path}:${x.line ?? ''}` })),
      timeCells(totalNs, selfNs, msSpread(x.durationSpread)));
    const act = async () => {
      if (x.file === null || x.file === undefined) return;
      await openFile(x.file);
      if (x.kind === 'declaration') {
        const d = (state.decls || []).find((r) => r.name === x.name);
        if (d) await selectDeclaration(d.index);
      } else if (x.kind === 'tactic' && x.line) {
        const t = (await call('list', state.file, 'tactics', x.name, 'source')).rows.find((r) => r.label === x.name && r.range.startLine === x.line - 1);
        if (t) await selectTactic(t);
      }
    };
    li.addEventListener('click', act);
    return { li, act };
  }

  // ---- diff view ----
  function showDiff(facts) {
    state.diff = facts;
    $('tab-diff').hidden = false;
    const c = facts.counts;
    const tol = `${facts.metric.endsWith('_ns') ? fmtNs(facts.absoluteTolerance) : facts.absoluteTolerance} and ${facts.relativeToleranceBps} bps`;
    $('tab-diff').title = `${facts.baseline} → ${facts.candidate}: ${c.regression} regressions, ${c.improvement} improvements, `
      + `${c.within_tolerance} within tolerance, ${c.new} new, ${c.missing} missing (metric ${facts.metric}, tolerance ${tol})`
      + (facts.noise ? `; both repeated captures (${noiseText(facts.noise)}): ${c.noise} changes beyond the tolerances are within the noise` : '');
    $('tab-diff').textContent = `Diff ▲${c.regression} ▼${c.improvement}`;
    if (facts.warnings.length) showBanner(`Diff: ${facts.warnings.join('; ')}`, false);
  }

  /** How a comparison of repeated captures decides (`noise` of its JSON). */
  function noiseText(n) {
    return `${n.baseline_runs} and ${n.candidate_runs} runs; a change beyond the tolerances counts only when the spreads separate `
      + `or a ${Math.round(n.confidence * 100)} % bootstrap interval (${n.resamples} resamples, seed ${n.seed}) of the difference of medians excludes zero`;
  }
  const RULE_TEXT = {
    tolerance: 'within the tolerances',
    spreads_separate: "the two sides' spreads (min–max over the runs) do not overlap",
    bootstrap: 'the bootstrap interval of the difference of medians excludes zero',
    noise: 'beyond the tolerances, but within the noise: the spreads overlap and the bootstrap interval holds zero',
  };
  const fmtValue = (v) => (v === null ? '—' : (state.diff.metric.endsWith('_ns') ? fmtNs(v) : String(v)));
  function fmtDelta(r) {
    const sign = r.delta > 0 ? '+' : r.delta < 0 ? '−' : '±';
    const abs = Math.abs(r.delta);
    const change = r.changeBps === null ? '' : ` (${r.changeBps > 0 ? '+' : ''}${(r.changeBps / 100).toFixed(1)}%)`;
    return `${sign}${fmtValue(abs)}${change}`;
  }

  function diffRow(x, max) {
    const bar = (v, cls) => el('div', { class: `track ${cls}` },
      el('div', { class: 'fill', style: `width:${max > 0 && v !== null ? ((v / max) * 100).toFixed(2) : 0}%` }));
    const where = [x.file, x.declaration, x.line !== null ? `line ${x.line}` : null].filter((p) => p !== null).join(' · ');
    const li = el('li', {
      class: `diff ${x.status}`,
      dataset: {
        kind: 'diff', status: x.status, name: x.name, file: x.file ?? '',
        baseline: x.baseline ?? '', candidate: x.candidate ?? '', delta: x.delta, rule: x.rule ?? '',
      },
      title: x.rule ? `${RULE_TEXT[x.rule] || x.rule}${x.interval ? ` · bootstrap interval ${fmtValue(x.interval[0])} to ${fmtValue(x.interval[1])}` : ''}` : undefined,
    },
    el('span', { class: 'name' }, x.name, el('span', { class: `badge ${x.status}`, text: x.status }),
      x.rule === 'noise' ? el('span', { class: 'badge noise', title: RULE_TEXT.noise, text: 'noise' }) : null,
      el('span', { class: 'path', text: where })),
    el('span', { class: 'time', text: fmtDelta(x) }),
    el('div', { class: 'diffbars' },
      bar(x.baseline, 'baseline'), el('span', { class: 'muted', text: `baseline ${fmtValue(x.baseline)}` }),
      bar(x.candidate, 'candidate'), el('span', { class: 'muted', text: `candidate ${fmtValue(x.candidate)}` })));
    const act = async () => {
      if (x.candidate === null) {
        showBanner(`${x.name} is only in the baseline (${state.diff.baseline}).`, false);
        return;
      }
      try {
        await hostSelect({
          path: state.summary.single ? undefined : (x.file ?? undefined),
          declaration: x.declaration ?? x.name,
          line: x.line !== null ? x.line - 1 : undefined,
        });
      } catch (e) {
        showBanner(`Cannot show ${x.name}: ${e.message}`, true);
      }
    };
    li.addEventListener('click', act);
    return { li, act };
  }

  function declRow(x) {
    const li = el('li', { dataset: { kind: 'declaration', name: x.name, index: x.index, totalNs: x.totalNs ?? '', selfNs: x.selfNs ?? '' } },
      el('span', { class: 'name' }, x.name, el('span', { class: 'path', text: `${x.kind} · line ${x.range.startLine + 1}` })),
      x.totalNs === null ? el('span', { class: 'time muted', text: 'no recorded time' }) : timeCells(x.totalNs, x.selfNs, x.spread && x.spread.total),
      x.totalNs === null ? null : el('div', { class: 'share' },
        el('div', { class: 'track' }, el('div', { class: 'fill', style: `width:${((x.shareOfFile || 0) * 100).toFixed(2)}%` })),
        el('span', { text: `${pct(x.shareOfFile)} of traced file time` })));
    const act = () => selectDeclaration(x.index);
    li.addEventListener('click', act);
    return { li, act };
  }

  function tacticRow(x) {
    const li = el('li', { dataset: { kind: 'tactic', name: x.label, index: x.index, totalNs: x.totalNs, selfNs: x.selfNs } },
      el('span', { class: 'name' }, x.label, badge(x.rangeKind),
        el('span', { class: 'path', text: `${x.declaration || '(no declaration)'} · line ${x.range.startLine + 1}` })),
      timeCells(x.totalNs, x.selfNs, x.spread && x.spread.total));
    const act = () => selectTactic(x);
    li.addEventListener('click', act);
    return { li, act };
  }

  // ---- file ----
  let progressFile = null;
  function onProgress(p) {
    if (p.file !== progressFile) return;
    if (p.run) {
      showBanner(`Loading ${state.fileEntry ? state.fileEntry.path : ''}: run ${p.run} of ${p.runs} (the times shown are medians over the runs)…`, false);
      return;
    }
    const of = p.length ? ` of ${(p.length / 1e6).toFixed(1)} MB` : '';
    showBanner(`Loading ${state.fileEntry ? state.fileEntry.path : ''}: ${(p.bytes / 1e6).toFixed(1)} MB${of}, ${fmtCount(p.events)} events…`, false);
  }

  async function openFile(k) {
    const entryNode = await call('nodeOfFile', k);
    const summary = await call('sessionSummary');
    progressFile = k;
    const t0 = performance.now();
    let fs;
    try {
      fs = await call('loadFile', k);
    } catch (e) {
      showBanner(`Cannot open the recording: ${e.message}`, true);
      e.reported = true;
      throw e;
    }
    // ms: streamed and ready for queries; viewMs: the file's view (source,
    // declarations) shown; barsMs: its line bars drawn; firstTimelineMs: its
    // first timeline draw (which builds the timeline index).
    const load = {
      file: k, ms: performance.now() - t0, events: fs.events, viewMs: null, barsMs: null, firstTimelineMs: null,
      streamMs: fs.streamMs, decodeMs: fs.decodeMs, endMs: fs.endMs,
    };
    debug.fileLoads.push(load);
    showBanner('', false);
    state.summary = summary;
    state.file = k;
    state.fileSummary = fs;
    state.scopeFile = true;
    if (state.tab === 'files') state.tab = 'declarations';
    const folder = entryNode >= 0 ? (await call('folder', entryNode)).node : null;
    state.fileEntry = { path: folder ? folder.path : fs.sourcePath, node: entryNode };
    const parentNode = state.folder && state.folder.children.some((c) => c.file === k) ? state.node : null;
    if (parentNode === null && entryNode >= 0) {
      const crumbs = (await call('folder', entryNode)).breadcrumbs;
      const parent = crumbs.length >= 2 ? crumbs[crumbs.length - 2].node : 0;
      state.folder = await call('folder', parent);
      state.node = parent;
      renderFolder();
    }
    const [source, decls] = await Promise.all([call('source', k), call('list', k, 'declarations', '', 'source')]);
    const lines = source.split('\n');
    state.lines = lines;
    // The line bars follow the rest of the view: on a file of millions of
    // events they take the worker longest. The worker answers in order:
    // they are asked for right after the list, and computed while the page
    // draws it.
    state.bars = new Map();
    state.barSpreads = new Map();
    state.maxNs = 0;
    $('source').dataset.bars = 'pending';
    state.decls = decls.rows;
    state.sel = null;
    state.selRange = null;
    state.declRange = null;
    renderFileHeader();
    renderSource(true);
    renderDetails(null);
    renderCrumbs();
    const listed = renderList();
    const barsAsked = call('lineBars', k);
    barsAsked.catch(() => {}); // reported below, once the list is shown
    await listed;
    load.viewMs = performance.now() - t0;
    writeHash();
    let bars;
    try {
      bars = await barsAsked;
    } catch (e) {
      showBanner(`Cannot compute the line bars: ${e.message}`, true);
      e.reported = true;
      throw e;
    }
    if (state.lines !== lines) return; // another file opened meanwhile
    state.bars = new Map(bars.bars.map((b) => [b[0], b]));
    state.barSpreads = new Map((bars.spreads || []).map((sp, j) => [bars.bars[j][0], sp]));
    state.maxNs = bars.maxNs;
    $('source').dataset.bars = 'ready';
    drawSourceLines();
    load.barsMs = performance.now() - t0;
    const drawn = timeline.reset();
    if (drawn) drawn.then((ms) => { load.firstTimelineMs = ms; }, () => {});
  }

  function renderFileHeader() {
    const fs = state.fileSummary;
    $('file-title').textContent = state.fileEntry.path;
    const errors = fs.diagnostics.filter((d) => d.severity === 'error').length;
    const facts = [
      `${fs.module || 'no module'}`,
      `${fmtCount(fs.events)} events`,
      `${fs.declarations} declarations`,
      fs.runs ? `${fs.runs.runs} runs, file time ${spreadText(fs.runs.file)}` : null,
      fs.runs ? `shown: run ${fs.runs.shownRepeat + 1} (the median run)` : null,
      fs.elapsedNs !== null ? `elapsed ${fmtNs(fs.elapsedNs)}` : 'elapsed unknown',
      `traced ${fmtNs(fs.tracedNs)}`,
      `${fs.captureMode} capture, ${fs.clock} clock`,
      fs.leanVersion ? `Lean ${fs.leanVersion}` : null,
      `status ${fs.status}${errors ? ` (${errors} errors)` : ''}`,
      fs.issueCount ? `${fs.issueCount} validation issues` : null,
      ...fs.notes,
    ].filter(Boolean);
    $('file-facts').textContent = facts.join(' · ');
    $('file-facts').dataset.events = fs.events;
    renderTimeAccount(fs.timeAccount, fs.timeAccountText);
  }

  /** Where the file's time went: imports, traced elaboration, the untraced
   *  rest, and Lean's cumulative categories (largest first), as computed by
   *  the recording crate (the account `leanscope info` prints). */
  function renderTimeAccount(a, sentences) {
    const box = $('file-account');
    box.textContent = '';
    if (!a) return;
    const parts = [
      `imports ${a.importsNs === null ? 'unknown' : fmtNs(a.importsNs)}`,
      `traced elaboration ${fmtNs(a.tracedNs)}`,
      a.overrunNs > 0 ? `over the file's time by ${fmtNs(a.overrunNs)}` : `untraced ${fmtNs(a.untracedNs)}`,
    ];
    const head = document.createElement('div');
    head.className = 'account-split';
    head.textContent = `Where the time went (${fmtNs(a.fileNs)}): ${parts.join(' · ')}`;
    head.title = sentences.join('; ');
    box.append(head);
    if (a.categories.length) {
      const cats = document.createElement('div');
      cats.className = 'account-categories';
      const sorted = [...a.categories].sort((x, y) => y.ns - x.ns || (x.category < y.category ? -1 : 1));
      const shown = sorted.slice(0, 8).map((c) => `${c.category} ${fmtNs(c.ns)}`);
      const more = sorted.length > 8 ? ` · ${sorted.length - 8} more` : '';
      cats.textContent = `Lean's categories (${fmtNs(a.categoriesNs)}): ${shown.join(' · ')}${more}`;
      box.append(cats);
    }
    const note = document.createElement('div');
    note.className = 'account-note';
    note.textContent = sentences.slice(1).join('; ');
    box.append(note);
    Object.assign(box.dataset, {
      fileNs: a.fileNs, basis: a.basis, importsNs: a.importsNs ?? '', tracedNs: a.tracedNs,
      untracedNs: a.untracedNs, overrunNs: a.overrunNs, categoriesNs: a.categoriesNs,
      categories: a.categories.length,
    });
  }

  // ---- source view (virtualised) ----
  const LINE_H = 18;
  function renderSource(scrollTop) {
    const box = $('source');
    $('source-spacer').style.height = `${state.lines.length * LINE_H}px`;
    if (scrollTop) box.scrollTop = 0;
    drawSourceLines();
  }
  function drawSourceLines() {
    const box = $('source');
    const holder = $('source-lines');
    const first = Math.max(0, Math.floor(box.scrollTop / LINE_H) - 10);
    const count = Math.ceil(box.clientHeight / LINE_H) + 20;
    const last = Math.min(state.lines.length, first + count);
    holder.style.top = `${first * LINE_H}px`;
    const sel = state.selRange;
    const decl = state.declRange;
    const rows = [];
    for (let l = first; l < last; l++) {
      const b = state.bars.get(l);
      const bar = el('span', { class: 'bar' });
      if (b && state.maxNs > 0) {
        bar.append(el('span', { class: 'incl', style: `width:${(b[1] / state.maxNs * 100).toFixed(2)}%` }),
          el('span', { class: 'self', style: `width:${(b[2] / state.maxNs * 100).toFixed(2)}%` }));
        const sp = state.barSpreads.get(l);
        bar.title = `line ${l + 1}: inclusive ${fmtNs(b[1])} · self ${fmtNs(b[2])} · ${b[3]} events${sp ? ` · median of ${sp[0]} runs, min–max ${fmtNs(sp[1], sp[2])}–${fmtNs(sp[2])}` : ''}`;
      }
      let cls = 'line';
      if (decl && l >= decl.startLine && l <= decl.endLine) cls += ' in-decl';
      if (sel && l >= sel.startLine && l <= sel.endLine) cls += ' selected';
      rows.push(el('div', {
        class: cls, dataset: { line: l, totalNs: b ? b[1] : '', selfNs: b ? b[2] : '' },
        title: b ? `inclusive ${fmtNs(b[1])} · self ${fmtNs(b[2])}` : undefined,
        onclick: () => selectLine(l),
      }, el('span', { class: 'no', text: String(l + 1) }), bar, el('span', { class: 'text', text: state.lines[l] })));
    }
    holder.replaceChildren(...rows);
  }
  function scrollSourceTo(line) {
    const box = $('source');
    const y = line * LINE_H;
    if (y < box.scrollTop || y > box.scrollTop + box.clientHeight - LINE_H * 2) {
      box.scrollTop = Math.max(0, y - box.clientHeight / 3);
    }
    drawSourceLines();
  }

  // ---- selections ----
  function reveal(range, extra) {
    if (!range || !state.fileEntry) return;
    postHost({ type: 'leanscope.revealRange', path: state.fileEntry.path, sourcePath: state.fileSummary.sourcePath, range, ...extra });
  }

  function selectNone() {
    state.sel = null; state.selRange = null; state.declRange = null;
    renderDetails(null); drawSourceLines(); renderCrumbs(); timeline.select(null); writeHash();
  }

  async function selectDeclaration(d) {
    const v = await call('declaration', state.file, d);
    state.sel = { kind: 'decl', value: d, title: v.name };
    state.declRange = v.range;
    state.selRange = v.selectionRange;
    renderDetails(declarationDetails(v));
    scrollSourceTo(v.range.startLine);
    renderCrumbs();
    if (v.operations.length) {
      const ops = v.operations;
      const start = Math.min(...ops.map((o) => o.startNs));
      const end = Math.max(...ops.map((o) => o.startNs + o.inclusiveNs));
      timeline.show(start, end, ops[0].event, true);
    }
    reveal(v.range, { declaration: v.name });
    writeHash();
  }

  async function selectTactic(t) {
    state.sel = { kind: 'tactic', value: t.index, title: t.label };
    state.selRange = t.range;
    if (t.declarationIndex !== null && t.declarationIndex !== undefined) {
      const d = state.decls.find((x) => x.index === t.declarationIndex);
      state.declRange = d ? d.range : null;
    }
    renderDetails(tacticDetails(t));
    scrollSourceTo(t.range.startLine);
    renderCrumbs();
    if (t.firstEvent !== null && t.firstEvent !== undefined) {
      const ev = await call('event', state.file, t.firstEvent);
      timeline.show(ev.startNs, ev.endNs, ev.event);
    }
    reveal(t.range, { tactic: t.label });
    writeHash();
  }

  async function selectLine(l) {
    const v = await call('line', state.file, l);
    state.sel = { kind: 'line', value: l, title: `line ${l + 1}` };
    state.selRange = { startLine: l, startCol: 0, endLine: l, endCol: 0 };
    const d = v.declarationIndex !== null ? state.decls.find((x) => x.index === v.declarationIndex) : null;
    state.declRange = d ? d.range : null;
    renderDetails(lineDetails(v, d));
    scrollSourceTo(l);
    renderCrumbs();
    if (v.operations.length) timeline.select(v.operations[0].event);
    reveal(state.selRange, { line: l });
    writeHash();
  }

  async function selectEvent(i, fromTimeline) {
    const v = await call('event', state.file, i);
    state.sel = { kind: 'event', value: i, title: v.label.split('\n')[0].slice(0, 60) };
    state.selRange = v.range;
    const d = v.declarationIndex !== null ? state.decls.find((x) => x.index === v.declarationIndex) : null;
    state.declRange = d ? d.range : null;
    renderDetails(eventDetails(v));
    if (v.range) scrollSourceTo(v.range.startLine); else drawSourceLines();
    renderCrumbs();
    if (fromTimeline) timeline.select(i); else timeline.show(v.startNs, v.endNs, i);
    if (v.range) reveal(v.range, { event: i });
    writeHash();
  }

  // ---- details panel ----
  function renderDetails(node) {
    const box = $('details');
    box.replaceChildren();
    if (node) box.append(node);
    else if (state.file !== null) box.append(el('div', { class: 'muted', text: 'Select a declaration, tactic, line or timeline slice.' }));
  }
  function facts(pairs) {
    const dl = el('dl', { class: 'facts' });
    for (const [k, v, cls] of pairs) {
      if (v === null || v === undefined) continue;
      dl.append(el('dt', { text: k }), el('dd', { class: cls || '', text: typeof v === 'string' ? v : undefined }, typeof v === 'string' ? null : v));
    }
    return dl;
  }
  function opsList(title, ops, total) {
    const frag = el('div', { class: 'ops-block' }, el('div', { class: 'muted', text: `${title} (${total}${total > ops.length ? `, slowest ${ops.length} shown` : ''})` }));
    const ul = el('ul', { class: 'ops' });
    for (const o of ops) {
      ul.append(el('li', { dataset: { event: o.event, inclusiveNs: o.inclusiveNs, selfNs: o.selfNs }, onclick: () => selectEvent(o.event) },
        el('span', { class: 'lbl', title: `${o.class}: ${o.label}` }, el('span', { class: 'muted', text: `${o.class} ` }), o.label || '(no text)', badge(o.rangeKind)),
        el('span', { class: 'num', text: fmtNs(o.inclusiveNs) }),
        el('span', { class: 'num', text: `self ${fmtNs(o.selfNs)}` })));
    }
    frag.append(ul);
    return frag;
  }
  function declarationDetails(v) {
    const box = el('div', { dataset: { kind: 'declaration', index: v.index, totalNs: v.totalNs ?? '', selfNs: v.selfNs ?? '' } });
    box.append(el('h3', { text: `${v.kind} ${v.name}` }));
    box.append(facts([
      ['inclusive', timeFact(v.totalNs, v.spread && v.spread.total, 'no recorded time'), 'total'],
      ['self', timeFact(v.selfNs, v.spread && v.spread.self, '—'), 'self'],
      ['events', String(v.events)],
      ['range', rangeText(v.range)],
      ['runs', runNote(), 'runs'],
    ]));
    if (v.tactics.length) {
      const ul = el('ul', { class: 'ops tactics' });
      for (const t of v.tactics) {
        ul.append(el('li', { dataset: { tactic: t.index, totalNs: t.totalNs, selfNs: t.selfNs }, onclick: () => selectTactic({ ...t, declarationIndex: v.index, declaration: v.name }) },
          el('span', { class: 'lbl' }, `${t.label}`, badge(t.rangeKind), el('span', { class: 'muted', text: ` line ${t.range.startLine + 1}` })),
          el('span', { class: 'num', text: fmtNs(t.totalNs) }),
          el('span', { class: 'num', text: `self ${fmtNs(t.selfNs)}` })));
      }
      box.append(el('div', { class: 'muted', text: `Tactics (${v.tactics.length})` }), ul);
    }
    box.append(opsList('Contributing operations', v.operations, v.operationCount));
    return box;
  }
  function tacticDetails(t) {
    const box = el('div', { dataset: { kind: 'tactic', index: t.index, totalNs: t.totalNs, selfNs: t.selfNs } });
    box.append(el('h3', { text: t.label }));
    box.append(facts([
      ['inclusive', timeFact(t.totalNs, t.spread && t.spread.total), 'total'],
      ['self', timeFact(t.selfNs, t.spread && t.spread.self), 'self'],
      ['events', String(t.events)],
      ['runs', runNote(), 'runs'],
      ['range', el('span', {}, rangeText(t.range), badge(t.rangeKind))],
      ['declaration', t.declaration || '(none)'],
    ]));
    if (t.firstEvent !== null && t.firstEvent !== undefined) {
      box.append(el('a', { class: 'ev', text: 'first step of this tactic', onclick: () => selectEvent(t.firstEvent) }));
    }
    box.append(el('div', { class: 'muted', text: `Source line ${t.range.startLine + 1}:` }),
      el('a', { class: 'ev', text: (state.lines[t.range.startLine] || '').trim(), onclick: () => selectLine(t.range.startLine) }));
    return box;
  }
  function lineDetails(v, d) {
    const box = el('div', { dataset: { kind: 'line', line: v.line, totalNs: v.totalNs ?? '', selfNs: v.selfNs ?? '' } });
    box.append(el('h3', { text: `Line ${v.line + 1}${d ? ` in ${d.name}` : ''}` }));
    box.append(facts([
      ['inclusive', timeFact(v.totalNs, v.spread && v.spread.total, 'no recorded time'), 'total'],
      ['self', timeFact(v.selfNs, v.spread && v.spread.self, '—'), 'self'],
      ['events', String(v.events)],
      ['runs', runNote(), 'runs'],
    ]));
    box.append(el('pre', { class: 'muted', text: state.lines[v.line] || '' }));
    box.append(opsList('Operations on this line', v.operations, v.operationCount));
    return box;
  }
  function eventDetails(v) {
    const box = el('div', { dataset: { kind: 'event', event: v.event, inclusiveNs: v.inclusiveNs, selfNs: v.selfNs } });
    const chain = el('div', { class: 'chain muted' });
    for (const a of v.ancestors) {
      chain.append(el('a', { text: (a.label || a.class).slice(0, 40), onclick: () => selectEvent(a.event) }), ' › ');
    }
    box.append(chain, el('h3', { text: v.label.split('\n')[0] || '(no text)' }));
    box.append(facts([
      ['class', v.class], ['kind', v.kind],
      ['inclusive', fmtNs(v.inclusiveNs), 'total'], ['self', fmtNs(v.selfNs), 'self'],
      ['thread', `${v.threadName ?? '?'} (id ${v.threadId ?? '?'})`],
      ['range', el('span', {}, rangeText(v.range), badge(v.rangeKind))],
      ['declaration', v.declaration || '(none)'],
      ['start', `${fmtNs(v.startNs)} after the clock's zero`],
    ]));
    box.append(opsList('Nested operations', v.childRows, v.children));
    return box;
  }

  // ---- timeline ----
  const timeline = (() => {
    const canvas = $('timeline');
    const ROW_H = 16;
    const AXIS_H = 18;
    const GUTTER = 110;
    const LABEL_PX = 36;
    let t0 = 0; let t1 = 1; let layout = null; let selected = null; let selInfo = null;
    let inflight = null; let dirty = false;
    const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#ff9da7', '#9c755f', '#e15759', '#bab0ac'];
    const classColor = new Map();
    function colorOf(name) {
      if (!classColor.has(name)) {
        let h = 0;
        for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
        classColor.set(name, PALETTE[h % PALETTE.length]);
      }
      return classColor.get(name);
    }
    function plotWidth() { return Math.max(1, canvas.clientWidth - GUTTER); }
    function rows() { return state.fileSummary ? state.fileSummary.timelineRows : []; }
    function fitCanvas() {
      const dpr = window.devicePixelRatio || 1;
      const h = AXIS_H + rows().length * ROW_H + 4;
      canvas.style.height = `${h}px`;
      const w = canvas.clientWidth;
      if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
        canvas.width = Math.round(w * dpr);
        canvas.height = Math.round(h * dpr);
      }
      return dpr;
    }
    async function redraw() {
      if (state.file === null) return 0;
      if (inflight) { dirty = true; return inflight; }
      const start = performance.now();
      inflight = (async () => {
        fitCanvas();
        layout = await call('timeline', state.file, t0, t1, Math.round(plotWidth()), LABEL_PX);
        draw();
        return performance.now() - start;
      })();
      try {
        return await inflight;
      } finally {
        inflight = null;
        if (dirty) { dirty = false; redraw(); }
      }
    }
    function draw() {
      const dpr = fitCanvas();
      const ctx = canvas.getContext('2d');
      const style = getComputedStyle(document.body);
      const fg = style.color;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, canvas.clientWidth, canvas.clientHeight);
      ctx.font = '11px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      const rs = rows();
      const threads = state.fileSummary.threads;
      // Row labels: one per thread, at its first row.
      ctx.fillStyle = fg;
      rs.forEach((r, i) => {
        if (r.depth === 0) {
          const y = AXIS_H + i * ROW_H;
          ctx.globalAlpha = 0.25;
          ctx.fillRect(0, y, canvas.clientWidth, 1);
          ctx.globalAlpha = 1;
          const t = threads[r.thread];
          ctx.fillText((t ? t.name : `thread ${r.thread}`).slice(0, 16), 4, y + ROW_H / 2);
        }
      });
      axis(ctx, fg);
      if (!layout) return;
      const a = layout.rects;
      const pw = plotWidth();
      // Batch rectangles by colour: one path per colour, and merged
      // slivers (standing for several events) apart, drawn translucent.
      const paths = new Map();
      const colorOfClass = new Map();
      for (let k = 0; k < a.length; k += 6) {
        const cls = a[k + 5];
        let color = colorOfClass.get(cls);
        if (color === undefined) { color = colorOf(layout.classNames[cls] || ''); colorOfClass.set(cls, color); }
        const merged = a[k + 4] > 1;
        const key = merged ? `${color}|1` : color;
        let p = paths.get(key);
        if (!p) { p = { path: new Path2D(), color, merged }; paths.set(key, p); }
        const x0 = Math.max(a[k + 1], 0);
        const w = Math.max(1, Math.min(a[k + 2], pw) - x0 - (merged ? 0 : 0.5));
        p.path.rect(GUTTER + x0, AXIS_H + a[k] * ROW_H + 1, w, ROW_H - 2);
      }
      for (const p of paths.values()) {
        ctx.fillStyle = p.color;
        ctx.globalAlpha = p.merged ? 0.55 : 1;
        ctx.fill(p.path);
      }
      ctx.globalAlpha = 1;
      ctx.fillStyle = '#fff';
      for (let k = 0; k < a.length; k += 6) {
        const label = layout.labels[a[k + 3]];
        if (label === undefined || a[k + 4] !== 1) continue;
        const x0 = Math.max(a[k + 1], 0);
        const w = Math.min(a[k + 2], plotWidth()) - x0;
        if (w < LABEL_PX) continue;
        const chars = Math.floor((w - 6) / 6);
        ctx.fillText(label.length > chars ? `${label.slice(0, Math.max(0, chars - 1))}…` : label, GUTTER + x0 + 3, AXIS_H + a[k] * ROW_H + ROW_H / 2);
      }
      if (selInfo) {
        const x0 = Math.max(0, (selInfo.startNs - t0) / (t1 - t0) * plotWidth());
        const x1 = Math.min(plotWidth(), (selInfo.endNs - t0) / (t1 - t0) * plotWidth());
        if (x1 >= 0 && x0 <= plotWidth() && selInfo.row !== null) {
          ctx.strokeStyle = getComputedStyle(document.documentElement).getPropertyValue('--accent').trim() || '#0969da';
          ctx.lineWidth = 2;
          ctx.strokeRect(GUTTER + x0, AXIS_H + selInfo.row * ROW_H, Math.max(2, x1 - x0), ROW_H);
        }
      }
    }
    function axis(ctx, fg) {
      const span = t1 - t0;
      const w = plotWidth();
      const target = span / Math.max(1, w / 100);
      const pow = 10 ** Math.floor(Math.log10(target));
      const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= target) || pow * 10;
      ctx.fillStyle = fg;
      ctx.globalAlpha = 0.7;
      for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
        const x = GUTTER + (t - t0) / span * w;
        ctx.fillRect(x, AXIS_H - 4, 1, 4);
        ctx.fillText(fmtNs(Math.round(t)), x + 2, AXIS_H / 2);
      }
      ctx.globalAlpha = 1;
      // Written only when it changed: a changed text makes the next
      // redraw's reads of sizes and styles lay out the whole page again.
      const shown = fmtWindow(t0, t1);
      const windowText = $('timeline-window');
      if (windowText.textContent !== shown) windowText.textContent = shown;
    }
    function setWindow(a, b) {
      const fs = state.fileSummary;
      const full = Math.max(1, fs.windowEndNs - fs.windowStartNs);
      let span = Math.min(Math.max(b - a, 1000), full * 1.05);
      let start = a;
      if (span === full * 1.05) start = fs.windowStartNs - full * 0.025;
      start = Math.max(fs.windowStartNs - full * 0.025, Math.min(start, fs.windowEndNs + full * 0.025 - span));
      t0 = start; t1 = start + span;
      redraw();
    }
    function zoom(factor, atX) {
      const frac = atX === undefined ? 0.5 : Math.min(1, Math.max(0, (atX - GUTTER) / plotWidth()));
      const at = t0 + (t1 - t0) * frac;
      const span = (t1 - t0) * factor;
      setWindow(at - span * frac, at - span * frac + span);
    }
    function pan(frac) { const s = t1 - t0; setWindow(t0 + s * frac, t1 + s * frac); }
    canvas.addEventListener('wheel', (e) => {
      if (state.file === null) return;
      e.preventDefault();
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan((e.deltaX || e.deltaY) / 1000);
      else zoom(1.25 ** (e.deltaY / 100), e.offsetX);
    }, { passive: false });
    let drag = null;
    canvas.addEventListener('mousedown', (e) => { drag = { x: e.offsetX, t0, t1, moved: false }; });
    window.addEventListener('mouseup', () => { setTimeout(() => { drag = null; }, 0); });
    canvas.addEventListener('mousemove', (e) => {
      if (!drag || !(e.buttons & 1)) return;
      const dx = e.offsetX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved) {
        const s = drag.t1 - drag.t0;
        setWindow(drag.t0 - dx / plotWidth() * s, drag.t1 - dx / plotWidth() * s);
      }
    });
    canvas.addEventListener('click', async (e) => {
      if (state.file === null || (drag && drag.moved)) return;
      const row = Math.floor((e.offsetY - AXIS_H) / ROW_H);
      const x = e.offsetX - GUTTER;
      if (row < 0 || row >= rows().length || x < 0) return;
      const t = t0 + x / plotWidth() * (t1 - t0);
      const hit = await call('eventAt', state.file, row, t);
      if (hit >= 0) { await selectEvent(hit, true); return; }
      // A merged sliver: zoom into it.
      const a = layout ? layout.rects : [];
      for (let k = 0; k < a.length; k += 6) {
        if (a[k] === row && a[k + 1] <= x && x <= a[k + 2] && a[k + 4] > 1) { zoom(0.1, e.offsetX); return; }
      }
    });
    canvas.addEventListener('keydown', (e) => {
      if (e.key === '+' || e.key === '=') zoom(1 / 1.5);
      else if (e.key === '-') zoom(1.5);
      else if (e.key === '0') reset();
      else if (e.key === 'ArrowLeft') pan(-0.1);
      else if (e.key === 'ArrowRight') pan(0.1);
      else return;
      e.preventDefault();
    });
    $('tl-zoom-in').addEventListener('click', () => zoom(1 / 1.5));
    $('tl-zoom-out').addEventListener('click', () => zoom(1.5));
    $('tl-reset').addEventListener('click', () => reset());
    window.addEventListener('resize', () => redraw());
    function reset() {
      selected = null; selInfo = null;
      const fs = state.fileSummary;
      if (!fs) return null;
      const full = Math.max(1, fs.windowEndNs - fs.windowStartNs);
      t0 = fs.windowStartNs - full * 0.025; t1 = fs.windowEndNs + full * 0.025;
      return redraw();
    }
    async function select(i) {
      selected = i;
      if (i === null || i === undefined) { selInfo = null; draw(); return; }
      const v = await call('event', state.file, i);
      selInfo = { startNs: v.startNs, endNs: v.endNs, row: v.timelineRow };
      draw();
    }
    async function show(start, end, i, fit) {
      const visible = !fit && start >= t0 && end <= t1 && (end - start) / (t1 - t0) * plotWidth() >= 3;
      await select(i);
      if (!visible) {
        const pad = Math.max((end - start) * 0.15, 1000);
        setWindow(start - pad, end + pad);
      }
    }
    return { reset, redraw, select, show, get window() { return [t0, t1]; }, get layout() { return layout; }, get selected() { return selected; } };
  })();
  debug.timeline = timeline;
  debug.redrawTimeline = () => timeline.redraw();

  // ---- deep links ----
  let restoring = false;
  function writeHash() {
    if (restoring) return;
    const p = new URLSearchParams();
    p.set('node', state.node);
    if (state.file !== null && state.scopeFile) p.set('file', state.file);
    p.set('tab', state.tab);
    if (state.sel && state.scopeFile) p.set('sel', `${state.sel.kind}:${state.sel.value}`);
    const h = `#${p.toString()}`;
    if (location.hash !== h) history.replaceState(null, '', h);
  }
  async function restoreFromHash(hash) {
    const p = new URLSearchParams((hash === undefined ? location.hash : hash).slice(1));
    if (![...p.keys()].length) { writeHash(); return; }
    restoring = true;
    try {
      if (p.has('tab')) state.tab = p.get('tab');
      const node = Number(p.get('node'));
      if (p.has('node') && Number.isInteger(node) && node !== state.node) await openFolder(node, {});
      if (p.has('file')) {
        const k = Number(p.get('file'));
        if (state.file !== k || !state.scopeFile) await openFile(k);
        if (p.has('tab')) { state.tab = p.get('tab'); await renderList(); }
        const [kind, value] = (p.get('sel') || '').split(':');
        const n = Number(value);
        if (kind && !(value && Number.isInteger(n) && n >= 0)) throw new Error(`the selection "${p.get('sel')}" is not a kind and a number`);
        if (kind === 'decl') await selectDeclaration(n);
        else if (kind === 'line') await selectLine(n);
        else if (kind === 'event') await selectEvent(n);
        else if (kind === 'tactic') {
          await selectTactic(await call('tactic', state.file, n));
        }
      } else {
        await renderList();
      }
    } catch (e) {
      if (!e.reported) showBanner(`Cannot restore the link: ${e.message}`, true);
    } finally {
      restoring = false;
      writeHash();
    }
  }
  window.addEventListener('hashchange', () => { if (!restoring && !firstViewOnly) restoreFromHash(); });

  // ---- host messages ----
  window.addEventListener('message', async (e) => {
    const m = e.data;
    if (!m || typeof m.type !== 'string') return;
    try {
      if (m.type === 'leanscope.open') {
        await openData(m);
      } else if (m.type === 'leanscope.diff') {
        showDiff(await call('setDiff', m.document));
        setTab('diff');
      } else if (m.type === 'leanscope.select') {
        await hostSelect(m);
      }
    } catch (err) {
      showBanner(`${m.type}: ${err.message}`, true);
    }
  });
  async function hostSelect(m) {
    if (m.path && (!state.fileEntry || state.fileEntry.path !== m.path)) {
      const n = await call('findPath', m.path);
      if (n < 0) throw new Error(`${m.path} is not in this session`);
      const f = await call('folder', n);
      if (f.node.file === null) throw new Error(`${m.path} is a folder`);
      await openFile(f.node.file);
    }
    if (m.declaration) {
      const d = state.decls.find((x) => x.name === m.declaration);
      if (d) return selectDeclaration(d.index);
    }
    if (typeof m.line === 'number') {
      const d = state.decls.find((x) => x.range.startLine <= m.line && m.line <= x.range.endLine);
      if (d && d.totalNs !== null) return selectDeclaration(d.index);
      return selectLine(m.line);
    }
    return null;
  }

  // ---- keyboard ----
  function moveIn(listId, rowsOf, indexKey, delta) {
    const items = [...$(listId).children];
    if (!items.length) return;
    state[indexKey] = Math.max(0, Math.min(items.length - 1, state[indexKey] + delta));
    items.forEach((li, i) => li.classList.toggle('selected', i === state[indexKey]));
    items[state[indexKey]].scrollIntoView({ block: 'nearest' });
  }
  $('folder-list').addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') moveIn('folder-list', null, 'folderIndex', 1);
    else if (e.key === 'ArrowUp') moveIn('folder-list', null, 'folderIndex', -1);
    else if (e.key === 'Enter' && state.folderIndex >= 0) activateFolderRow(state.folder.children[state.folderIndex]);
    else if ((e.key === 'Backspace' || e.key === 'ArrowLeft') && state.folder.breadcrumbs.length > 1) {
      openFolder(state.folder.breadcrumbs[state.folder.breadcrumbs.length - 2].node, {});
    } else return;
    e.preventDefault();
  });
  $('list').addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') moveIn('list', null, 'listIndex', 1);
    else if (e.key === 'ArrowUp') moveIn('list', null, 'listIndex', -1);
    else if (e.key === 'Enter' && state.listIndex >= 0) state.listRows[state.listIndex].act();
    else return;
    e.preventDefault();
  });
  $('source').addEventListener('keydown', (e) => {
    if (state.file === null) return;
    const cur = state.sel && state.sel.kind === 'line' ? state.sel.value : (state.selRange ? state.selRange.startLine : -1);
    if (e.key === 'ArrowDown') selectLine(Math.min(state.lines.length - 1, cur + 1));
    else if (e.key === 'ArrowUp') selectLine(Math.max(0, cur - 1));
    else return;
    e.preventDefault();
  });
  $('source').addEventListener('scroll', () => drawSourceLines());
  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement) {
      if (e.key === 'Escape') e.target.blur();
      return;
    }
    if (e.key === '/') { e.preventDefault(); $('filter').focus(); }
    else if (e.key === 'Escape') selectNone();
    else if (e.key === '1' || e.key === '2' || e.key === '3') setTab(['files', 'declarations', 'tactics'][Number(e.key) - 1]);
    else if (e.key === '4' && state.diff) setTab('diff');
  });
  function setTab(tab) { state.tab = tab; renderList(); writeHash(); }
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => setTab(b.dataset.tab));
  let filterTimer = null;
  $('filter').addEventListener('input', (e) => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => { state.filter = e.target.value; renderList(); }, 120);
  });
  $('sort').addEventListener('change', (e) => { state.sort = e.target.value; renderList(); });

  // ---- start ----
  async function main() {
    let config = {};
    try {
      config = JSON.parse($('leanscope-config').textContent);
    } catch (e) {
      showBanner(`The page's configuration is not valid JSON: ${e.message}`, true);
      return;
    }
    showFirstView(config);
    try {
      await startWorker(config);
    } catch (e) {
      workerFailed(e);
      firstViewOnly = false;
      showBanner(`Cannot start the viewer: ${e.message}`, true);
      debug.error = e.message;
      return;
    }
    postHost({ type: 'leanscope.ready' });
    if (config.configured === false) {
      showBanner('Waiting for a session or recording from the host…', false);
      return;
    }
    try {
      await openData(config);
    } catch (e) {
      showBanner(`Cannot open the data: ${e.message}`, true);
      debug.error = e.message;
    } finally {
      firstViewOnly = false;
    }
  }
  debug.ready = main();
})();
