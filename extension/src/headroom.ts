// How close a declaration is to Lean's heartbeat limits, in the editor's
// words: the share in the CodeLens and the hover, a warning over the
// threshold, a hint on a `set_option maxHeartbeats N in` not needed.
//
// Units: heartbeats are shown raw, as `trace.profiler.useHeartbeats` reports
// them (`123.5 M hb`); a limit is shown as the option is written
// (`maxHeartbeats 400000`), which counts thousands: 1 k hb is one unit of
// `maxHeartbeats`. The numbers come from the sidecar's `headroom` object.
import type { Declaration, Headroom, LimitUse } from './protocol';
import { formatValue } from './format';

/** The option a limit is. */
export type LimitName = 'maxHeartbeats' | 'synthInstance.maxHeartbeats';

/** `31%`, `<1%` above 0 that rounds to 0, `>999%`. */
export function percent(share: number): string {
  const p = Math.round(share * 100);
  if (p === 0 && share > 0) return '<1%';
  return p > 999 ? '>999%' : `${p}%`;
}

/** Where the limit in force was set: `set_option … in` on line 12, the
 * file's `set_option` on line 3, or Lean's default. */
export function limitOrigin(use: LimitUse, name: LimitName): string {
  if (use.from === 'in') return `\`set_option ${name} ${use.limit} in\`${use.line ? ` on line ${use.line}` : ''}`;
  if (use.from === 'file') return `\`set_option ${name} ${use.limit}\`${use.line ? ` on line ${use.line}` : ''}`;
  return `Lean's default`;
}

/** `31% of maxHeartbeats 400000`, or `maxHeartbeats 0 (no limit)`. */
export function shareOfLimit(use: LimitUse, name: LimitName): string {
  if (use.limit === 0 || use.share === undefined) return `${name} 0 (no limit)`;
  return `${percent(use.share)} of ${name} ${use.limit}`;
}

/** The CodeLens's part: ` · 31% of maxHeartbeats 400000` (and the instance
 * search's limit when it is over the threshold). */
export function lensHeadroom(h: Headroom, threshold: number): string {
  const parts = [shareOfLimit(h.maxHeartbeats, 'maxHeartbeats')];
  const s = h.synthInstance;
  if (s && s.share !== undefined && s.share >= threshold) parts.push(`instance ${shareOfLimit(s, 'synthInstance.maxHeartbeats')}`);
  return parts.map((p) => ` · ${p}`).join('');
}

function useLine(use: LimitUse, name: LimitName, what: string): string {
  return `${name}: ${what} ${formatValue(use.heartbeats, 'heartbeats')} = ${shareOfLimit(use, name)}, set by ${limitOrigin(use, name)}`
    + (use.from !== 'default' ? ` (default ${use.default})` : '');
}

/** The hover's lines for a declaration's limits. */
export function hoverHeadroom(d: Declaration, threshold: number): string[] {
  const h = d.headroom;
  if (!h) return [];
  const lines = [`**${d.name}** · ${useLine(h.maxHeartbeats, 'maxHeartbeats', 'used')}`];
  const over = overThreshold(h, threshold);
  if (over.length) lines.push(`⚠ over the warning threshold of ${percent(threshold)}: ${over.join('; ')}`);
  if (h.maxHeartbeats.bumpNotNeeded) lines.push(`The bump is not needed: ${bumpText(d)}`);
  const s = h.synthInstance;
  if (s) lines.push(`${useLine(s, 'synthInstance.maxHeartbeats', s.instance ? `its slowest instance search (${s.instance}) used` : 'its slowest instance search used')}`);
  return lines.map((l, i) => (i ? `\n\n${l}` : l));
}

/** The warning after a declaration's line, short enough to fit beside it:
 * `⚠ 88%` (of its maxHeartbeats), `⚠ instance 91%`, or both; the hover and
 * Problems say the whole of it. Undefined when nothing is over `threshold`. */
export function shortWarning(h: Headroom, threshold: number): string | undefined {
  const out: string[] = [];
  const m = h.maxHeartbeats;
  if (m.share !== undefined && m.share >= threshold) out.push(percent(m.share));
  const s = h.synthInstance;
  if (s && s.share !== undefined && s.share >= threshold) out.push(`instance ${percent(s.share)}`);
  return out.length ? `⚠ ${out.join(' · ')}` : undefined;
}

/** What is at or over `threshold`, in words (empty: nothing). */
export function overThreshold(h: Headroom, threshold: number): string[] {
  const out: string[] = [];
  const m = h.maxHeartbeats;
  if (m.share !== undefined && m.share >= threshold) out.push(`${shareOfLimit(m, 'maxHeartbeats')} (${limitOrigin(m, 'maxHeartbeats')})`);
  const s = h.synthInstance;
  if (s && s.share !== undefined && s.share >= threshold) {
    out.push(`an instance search${s.instance ? ` (${s.instance})` : ''} used ${shareOfLimit(s, 'synthInstance.maxHeartbeats')}`);
  }
  return out;
}

/** Why a `set_option maxHeartbeats N in` can go: `Demo.f used 12.0 M hb,
 * 6% of the default maxHeartbeats 200000`. */
export function bumpText(d: Declaration): string {
  const m = d.headroom!.maxHeartbeats;
  const ofDefault = m.default > 0 ? `, ${percent(m.heartbeats / (m.default * 1000))} of the default maxHeartbeats ${m.default}` : '';
  return `${d.name} used ${formatValue(m.heartbeats, 'heartbeats')}${ofDefault}`;
}
