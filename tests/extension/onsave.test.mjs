// Unit tests of profile on save, heartbeats and headroom in the editor,
// against the `vscode` stand-in: the save scheduler (debounce, a newer save
// cancels, one capture per file, the overall limit), stale lines, the
// heartbeat and headroom texts, the settings, the diagnostics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createVscodeStub, extensionModule } from './helpers.mjs';

const { vscode, test: stub } = createVscodeStub({});
const { SaveScheduler } = extensionModule('saveScheduler', vscode);
const { mapLines, splitLines } = extensionModule('staleLines', vscode);
const headroom = extensionModule('headroom', vscode);
const { headroomDiagnostics } = extensionModule('headroomProblems', vscode);
const { computeAnnotations, layoutAnnotations, staleNote } = extensionModule('annotations', vscode);
const settings = extensionModule('settings', vscode);
const { onSaveStatusText } = extensionModule('onSave', vscode);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A scheduler whose captures are promises the test settles, with a log. */
function harness(options) {
  const log = [];
  const runs = [];
  const states = [];
  const s = new SaveScheduler((key, token) => new Promise((resolve) => {
    const run = { key, token, done: () => { log.push(`end ${key}`); resolve(); } };
    log.push(`start ${key}`);
    // The sidecar answers a cancel once Lean is stopped: here at once.
    token.onCancellationRequested(() => { log.push(`cancel ${key}`); setTimeout(run.done, 5); });
    runs.push(run);
  }), () => options, (st) => states.push(st));
  return { s, log, runs, states };
}

test('on save: the debounce restarts with each save; one capture after the last', async () => {
  const { s, log } = harness({ delayMs: 40, maxConcurrent: 2 });
  s.saved('a');
  await sleep(20);
  s.saved('a');
  await sleep(25);
  assert.deepEqual(log, [], 'still waiting: the second save restarted the delay');
  assert.deepEqual(s.state(), { running: [], waiting: ['a'] });
  await sleep(40);
  assert.deepEqual(log, ['start a']);
  assert.deepEqual(s.state(), { running: ['a'], waiting: [] });
  s.dispose();
});

test('on save: a newer save cancels the file\'s running capture, and the next starts only after it stopped', async () => {
  const { s, log, runs } = harness({ delayMs: 0, maxConcurrent: 2 });
  s.saved('a');
  await sleep(10);
  assert.deepEqual(log, ['start a']);
  s.saved('a');
  assert.equal(runs[0].token.isCancellationRequested, true, 'cancelled at the save, not after the delay');
  await sleep(30);
  // One capture per file: the second started after the first ended.
  assert.deepEqual(log, ['start a', 'cancel a', 'end a', 'start a']);
  assert.equal(runs[1].token.isCancellationRequested, false);
  runs[1].done();
  await sleep(5);
  assert.deepEqual(s.state(), { running: [], waiting: [] });
  s.dispose();
});

test('on save: at most maxConcurrent captures at once; the others wait in the order saved', async () => {
  const { s, log, runs, states } = harness({ delayMs: 0, maxConcurrent: 2 });
  for (const k of ['a', 'b', 'c', 'd']) s.saved(k);
  await sleep(10);
  assert.deepEqual(log, ['start a', 'start b']);
  assert.deepEqual(s.state(), { running: ['a', 'b'], waiting: ['c', 'd'] });
  assert.equal(onSaveStatusText({ running: ['file:///p/A.lean'], waiting: ['file:///p/C.lean'] }),
    '$(sync~spin) leanscope: profiling A.lean on save (+1 waiting)');
  assert.equal(onSaveStatusText({ running: [], waiting: [] }), undefined);
  runs[1].done();
  await sleep(5);
  assert.deepEqual(log, ['start a', 'start b', 'end b', 'start c']);
  runs[0].done(); runs[2].done();
  await sleep(5);
  assert.deepEqual(log.slice(4), ['end a', 'end c', 'start d']);
  runs[3].done();
  await sleep(5);
  assert.deepEqual(states.at(-1), { running: [], waiting: [] });
  s.dispose();
});

test('on save: dispose cancels what runs and forgets what waits', async () => {
  const { s, log, runs } = harness({ delayMs: 0, maxConcurrent: 1 });
  s.saved('a'); s.saved('b');
  await sleep(10);
  s.saved('c');
  s.dispose();
  await sleep(30);
  assert.equal(runs[0].token.isCancellationRequested, true);
  assert.deepEqual(log, ['start a', 'cancel a', 'end a'], 'b and c never start');
});

test('stale lines: a changed line, lines inserted and removed, nothing changed', () => {
  const rec = ['a', 'b', 'c', 'd', 'e'];
  let m = mapLines(rec, ['a', 'B', 'c', 'd', 'e']);
  assert.deepEqual(rec.map((_, i) => [m.at(i), m.changed(i)]), [[0, false], [1, true], [2, false], [3, false], [4, false]]);
  assert.equal(m.rangeChanged(0, 1), true);
  assert.equal(m.rangeChanged(2, 4), false);
  m = mapLines(rec, ['a', 'x', 'y', 'b', 'c', 'd', 'e']);
  assert.deepEqual(rec.map((_, i) => m.at(i)), [0, 3, 4, 5, 6], 'two lines inserted after a');
  assert.ok(rec.every((_, i) => !m.changed(i)));
  assert.equal(m.rangeChanged(0, 1), true, 'an insertion inside a range changes it');
  assert.equal(m.rangeChanged(1, 3), false);
  m = mapLines(rec, ['a', 'd', 'e']);
  assert.deepEqual(rec.map((_, i) => m.at(i)), [0, undefined, undefined, 1, 2]);
  m = mapLines(rec, [...rec]);
  assert.ok(rec.every((_, i) => m.at(i) === i && !m.changed(i)) && !m.rangeChanged(0, 4));
  // Edits far apart: the lines between them count as changed.
  m = mapLines(rec, ['A', 'b', 'c', 'd', 'E']);
  assert.deepEqual(rec.map((_, i) => m.changed(i)), [true, true, true, true, true]);
  assert.deepEqual(splitLines('x\r\ny\nz'), ['x', 'y', 'z']);
});

test('stale annotations: laid out over the edited buffer; a failure makes all stale and the hover says why', () => {
  const answer = {
    stale: false, sourceSha256: '', fileNs: 100, shareBasis: 'elapsed', measure: 'heartbeats',
    lines: [
      { line: 0, events: 1, totalNs: 12_000_000, selfNs: 12_000_000, share: 0.5, selfShare: 0.5, top: [] },
      { line: 2, events: 1, totalNs: 850, selfNs: 850, share: 0.01, selfShare: 0.01, top: [] },
    ],
    declarations: [
      { index: 0, name: 'f', kind: 'def', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 9 } }, selectionRange: { start: { line: 0, character: 4 }, end: { line: 0, character: 5 } }, generated: false, events: 1, totalNs: 12_000_000, selfNs: 12_000_000, share: 0.5, selfShare: 0.5 },
      { index: 1, name: 'g', kind: 'def', range: { start: { line: 2, character: 0 }, end: { line: 2, character: 9 } }, selectionRange: { start: { line: 2, character: 4 }, end: { line: 2, character: 5 } }, generated: false, events: 1, totalNs: 850, selfNs: 850, share: 0.01, selfShare: 0.01 },
    ],
  };
  const c = computeAnnotations(answer);
  // Heartbeats in the line text and the lens, raw with k/M (1 k hb = 1 unit of maxHeartbeats).
  assert.deepEqual(c.lines.map((l) => l.text), ['12.0 M hb (50%)', '850 hb (1%)']);
  assert.equal(c.lenses[0].title, '12.0 M hb · self 12.0 M hb · 50% of file heartbeats');
  const map = mapLines(['def f := 1', '', 'def g := 2'], ['def f := 1', '', 'def g := 3']);
  const l = layoutAnnotations(c, map, false);
  assert.deepEqual(l.lines.map((x) => [x.at, x.stale]), [[0, false], [2, true]]);
  assert.deepEqual(l.lenses.map((x) => [x.at, x.stale]), [[0, false], [2, true]]);
  const failed = layoutAnnotations(c, undefined, true);
  assert.ok(failed.lines.every((x) => x.stale) && failed.lenses.every((x) => x.stale));
  assert.equal(staleNote('lake exited with status 1\nlast line'),
    '**stale**: the last capture of this file failed: lake exited with status 1 last line. These are the previous capture\'s numbers.');
});

const decl = (name, h, line = 12) => ({
  index: 0, name, kind: 'theorem', range: { start: { line, character: 0 }, end: { line: line + 2, character: 0 } },
  selectionRange: { start: { line, character: 8 }, end: { line, character: 8 + name.length } }, generated: false,
  events: 1, totalNs: h.maxHeartbeats.heartbeats, selfNs: 0, share: 1, selfShare: 0, headroom: h,
});

test('headroom: the share of the limit in force, where it was set, the warning and the unneeded bump', () => {
  // 340 M hb under `set_option maxHeartbeats 400000 in` (line 12): 85 %.
  const hot = { maxHeartbeats: { limit: 400000, from: 'in', line: 12, heartbeats: 340_000_000, share: 0.85, default: 200000, bumpNotNeeded: false } };
  assert.equal(headroom.lensHeadroom(hot, 0.8), ' · 85% of maxHeartbeats 400000');
  assert.deepEqual(headroom.overThreshold(hot, 0.8), ['85% of maxHeartbeats 400000 (`set_option maxHeartbeats 400000 in` on line 12)']);
  assert.deepEqual(headroom.overThreshold(hot, 0.9), []);
  const d = decl('Demo.slow', hot);
  assert.deepEqual(headroom.hoverHeadroom(d, 0.8), [
    '**Demo.slow** · maxHeartbeats: used 340 M hb = 85% of maxHeartbeats 400000, set by `set_option maxHeartbeats 400000 in` on line 12 (default 200000)',
    '\n\n⚠ over the warning threshold of 80%: 85% of maxHeartbeats 400000 (`set_option maxHeartbeats 400000 in` on line 12)',
  ]);
  // A bump not needed: 12 M hb under 400000, 6 % of the default 200000.
  const cool = { maxHeartbeats: { limit: 400000, from: 'in', line: 3, heartbeats: 12_000_000, share: 0.03, default: 200000, bumpNotNeeded: true } };
  assert.equal(headroom.bumpText(decl('Demo.fast', cool)), 'Demo.fast used 12.0 M hb, 6% of the default maxHeartbeats 200000');
  // No limit; the default; the file's option; an instance search.
  assert.equal(headroom.shareOfLimit({ limit: 0, from: 'file', line: 1, heartbeats: 5, default: 200000 }, 'maxHeartbeats'), 'maxHeartbeats 0 (no limit)');
  assert.equal(headroom.limitOrigin({ limit: 200000, from: 'default', heartbeats: 5, share: 0, default: 200000 }, 'maxHeartbeats'), 'Lean\'s default');
  assert.equal(headroom.limitOrigin({ limit: 1000, from: 'file', line: 2, heartbeats: 5, share: 0, default: 200000 }, 'maxHeartbeats'), '`set_option maxHeartbeats 1000` on line 2');
  const inst = { ...cool, maxHeartbeats: { ...cool.maxHeartbeats, bumpNotNeeded: false }, synthInstance: { limit: 20000, from: 'default', heartbeats: 18_000_000, share: 0.9, default: 20000, instance: 'Decidable (x = y)' } };
  assert.equal(headroom.lensHeadroom(inst, 0.8), ' · 3% of maxHeartbeats 400000 · instance 90% of synthInstance.maxHeartbeats 20000');
  assert.deepEqual(headroom.overThreshold(inst, 0.8), ['an instance search (Decidable (x = y)) used 90% of synthInstance.maxHeartbeats 20000']);
  assert.equal(headroom.percent(0.001), '<1%');
  assert.equal(headroom.percent(12.5), '>999%');

  // The diagnostics: a warning on the hot declaration's name, a faded hint
  // on the unneeded bump's line; each can be turned off.
  const on = { threshold: 0.8, problems: true, bumpHints: true };
  const diags = headroomDiagnostics([decl('Demo.slow', hot), decl('Demo.fast', cool, 4)], on);
  assert.deepEqual(diags.map((x) => [x.code, x.severity, x.range.start.line, x.range.start.character, x.source]),
    [['headroom', vscode.DiagnosticSeverity.Warning, 12, 8, 'leanscope'], ['bumpNotNeeded', vscode.DiagnosticSeverity.Information, 2, 0, 'leanscope']]);
  assert.equal(diags[0].message, 'Demo.slow is close to its heartbeat limit: 85% of maxHeartbeats 400000 (`set_option maxHeartbeats 400000 in` on line 12).');
  assert.equal(diags[1].message, 'set_option maxHeartbeats 400000 in is not needed: Demo.fast used 12.0 M hb, 6% of the default maxHeartbeats 200000.');
  assert.deepEqual(diags[1].tags, [vscode.DiagnosticTag.Unnecessary]);
  assert.deepEqual(headroomDiagnostics([decl('Demo.slow', hot), decl('Demo.fast', cool, 4)], { ...on, problems: false }).map((x) => x.code), ['bumpNotNeeded']);
  assert.deepEqual(headroomDiagnostics([decl('Demo.slow', hot), decl('Demo.fast', cool, 4)], { ...on, bumpHints: false }).map((x) => x.code), ['headroom']);

  // The CodeLens and the warning decoration's text.
  const c = computeAnnotations({ stale: false, sourceSha256: '', fileNs: 1, shareBasis: 'elapsed', measure: 'heartbeats', lines: [], declarations: [decl('Demo.slow', hot)] }, 0.8);
  assert.equal(c.lenses[0].title, '340 M hb · self 0.00 M hb · 100% of file heartbeats · 85% of maxHeartbeats 400000');
  // Short after the line; the hover says it whole (and Problems, above).
  assert.equal(c.lenses[0].warning, '⚠ 85%');
  assert.ok(c.lenses[0].headroomHover.join('').includes('⚠ over the warning threshold of 80%: 85% of maxHeartbeats 400000 (`set_option maxHeartbeats 400000 in` on line 12)'));
});

test('settings: leanscope.measure heartbeats sends measure and thresholdHeartbeats, never thresholdMs; on-save and headroom settings', () => {
  stub.settings['leanscope.measure'] = 'heartbeats';
  stub.settings['leanscope.thresholdMs'] = 25;
  const file = vscode.Uri.file('/p/Demo/A.lean');
  assert.deepEqual(settings.captureParams(file), { uri: file.toString(), measure: 'heartbeats', thresholdHeartbeats: 1000000 });
  stub.settings['leanscope.thresholdHeartbeats'] = 5000.7;
  assert.deepEqual(settings.folderCaptureParams(vscode.Uri.file('/p/Demo'), '/p', false, new Date('2026-01-02T03:04:05Z')).thresholdHeartbeats, 5000);
  stub.settings['leanscope.measure'] = 'bogus';
  assert.deepEqual(settings.captureParams(file), { uri: file.toString(), thresholdMs: 25 });
  assert.deepEqual(settings.onSaveSettings(), { enabled: false, delayMs: 1000, maxConcurrent: 2 });
  Object.assign(stub.settings, { 'leanscope.profile.onSave': true, 'leanscope.profile.onSaveDelayMs': -5, 'leanscope.profile.onSaveMaxConcurrent': 99 });
  assert.deepEqual(settings.onSaveSettings(), { enabled: true, delayMs: 0, maxConcurrent: 8 });
  assert.deepEqual(settings.headroomSettings(), { threshold: 0.8, problems: true, bumpHints: true });
  Object.assign(stub.settings, { 'leanscope.headroom.warnPercent': 50, 'leanscope.headroom.problems': false });
  assert.deepEqual(settings.headroomSettings(), { threshold: 0.5, problems: false, bumpHints: true });
  assert.equal(settings.bumpNotNeededBelow(), 0.5);
  stub.settings['leanscope.headroom.bumpNotNeededBelowPercent'] = 150;
  assert.equal(settings.bumpNotNeededBelow(), 1);
  stub.settings['leanscope.headroom.bumpNotNeededBelowPercent'] = 25;
  assert.equal(settings.bumpNotNeededBelow(), 0.25);
});
