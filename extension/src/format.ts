// How times and shares read in the editor. One place for every label.
import type { WholeSpread } from './protocol';

const UNITS: Array<[number, string]> = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs'], [1, 'ns']];

function unitOf(ns: number): [number, string] {
  for (const u of UNITS) if (Math.abs(ns) >= u[0]) return u;
  return UNITS[UNITS.length - 1];
}

function digits(value: number): string {
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** `1.24 s`, `310 ms`, `12.5 ms`, `850 µs`, `12 ns`. */
export function formatNs(ns: number): string {
  const [scale, unit] = unitOf(ns);
  if (scale === 1) return `${Math.round(ns)} ns`;
  return `${digits(ns / scale)} ${unit}`;
}

/** What a recording's numbers count: nanoseconds, or Lean's heartbeats
 * (`profile --measure heartbeats`). */
export type Measure = 'time' | 'heartbeats';

const HB_UNITS: Array<[number, string]> = [[1e12, 'T hb'], [1e9, 'G hb'], [1e6, 'M hb'], [1e3, 'k hb'], [1, 'hb']];

function hbUnitOf(hb: number): [number, string] {
  for (const u of HB_UNITS) if (Math.abs(hb) >= u[0]) return u;
  return HB_UNITS[HB_UNITS.length - 1];
}

/** `12.4 k hb`, `3.21 M hb`, `850 hb` (as the sidecar and the viewer print them). */
export function formatHeartbeats(hb: number): string {
  const [scale, unit] = hbUnitOf(hb);
  if (scale === 1) return `${Math.round(hb)} hb`;
  return `${digits(hb / scale)} ${unit}`;
}

/** A value of `measure`: a time for people, or heartbeats. */
export function formatValue(v: number, measure: Measure = 'time'): string {
  return measure === 'heartbeats' ? formatHeartbeats(v) : formatNs(v);
}

/** `ns` in the unit `reference` would be shown in, with two decimals (for
 * `self 0.31 s` next to `1.24 s`). */
export function formatNsLike(ns: number, reference: number): string {
  const [scale, unit] = unitOf(reference);
  if (scale === 1) return `${Math.round(ns)} ns`;
  return `${(ns / scale).toFixed(2)} ${unit}`;
}

/** [`formatNsLike`], or its heartbeat twin: `self 3.10 k hb` beside `12.4 k hb`. */
export function formatLike(v: number, reference: number, measure: Measure = 'time'): string {
  if (measure !== 'heartbeats') return formatNsLike(v, reference);
  const [scale, unit] = hbUnitOf(reference);
  if (scale === 1) return `${Math.round(v)} hb`;
  return `${(v / scale).toFixed(2)} ${unit}`;
}

/** `38%`; `<1%` for a share above zero that rounds to 0; `null` → `null`. */
export function formatShare(share: number | null): string | null {
  if (share === null || share === undefined) return null;
  const p = Math.round(share * 100);
  if (p === 0 && share > 0) return '<1%';
  return `${p}%`;
}

/** `4 runs`, or `2 of 4 runs` for a time only some runs of `of` have. */
export function runCount(runs: number, of?: number): string {
  const n = of !== undefined && runs < of ? `${runs} of ${of}` : `${runs}`;
  return `${n} run${(of ?? runs) === 1 ? '' : 's'}`;
}

/** A time over runs: `median of 4 runs · min–max 10.0 ms–50.0 ms · IQR
 * 17.5 ms–35.0 ms` (the IQR from 4 runs; heartbeats stay heartbeats). `of`:
 * the runs of the capture, when the time is in fewer. */
export function spreadText(s: WholeSpread, measure: Measure = 'time', of?: number): string {
  const v = (x: number): string => formatValue(x, measure);
  const parts = [`median of ${runCount(s.runs, of)}`, `min–max ${v(s.min)}–${v(s.max)}`];
  if (typeof s.q1 === 'number' && typeof s.q3 === 'number') parts.push(`IQR ${v(s.q1)}–${v(s.q3)}`);
  return parts.join(' · ');
}

/** The CodeLens title: `1.24 s · self 0.31 s · 38% of file`; over the runs
 * of a repeated capture (`runs`, of the capture's `of`), `median 1.24 s (4
 * runs) · self 0.31 s · 38% of file`. */
export function lensTitle(totalNs: number, selfNs: number | null, share: number | null, measure: Measure = 'time',
  runs?: number, of?: number): string {
  const parts = [runs !== undefined ? `median ${formatValue(totalNs, measure)} (${runCount(runs, of)})` : formatValue(totalNs, measure)];
  if (selfNs !== null) parts.push(`self ${formatLike(selfNs, totalNs, measure)}`);
  const s = formatShare(share);
  if (s !== null) parts.push(`${s} of file`);
  return parts.join(' · ');
}
