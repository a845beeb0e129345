// A capture Lean did not finish (`--timeout`) and its memory: the four theorems of
// 300 ms, 200 ms, 5 s and 100 ms, the third holding 64 MiB, stopped after 2 s. Opened with
// `leanscope view` in headless Chromium: the file is said to be partial, the third theorem's
// open event is drawn as unfinished, and the memory lane under the timeline says, on hover,
// the value and the command running.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, leanscope, leanscopeBin, tempDir, startView, launchBrowser, fakeLean } from './helpers.mjs';

let dir; let rec; let view; let browser;

// The file of the test, a fixture the code-server test shares.
const BLOW = readFileSync(join(ROOT, 'fixtures/runaway/Blow.lean'), 'utf8');

before(async () => {
  dir = tempDir('runaway');
  const project = join(dir, 'demo');
  cpSync(join(ROOT, 'fixtures/projects/demo'), project, { recursive: true });
  writeFileSync(join(project, 'Demo/Blow.lean'), BLOW);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const name of ['lake', 'lean']) symlinkSync(fakeLean(), join(bin, name));
  rec = join(dir, 'blow.lsrec');
  const run = spawnSync(leanscopeBin(), ['profile', join(project, 'Demo/Blow.lean'), '--timeout', '2', '-o', rec], {
    encoding: 'utf8',
    cwd: project,
    env: { ...process.env, PATH: `${bin}:/usr/bin:/bin`, HOME: dir, LEANSCOPE_FAKE_FIXTURES: join(ROOT, 'fixtures/lean-output') },
  });
  assert.equal(run.status, 3, run.stderr);
  view = await startView(rec);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (view) view.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a stopped capture: said partial, its event in flight drawn unfinished, its memory lane hovered', async () => {
  const info = JSON.parse(leanscope('info', '--json', rec));
  assert.equal(info.capture.status, 'stopped');
  assert.equal(info.stop.inFlight.declaration, 'third');
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(view.url);
  await page.waitForFunction(() => document.querySelector('#file-facts') && document.querySelector('#file-facts').dataset.events);
  const facts = await page.textContent('#file-facts');
  assert.match(facts, /status stopped/);
  assert.match(facts, /partial: Lean did not finish within 2 s and was stopped; unfinished: third/);
  // The open event: found, on a timeline row, its end the stop.
  await page.waitForFunction(() => window.__leanscope.timeline.unfinished !== null);
  const u = await page.evaluate(() => window.__leanscope.timeline.unfinished);
  assert.equal(u.event, info.stop.inFlight.event);
  assert.equal(u.row, 0);
  assert.equal(u.endNs - u.startNs, info.stop.inFlight.runningNs);
  // The memory lane: shown, its peak the recording's, and its hover names the command.
  assert.equal(await page.isHidden('#memory-wrap'), false);
  const lane = await page.evaluate(() => window.__leanscope.memoryLane.shown);
  assert.equal(lane.peakBytes, info.memory.peakBytes);
  assert.match(await page.textContent('#memory-title'), /peak \d+(\.\d)? MiB/);
  const box = await page.$eval('#memory-lane', (c) => ({ w: c.clientWidth }));
  // Hover near the right end: the stretch of the command in flight.
  await page.hover('#memory-lane', { position: { x: box.w - 3, y: 20 } });
  await page.waitForSelector('#memory-tip:not([hidden])');
  const tip = await page.textContent('#memory-tip');
  assert.match(tip, /^\d+(\.\d)? MiB at [\d.]+ (s|ms): running third \(unfinished: Lean was stopped\), which grew it by \d+(\.\d)? MiB$/, tip);
  const grew = lane.commands.find((c) => c.open);
  assert.ok(grew.growthBytes > 60 * 1048576, JSON.stringify(grew));
  assert.deepEqual(errors, []);
  await page.close();
});
