// The list panel: its tabs rank the files, declarations and tactics of the
// folder (from the session index) or of the open file, its kinds of work
// (the hot spots tab, hotspots.js), and compare with a baseline (the diff
// tab, diff.js); a filter and an order.
import { $, el } from './dom.js';
import { state } from './state.js';
import { formatPercent } from './format.js';
import { rowNs, msSpread } from './measure.js';
import { call } from './worker-client.js';
import { shareRow, timeCells, badge } from './row-parts.js';
import { activateFolderRow } from './folders.js';
import { openFile } from './file.js';
import { selectDeclaration, selectTactic } from './selection.js';
import { listDiff } from './diff.js';
import { listHotSpots } from './hotspots.js';
import { writeHash } from './links.js';

/** Rows listed at most (the first in the chosen order). */
export const LIST_LIMIT = 500;

/** Lists the current tab's rows for the folder or the open file. */
export async function renderList() {
  const list = $('list');
  if (state.tab === 'diff' && !state.diff) state.tab = 'files';
  for (const b of document.querySelectorAll('#tabs button')) b.setAttribute('aria-selected', String(b.dataset.tab === state.tab));
  const under = state.folder ? state.folder.node.path : '';
  let rows = [];
  let scope = '';
  const fileScope = state.scopeFile && state.file !== null && state.tab !== 'files';
  const hot = state.tab === 'hotspots';
  $('hot-class').hidden = !hot;
  $('sort').value = hot ? state.hotSort : state.sort;
  try {
    if (state.tab === 'diff') {
      ({ rows, scope } = await listDiff(fileScope, under));
    } else if (hot) {
      ({ rows, scope } = await listHotSpots(fileScope, under));
    } else if (fileScope) {
      const k = state.file;
      const what = state.tab === 'declarations' ? 'declarations' : 'tactics';
      // The first LIST_LIMIT rows in the chosen order (the slowest first
      // by default), as the session rankings do.
      const r = await call('list', k, what, state.filter, state.sort, LIST_LIMIT);
      rows = r.rows.map((x) => (what === 'declarations' ? declRow(x) : tacticRow(x)));
      const runs = state.fileSummary && state.fileSummary.runs;
      scope = `${r.matched} of ${r.of} ${what} in ${state.fileEntry.path} (${runs ? `medians over its ${runs.runs} runs` : 'from its recording'})`;
      if (r.matched > r.rows.length) scope += `, the first ${r.rows.length} listed`;
    } else {
      const kind = { files: 'file', declarations: 'declaration', tactics: 'tactic' }[state.tab];
      const r = await call('rank', kind, state.filter, under, state.sort, LIST_LIMIT);
      rows = r.rows.map((x) => (kind === 'file' ? fileRow(x) : indexRow(x)));
      const where = under || 'the session';
      scope = kind === 'file'
        ? `${r.matched} files in ${where}`
        : `${r.matched} ${state.tab} in ${where} (session index, ${r.indexRows} rows)`;
      if (kind !== 'file' && state.indexInfo === null && !state.summary.single) scope += ' — loading the index…';
    }
  } catch (e) {
    scope = `Cannot list: ${e.message}`;
  }
  state.listRows = rows;
  state.listIndex = -1;
  $('list-scope').textContent = scope;
  list.replaceChildren(...rows.map((r) => r.li));
}

/** Shows tab `tab` (files, declarations, tactics, hotspots, diff);
 *  resolves once its rows are listed. */
export function setTab(tab) {
  state.tab = tab;
  const listed = renderList();
  writeHash();
  return listed;
}

/** The tabs, the filter (typed text applies after a pause) and the order. */
export function initListControls() {
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => setTab(b.dataset.tab));
  let filterTimer = null;
  $('filter').addEventListener('input', (e) => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => { state.filter = e.target.value; renderList(); }, 120);
  });
  $('sort').addEventListener('change', (e) => {
    // The hot spots' order is their own (self by default).
    if (state.tab === 'hotspots') state.hotSort = e.target.value; else state.sort = e.target.value;
    renderList();
  });
}

// Each row is {li, act}: its element, and what Enter or a click on it does.

function fileRow(x) {
  const li = el('li', { class: `file ${x.status}`, dataset: { kind: 'file', path: x.path, totalNs: x.totalNs, file: x.file } },
    el('span', { class: 'name' }, x.path, x.status !== 'ok' ? el('span', { class: 'badge', text: x.status }) : null),
    timeCells(x.totalNs, undefined, x.spread), shareRow(x.shareOfParent, x.shareOfSession));
  const act = () => activateFolderRow(x);
  li.addEventListener('click', act);
  return { li, act };
}

/** A declaration or tactic of the session index. */
function indexRow(x) {
  const totalNs = rowNs(x.durationMs);
  const selfNs = x.selfMs === null ? undefined : rowNs(x.selfMs);
  const li = el('li', { dataset: { kind: x.kind, name: x.name, path: x.path, durationMs: x.durationMs, selfMs: x.selfMs ?? '' } },
    el('span', { class: 'name' }, x.name, x.attribution ? badge(x.attribution) : null,
      el('span', { class: 'path', text: `${x.path}:${x.line ?? ''}` })),
    timeCells(totalNs, selfNs, msSpread(x.durationSpread)));
  const act = async () => {
    if (x.file === null || x.file === undefined) return;
    await openFile(x.file);
    if (x.kind === 'declaration') {
      const d = (state.decls || []).find((r) => r.name === x.name);
      if (d) await selectDeclaration(d.index);
    } else if (x.kind === 'tactic' && x.line) {
      const t = (await call('list', state.file, 'tactics', x.name, 'source')).rows.find((r) => r.label === x.name && r.range.startLine === x.line - 1);
      if (t) await selectTactic(t);
    }
  };
  li.addEventListener('click', act);
  return { li, act };
}

/** A declaration of the open file. */
function declRow(x) {
  const li = el('li', { dataset: { kind: 'declaration', name: x.name, index: x.index, totalNs: x.totalNs ?? '', selfNs: x.selfNs ?? '' } },
    el('span', { class: 'name' }, x.name, el('span', { class: 'path', text: `${x.kind} · line ${x.range.startLine + 1}` })),
    x.totalNs === null ? el('span', { class: 'time muted', text: 'no recorded time' }) : timeCells(x.totalNs, x.selfNs, x.spread && x.spread.total),
    x.totalNs === null ? null : el('div', { class: 'share' },
      el('div', { class: 'track' }, el('div', { class: 'fill', style: `width:${((x.shareOfFile || 0) * 100).toFixed(2)}%` })),
      el('span', { text: `${formatPercent(x.shareOfFile)} of traced file time` })));
  const act = () => selectDeclaration(x.index);
  li.addEventListener('click', act);
  return { li, act };
}

/** A tactic of the open file. */
function tacticRow(x) {
  const li = el('li', { dataset: { kind: 'tactic', name: x.label, index: x.index, totalNs: x.totalNs, selfNs: x.selfNs } },
    el('span', { class: 'name' }, x.label, badge(x.rangeKind),
      el('span', { class: 'path', text: `${x.declaration || '(no declaration)'} · line ${x.range.startLine + 1}` })),
    timeCells(x.totalNs, x.selfNs, x.spread && x.spread.total));
  const act = () => selectTactic(x);
  li.addEventListener('click', act);
  return { li, act };
}
