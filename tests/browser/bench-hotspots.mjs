// Browser benchmark of the viewer's hot spots in headless Chromium; prints
// its figures beside their targets.
//
//   node tests/browser/bench-hotspots.mjs   (after scripts/build-viewer; builds leanscope --release)
//
// 1. A 3,000,000-event recording (`leanscope synth --seed 1 --events
//    3000000 --threads 4`, shared with bench.mjs) opened with `leanscope
//    view`. At once: the Hot spots tab clicked as soon as the file's view
//    is shown (its source and declarations; fileLoads[0].viewMs); the time
//    from that view to the bottom-up table in the page (the worker
//    finishes the file's hot spots, built while the events arrived, on
//    this first use, after the line bars and the timeline it was already
//    asked for). At the timeline: clicked as soon as the first timeline
//    is drawn (the file's view complete), from the click. Settled: clicked
//    once the first timeline is drawn and a second has passed (the hot
//    spots built meanwhile, while the worker was idle), from the click. Then the bytes its hot spots
//    hold per key (HotSpots::heap_bytes / keys).
// 2. Its flame graph: the switch to it (the tree asked for and laid out),
//    then redraws as the mouse hovers nodes, and zooms (a click: the zoomed
//    subtree asked for, laid out and drawn).
// 3. The first draw of a 100,000-event recording after navigation
//    (window.__leanscope.firstPaintMs): hot-spot work must not come before it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startView, launchBrowser, waitInPage } from './helpers.mjs';

const EVENTS = Number(process.env.BENCH_EVENTS || 3_000_000);
const RUNS = 3;
const dir = join(ROOT, 'target', 'bench-browser');
mkdirSync(dir, { recursive: true });
const run = (cmd, args) => execFileSync(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
if (!process.env.BENCH_BIN) run('cargo', ['build', '--quiet', '--release', '-p', 'leanscope']);
const bin = process.env.BENCH_BIN || join(ROOT, 'target', 'release', 'leanscope');
process.env.LEANSCOPE_BIN = bin;

const synth = (events) => {
  const rec = join(dir, `synth-${events}.lsrec`);
  if (!existsSync(rec)) run(bin, ['synth', '--seed', '1', '--events', String(events), '--threads', '4', '-o', rec]);
  return rec;
};
const big = synth(EVENTS);
const small = synth(100_000);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => +x.toFixed(2);
const settle = () => new Promise((ok) => setTimeout(ok, 1000));

const context = await launchBrowser();
const figures = {};
try {
  // 1 and 2: the big recording, RUNS fresh pages.
  const view = await startView(big);
  const table = []; const atOnce = []; const atTimeline = []; const memory = []; const flameOpen = []; const hovers = []; const zooms = [];
  let rows = 0; let nodes = 0;
  try {
    for (let r = 0; r < RUNS; r++) {
      // At once: polled every few milliseconds in the page, so the click
      // follows the timeline's draw closely; timed from the draw.
      const first = await context.newPage();
      await first.goto(view.url);
      await waitInPage(first, () => window.__leanscope && window.__leanscope.fileLoads.length > 0);
      atOnce.push(await first.evaluate(async () => {
        const L = window.__leanscope;
        const load = L.fileLoads[0];
        while (load.viewMs === null) await new Promise((ok) => setTimeout(ok, 2));
        await L.showView('hotspots');
        return performance.now() - (load.startedAt + load.viewMs);
      }));
      await first.close();
      await settle();
      // As soon as the first timeline is drawn (the file's view complete), from the click.
      const drawn = await context.newPage();
      await drawn.goto(view.url);
      await waitInPage(drawn, () => window.__leanscope && window.__leanscope.fileLoads.length > 0);
      atTimeline.push(await drawn.evaluate(async () => {
        const L = window.__leanscope;
        const load = L.fileLoads[0];
        while (load.firstTimelineMs === null) await new Promise((ok) => setTimeout(ok, 2));
        const t0 = performance.now();
        await L.showView('hotspots');
        return performance.now() - t0;
      }));
      await drawn.close();
      await settle();
      const page = await context.newPage();
      await page.goto(view.url);
      await waitInPage(page, () => window.__leanscope && window.__leanscope.fileLoads.length > 0
        && window.__leanscope.fileLoads[0].firstTimelineMs !== null);
      await settle();
      table.push(await page.evaluate(async () => {
        const t0 = performance.now();
        await window.__leanscope.showView('hotspots');
        return performance.now() - t0;
      }));
      rows = await page.evaluate(() => document.querySelectorAll('#list li[data-kind="hotspot"]').length);
      memory.push(await page.evaluate(() => window.__leanscope.call('hotMemory', window.__leanscope.state.file)));
      const f = await page.evaluate(async () => {
        const L = window.__leanscope;
        const t0 = performance.now();
        await L.showView('flame');
        const open = performance.now() - t0;
        const c = document.querySelector('#flame');
        const g = L.flame.graph;
        // Hover every node wide enough to point at, a redraw each.
        L.flameDraws.length = 0;
        for (let i = 0; i < g.n && L.flameDraws.length < 40; i++) {
          if ((g.x1[i] - g.x0[i]) * c.clientWidth < 4) continue;
          L.flame.hoverAt(((g.x0[i] + g.x1[i]) / 2) * c.clientWidth, g.depth[i] * 17 + 8);
        }
        const hoverMs = [...L.flameDraws];
        // Zoom into the widest node at each depth 1..3, then back out.
        const zoomMs = [];
        for (let d = 1; d <= 3; d++) {
          const h = L.flame.graph;
          let pick = -1;
          for (let i = 0; i < h.n; i++) if (h.depth[i] === 1) { pick = i; break; }
          if (pick < 0) break;
          const z0 = performance.now();
          await L.flame.zoomInto(pick);
          zoomMs.push(performance.now() - z0);
        }
        await L.flame.reset();
        return { open, hoverMs, zoomMs, nodes: L.flame.graph.n };
      });
      flameOpen.push(f.open);
      hovers.push(...f.hoverMs);
      zooms.push(...f.zoomMs);
      nodes = f.nodes;
      if (r === RUNS - 1) await page.screenshot({ path: join(dir, 'bench-hotspots-3m.png') });
      await page.close();
      await settle();
    }
  } finally {
    view.stop();
  }
  const events = EVENTS;
  const m = memory[memory.length - 1];
  figures.events = events;
  figures.table = {
    atOnceRunsMs: atOnce.map(round), atOnceMedianMs: round(median(atOnce)),
    atTimelineRunsMs: atTimeline.map(round), atTimelineMedianMs: round(median(atTimeline)),
    runsMs: table.map(round), medianMs: round(median(table)), rows, targetMs: 300,
  };
  figures.memory = { bytes: m.bytes, keys: m.keys, nodes: m.nodes, bytesPerKey: Math.round(m.bytes / Math.max(1, m.keys)), bytesPerEvent: round(m.bytes / events) };
  figures.flame = {
    nodes,
    openRunsMs: flameOpen.map(round),
    openMedianMs: round(median(flameOpen)),
    hoverRedraws: hovers.length,
    hoverMedianMs: round(median(hovers)),
    hoverMaxMs: round(Math.max(...hovers)),
    zoomMedianMs: round(median(zooms)),
    zoomMaxMs: round(Math.max(...zooms)),
    targetMs: 16,
  };

  // 3: first draw of the 100k-event recording.
  const v2 = await startView(small);
  try {
    const paints = [];
    for (let r = 0; r < RUNS + 2; r++) {
      const page = await context.newPage();
      await page.goto(v2.url);
      await waitInPage(page, () => window.__leanscope && window.__leanscope.firstPaintMs !== null);
      paints.push(await page.evaluate(() => window.__leanscope.firstPaintMs));
      await page.close();
      await settle();
    }
    figures.firstPaint100k = { runsMs: paints.map(round), medianMs: round(median(paints)), targetMs: 300 };
  } finally {
    v2.stop();
  }
} finally {
  await context.close();
}

const f = figures;
console.log(JSON.stringify(f, null, 2));
console.log(`
leanscope hot-spots benchmark (headless Chromium)
  ${f.events.toLocaleString()}-event recording, bottom-up table shown (${f.table.rows} rows; target ≤ 300 ms):
    Hot spots clicked as soon as the file's view is shown, from that view: median ${f.table.atOnceMedianMs} ms (${f.table.atOnceRunsMs.join(', ')})
    clicked as soon as its first timeline is drawn, from the click: median ${f.table.atTimelineMedianMs} ms (${f.table.atTimelineRunsMs.join(', ')})
    clicked a second later, from the click: median ${f.table.medianMs} ms (${f.table.runsMs.join(', ')})
  its hot spots hold ${f.memory.bytes.toLocaleString()} bytes: ${f.memory.keys} keys, ${f.memory.nodes.toLocaleString()} tree nodes → ${f.memory.bytesPerKey.toLocaleString()} B/key (${f.memory.bytesPerEvent} B/event)
  flame graph: switched to and drawn in ${f.flame.openMedianMs} ms (median; ${f.flame.nodes} nodes drawn); hover redraws median ${f.flame.hoverMedianMs} ms, max ${f.flame.hoverMaxMs} ms over ${f.flame.hoverRedraws}; zoom (subtree asked, laid out, drawn) median ${f.flame.zoomMedianMs} ms, max ${f.flame.zoomMaxMs} ms (target ≤ 16 ms a frame)
  100,000-event recording, first draw after navigation: median ${f.firstPaint100k.medianMs} ms (${f.firstPaint100k.runsMs.join(', ')}; target ≤ 300 ms)`);
