// The Hot spots tab: the bottom-up table (one row per kind of work — a key:
// its class and normalised name — with its self and total time, its calls
// and files), filtered by class and text, for the open file (its recording's
// hot spots) or for the folder (the session index's hotspot rows); a row
// expands into the key's bottom-up tree (its callers, by self time), and
// selecting it shows its sandwich in the details panel: callers above,
// callees below and, for a file, its occurrences, each selecting its event
// and line. All numbers come from the worker (recording::hotspots).
import { $, el } from './dom.js';
import { state, debug } from './state.js';
import { formatCount, formatCountOf, formatPercent } from './format.js';
import { fmtNs } from './measure.js';
import { call } from './worker-client.js';
import { timeCells } from './row-parts.js';
import { renderDetails } from './details.js';
import { revealPath } from './folders.js';
import { selectEvent } from './selection.js';
import { setTab } from './list.js';
import { setPanelMode } from './flame.js';

/** Rows of the table listed at most. */
const HOT_LIMIT = 500;

/** The table's rows ({li, act, expand}) and the line above them, for the
 *  open file or the folder. */
export async function listHotSpots(fileScope, under) {
  // A lone recording has no index: its hot spots are its file's.
  if (state.summary && state.summary.single && state.file !== null) fileScope = true;
  const t0 = performance.now();
  const r = fileScope
    ? await call('hotRows', state.file, state.filter, state.hotClass, state.hotSort, HOT_LIMIT)
    : await call('sessionHotRows', under, state.filter, state.hotClass, state.hotSort, HOT_LIMIT);
  debug.hotRowsMs = performance.now() - t0;
  fillClasses(r.classes);
  const rows = r.rows.map((x) => hotRow(x, fileScope));
  let scope;
  if (fileScope) {
    scope = `${r.matched} of ${r.keys} kinds of work in ${state.fileEntry.path}`;
  } else if (!r.indexed) {
    const pending = state.indexInfo === null && !state.summary.single;
    scope = pending
      ? 'Loading the index…'
      : 'This session was captured before hot spots were indexed; open a file to see its hot spots.';
  } else {
    scope = `${r.matched} of ${r.keys} kinds of work in ${under || 'the session'} (session index: ${formatCountOf(r.files, 'file')})`;
  }
  if (r.matched > r.rows.length) scope += `, the first ${r.rows.length} listed`;
  if (r.otherHolds > 0) scope += ` · (other) holds ${formatCount(r.otherHolds)} keys past the limit`;
  $('list-scope').dataset.hotIndexed = fileScope ? 'file' : String(!!r.indexed);
  return { rows, scope };
}

/** The class filter's choices: the classes present, by self time. */
function fillClasses(classes) {
  const select = $('hot-class');
  const want = ['', ...classes.map((c) => c.class)];
  if (state.hotClass && !want.includes(state.hotClass)) want.push(state.hotClass);
  const have = [...select.options].map((o) => o.value);
  if (have.join('\n') !== want.join('\n')) {
    select.replaceChildren(...want.map((c) => el('option', { value: c, text: c === '' ? 'all classes' : c })));
  }
  select.value = state.hotClass;
}

/** One key of the table: a click (or Enter) shows its sandwich; the toggle
 *  (or the right arrow) expands its bottom-up tree. */
function hotRow(x, fileScope) {
  const tree = el('div', { class: 'hot-tree', hidden: '' });
  const toggle = el('button', { class: 'toggle', title: 'Callers by self time (→)', 'aria-expanded': 'false', text: '▸' });
  const li = el('li', {
    class: 'hotspot',
    dataset: { kind: 'hotspot', key: x.key ?? '', class: x.class, label: x.label, totalNs: x.totalNs, selfNs: x.selfNs, count: x.count, files: x.files },
  },
  el('span', { class: 'name' }, toggle, el('span', { class: 'badge', text: x.class }), ` ${x.name || ''}`),
  timeCells(x.totalNs, x.selfNs),
  el('span', { class: 'muted calls', text: `${formatCountOf(x.count, 'call')}${fileScope ? '' : ` · ${formatCountOf(x.files, 'file')}`}` }),
  tree);
  const act = () => (fileScope ? showSandwich(x.key) : showSessionKey(x));
  let open = false;
  const expand = async (want) => {
    if (want === open) return;
    open = want;
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = open ? '▾' : '▸';
    tree.hidden = !open;
    if (!open || tree.childElementCount) return;
    if (fileScope) {
      const v = await call('hotSandwich', state.file, x.key, true);
      tree.append(treeList(v.callers[0] ? v.callers[0].children : [], v.selfNs, 'callers-self'));
    } else {
      tree.append(placesList(x));
    }
  };
  toggle.addEventListener('click', (e) => { e.stopPropagation(); expand(!open); });
  li.addEventListener('click', act);
  return { li, act, expand };
}

/** Shows key `key`'s sandwich of the open file. */
export async function showSandwich(key) {
  const k = state.file;
  const [v, occ] = await Promise.all([call('hotSandwich', k, key, false), call('hotOccurrences', k, key)]);
  if (state.file !== k) return;
  const box = el('div', { dataset: { kind: 'hotspot', key, totalNs: v.totalNs, selfNs: v.selfNs, count: v.count } });
  box.append(el('h3', { text: v.label }));
  box.append(el('div', { class: 'muted', text: `total ${fmtNs(v.totalNs)} · self ${fmtNs(v.selfNs)} · ${formatCountOf(v.count, 'call')} · ${formatPercent(v.allNs ? v.totalNs / v.allNs : 0)} of all work` }));
  const head = v.callers[0];
  box.append(el('div', { class: 'muted sandwich-title', text: 'Callers (who calls it, widest first)' }),
    treeList(head ? head.children : [], v.totalNs, 'callers'));
  const me = el('div', { class: 'sandwich-key', text: `${v.label} — ${fmtNs(v.totalNs)}` });
  box.append(me);
  const callees = v.callees[0];
  box.append(el('div', { class: 'muted sandwich-title', text: 'Callees (what it calls, widest first)' }),
    treeList(callees ? callees.children : [], v.totalNs, 'callees'));
  box.append(occurrenceList(occ));
  renderDetails(box);
}

/** A tree of callers or callees as nested lists, the first two levels
 *  open; each node's share is of `whole` (the key's time). */
function treeList(nodes, whole, cls) {
  const ul = el('ul', { class: `hot-nodes ${cls}` });
  if (!nodes.length) ul.append(el('li', { class: 'muted', text: 'none' }));
  for (const n of nodes) ul.append(treeNode(n, whole, 1));
  return ul;
}

function treeNode(n, whole, depth) {
  const kids = el('ul', { class: 'hot-nodes' });
  const hasKids = n.children.length > 0;
  const open = hasKids && depth < 2;
  const toggle = el('button', { class: 'toggle', 'aria-expanded': String(open), text: hasKids ? (open ? '▾' : '▸') : '·', disabled: hasKids ? null : '' });
  for (const c of n.children) kids.append(treeNode(c, whole, depth + 1));
  if (n.more > 0) kids.append(el('li', { class: 'muted', text: `${n.more} more` }));
  kids.hidden = !open;
  toggle.addEventListener('click', () => {
    kids.hidden = !kids.hidden;
    toggle.setAttribute('aria-expanded', String(!kids.hidden));
    toggle.textContent = kids.hidden ? '▸' : '▾';
  });
  const time = n.totalNs;
  return el('li', { dataset: { label: n.label, totalNs: n.totalNs, count: n.count } },
    el('span', { class: 'hot-node' }, toggle,
      el('span', { class: 'lbl', title: n.label }, n.label),
      el('span', { class: 'num', text: fmtNs(time) }),
      el('span', { class: 'num', text: formatPercent(whole ? time / whole : 0) }),
      el('span', { class: 'num muted', text: `${formatCount(n.count)}×` })),
    kids);
}

/** The key's outermost events in the file: a click selects the event and
 *  its line in the source (and the editor reveals it). */
function occurrenceList(occ) {
  const frag = el('div', { class: 'ops-block' },
    el('div', { class: 'muted sandwich-title', text: `Occurrences (${formatCount(occ.outermostCalls)}${occ.outermostCalls > occ.rows.length ? `, slowest ${occ.rows.length} shown` : ''})` }));
  const ul = el('ul', { class: 'ops occurrences' });
  for (const o of occ.rows) {
    const act = () => selectEvent(o.event, false, true);
    ul.append(el('li', {
      tabindex: '0', dataset: { event: o.event, line: o.line ?? '', inclusiveNs: o.inclusiveNs },
      onclick: act, onkeydown: (e) => { if (e.key === 'Enter') { e.preventDefault(); act(); } },
    },
    el('span', { class: 'lbl', title: o.label }, o.label || '(no text)',
      el('span', { class: 'muted', text: ` ${o.declaration || '(no declaration)'}${o.line !== null ? ` · line ${o.line + 1}` : ''}` })),
    el('span', { class: 'num', text: fmtNs(o.inclusiveNs) }),
    el('span', { class: 'num', text: `self ${fmtNs(o.selfNs)}` })));
  }
  frag.append(ul);
  return frag;
}

/** A session-wide key: its files and declarations with the most of it. */
function showSessionKey(x) {
  const box = el('div', { dataset: { kind: 'hotspot', label: x.label, totalNs: x.totalNs, selfNs: x.selfNs } });
  box.append(el('h3', { text: x.label }));
  box.append(el('div', { class: 'muted', text: `total ${fmtNs(x.totalNs)} · self ${fmtNs(x.selfNs)} · ${formatCountOf(x.count, 'call')} in ${formatCountOf(x.files, 'file')} (from the session index). Open a file for its callers, callees and occurrences.` }));
  box.append(placesList(x));
  renderDetails(box);
}

function placesList(x) {
  const frag = el('div', {});
  const files = el('ul', { class: 'ops top-files' });
  for (const f of x.topFiles) {
    files.append(el('li', { tabindex: '0', dataset: { path: f.path }, onclick: () => openHotFile(f.path) },
      el('span', { class: 'lbl', text: f.path }), el('span', { class: 'num', text: fmtNs(f.totalNs) })));
  }
  const decls = el('ul', { class: 'ops top-declarations' });
  for (const d of x.topDeclarations) {
    decls.append(el('li', { tabindex: '0', dataset: { path: d.path, declaration: d.declaration }, onclick: () => openHotFile(d.path) },
      el('span', { class: 'lbl', text: `${d.declaration} ` }, el('span', { class: 'muted', text: d.path })),
      el('span', { class: 'num', text: fmtNs(d.totalNs) })));
  }
  frag.append(el('div', { class: 'muted sandwich-title', text: 'Files with the most of it' }), files,
    el('div', { class: 'muted sandwich-title', text: 'Declarations with the most of it' }), decls);
  return frag;
}

async function openHotFile(path) {
  const n = await call('findPath', path);
  if (n < 0) return;
  const f = await call('folder', n);
  if (f.node.file === null) return;
  await revealPath(path, f.node.file);
}

/** Shows what the host or the configuration asks for: 'hotspots' (the
 *  tab) or 'flame' (the flame graph). */
export async function showView(view) {
  if (view === 'hotspots') await setTab('hotspots');
  else if (view === 'flame') await setPanelMode('flame');
  else throw new Error(`there is no view "${view}" (hotspots or flame)`);
}

/** The class filter: the table and the flame graph follow it. */
export function initHotSpots(onClass) {
  $('hot-class').addEventListener('change', (e) => {
    state.hotClass = e.target.value;
    onClass();
  });
}
