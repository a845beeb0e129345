// The data's numbers as text, in what the data measures: a time in
// nanoseconds, or heartbeats for a recording measured in heartbeats (its
// summary's `measure`), written by the one rule of format.js.
import { formatSpread, formatValue } from './format.js';
import { state } from './state.js';

/** What the open file (else the session) measures: 'time', 'heartbeats' or
 *  'untimed' (a trace with no times: its values count trace nodes). */
export function viewMeasure() {
  const fs = state.fileSummary;
  if (fs && fs.measure) return fs.measure;
  return (state.summary && state.summary.measure) || 'time';
}

/** A time (ns) or a heartbeat count, `—` for none; `scale` (a magnitude)
 *  picks the unit, so that values shown together share one. */
export function fmtNs(ns, scale) {
  if (ns === null || ns === undefined) return '—';
  return formatValue(ns, viewMeasure(), scale);
}

/** The timeline's window: both ends in the unit of the larger one. */
export function fmtWindow(t0, t1) {
  const scale = Math.max(Math.abs(t0), Math.abs(t1));
  return `${fmtNs(Math.round(t0), scale)} – ${fmtNs(Math.round(t1), scale)} (${fmtNs(Math.round(t1 - t0))} shown)`;
}

/** A value of the session index (its rows hold milliseconds, or
 *  heartbeats for a heartbeat session) in the page's unit. */
export function rowNs(ms) {
  return Math.round(viewMeasure() === 'time' ? ms * 1e6 : ms);
}

/** A time over the runs of a repeated capture ({runs, median, min,
 *  max, q1?, q3?}, in ns or heartbeats), as format.js writes spreads. */
export function spreadText(sp) {
  return sp ? formatSpread(sp, viewMeasure()) : '';
}

/** A spread of index-row milliseconds (or heartbeats) in the page's unit. */
export function msSpread(sp) {
  if (!sp) return null;
  const ns = (v) => (v === null || v === undefined ? v : rowNs(v));
  return { runs: sp.runs, median: ns(sp.median), min: ns(sp.min), max: ns(sp.max), q1: ns(sp.q1), q3: ns(sp.q3) };
}

/** A details fact: the time, and its spread over runs; `none` for no time. */
export function timeFact(ns, spread, none) {
  if (ns === null || ns === undefined) return none;
  return spread ? `${fmtNs(ns)} (${spreadText(spread)})` : fmtNs(ns);
}

/** Which run the operations and the timeline come from, for a file of a
 *  repeated capture. */
export function runNote() {
  const r = state.fileSummary && state.fileSummary.runs;
  return r ? `Times are medians over ${r.runs} runs; operations and the timeline are run ${r.shownRepeat + 1}'s, the median run.` : null;
}
