// How times, counts and shares read in the editor. Every time and heartbeat
// count goes through `formatValue` of viewer-wasm/www/format.js, the rule the
// CLI (recording::Measure::format_in_unit_of) and the viewer use too, so the
// editor and the viewer print the same number the same way
// (fixtures/format/values.json pins all three).
import { formatBytes as formatBytesWithRule, formatRunCount, formatSpread, formatValue as formatWithRule } from '../../viewer-wasm/www/format.js';
import type { FileAccount, WholeSpread } from './protocol';

/** What a recording's numbers count: nanoseconds, or Lean's heartbeats
 * (`profile --measure heartbeats`). */
export type Measure = 'time' | 'heartbeats' | 'untimed';

/** A value of `measure` in the unit of its own size, or of `scale` when
 * given (so values shown together share one: `0.310 s` beside `1.240 s`):
 * `1.240 s`, `310.0 ms`, `850 µs`, `12 ns`; `12.4 k hb`, `850 hb`. */
export function formatValue(v: number, measure: Measure = 'time', scale?: number): string {
  return formatWithRule(v, measure, scale);
}

/** Bytes for people: `300 MiB`, `12.5 MiB` (the viewer's and the CLI's rule). */
export function formatBytes(bytes: number): string { return formatBytesWithRule(bytes); }

/** A time in nanoseconds: `1.240 s`, `310.0 ms`, `850 µs`, `12 ns`. */
export function formatNs(ns: number): string { return formatValue(ns, 'time'); }

/** A heartbeat count: `12.4 k hb`, `3.21 M hb`, `850 hb`. */
export function formatHeartbeats(hb: number): string { return formatValue(hb, 'heartbeats'); }

/** `38%`; `<1%` for a share above zero that rounds to 0; `null` → `null`. */
export function formatShare(share: number | null): string | null {
  if (share === null || share === undefined) return null;
  const p = Math.round(share * 100);
  if (p === 0 && share > 0) return '<1%';
  return `${p}%`;
}

/** `4 runs`, or `2 of 4 runs` for a time only some runs of `of` have. */
export function runCount(runs: number, of?: number): string {
  return formatRunCount(runs, of);
}

/** A time over runs: `median of 4 runs · min–max 10.0 ms–50.0 ms · IQR
 * 17.5 ms–35.0 ms` (the IQR from 4 runs; heartbeats stay heartbeats), as the
 * viewer writes it. `of`: the runs of the capture, when the time is in fewer. */
export function spreadText(s: WholeSpread, measure: Measure = 'time', of?: number): string {
  return formatSpread(s, measure, of);
}

/** What a share is of, in words: the file's wall time (Lean's elapsed
 * time, imports included), its traced time (no elapsed time was reported, or
 * it was shorter than what was recorded), or its heartbeats. */
export function shareDenominator(basis: 'elapsed' | 'traced' = 'elapsed', measure: Measure = 'time'): string {
  if (measure === 'heartbeats') return 'of file heartbeats';
  if (measure === 'untimed') return 'of file trace nodes';
  return basis === 'elapsed' ? 'of file wall time' : 'of traced time';
}

/** `1 call`, `2 calls`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Said beside a share when the declarations' shares add past 100 %: they
 * ran in parallel. `undefined` when they fit. */
export function parallelNote(shareSum: number | undefined, threads: number | undefined): string | undefined {
  if (shareSum === undefined || Math.round(shareSum * 100) <= 100) return undefined;
  const on = threads !== undefined && threads > 1 ? `ran on ${plural(threads, 'thread')}` : 'ran in parallel';
  return `${on}; shares add to more than 100%`;
}

/** The CodeLens title: `1.240 s · self 0.310 s · 38% of file wall time`
 * (the self time in the unit of the total; `denominator` what the share is
 * of, `parallel` said after it); over the runs of a repeated capture
 * (`runs`, of the capture's `of`), `median 1.240 s (4 runs) · self 0.310 s ·
 * 38% of file wall time`. */
export function lensTitle(totalNs: number, selfNs: number | null, share: number | null, measure: Measure = 'time',
  runs?: number, of?: number, denominator = shareDenominator('elapsed', measure), parallel?: string): string {
  const parts = [runs !== undefined ? `median ${formatValue(totalNs, measure)} (${runCount(runs, of)})` : formatValue(totalNs, measure)];
  if (selfNs !== null) parts.push(`self ${formatValue(selfNs, measure, totalNs)}`);
  const s = formatShare(share);
  if (s !== null) parts.push(`${s} ${denominator}${parallel ? ` (${parallel})` : ''}`);
  return parts.join(' · ');
}

/** Where a file's time went, in one line: `151.7 ms of wall time: imports
 * 118.0 ms · traced elaboration 31.2 ms · untraced 2.5 ms`; when the traced
 * work overlaps (threads at once), by how much it exceeds the wall time. */
export function accountLine(a: FileAccount, measure: Measure = 'time'): string {
  const v = (n: number): string => formatValue(n, measure);
  if (measure === 'heartbeats') {
    return `the file's ${v(a.fileNs)} are those of its traced steps (Lean counts no heartbeats for imports or for the file as a whole)`;
  }
  if (measure === 'untimed') return `the trace has no timings: ${v(a.fileNs)} in all`;
  const of = a.basis === 'elapsed' ? 'wall time (Lean\'s elapsed time)'
    : a.basis === 'cumulative' ? 'time (the sum of Lean\'s profiling categories; Lean gave no elapsed time)'
      : 'time (imports plus traced elaboration; Lean gave no elapsed time)';
  const imports = a.importsNs !== undefined ? `imports ${v(a.importsNs)}` : 'imports not reported';
  if (a.overrunNs > 0) {
    return `where the file's ${v(a.fileNs)} of ${of} went: ${imports} · traced elaboration ${v(a.tracedNs)}, together ${v(a.overrunNs)} more than it: work ran on several threads at once`;
  }
  return `where the file's ${v(a.fileNs)} of ${of} went: ${imports} · traced elaboration ${v(a.tracedNs)} · untraced ${v(a.untracedNs)}`;
}
