// Side-by-side figures of two leanscope binaries (e.g. main before and
// after a change), alternating in one browser so that both see the same
// machine.
//
//   node tests/browser/bench-load-ab.mjs BASELINE_BIN [CANDIDATE_BIN] [RUNS]
//   node tests/browser/bench-load-ab.mjs --first-paint BASELINE_BIN [CANDIDATE_BIN] [RUNS]
//
// Load (the default): a 3,000,000-event recording opened with `leanscope
// view`, streamed into the worker and ready for queries, and its file view
// shown. Run tests/browser/bench.mjs first: it makes the recording.
//
// --first-paint: navigation → the first drawn view (the page's
// window.__leanscope.firstPaintMs, as bench.mjs's session figure), for a
// 5,000-file synthetic session and a 100,000-event recording (both made
// here with BASELINE_BIN, under target/bench-browser), each opened with
// `leanscope view`. What the page fetches at start-up counts here.
//
// CANDIDATE_BIN defaults to this tree's release build; RUNS (per binary and
// target, default 7) after one unmeasured warm-up load each.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startView, launchBrowser, waitInPage } from './helpers.mjs';

const args = process.argv.slice(2);
const firstPaint = args[0] === '--first-paint';
if (firstPaint) args.shift();
const [baseline, candidate = join(ROOT, 'target', 'release', 'leanscope'), runsArg] = args;
if (!baseline) throw new Error('usage: bench-load-ab.mjs [--first-paint] BASELINE_BIN [CANDIDATE_BIN] [RUNS]');
const RUNS = Number(runsArg || 7);
const dir = join(ROOT, 'target', 'bench-browser');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const settle = () => new Promise((ok) => setTimeout(ok, 1000));

/** Opens `target` with both binaries' `leanscope view` and loads each
 *  side's page RUNS times (plus a warm-up), alternating which goes first;
 *  `measure(page)` waits for the figure and returns it (an object of
 *  numbers). Returns [{ name, bin, runs: [figure] }]. */
async function alternate(context, target, measure) {
  const sides = [];
  try {
    for (const [name, bin] of [['baseline', baseline], ['candidate', candidate]]) {
      process.env.LEANSCOPE_BIN = bin;
      sides.push({ name, bin, view: await startView(target), runs: [] });
    }
    for (let r = -1; r < RUNS; r++) {
      for (const side of r % 2 ? sides : [...sides].reverse()) {
        const page = await context.newPage();
        await page.goto(side.view.url);
        const figure = await measure(page);
        if (r >= 0) side.runs.push(figure);
        await page.close();
        await settle();
      }
    }
  } finally {
    for (const side of sides) side.view.stop();
  }
  return sides;
}

function report(title, sides, key, label) {
  console.log(title);
  for (const side of sides) {
    const xs = side.runs.map((f) => f[key]);
    console.log(`  ${side.name.padEnd(9)} ${label} ${median(xs).toFixed(1).padStart(7)} ms median of ${RUNS}: ${xs.map((x) => x.toFixed(0)).join(', ')}  (${side.bin})`);
  }
  const [a, b] = sides.map((s) => median(s.runs.map((f) => f[key])));
  console.log(`  candidate / baseline: ${label} ${(b / a).toFixed(3)}`);
}

const context = await launchBrowser();
try {
  if (firstPaint) {
    mkdirSync(dir, { recursive: true });
    const run = (...a) => execFileSync(baseline, a, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const session = join(dir, 'session-5000');
    if (!existsSync(join(session, 'session.json'))) run('synth-session', '-o', session, '--files', '5000', '--events', '64', '--threads', '2');
    const rec = join(dir, 'synth-100000.lsrec');
    if (!existsSync(rec)) run('synth', '--seed', '1', '--events', '100000', '--threads', '4', '-o', rec);
    const painted = async (page) => {
      await waitInPage(page, () => window.__leanscope && window.__leanscope.firstPaintMs !== null);
      return { paint: await page.evaluate(() => window.__leanscope.firstPaintMs) };
    };
    report('5,000-file session, navigation → first drawn view', await alternate(context, session, painted), 'paint', 'first paint');
    report('100,000-event recording, navigation → first drawn view', await alternate(context, rec, painted), 'paint', 'first paint');
  } else {
    const rec = join(dir, 'synth-3000000.lsrec');
    if (!existsSync(rec)) throw new Error(`${rec} is missing: run tests/browser/bench.mjs first`);
    const sides = await alternate(context, rec, async (page) => {
      await waitInPage(page, () => window.__leanscope && window.__leanscope.fileLoads.length > 0
        && window.__leanscope.fileLoads[0].viewMs !== null);
      const { ms, viewMs } = await page.evaluate(() => window.__leanscope.fileLoads[0]);
      return { ms, viewMs };
    });
    for (const side of sides) {
      const ms = side.runs.map((f) => f.ms); const shown = side.runs.map((f) => f.viewMs);
      console.log(`${side.name.padEnd(9)} ${median(ms).toFixed(1).padStart(7)} ms median of ${RUNS}: ${ms.map((x) => x.toFixed(0)).join(', ')}  (${side.bin})`);
      console.log(`${''.padEnd(9)} file view shown ${median(shown).toFixed(1)} ms: ${shown.map((x) => x.toFixed(0)).join(', ')}`);
    }
    const ratio = (k) => { const [a, b] = sides.map((s) => median(s.runs.map((f) => f[k]))); return (b / a).toFixed(3); };
    console.log(`candidate / baseline: ready ${ratio('ms')}, file view shown ${ratio('viewMs')}`);
  }
} finally {
  await context.close();
}
