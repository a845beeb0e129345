// A recording measured in heartbeats (`leanscope profile --measure
// heartbeats`, through the fake toolchain's `heartbeats N` directives),
// opened with `leanscope view` in headless Chromium: every number the
// viewer prints is in heartbeats, never a time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, leanscope, leanscopeBin, tempDir, startView, launchBrowser, fakeLean } from './helpers.mjs';

let dir; let rec; let view; let browser;

const PLANNED = [
  'theorem a : True := by -- leanscope-fake: heartbeats 52000',
  '  trivial -- leanscope-fake: heartbeats 41000',
  '',
  'theorem c : 1 = 1 := by -- leanscope-fake: heartbeats 2500000',
  '  rfl -- leanscope-fake: heartbeats 2400000',
  '',
].join('\n');

before(async () => {
  dir = tempDir('heartbeats');
  const project = join(dir, 'demo');
  cpSync(join(ROOT, 'fixtures/projects/demo'), project, { recursive: true });
  writeFileSync(join(project, 'Demo/Planned.lean'), PLANNED);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const name of ['lake', 'lean']) symlinkSync(fakeLean(), join(bin, name));
  rec = join(dir, 'planned.lsrec');
  const run = spawnSync(leanscopeBin(), [
    'profile', join(project, 'Demo/Planned.lean'), '--measure', 'heartbeats', '--threshold', '1000', '-o', rec,
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
  view = await startView(rec);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (view) view.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the viewer prints a heartbeat recording in heartbeats, never in a time', async () => {
  const info = JSON.parse(leanscope('info', '--json', rec));
  assert.equal(info.measure, 'heartbeats');
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(view.url);
  await page.waitForFunction(() => document.querySelector('#file-facts') && document.querySelector('#file-facts').dataset.events);
  await page.waitForSelector('#list li[data-kind="declaration"]');
  const facts = await page.textContent('#file-facts');
  const list = await page.$$eval('#list li[data-kind="declaration"]', (els) => els.map((e) => e.textContent));
  // theorem c: its command's 2,500,000 planned heartbeats.
  assert.ok(list.some((t) => t.includes('2.50 M hb')), list.join(' | '));
  assert.ok(list.some((t) => t.includes('52.0 k hb')), list.join(' | '));
  for (const text of [facts, ...list]) {
    assert.doesNotMatch(text, /\d (s|ms|µs|ns)\b/, `a time in: ${text}`);
  }
  assert.match(facts, /hb/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('hot spots of a heartbeat recording: the table and the flame graph in heartbeats', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(view.url);
  await page.waitForSelector('#list li[data-kind="declaration"]');
  await page.click('#tab-hotspots');
  await page.waitForSelector('#list li[data-kind="hotspot"]');
  const rows = await page.$$eval('#list li[data-kind="hotspot"]', (els) => els.map((e) => e.textContent));
  assert.ok(rows.every((t) => /hb/.test(t)), rows.join(' | '));
  for (const text of rows) assert.doesNotMatch(text, /\d (s|ms|µs|ns)\b/, `a time in: ${text}`);
  await page.click('#tl-mode-flame');
  await page.waitForFunction(() => window.__leanscope.flame.graph && window.__leanscope.flame.graph.n > 1);
  assert.match(await page.textContent('#flame-path'), /hb/);
  await page.evaluate(() => window.__leanscope.flame.hoverAt(10, 8));
  const tip = await page.textContent('#flame-tip');
  assert.match(tip, /total .*hb/);
  assert.doesNotMatch(tip, /\d (s|ms|µs|ns)\b/);
  assert.deepEqual(errors, []);
  await page.close();
});
