// Selecting a declaration, a tactic, a line or an event (a timeline slice)
// of the open file: the details, the source, the breadcrumbs, the timeline
// and the deep link follow, and the host is told what to reveal.
import { state } from './state.js';
import { call } from './worker-client.js';
import { postHost } from './host.js';
import { renderCrumbs } from './folders.js';
import { openFile } from './file.js';
import { drawSourceLines, scrollSourceTo } from './source.js';
import { renderDetails, declarationDetails, tacticDetails, lineDetails, eventDetails } from './details.js';
import { timeline } from './timeline.js';
import { writeHash } from './links.js';

/** Asks the host to reveal `range` of the open file in its editor. */
function reveal(range, extra) {
  if (!range || !state.fileEntry) return;
  postHost({ type: 'leanscope.revealRange', path: state.fileEntry.path, sourcePath: state.fileSummary.sourcePath, range, ...extra });
}

export function selectNone() {
  state.sel = null; state.selRange = null; state.declRange = null;
  renderDetails(null); drawSourceLines(); renderCrumbs(); timeline.select(null); writeHash();
}

/** Selects declaration `d` (its index) of the open file. */
export async function selectDeclaration(d) {
  const v = await call('declaration', state.file, d);
  state.sel = { kind: 'decl', value: d, title: v.name };
  state.declRange = v.range;
  state.selRange = v.selectionRange;
  renderDetails(declarationDetails(v));
  scrollSourceTo(v.range.startLine);
  renderCrumbs();
  if (v.operations.length) {
    const ops = v.operations;
    const start = Math.min(...ops.map((o) => o.startNs));
    const end = Math.max(...ops.map((o) => o.startNs + o.inclusiveNs));
    timeline.show(start, end, ops[0].event, true);
  }
  reveal(v.range, { declaration: v.name });
  writeHash();
}

/** Selects tactic `t` (a row of the worker's tactic list). */
export async function selectTactic(t) {
  state.sel = { kind: 'tactic', value: t.index, title: t.label };
  state.selRange = t.range;
  if (t.declarationIndex !== null && t.declarationIndex !== undefined) {
    const d = state.decls.find((x) => x.index === t.declarationIndex);
    state.declRange = d ? d.range : null;
  }
  renderDetails(tacticDetails(t));
  scrollSourceTo(t.range.startLine);
  renderCrumbs();
  if (t.firstEvent !== null && t.firstEvent !== undefined) {
    const ev = await call('event', state.file, t.firstEvent);
    timeline.show(ev.startNs, ev.endNs, ev.event);
  }
  reveal(t.range, { tactic: t.label });
  writeHash();
}

/** Selects line `l` (0-based) of the open file. */
export async function selectLine(l) {
  const v = await call('line', state.file, l);
  state.sel = { kind: 'line', value: l, title: `line ${l + 1}` };
  state.selRange = { startLine: l, startCol: 0, endLine: l, endCol: 0 };
  const d = v.declarationIndex !== null ? state.decls.find((x) => x.index === v.declarationIndex) : null;
  state.declRange = d ? d.range : null;
  renderDetails(lineDetails(v, d));
  scrollSourceTo(l);
  renderCrumbs();
  if (v.operations.length) timeline.select(v.operations[0].event);
  reveal(state.selRange, { line: l });
  writeHash();
}

/** Selects event `i` of the open file (`fromTimeline`: clicked there, so
 *  the timeline's window stays; `keepDetails`: the details panel keeps
 *  what it shows, as a hot spot's occurrence list does). */
export async function selectEvent(i, fromTimeline, keepDetails) {
  const v = await call('event', state.file, i);
  state.sel = { kind: 'event', value: i, title: v.label.split('\n')[0].slice(0, 60) };
  state.selRange = v.range;
  const d = v.declarationIndex !== null ? state.decls.find((x) => x.index === v.declarationIndex) : null;
  state.declRange = d ? d.range : null;
  if (!keepDetails) renderDetails(eventDetails(v));
  if (v.range) scrollSourceTo(v.range.startLine); else drawSourceLines();
  renderCrumbs();
  if (fromTimeline) timeline.select(i); else timeline.show(v.startNs, v.endNs, i);
  if (v.range) reveal(v.range, { event: i });
  writeHash();
}

/** Opens file `place.path` (when another is open), then selects its
 *  declaration `place.declaration`, else the declaration with a recorded
 *  time around `place.line`, else that line (what the host's
 *  leanscope.select and a diff row ask for). */
export async function selectAt(place) {
  if (place.path && (!state.fileEntry || state.fileEntry.path !== place.path)) {
    const n = await call('findPath', place.path);
    if (n < 0) throw new Error(`${place.path} is not in this session`);
    const f = await call('folder', n);
    if (f.node.file === null) throw new Error(`${place.path} is a folder`);
    await openFile(f.node.file);
  }
  if (place.declaration) {
    const d = state.decls.find((x) => x.name === place.declaration);
    if (d) return selectDeclaration(d.index);
  }
  if (typeof place.line === 'number') {
    const d = state.decls.find((x) => x.range.startLine <= place.line && place.line <= x.range.endLine);
    if (d && d.totalNs !== null) return selectDeclaration(d.index);
    return selectLine(place.line);
  }
  return null;
}
