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

before(async () => {
  dir = tempDir('repeats');
  const project = join(dir, 'demo');
  cpSync(join(ROOT, 'fixtures/projects/demo'), project, { recursive: true });
  mkdirSync(join(project, 'Rep'));
  writeFileSync(join(project, 'Rep/A.lean'), source(join(dir, 'runs.log')));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const name of ['lake', 'lean']) symlinkSync(fakeLean(), join(bin, name));
  session = join(dir, 'session');
  const run = spawnSync(leanscopeBin(), [
    'profile', join(project, 'Rep'), '--measure', 'heartbeats', '--threshold', '10',
    '--repeat', '4', '--warmup', '1', '-o', session,
  ], {
    encoding: 'utf8',
    cwd: project,
    env: {
      ...process.env,
      PATH: `${bin}:/usr/bin:/bin`,
      HOME: dir,
      LEANSCOPE_FAKE_FIXTURES: join(ROOT, 'fixtures/lean-output'),
      LEANSCOPE_FAKE_DELAY_SCALE: '0',
    },
  });
  assert.equal(run.status, 0, run.stderr);
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
