// How the viewer writes times and heartbeat counts: format.js (the rule,
// the twin of recording::Measure::format_in_unit_of) over every row of
// fixtures/format/values.json, and measure.js, which writes the data's
// numbers with it (a time, or heartbeats for a recording measured in
// heartbeats) and owns the timeline header's window text: negative times
// (a window zoomed out past the recording's start) and large ones in the
// unit of the rest, never raw nanoseconds. Both modules are imported as the
// page imports them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './helpers.mjs';

const www = (file) => import(pathToFileURL(join(ROOT, 'viewer-wasm/www', file)).href);
const { formatValue, formatCount, formatPercent, formatRange } = await www('format.js');
const { fmtNs, fmtWindow } = await www('measure.js');
const { state } = await www('state.js');

test('format.js writes every value of fixtures/format/values.json as the table says', () => {
  const { cases } = JSON.parse(readFileSync(join(ROOT, 'fixtures/format/values.json'), 'utf8'));
  assert.ok(cases.length > 0);
  for (const c of cases) {
    assert.equal(formatValue(c.value, c.measure, c.scale), c.text, JSON.stringify(c));
  }
});

test('the other numbers: counts, shares, source ranges', () => {
  assert.equal(formatCount(0), '0');
  assert.equal(formatCount(999), '999');
  assert.equal(formatCount(1234567), '1,234,567');
  assert.equal(formatPercent(0.1234), '12.3%');
  assert.equal(formatPercent(null), '—');
  assert.equal(formatRange({ startLine: 2, startCol: 0, endLine: 6, endCol: 11 }), '3:1–7:12');
  assert.equal(formatRange(null), 'no range');
});

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
  state.summary = { measure: 'heartbeats' };
  try {
    assert.equal(fmtNs(52000), '52.0 k hb', "a session's measure, when no file is open");
  } finally {
    state.summary = null;
  }
  assert.equal(fmtNs(52000), '52 µs');
});
