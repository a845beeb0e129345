// The details panel: the facts of the selected declaration, tactic, line
// or event, with its tactics and operations (each a link to select it).
import { $, el } from './dom.js';
import { state } from './state.js';
import { formatRange } from './format.js';
import { fmtNs, timeFact, runNote } from './measure.js';
import { badge } from './row-parts.js';
import { selectEvent, selectLine, selectTactic } from './selection.js';

/** Shows `node` (made by one of the …Details below), or the hint of what
 *  can be selected. */
export function renderDetails(node) {
  const box = $('details');
  box.replaceChildren();
  if (node) box.append(node);
  else if (state.file !== null) box.append(el('div', { class: 'muted', text: 'Select a declaration, tactic, line or timeline slice.' }));
}

/** A list of facts: [name, text or element, class]; null values skipped. */
function facts(pairs) {
  const dl = el('dl', { class: 'facts' });
  for (const [k, v, cls] of pairs) {
    if (v === null || v === undefined) continue;
    dl.append(el('dt', { text: k }), el('dd', { class: cls || '', text: typeof v === 'string' ? v : undefined }, typeof v === 'string' ? null : v));
  }
  return dl;
}

function opsList(title, ops, total) {
  const frag = el('div', { class: 'ops-block' }, el('div', { class: 'muted', text: `${title} (${total}${total > ops.length ? `, slowest ${ops.length} shown` : ''})` }));
  const ul = el('ul', { class: 'ops' });
  for (const o of ops) {
    ul.append(el('li', { dataset: { event: o.event, inclusiveNs: o.inclusiveNs, selfNs: o.selfNs }, onclick: () => selectEvent(o.event) },
      el('span', { class: 'lbl', title: `${o.class}: ${o.label}` }, el('span', { class: 'muted', text: `${o.class} ` }), o.label || '(no text)', badge(o.rangeKind)),
      el('span', { class: 'num', text: fmtNs(o.inclusiveNs) }),
      el('span', { class: 'num', text: `self ${fmtNs(o.selfNs)}` })));
  }
  frag.append(ul);
  return frag;
}

export function declarationDetails(v) {
  const box = el('div', { dataset: { kind: 'declaration', index: v.index, totalNs: v.totalNs ?? '', selfNs: v.selfNs ?? '' } });
  box.append(el('h3', { text: `${v.kind} ${v.name}` }));
  box.append(facts([
    ['inclusive', timeFact(v.totalNs, v.spread && v.spread.total, 'no recorded time'), 'total'],
    ['self', timeFact(v.selfNs, v.spread && v.spread.self, '—'), 'self'],
    ['events', String(v.events)],
    ['range', formatRange(v.range)],
    ['runs', runNote(), 'runs'],
  ]));
  if (v.tactics.length) {
    const ul = el('ul', { class: 'ops tactics' });
    for (const t of v.tactics) {
      ul.append(el('li', { dataset: { tactic: t.index, totalNs: t.totalNs, selfNs: t.selfNs }, onclick: () => selectTactic({ ...t, declarationIndex: v.index, declaration: v.name }) },
        el('span', { class: 'lbl' }, `${t.label}`, badge(t.rangeKind), el('span', { class: 'muted', text: ` line ${t.range.startLine + 1}` })),
        el('span', { class: 'num', text: fmtNs(t.totalNs) }),
        el('span', { class: 'num', text: `self ${fmtNs(t.selfNs)}` })));
    }
    box.append(el('div', { class: 'muted', text: `Tactics (${v.tactics.length})` }), ul);
  }
  box.append(opsList('Contributing operations', v.operations, v.operationCount));
  return box;
}

export function tacticDetails(t) {
  const box = el('div', { dataset: { kind: 'tactic', index: t.index, totalNs: t.totalNs, selfNs: t.selfNs } });
  box.append(el('h3', { text: t.label }));
  box.append(facts([
    ['inclusive', timeFact(t.totalNs, t.spread && t.spread.total), 'total'],
    ['self', timeFact(t.selfNs, t.spread && t.spread.self), 'self'],
    ['events', String(t.events)],
    ['runs', runNote(), 'runs'],
    ['range', el('span', {}, formatRange(t.range), badge(t.rangeKind))],
    ['declaration', t.declaration || '(none)'],
  ]));
  if (t.firstEvent !== null && t.firstEvent !== undefined) {
    box.append(el('a', { class: 'ev', text: 'first step of this tactic', onclick: () => selectEvent(t.firstEvent) }));
  }
  box.append(el('div', { class: 'muted', text: `Source line ${t.range.startLine + 1}:` }),
    el('a', { class: 'ev', text: (state.lines[t.range.startLine] || '').trim(), onclick: () => selectLine(t.range.startLine) }));
  return box;
}

export function lineDetails(v, d) {
  const box = el('div', { dataset: { kind: 'line', line: v.line, totalNs: v.totalNs ?? '', selfNs: v.selfNs ?? '' } });
  box.append(el('h3', { text: `Line ${v.line + 1}${d ? ` in ${d.name}` : ''}` }));
  box.append(facts([
    ['inclusive', timeFact(v.totalNs, v.spread && v.spread.total, 'no recorded time'), 'total'],
    ['self', timeFact(v.selfNs, v.spread && v.spread.self, '—'), 'self'],
    ['events', String(v.events)],
    ['runs', runNote(), 'runs'],
  ]));
  box.append(el('pre', { class: 'muted', text: state.lines[v.line] || '' }));
  box.append(opsList('Operations on this line', v.operations, v.operationCount));
  return box;
}

export function eventDetails(v) {
  const box = el('div', { dataset: { kind: 'event', event: v.event, inclusiveNs: v.inclusiveNs, selfNs: v.selfNs } });
  const chain = el('div', { class: 'chain muted' });
  for (const a of v.ancestors) {
    chain.append(el('a', { text: (a.label || a.class).slice(0, 40), onclick: () => selectEvent(a.event) }), ' › ');
  }
  box.append(chain, el('h3', { text: v.label.split('\n')[0] || '(no text)' }));
  box.append(facts([
    ['class', v.class], ['kind', v.kind],
    ['inclusive', fmtNs(v.inclusiveNs), 'total'], ['self', fmtNs(v.selfNs), 'self'],
    ['thread', `${v.threadName ?? '?'} (id ${v.threadId ?? '?'})`],
    ['range', el('span', {}, formatRange(v.range), badge(v.rangeKind))],
    ['declaration', v.declaration || '(none)'],
    ['start', `${fmtNs(v.startNs)} after the clock's zero`],
  ]));
  box.append(opsList('Nested operations', v.childRows, v.children));
  return box;
}
