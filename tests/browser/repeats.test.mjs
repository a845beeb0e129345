// A repeated capture (`leanscope profile --repeat 4`, through the fake
// toolchain's `heartbeats-runs` directives: every run's numbers are
// planned) opened with `leanscope view` in headless Chromium: the session's
// rankings, the file's declarations, tactics, line bars and details show
// the median over the runs with its spread, equal to hand-computed values.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, leanscope, leanscopeBin, tempDir, startView, launchBrowser, fakeLean, waitInPage } from './helpers.mjs';
import { formatBytes } from '../../viewer-wasm/www/format.js';

let dir; let session; let view; let browser;

// Run k of the file (k = 0 is its warm-up) uses the k-th count. Kept runs:
// the command 30k, 10k, 50k, 20k heartbeats (sorted 10k 20k 30k 50k:
// median 25k, q1 17.5k, q3 35k); the step 12k, 4k, 20k, 8k (median 10k,
// q1 7k, q3 14k).
const source = (log) => [
  `-- leanscope-fake: run-log ${log}`,
  'theorem tA : True := by -- leanscope-fake: heartbeats-runs 5000,30000,10000,50000,20000',
  '  trivial -- leanscope-fake: heartbeats-runs 1000,12000,4000,20000,8000',
  '',
].join('\n');

/** Captures `text` as Rep/A.lean of a fresh copy of the demo project, `runs`
 *  times after one warm-up, into a session named `name`. */
function capture(name, text, runs) {
  const project = join(dir, `demo-${name}`);
  cpSync(join(ROOT, 'fixtures/projects/demo'), project, { recursive: true });
  mkdirSync(join(project, 'Rep'));
  writeFileSync(join(project, 'Rep/A.lean'), text(join(dir, `${name}.log`)));
  const out = join(dir, name);
  const run = spawnSync(leanscopeBin(), [
    'profile', join(project, 'Rep'), '--measure', 'heartbeats', '--threshold', '10',
    '--repeat', String(runs), '--warmup', '1', '-o', out,
  ], {
    encoding: 'utf8',
    cwd: project,
    env: {
      ...process.env,
      PATH: `${join(dir, 'bin')}:/usr/bin:/bin`,
      HOME: dir,
      LEANSCOPE_FAKE_FIXTURES: join(ROOT, 'fixtures/lean-output'),
      LEANSCOPE_FAKE_DELAY_SCALE: '0',
    },
  });
  assert.equal(run.status, 0, run.stderr);
  return out;
}

/** A file of two theorems whose commands' heartbeats are planned per run. */
const pair = (a, b) => (log) => [
  `-- leanscope-fake: run-log ${log}`,
  `theorem tA : True := by -- leanscope-fake: heartbeats-runs ${a}`,
  '  trivial',
  `theorem tB : True := by -- leanscope-fake: heartbeats-runs ${b}`,
  '  trivial',
  '',
].join('\n');

before(async () => {
  dir = tempDir('repeats');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const name of ['lake', 'lean']) symlinkSync(fakeLean(), join(bin, name));
  session = capture('session', source, 4);
  view = await startView(session);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (view) view.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function openPage(hash) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${view.url}${hash}`);
  return { page, errors };
}

test('the session ranks declarations by their median over the runs, with the spread', async () => {
  // The CLI's medians, the same rule the viewer takes.
  const q = JSON.parse(leanscope('query', session, '--kind', 'declaration', '--json'));
  assert.equal(q.rows[0].durationSpread.median, 25000);
  const { page, errors } = await openPage('#tab=declarations');
  await page.waitForSelector('#list li[data-kind="declaration"] .spread');
  const row = await page.textContent('#list li[data-kind="declaration"]');
  assert.match(row, /^tA.*25\.0 k hb · self 15\.0 k hb · 4 runs 10\.0 k hb–50\.0 k hb$/, row);
  const spread = await page.getAttribute('#list li[data-kind="declaration"] .spread', 'title');
  assert.equal(spread, 'median of 4 runs · min–max 10.0 k hb–50.0 k hb · IQR 17.5 k hb–35.0 k hb');
  const counts = await page.textContent('#session-counts');
  assert.match(counts, /repeated capture: 4 runs per file \(1 warm-up discarded\)/, counts);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a file of a repeated capture shows medians and spreads per declaration, tactic and line', async () => {
  const { page, errors } = await openPage('#file=0&tab=declarations');
  await waitInPage(page, () => document.querySelector('#source') && document.querySelector('#source').dataset.bars === 'ready');
  await page.waitForSelector('#list li[data-kind="declaration"]');
  const facts = await page.textContent('#file-facts');
  assert.match(facts, /4 runs, file time median of 4 runs/, facts);
  assert.match(facts, /shown: run \d \(the median run\)/, facts);
  const decl = await page.$eval('#list li[data-kind="declaration"]', (e) => ({ text: e.textContent, total: e.dataset.totalNs, spread: e.querySelector('.spread').title }));
  assert.equal(decl.total, '25000');
  assert.match(decl.text, /4 runs 10\.0 k hb–50\.0 k hb/, decl.text);
  assert.equal(decl.spread, 'median of 4 runs · min–max 10.0 k hb–50.0 k hb · IQR 17.5 k hb–35.0 k hb');
  assert.match(await page.textContent('#list-scope'), /medians over its 4 runs/);

  // The line bars: line 2 (the command) and line 3 (the step), medians.
  const bars = await page.$$eval('#source-lines .line', (els) => els.filter((e) => e.dataset.totalNs).map((e) => [Number(e.dataset.line), Number(e.dataset.totalNs), e.querySelector('.bar').title]));
  const byLine = new Map(bars.map((b) => [b[0], b]));
  assert.equal(byLine.get(1)[1], 25000, JSON.stringify(bars));
  assert.equal(byLine.get(2)[1], 10000, JSON.stringify(bars));
  assert.match(byLine.get(2)[2], /median of 4 runs, min–max 4\.00 k hb–20\.0 k hb/, byLine.get(2)[2]);

  // The declaration's details: the median, its spread, and whose operations.
  await page.click('#list li[data-kind="declaration"]');
  await page.waitForSelector('#details [data-kind="declaration"]');
  const details = await page.textContent('#details');
  assert.match(details, /25\.0 k hb \(median of 4 runs · min–max 10\.0 k hb–50\.0 k hb · IQR 17\.5 k hb–35\.0 k hb\)/, details);
  assert.match(details, /Times are medians over 4 runs; operations and the timeline are run \d's, the median run\./, details);

  // Tactics: the step's median 10k (q1 7k, q3 14k).
  await page.click('#tabs button[data-tab="tactics"]');
  await page.waitForSelector('#list li[data-kind="tactic"] .spread');
  const tactic = await page.textContent('#list li[data-kind="tactic"]');
  assert.match(tactic, /10\.0 k hb/, tactic);
  const tacticSpread = await page.getAttribute('#list li[data-kind="tactic"] .spread', 'title');
  assert.equal(tacticSpread, 'median of 4 runs · min–max 4.00 k hb–20.0 k hb · IQR 7.00 k hb–14.0 k hb');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the memory lane of a repeated capture says the peak over the runs, as query reports it', async () => {
  const mem = capture('memory', (log) => [
    `-- leanscope-fake: run-log ${log}`,
    'theorem tA : True := by -- leanscope-fake: alloc 48MB',
    '  trivial -- leanscope-fake: cost 300ms',
    '',
  ].join('\n'), 3);
  const file = JSON.parse(leanscope('query', mem, '--kind', 'file', '--json')).rows[0];
  const peak = file.memorySpread;
  assert.equal(peak.runs, 3, JSON.stringify(file));
  assert.equal(file.memoryPeakBytes, Math.round(peak.median));
  const memView = await startView(mem);
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(`${memView.url}#file=0&tab=declarations`);
    await page.waitForSelector('#memory-wrap:not([hidden])');
    const title = await page.textContent('#memory-title');
    const esc = (t) => t.replace(/[.()]/g, '\\$&');
    assert.match(title, new RegExp(esc(`over the 3 runs that sampled it, peak ${formatBytes(peak.median)} (median; min–max ${formatBytes(peak.min)}–${formatBytes(peak.max)}); the lane is run `) + '\\d\'s, the median run'), title);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    memView.stop();
  }
});

test('the Diff view of two repeated captures is noise-aware and says which rule decided', async () => {
  // Kept runs of tA: 300 200 250 (median 250) against 400 380 390 (median
  // 390): the ranges separate, a regression. tB: 300 200 250 against 310
  // 190 245 (median 245): beyond a zero tolerance, but the ranges overlap
  // and the bootstrap interval holds zero: noise, not an improvement.
  const base = capture('base', pair('0,300,200,250', '0,300,200,250'), 3);
  const cand = capture('cand', pair('0,400,380,390', '0,310,190,245'), 3);
  const diffView = await startView(cand, ['--baseline', base]);
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(`${diffView.url}#tab=diff`);
    await page.waitForSelector('#list li[data-kind="diff"]');
    const rows = await page.$$eval('#list li[data-kind="diff"]', (els) => els.map((e) => ({
      name: e.dataset.name, status: e.dataset.status, rule: e.dataset.rule, baseline: e.dataset.baseline,
      candidate: e.dataset.candidate, title: e.title, text: e.textContent,
    })));
    const a = rows.find((r) => r.name === 'tA');
    const b = rows.find((r) => r.name === 'tB');
    assert.deepEqual([a.status, a.rule, a.baseline, a.candidate], ['regression', 'spreads_separate', '250', '390'], JSON.stringify(a));
    assert.match(a.title, /spreads \(min–max over the runs\) do not overlap/);
    assert.deepEqual([b.status, b.rule, b.baseline, b.candidate], ['within_tolerance', 'noise', '250', '245'], JSON.stringify(b));
    assert.match(b.text, /noise/);
    assert.match(b.title, /within the noise.*bootstrap interval -?[\d.]+ hb to [\d.]+ hb/);
    const tab = await page.getAttribute('#tab-diff', 'title');
    assert.match(tab, /1 regressions, 0 improvements, 1 within tolerance/, tab);
    assert.match(tab, /both repeated captures \(3 and 3 runs; .*95 % bootstrap interval \(2000 resamples, seed \d+\).*\): 1 changes beyond the tolerances are within the noise/, tab);
    assert.match(await page.textContent('#list-scope'), /and the noise \(medians of 3 and 3 runs/);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    diffView.stop();
  }
});
