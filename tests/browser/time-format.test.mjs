// The viewer's time format (viewer-wasm/www/viewer.js: `fmtNs`, and
// `fmtWindow` of the timeline's header), run from the page's own source:
// negative times (a window zoomed out past the recording's start) and
// large ones in the units of the rest, never raw nanoseconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.mjs';

/** The named functions of viewer.js, taken from its text, beside a
 *  `state` of the viewer's shape (what `viewMeasure` reads: no summary yet,
 *  so time). */
function viewerFunctions(...names) {
  const src = readFileSync(join(ROOT, 'viewer-wasm/www/viewer.js'), 'utf8');
  const bodies = names.map((name) => {
    const start = src.indexOf(`  function ${name}(`);
    assert.ok(start >= 0, `viewer.js defines ${name}`);
    const end = src.indexOf('\n  }\n', start);
    return src.slice(start, end + 4);
  });
  const state = 'const state = { summary: null, fileSummary: null };';
  return new Function(`${state}\n${bodies.join('\n')}\nreturn { state, ${names.join(', ')} };`)();
}

const { state, fmtNs, fmtWindow } = viewerFunctions('viewMeasure', 'fmtHb', 'fmtNs', 'fmtWindow');

test('times of either sign are written in the unit of their size', () => {
  assert.equal(fmtNs(-35902027578), '-35.902 s');
  assert.equal(fmtNs(1473663000000), '1473.663 s');
  assert.equal(fmtNs(-2500000), '-2.5 ms');
  assert.equal(fmtNs(-1500), '-2 µs');
  assert.equal(fmtNs(-999), '-999 ns');
  assert.equal(fmtNs(999), '999 ns');
  assert.equal(fmtNs(0), '0 ns');
  assert.equal(fmtNs(null), '—');
});

test("the timeline's header writes both ends in one unit", () => {
  // The case of the issue: zoomed out past the start of a 1436 s recording.
  assert.equal(fmtWindow(-35902027578, 1473663000000), '-35.902 s – 1473.663 s (1509.565 s shown)');
  assert.equal(fmtWindow(-23372305, 958200000), '-23.4 ms – 958.2 ms (981.6 ms shown)');
  assert.equal(fmtWindow(1000, 1500000000), '0.000 s – 1.500 s (1.500 s shown)');
});

test('a recording measured in heartbeats is written in heartbeats, its window too', () => {
  state.fileSummary = { measure: 'heartbeats' };
  try {
    assert.equal(fmtNs(52000), '52.0 k hb');
    assert.equal(fmtNs(850), '850 hb');
    assert.equal(fmtNs(-2500000), '-2.50 M hb');
    assert.equal(fmtWindow(0, 2500000), '0.00 M hb – 2.50 M hb (2.50 M hb shown)');
  } finally {
    state.fileSummary = null;
  }
  assert.equal(fmtNs(52000), '52 µs');
});
