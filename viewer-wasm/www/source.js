// The open file's source, one row per line with its line bar (inclusive
// and self time), virtualised: only the lines in view are in the DOM.
import { $, el } from './dom.js';
import { state } from './state.js';
import { fmtNs } from './measure.js';
import { selectLine } from './selection.js';

const LINE_H = 18;

/** Sizes the source view to the open file's lines (and scrolls it to the
 *  top when `scrollTop`), then draws the lines in view. */
export function renderSource(scrollTop) {
  const box = $('source');
  $('source-spacer').style.height = `${state.lines.length * LINE_H}px`;
  if (scrollTop) box.scrollTop = 0;
  drawSourceLines();
}

/** Draws the lines in view (and a few around), with the selection and
 *  the selected declaration marked. */
export function drawSourceLines() {
  const box = $('source');
  const holder = $('source-lines');
  const first = Math.max(0, Math.floor(box.scrollTop / LINE_H) - 10);
  const count = Math.ceil(box.clientHeight / LINE_H) + 20;
  const last = Math.min(state.lines.length, first + count);
  holder.style.top = `${first * LINE_H}px`;
  const sel = state.selRange;
  const decl = state.declRange;
  const rows = [];
  for (let l = first; l < last; l++) {
    const b = state.bars.get(l);
    const bar = el('span', { class: 'bar' });
    if (b && state.maxNs > 0) {
      bar.append(el('span', { class: 'incl', style: `width:${(b[1] / state.maxNs * 100).toFixed(2)}%` }),
        el('span', { class: 'self', style: `width:${(b[2] / state.maxNs * 100).toFixed(2)}%` }));
      const sp = state.barSpreads.get(l);
      bar.title = `line ${l + 1}: inclusive ${fmtNs(b[1])} · self ${fmtNs(b[2])} · ${b[3]} events${sp ? ` · median of ${sp[0]} runs, min–max ${fmtNs(sp[1], sp[2])}–${fmtNs(sp[2])}` : ''}`;
    }
    let cls = 'line';
    if (decl && l >= decl.startLine && l <= decl.endLine) cls += ' in-decl';
    if (sel && l >= sel.startLine && l <= sel.endLine) cls += ' selected';
    rows.push(el('div', {
      class: cls, dataset: { line: l, totalNs: b ? b[1] : '', selfNs: b ? b[2] : '' },
      title: b ? `inclusive ${fmtNs(b[1])} · self ${fmtNs(b[2])}` : undefined,
      onclick: () => selectLine(l),
    }, el('span', { class: 'no', text: String(l + 1) }), bar, el('span', { class: 'text', text: state.lines[l] })));
  }
  holder.replaceChildren(...rows);
}

/** Scrolls `line` into view (if it is not) and redraws. */
export function scrollSourceTo(line) {
  const box = $('source');
  const y = line * LINE_H;
  if (y < box.scrollTop || y > box.scrollTop + box.clientHeight - LINE_H * 2) {
    box.scrollTop = Math.max(0, y - box.clientHeight / 3);
  }
  drawSourceLines();
}

/** Redraws the lines in view as the source scrolls. */
export function initSource() {
  $('source').addEventListener('scroll', () => drawSourceLines());
}
