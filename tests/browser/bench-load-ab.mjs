// Side-by-side load figure of two leanscope binaries (e.g. main before and
// after a change), alternating in one browser so that both see the same
// machine: a 3,000,000-event recording opened with `leanscope view`,
// streamed into the worker and ready for queries, and its file view shown.
//
//   node tests/browser/bench-load-ab.mjs BASELINE_BIN [CANDIDATE_BIN] [RUNS]
//
// CANDIDATE_BIN defaults to this tree's release build; RUNS (per binary,
// default 7) after one unmeasured warm-up load each. Run
// tests/browser/bench.mjs first: it makes the recording.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startView, launchBrowser, waitInPage } from './helpers.mjs';

const [baseline, candidate = join(ROOT, 'target', 'release', 'leanscope'), runsArg] = process.argv.slice(2);
if (!baseline) throw new Error('usage: bench-load-ab.mjs BASELINE_BIN [CANDIDATE_BIN] [RUNS]');
const RUNS = Number(runsArg || 7);
const rec = join(ROOT, 'target', 'bench-browser', `synth-3000000.lsrec`);
if (!existsSync(rec)) throw new Error(`${rec} is missing: run tests/browser/bench.mjs first`);

const sides = [];
for (const [name, bin] of [['baseline', baseline], ['candidate', candidate]]) {
  process.env.LEANSCOPE_BIN = bin;
  sides.push({ name, bin, view: await startView(rec), ms: [], shown: [] });
}
const context = await launchBrowser();
const settle = () => new Promise((ok) => setTimeout(ok, 1000));
try {
  for (let r = -1; r < RUNS; r++) {
    for (const side of r % 2 ? sides : [...sides].reverse()) {
      const page = await context.newPage();
      await page.goto(side.view.url);
      await waitInPage(page, () => window.__leanscope && window.__leanscope.fileLoads.length > 0
        && window.__leanscope.fileLoads[0].viewMs !== null);
      const { ms, viewMs } = await page.evaluate(() => window.__leanscope.fileLoads[0]);
      if (r >= 0) { side.ms.push(ms); side.shown.push(viewMs); }
      await page.close();
      await settle();
    }
  }
} finally {
  for (const side of sides) side.view.stop();
  await context.close();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const side of sides) {
  console.log(`${side.name.padEnd(9)} ${median(side.ms).toFixed(1).padStart(7)} ms median of ${RUNS}: ${side.ms.map((x) => x.toFixed(0)).join(', ')}  (${side.bin})`);
  console.log(`${''.padEnd(9)} file view shown ${median(side.shown).toFixed(1)} ms: ${side.shown.map((x) => x.toFixed(0)).join(', ')}`);
}
const ratio = (f) => { const [a, b] = sides.map((s) => median(f(s))); return (b / a).toFixed(3); };
console.log(`candidate / baseline: ready ${ratio((s) => s.ms)}, file view shown ${ratio((s) => s.shown)}`);
