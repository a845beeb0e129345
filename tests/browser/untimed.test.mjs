// A trace Lean printed without `trace.profiler` (no times at all), imported
// with `leanscope import` and opened with `leanscope view` in headless
// Chromium: the recording's measure is `untimed`, and the viewer shows counts
// of trace nodes, never a time (no "0 ns" anywhere on the page).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, leanscope, tempDir, startView, launchBrowser } from './helpers.mjs';

let dir; let rec; let view; let browser;
const TIME = /\d (s|ms|µs|ns|hb)\b/;

before(async () => {
  dir = tempDir('untimed');
  rec = join(dir, 'untimed.lsrec');
  leanscope('import', join(ROOT, 'fixtures/shared-text/untimed-elab-step-trace.txt'), '-o', rec);
  view = await startView(rec);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (view) view.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the viewer shows an untimed trace as counts of trace nodes, never as times', async () => {
  const info = JSON.parse(leanscope('info', '--json', rec));
  assert.equal(info.measure, 'untimed');
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(view.url);
  await page.waitForFunction(() => document.querySelector('#file-facts') && document.querySelector('#file-facts').dataset.events);
  const facts = await page.textContent('#file-facts');
  assert.match(facts, /nodes?\b/, facts);
  assert.doesNotMatch(facts, TIME, `a time in: ${facts}`);
  // the hot spots: each key's count of nodes (3 `constructor` steps, 12 nodes in all)
  await page.click('#tab-hotspots');
  await page.waitForSelector('#list li[data-kind="hotspot"]');
  const rows = await page.$$eval('#list li[data-kind="hotspot"]', (els) => els.map((e) => e.textContent));
  assert.ok(rows.some((t) => t.includes('constructor') && t.includes('3 nodes')), rows.join(' | '));
  for (const text of rows) assert.doesNotMatch(text, TIME, `a time in: ${text}`);
  // the flame graph's path and tooltip count nodes too
  await page.click('#tl-mode-flame');
  await page.waitForFunction(() => window.__leanscope.flame.graph && window.__leanscope.flame.graph.n > 1);
  assert.match(await page.textContent('#flame-path'), /nodes?\b/);
  await page.evaluate(() => window.__leanscope.flame.hoverAt(10, 8));
  const tip = await page.textContent('#flame-tip');
  assert.match(tip, /nodes?\b/, tip);
  assert.doesNotMatch(tip, TIME, tip);
  // nowhere on the page a time
  const body = await page.evaluate(() => document.body.innerText);
  assert.doesNotMatch(body, TIME, `a time on the page: ${body.match(new RegExp(`.{0,40}${TIME.source}.{0,20}`))}`);
  assert.deepEqual(errors, []);
  await page.close();
});
