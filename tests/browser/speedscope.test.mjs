// leanscope's exports in speedscope (npm `speedscope`, served locally, in
// Chromium): its Chrome trace and speedscope exports, of a capture through
// the fake toolchain and of a 300k-event synthetic recording, import
// without a warning, with every event a call, each thread's total time the
// recording's, and no call left open.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, leanscope, leanscopeBin, tempDir, fakeLean } from './helpers.mjs';
import { serveSpeedscope, launchForSpeedscope, loadInSpeedscope, exportedBySpeedscope } from './speedscope.mjs';

let work; let site; let browser;
const recordings = {};

/** The largest recording of a session captured through the fake toolchain. */
function capturedRecording() {
  const project = join(work, 'demo');
  cpSync(join(ROOT, 'fixtures/projects/demo'), project, { recursive: true });
  rmSync(join(project, 'Demo/Huge.lean'));
  const bin = join(work, 'bin');
  mkdirSync(bin);
  for (const name of ['lake', 'lean']) symlinkSync(fakeLean(), join(bin, name));
  const session = join(work, 'session');
  const run = spawnSync(leanscopeBin(), ['profile', '--project', project, '-o', session], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:/usr/bin:/bin`, HOME: work,
      LEANSCOPE_FAKE_FIXTURES: join(ROOT, 'fixtures/lean-output'), LEANSCOPE_FAKE_DELAY_SCALE: '0' },
  });
  assert.equal(run.stdout.trim(), session, run.stderr);
  const files = [];
  const walk = (d) => {
    for (const f of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, f.name);
      if (f.isDirectory()) walk(p);
      else if (f.name.endsWith('.lsrec')) files.push([statSync(p).size, p]);
    }
  };
  walk(session);
  files.sort((a, b) => b[0] - a[0]);
  assert.ok(files.length > 0, 'the capture wrote recordings');
  return files[0][1];
}

/** Per thread (by tid), from leanscope's own Chrome export: its events and
 *  the exact first start and last end (the events' `ns`). With `merged`, a lane
 *  (a tid its `leanscope_lane` event gives to a thread) counts as its
 *  thread, as in the recording; else each tid on its own, as speedscope
 *  reads a trace. */
function threadsOf(traceFile, merged = false) {
  const doc = JSON.parse(readFileSync(traceFile, 'utf8'));
  const laneOf = new Map();
  for (const e of doc.traceEvents) {
    if (merged && e.ph === 'M' && e.name === 'leanscope_lane') laneOf.set(e.tid, e.args.thread);
  }
  const threads = new Map();
  for (const e of doc.traceEvents) {
    if (e.ph !== 'X') continue;
    const [start, dur] = e.ns;
    const tid = laneOf.get(e.tid) ?? e.tid;
    const t = threads.get(tid) || { events: 0, first: Infinity, last: 0, frames: new Set() };
    t.events += 1;
    t.first = Math.min(t.first, start);
    t.last = Math.max(t.last, start + dur);
    // speedscope's frame of a trace event: its name, and its `args` when
    // it has them (the source location; the exact times are not there, so
    // the calls of one step at one place are one frame).
    const name = e.name || '(unnamed)';
    t.frames.add(e.args ? `${name} ${JSON.stringify(e.args)}` : name);
    threads.set(tid, t);
  }
  return threads;
}

before(async () => {
  work = tempDir('speedscope-test');
  site = await serveSpeedscope();
  browser = await launchForSpeedscope();
  const synth = join(work, 'synth.lsrec');
  leanscope('synth', '--events', '300000', '--threads', '3', '--out', synth);
  for (const [name, rec] of [['captured', capturedRecording()], ['synth', synth]]) {
    const events = JSON.parse(leanscope('info', rec, '--json')).events;
    for (const format of ['chrome', 'speedscope']) {
      const file = `${name}.${format === 'chrome' ? 'trace' : 'speedscope'}.json`;
      leanscope('export', rec, '--format', format, '--out', join(site.dir, file));
    }
    const trace = join(site.dir, `${name}.trace.json`);
    recordings[name] = { events, threads: threadsOf(trace), recorded: threadsOf(trace, true) };
  }
});

after(async () => {
  if (browser) await browser.close();
  if (site) site.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

for (const name of ['captured', 'synth']) {
  test(`speedscope reads the Chrome trace export of the ${name} recording as recorded`, async () => {
    const { events, threads } = recordings[name];
    const { page, warnings } = await loadInSpeedscope(browser, site.url, `${name}.trace.json`);
    assert.deepEqual(warnings, []);
    const got = await exportedBySpeedscope(page);
    await page.close();
    assert.equal(got.profiles.length, threads.size);
    let calls = 0;
    for (const p of got.profiles) {
      const tid = Number(/\(tid (\d+)\)/.exec(p.name)[1]);
      const t = threads.get(tid);
      assert.equal(p.unit, 'microseconds');
      assert.equal(p.opened, t.events, `calls of ${p.name}`);
      assert.equal(p.leftOpen, 0);
      assert.equal(p.mismatched, 0);
      // Microseconds in steps of 1/1024: the first start and the last end
      // rounded down to a step, exactly.
      const step = (ns) => Math.floor((ns * 128) / 125);
      assert.equal(p.total, (step(t.last) - step(t.first)) / 1024, `total of ${p.name}`);
      calls += p.opened;
    }
    assert.equal(calls, events);
    // Its frames: each event's name with its `args` (speedscope's frame
    // of a trace event): one per step and source location, not per call.
    // speedscope keeps a set of frames per thread (profile), and its
    // export lists each thread's own.
    const want = new Set([...threads.values()].flatMap((t) => [...t.frames]));
    const perThread = [...threads.values()].reduce((n, t) => n + t.frames.size, 0);
    assert.equal(got.frames.length, perThread);
    assert.ok(perThread < events, `${perThread} frames for ${events} events`);
    for (const f of got.frames) assert.ok(want.has(f.name), f.name);
  });

  test(`speedscope reads the speedscope export of the ${name} recording as recorded`, async () => {
    const { events, recorded: threads } = recordings[name];
    const file = `${name}.speedscope.json`;
    const { page, warnings } = await loadInSpeedscope(browser, site.url, file);
    assert.deepEqual(warnings, []);
    const got = await exportedBySpeedscope(page);
    await page.close();
    const ours = JSON.parse(readFileSync(join(site.dir, file), 'utf8'));
    assert.equal(got.profiles.length, threads.size);
    assert.equal(got.frames.length, ours.shared.frames.length);
    const tids = [...threads.keys()].sort((a, b) => a - b);
    let calls = 0;
    got.profiles.forEach((p, k) => {
      const t = threads.get(tids[k]);
      assert.equal(p.unit, 'nanoseconds');
      assert.equal(p.opened, t.events, `calls of ${p.name}`);
      assert.equal(p.leftOpen, 0);
      assert.equal(p.mismatched, 0);
      assert.equal(p.total, t.last - t.first, `total of ${p.name}`);
      calls += p.opened;
    });
    assert.equal(calls, events);
  });
}
