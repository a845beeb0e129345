// Pieces shared by the rows of the folder, the lists and the details: the
// share bars, the time cells and the badge of a source range's kind.
import { el } from './dom.js';
import { formatPercent } from './format.js';
import { fmtNs, spreadText } from './measure.js';

/** A row's share of its parent (a bar) and of the session. */
export function shareRow(shareParent, shareSession) {
  return el('div', { class: 'share' },
    el('div', { class: 'track' }, el('div', { class: 'fill', style: `width:${((shareParent || 0) * 100).toFixed(2)}%` })),
    el('span', { class: 'of-parent', text: `${formatPercent(shareParent)} of parent` }),
    el('span', { class: 'of-session', text: `${formatPercent(shareSession)} of session` }));
}

/** A row's total time, its self time and its spread over runs. */
export function timeCells(totalNs, selfNs, spread) {
  return el('span', { class: 'time' },
    el('span', { class: 'total', text: fmtNs(totalNs) }),
    selfNs !== undefined ? el('span', { class: 'muted self', text: ` · self ${fmtNs(selfNs)}` }) : null,
    spread ? el('span', { class: 'muted spread', title: spreadText(spread), text: ` · ${spread.runs} runs ${fmtNs(spread.min, spread.max)}–${fmtNs(spread.max)}` }) : null);
}

const RANGE_KIND_HELP = {
  exact: 'source range reported by Lean',
  matched: 'source range found by leanscope in the command text',
  inherited: 'source range taken from the enclosing operation',
  none: 'no source range',
};

/** Where a source range came from (exact, matched, inherited, none). */
export function badge(kind) {
  return el('span', { class: `badge ${kind}`, title: RANGE_KIND_HELP[kind] || '', text: kind });
}
