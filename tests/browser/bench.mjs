// Browser benchmark of the viewer in headless Chromium; prints its figures.
//
//   node tests/browser/bench.mjs      (after scripts/build-viewer; builds leanscope --release)
//
// 1. A 3,000,000-event recording opened with `leanscope view` and streamed
//    into the worker: time from the request to a model ready for queries
//    (and, reported apart, to the file's view shown and its first timeline
//    draw, which builds the timeline index); in the same browser, JSON.parse
//    of the same events as Chrome trace-event JSON: the file `leanscope
//    export --format chrome` writes (in parts: it is longer than V8's
//    longest string), and a leaner generated one; the file sizes.
// 2. Memory after loading: JS heap (page + worker, after a GC; the worker's
//    over CDP) + wasm memory, per event.
// 3. Timeline redraw of the whole recording at full zoom-out (layout in the
//    worker + drawing on the canvas).
// 4. First paint of the folder view of a 5,000-file session after navigation.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ROOT, startView, staticServer, launchBrowser, waitInPage } from './helpers.mjs';

const EVENTS = Number(process.env.BENCH_EVENTS || 3_000_000);
const FILES = Number(process.env.BENCH_FILES || 5000);
const RUNS = 3;
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 1000);
const dir = join(ROOT, 'target', 'bench-browser');
mkdirSync(dir, { recursive: true });

const run = (cmd, args) => execFileSync(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
// BENCH_BIN: benchmark another leanscope binary (e.g. a baseline build, for
// before/after figures in one run) instead of building this tree's.
if (!process.env.BENCH_BIN) run('cargo', ['build', '--quiet', '--release', '-p', 'leanscope']);
run('cargo', ['build', '--quiet', '--release', '-p', 'viewer-wasm', '--example', 'chrome_trace']);
const bin = process.env.BENCH_BIN || join(ROOT, 'target', 'release', 'leanscope');
process.env.LEANSCOPE_BIN = bin;

const rec = join(dir, `synth-${EVENTS}.lsrec`);
if (!existsSync(rec)) run(bin, ['synth', '--seed', '1', '--events', String(EVENTS), '--threads', '4', '-o', rec]);
const trace = join(dir, `synth-${EVENTS}.trace.json`);
if (!existsSync(trace)) run(join(ROOT, 'target', 'release', 'examples', 'chrome_trace'), [rec, trace]);
const exported = splitExport(join(dir, `synth-${EVENTS}.export`), 96 << 20);

/** `leanscope export --format chrome` of the recording, cut at event
 *  boundaries into traces of about `size` bytes, each a whole
 *  `{"traceEvents":[...]}` object that fits in one JavaScript string (the
 *  whole file does not). Kept as the parts only, with a note of the whole
 *  file's size; returns the parts' file names and that size. */
function splitExport(stem, size) {
  const note = `${stem}.json.parts`;
  const names = (n) => Array.from({ length: n }, (_, k) => `${basename(stem)}.part-${k}.json`);
  if (existsSync(note)) {
    const { parts, bytes } = JSON.parse(readFileSync(note, 'utf8'));
    return { parts: names(parts), bytes };
  }
  const whole = `${stem}.json`;
  run(bin, ['export', '--format', 'chrome', '-o', whole, rec]);
  const bytes = readFileSync(whole);
  const sep = Buffer.from(',\n{');
  let k = 0;
  for (let start = 0; start < bytes.length; k++) {
    let end = start + size >= bytes.length ? -1 : bytes.indexOf(sep, start + size);
    if (end < 0) end = bytes.length;
    const pieces = [];
    if (start > 0) pieces.push(Buffer.from('{"traceEvents":['), bytes.subarray(start + 2, end));
    else pieces.push(bytes.subarray(0, end));
    if (end < bytes.length) pieces.push(Buffer.from(']}'));
    writeFileSync(join(dir, names(k + 1)[k]), Buffer.concat(pieces));
    start = end;
  }
  writeFileSync(note, JSON.stringify({ parts: k, bytes: bytes.length }));
  unlinkSync(whole);
  return { parts: names(k), bytes: bytes.length };
}

const session = join(dir, `session-${FILES}`);
if (!existsSync(join(session, 'session.json'))) {
  run(bin, ['synth-session', '-o', session, '--files', String(FILES), '--events', '64', '--threads', '2']);
}

/** The JS heaps of the page's workers after a GC: workers have no
 *  performance.memory, so ask the worker targets over CDP (the page is the
 *  only one open, so its workers are the viewer's worker and that worker's
 *  reader). */
async function workerHeapUsage(cdp) {
  const { targetInfos } = await cdp.send('Target.getTargets');
  const workers = targetInfos.filter((t) => t.type === 'worker');
  if (workers.length !== 2) throw new Error(`expected two worker targets, found ${workers.length}`);
  let total = 0;
  for (const w of workers) total += await heapOfWorker(cdp, w.targetId);
  return total;
}

async function heapOfWorker(cdp, targetId) {
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: false });
  const pending = new Map();
  let next = 1;
  const onMessage = (e) => {
    if (e.sessionId !== sessionId) return;
    const m = JSON.parse(e.message);
    const done = pending.get(m.id);
    if (done) { pending.delete(m.id); done(m); }
  };
  cdp.on('Target.receivedMessageFromTarget', onMessage);
  const send = (method, params = {}) => new Promise((ok, fail) => {
    const id = next++;
    pending.set(id, (m) => (m.error ? fail(new Error(`${method}: ${m.error.message}`)) : ok(m.result)));
    cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(fail);
  });
  try {
    await send('HeapProfiler.collectGarbage');
    return (await send('Runtime.getHeapUsage')).usedSize;
  } finally {
    cdp.off('Target.receivedMessageFromTarget', onMessage);
    await cdp.send('Target.detachFromTarget', { sessionId }).catch(() => {});
  }
}

const until = waitInPage;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
const context = await launchBrowser();
// The Chrome JSON is served apart: the viewer's page may only fetch from
// its own server.
const server = await staticServer(dir);
const viewer = await startView(rec);
const figures = {};
try {
  // 1-3: the big recording.
  const loads = [];
  const phases = [];
  let page;
  for (let r = 0; r < RUNS; r++) {
    if (page) {
      await page.close();
      // Each load starts on a settled browser: the closed page's worker
      // and its memory are torn down first.
      await new Promise((ok) => setTimeout(ok, SETTLE_MS));
    }
    page = await context.newPage();
    await page.goto(viewer.url);
    await until(page, () => window.__leanscope && window.__leanscope.fileLoads.length > 0);
    const l = await page.evaluate(() => window.__leanscope.fileLoads[0]);
    loads.push(l.ms);
    phases.push(l);
  }
  const events = await page.evaluate(() => window.__leanscope.fileLoads[0].events);
  // After the load: the file's view shown, and its first timeline draw
  // (which builds the timeline index), of the last run.
  // (A baseline viewer may not report them.)
  await until(page, () => {
    const l = window.__leanscope.fileLoads[0];
    return !('firstTimelineMs' in l) || l.firstTimelineMs !== null;
  });
  const after = await page.evaluate(() => window.__leanscope.fileLoads[0]);
  const jsonPage = await context.newPage();
  await jsonPage.goto(`${server.url}nothing`);
  // The export's parts: all fetched first, then each parsed and kept, so
  // that the heap grows as it would for one parse of the whole file.
  const parseExport = await jsonPage.evaluate(async (names) => {
    const texts = [];
    for (const name of names) texts.push(await (await fetch(name)).text());
    const times = [];
    let n = 0;
    for (let r = 0; r < 3; r++) {
      const kept = [];
      let ms = 0;
      for (const text of texts) {
        const t0 = performance.now();
        kept.push(JSON.parse(text));
        ms += performance.now() - t0;
      }
      times.push(ms);
      if (r === 0) n = kept.reduce((sum, v) => sum + v.traceEvents.filter((e) => e.ph === 'X').length, 0);
    }
    return { times, n, parts: names.length };
  }, exported.parts.map((name) => `/${name}`));
  const parse = await jsonPage.evaluate(async (name) => {
    const text = await (await fetch(name)).text();
    const times = [];
    let n = 0;
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      const v = JSON.parse(text);
      times.push(performance.now() - t0);
      n = v.traceEvents.length;
    }
    return { times, n };
  }, `/${basename(trace)}`);
  await jsonPage.close();
  const cdp = await context.newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const pageHeap = (await cdp.send('Runtime.getHeapUsage')).usedSize;
  const workerHeap = await workerHeapUsage(cdp);
  const wasm = (await page.evaluate(() => window.__leanscope.call('memory'))).wasmBytes;
  await page.evaluate(() => window.__leanscope.timeline.reset());
  const redraws = [];
  for (let r = 0; r < 10; r++) redraws.push(await page.evaluate(() => window.__leanscope.redrawTimeline()));
  const rects = await page.evaluate(() => window.__leanscope.timeline.layout.rects.length / 6);
  await page.screenshot({ path: join(dir, 'bench-3m.png') });
  await page.close();

  const recBytes = statSync(rec).size;
  const jsonBytes = statSync(trace).size;
  const exportBytes = exported.bytes;
  const load = median(loads);
  const jsonParse = median(parse.times);
  const exportParse = median(parseExport.times);
  if (parseExport.n !== events || parse.n !== events) {
    throw new Error(`the JSON holds ${parseExport.n} and ${parse.n} events, the recording ${events}`);
  }
  const memory = pageHeap + workerHeap + wasm;
  figures.events = events;
  figures.load = { runsMs: loads.map((x) => +x.toFixed(1)), medianMs: +load.toFixed(1), targetMs: 1500 };
  // Per run: the stream (request to last byte), the wasm's decoding within
  // it, and the end (forest linked, source checked). A baseline viewer may
  // not report them.
  const ms = (x) => (typeof x === 'number' ? +x.toFixed(1) : null);
  figures.loadPhases = phases.map((l) => ({ streamMs: ms(l.streamMs), decodeMs: ms(l.decodeMs), endMs: ms(l.endMs) }));
  figures.afterLoad = { viewMs: ms(after.viewMs), barsMs: ms(after.barsMs), firstTimelineMs: ms(after.firstTimelineMs) };
  figures.exportParse = { events: parseExport.n, parts: parseExport.parts, runsMs: parseExport.times.map((x) => +x.toFixed(1)), medianMs: +exportParse.toFixed(1) };
  figures.speedup = +(exportParse / load).toFixed(2);
  figures.jsonParse = { events: parse.n, runsMs: parse.times.map((x) => +x.toFixed(1)), medianMs: +jsonParse.toFixed(1) };
  figures.speedupLean = +(jsonParse / load).toFixed(2);
  figures.sizes = { recording: recBytes, exportJson: exportBytes, ratio: +(exportBytes / recBytes).toFixed(2), leanJson: jsonBytes, leanRatio: +(jsonBytes / recBytes).toFixed(2) };
  figures.memory = { pageHeap, workerHeap, wasm, total: memory, bytesPerEvent: +(memory / events).toFixed(1), target: 100 };
  figures.timeline = { rects, runsMs: redraws.map((x) => +x.toFixed(2)), medianMs: +median(redraws).toFixed(2), maxMs: +Math.max(...redraws).toFixed(2), targetMs: 16 };

  // 4: the 5,000-file session's first paint.
  const view = await startView(session);
  try {
    const paints = [];
    for (let r = 0; r < RUNS; r++) {
      const p = await context.newPage();
      await p.goto(view.url);
      await until(p, () => window.__leanscope && window.__leanscope.firstPaintMs !== null);
      paints.push(await p.evaluate(() => window.__leanscope.firstPaintMs));
      if (r === RUNS - 1) await p.screenshot({ path: join(dir, 'bench-session.png') });
      await p.close();
    }
    figures.sessionFirstPaint = { files: FILES, runsMs: paints.map((x) => +x.toFixed(1)), medianMs: +median(paints).toFixed(1), targetMs: 300 };
  } finally {
    view.stop();
  }
} finally {
  server.stop();
  viewer.stop();
  await context.close();
}

const f = figures;
console.log(JSON.stringify(f, null, 2));
console.log(`
leanscope browser benchmark (headless Chromium ${process.env.CHROMIUM_VERSION || ''})
  recording: ${f.events.toLocaleString()} events, ${mb(f.sizes.recording)} (${(f.sizes.recording / f.events).toFixed(1)} B/event)
  opened with leanscope view, streamed into the worker and ready: ${f.load.medianMs} ms (median of ${RUNS}: ${f.load.runsMs.join(', ')} ms, the first in a fresh browser; target ≤ 1500 ms)
    phases per run (stream / wasm decoding within it / end): ${f.loadPhases.map((p) => `${p.streamMs ?? '—'} / ${p.decodeMs ?? '—'} / ${p.endMs ?? '—'} ms`).join('; ')}
  after the load (last run), after the request: file view shown ${f.afterLoad.viewMs ?? '—'} ms, its line bars ${f.afterLoad.barsMs ?? '—'} ms; then its first timeline draw (builds the timeline index) takes ${f.afterLoad.firstTimelineMs ?? '—'} ms
  JSON.parse of the same events as Chrome trace JSON, as \`leanscope export --format chrome\` writes it (${mb(f.sizes.exportJson)}, parsed in ${f.exportParse.parts} parts: V8 strings stop at 512 MiB): ${f.exportParse.medianMs} ms
    → leanscope is ${f.speedup}× faster than parsing the JSON (target ≥ 10×), on a file ${f.sizes.ratio}× smaller (target ≥ 5×)
  JSON.parse of a leaner generated trace (${mb(f.sizes.leanJson)}: no file, line or column, the range as one string): ${f.jsonParse.medianMs} ms
    → ${f.speedupLean}× faster, on a file ${f.sizes.leanRatio}× smaller
  memory: page heap ${mb(f.memory.pageHeap)} + workers' heaps ${mb(f.memory.workerHeap)} + wasm ${mb(f.memory.wasm)} = ${f.memory.bytesPerEvent} B/event (target ≤ 100)
  timeline redraw at full zoom-out: median ${f.timeline.medianMs} ms, max ${f.timeline.maxMs} ms, ${f.timeline.rects} rectangles (target ≤ 16 ms)
  ${f.sessionFirstPaint.files}-file session, folder view first paint: ${f.sessionFirstPaint.medianMs} ms after navigation (median of ${RUNS}; target ≤ 300 ms)`);
