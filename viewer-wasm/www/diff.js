// The diff: a baseline compared with this data (`leanscope diff`'s JSON,
// from `view --baseline` or the host). Its facts on the Diff tab's title,
// and its rows in the list, largest increase first.
import { $, el } from './dom.js';
import { state } from './state.js';
import { fmtNs } from './measure.js';
import { call } from './worker-client.js';
import { showBanner } from './banner.js';
import { selectAt } from './selection.js';
import { LIST_LIMIT } from './list.js';

/** Keeps the diff's facts and shows its tab. */
export function showDiff(facts) {
  state.diff = facts;
  $('tab-diff').hidden = false;
  const c = facts.counts;
  const tol = `${facts.metric.endsWith('_ns') ? fmtNs(facts.absoluteTolerance) : facts.absoluteTolerance} and ${facts.relativeToleranceBps} bps`;
  $('tab-diff').title = `${facts.baseline} → ${facts.candidate}: ${c.regression} regressions, ${c.improvement} improvements, `
    + `${c.within_tolerance} within tolerance, ${c.new} new, ${c.missing} missing (metric ${facts.metric}, tolerance ${tol})`
    + (facts.noise ? `; both repeated captures (${noiseText(facts.noise)}): ${c.noise} changes beyond the tolerances are within the noise` : '');
  $('tab-diff').textContent = `Diff ▲${c.regression} ▼${c.improvement}`;
  if (facts.warnings.length) showBanner(`Diff: ${facts.warnings.join('; ')}`, false);
}

/** The diff tab's rows ({li, act}) and the line above them, within the
 *  open file (`fileScope`) or the folder `under`. */
export async function listDiff(fileScope, under) {
  const within = fileScope && !state.summary.single ? state.fileEntry.path : (state.summary.single ? '' : under);
  const r = await call('diffRows', state.filter, within, LIST_LIMIT);
  const rows = r.rows.map((x) => diffRow(x, r.max));
  const d = state.diff;
  const scope = `${r.matched} of ${d.rowCount} compared rows${within ? ` in ${within}` : ''}, largest increase first · `
    + `${d.metric} vs baseline ${d.baseline} · a regression exceeds ${metricText(d.absoluteTolerance)} and ${d.relativeToleranceBps} bps`
    + (d.noise ? ` and the noise (medians of ${noiseText(d.noise)})` : '');
  return { rows, scope };
}

/** How a comparison of repeated captures decides (`noise` of its JSON). */
function noiseText(n) {
  return `${n.baseline_runs} and ${n.candidate_runs} runs; a change beyond the tolerances counts only when the spreads separate `
    + `or a ${Math.round(n.confidence * 100)} % bootstrap interval (${n.resamples} resamples, seed ${n.seed}) of the difference of medians excludes zero`;
}

const RULE_TEXT = {
  tolerance: 'within the tolerances',
  spreads_separate: "the two sides' spreads (min–max over the runs) do not overlap",
  bootstrap: 'the bootstrap interval of the difference of medians excludes zero',
  noise: 'beyond the tolerances, but within the noise: the spreads overlap and the bootstrap interval holds zero',
};

/** A value of the diff's metric: a time for the `_ns` metrics, else the number. */
function metricText(v) {
  return v === null ? '—' : (state.diff.metric.endsWith('_ns') ? fmtNs(v) : String(v));
}

function deltaText(r) {
  const sign = r.delta > 0 ? '+' : r.delta < 0 ? '−' : '±';
  const abs = Math.abs(r.delta);
  const change = r.changeBps === null ? '' : ` (${r.changeBps > 0 ? '+' : ''}${(r.changeBps / 100).toFixed(1)}%)`;
  return `${sign}${metricText(abs)}${change}`;
}

function diffRow(x, max) {
  const bar = (v, cls) => el('div', { class: `track ${cls}` },
    el('div', { class: 'fill', style: `width:${max > 0 && v !== null ? ((v / max) * 100).toFixed(2) : 0}%` }));
  const where = [x.file, x.declaration, x.line !== null ? `line ${x.line}` : null].filter((p) => p !== null).join(' · ');
  const li = el('li', {
    class: `diff ${x.status}`,
    dataset: {
      kind: 'diff', status: x.status, name: x.name, file: x.file ?? '',
      baseline: x.baseline ?? '', candidate: x.candidate ?? '', delta: x.delta, rule: x.rule ?? '',
    },
    title: x.rule ? `${RULE_TEXT[x.rule] || x.rule}${x.interval ? ` · bootstrap interval ${metricText(x.interval[0])} to ${metricText(x.interval[1])}` : ''}` : undefined,
  },
  el('span', { class: 'name' }, x.name, el('span', { class: `badge ${x.status}`, text: x.status }),
    x.rule === 'noise' ? el('span', { class: 'badge noise', title: RULE_TEXT.noise, text: 'noise' }) : null,
    el('span', { class: 'path', text: where })),
  el('span', { class: 'time', text: deltaText(x) }),
  el('div', { class: 'diffbars' },
    bar(x.baseline, 'baseline'), el('span', { class: 'muted', text: `baseline ${metricText(x.baseline)}` }),
    bar(x.candidate, 'candidate'), el('span', { class: 'muted', text: `candidate ${metricText(x.candidate)}` })));
  const act = async () => {
    if (x.candidate === null) {
      showBanner(`${x.name} is only in the baseline (${state.diff.baseline}).`, false);
      return;
    }
    try {
      await selectAt({
        path: state.summary.single ? undefined : (x.file ?? undefined),
        declaration: x.declaration ?? x.name,
        line: x.line !== null ? x.line - 1 : undefined,
      });
    } catch (e) {
      showBanner(`Cannot show ${x.name}: ${e.message}`, true);
    }
  };
  li.addEventListener('click', act);
  return { li, act };
}
