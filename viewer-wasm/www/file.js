// Opening a file of the session (its recording streamed and decoded by the
// worker, with the load's progress in the banner) and the file's header:
// its facts and where its time went.
import { $ } from './dom.js';
import { state, debug } from './state.js';
import { formatBytes, formatCount } from './format.js';
import { fmtNs, spreadText } from './measure.js';
import { call } from './worker-client.js';
import { showBanner } from './banner.js';
import { renderFolder, renderCrumbs } from './folders.js';
import { renderList } from './list.js';
import { renderSource, drawSourceLines } from './source.js';
import { renderDetails } from './details.js';
import { timeline } from './timeline.js';
import { renderMemory } from './memory.js';
import { refreshFlame } from './flame.js';
import { writeHash } from './links.js';

/** The file whose load reports progress (an older load's is ignored). */
let progressFile = null;

/** Shows a load's progress (the worker's reports) in the banner. */
export function onProgress(p) {
  if (p.merge) {
    showBanner(`Merging the hot spots of the folder's files for the flame graph: ${p.merge.done} of ${p.merge.of} (${p.merge.path})…`, false);
    return;
  }
  if (p.file !== progressFile) return;
  if (p.run) {
    showBanner(`Loading ${state.fileEntry ? state.fileEntry.path : ''}: run ${p.run} of ${p.runs} (the times shown are medians over the runs)…`, false);
    return;
  }
  const of = p.length ? ` of ${(p.length / 1e6).toFixed(1)} MB` : '';
  showBanner(`Loading ${state.fileEntry ? state.fileEntry.path : ''}: ${(p.bytes / 1e6).toFixed(1)} MB${of}, ${formatCount(p.events)} events…`, false);
}

/** Opens file `k`: loads its recording, then shows its source,
 *  declarations, line bars and timeline; its timings go to debug.fileLoads. */
export async function openFile(k) {
  const entryNode = await call('nodeOfFile', k);
  const summary = await call('sessionSummary');
  progressFile = k;
  const t0 = performance.now();
  let fs;
  try {
    fs = await call('loadFile', k);
  } catch (e) {
    showBanner(`Cannot open the recording: ${e.message}`, true);
    e.reported = true;
    throw e;
  }
  // ms: streamed and ready for queries; viewMs: the file's view (source,
  // declarations) shown; barsMs: its line bars drawn; firstTimelineMs: its
  // first timeline draw (which builds the timeline index), each from
  // startedAt (performance.now() when the load began).
  const load = {
    file: k, startedAt: t0, ms: performance.now() - t0, events: fs.events, viewMs: null, barsMs: null, firstTimelineMs: null,
    streamMs: fs.streamMs, decodeMs: fs.decodeMs, endMs: fs.endMs,
  };
  debug.fileLoads.push(load);
  showBanner('', false);
  state.summary = summary;
  state.file = k;
  state.fileSummary = fs;
  state.scopeFile = true;
  if (state.tab === 'files') state.tab = 'declarations';
  const folder = entryNode >= 0 ? (await call('folder', entryNode)).node : null;
  state.fileEntry = { path: folder ? folder.path : fs.sourcePath, node: entryNode };
  const parentNode = state.folder && state.folder.children.some((c) => c.file === k) ? state.node : null;
  if (parentNode === null && entryNode >= 0) {
    const crumbs = (await call('folder', entryNode)).breadcrumbs;
    const parent = crumbs.length >= 2 ? crumbs[crumbs.length - 2].node : 0;
    state.folder = await call('folder', parent);
    state.node = parent;
    renderFolder();
  }
  const [source, decls] = await Promise.all([call('source', k), call('list', k, 'declarations', '', 'source')]);
  const lines = source.split('\n');
  state.lines = lines;
  // The line bars follow the rest of the view: on a file of millions of
  // events they take the worker longest. They are asked for right after
  // the list, and computed while the page draws it, a slice at a time: a
  // request made meanwhile (another tab clicked) is answered first.
  state.bars = new Map();
  state.barSpreads = new Map();
  state.maxNs = 0;
  $('source').dataset.bars = 'pending';
  state.decls = decls.rows;
  state.sel = null;
  state.selRange = null;
  state.declRange = null;
  renderFileHeader();
  renderSource(true);
  renderDetails(null);
  renderCrumbs();
  const listed = renderList();
  const barsAsked = call('lineBars', k);
  barsAsked.catch(() => {}); // reported below, once the list is shown
  await listed;
  load.viewMs = performance.now() - t0;
  writeHash();
  let bars;
  try {
    bars = await barsAsked;
  } catch (e) {
    if (state.lines !== lines) return; // another file opened meanwhile (and this one dropped)
    showBanner(`Cannot compute the line bars: ${e.message}`, true);
    e.reported = true;
    throw e;
  }
  if (state.lines !== lines) return; // another file opened meanwhile
  state.bars = new Map(bars.bars.map((b) => [b[0], b]));
  state.barSpreads = new Map((bars.spreads || []).map((sp, j) => [bars.bars[j][0], sp]));
  state.maxNs = bars.maxNs;
  $('source').dataset.bars = 'ready';
  drawSourceLines();
  load.barsMs = performance.now() - t0;
  refreshFlame();
  renderMemory();
  const drawn = timeline.reset();
  // The file's view is complete: the worker builds its hot spots while
  // idle, so that the Hot spots tab and the flame graph only finish them.
  const prepare = () => { call('prepareHotSpots', k).catch(() => {}); };
  if (drawn) drawn.then((ms) => { load.firstTimelineMs = ms; prepare(); }, prepare);
  else prepare();
}

function renderFileHeader() {
  const fs = state.fileSummary;
  $('file-title').textContent = state.fileEntry.path;
  const errors = fs.diagnostics.filter((d) => d.severity === 'error').length;
  const facts = [
    `${fs.module || 'no module'}`,
    `${formatCount(fs.events)} events`,
    `${fs.declarations} declarations`,
    fs.runs ? `${fs.runs.runs} runs, file time ${spreadText(fs.runs.file)}` : null,
    fs.runs ? `shown: run ${fs.runs.shownRepeat + 1} (the median run)` : null,
    fs.elapsedNs !== null ? `elapsed ${fmtNs(fs.elapsedNs)}` : 'elapsed unknown',
    `traced ${fmtNs(fs.tracedNs)}`,
    `${fs.captureMode} capture, ${fs.clock} clock`,
    fs.leanVersion ? `Lean ${fs.leanVersion}` : null,
    `status ${fs.status}${errors ? ` (${errors} errors)` : ''}`,
    fs.stop ? `partial: ${fs.stop.detail}${fs.stop.inFlight ? `; unfinished: ${fs.stop.inFlight.declaration || fs.stop.inFlight.text}` : ''}` : null,
    fs.memory ? `peak memory ${formatBytes(fs.memory.peakBytes)}` : null,
    fs.issueCount ? `${fs.issueCount} validation issues` : null,
    ...fs.notes,
  ].filter(Boolean);
  $('file-facts').textContent = facts.join(' · ');
  $('file-facts').dataset.events = fs.events;
  renderTimeAccount(fs.timeAccount, fs.timeAccountText);
}

/** Where the file's time went: imports, traced elaboration, the untraced
 *  rest, and Lean's cumulative categories (largest first), as computed by
 *  the recording crate (the account `leanscope info` prints). */
function renderTimeAccount(a, sentences) {
  const box = $('file-account');
  box.textContent = '';
  if (!a) return;
  const parts = [
    `imports ${a.importsNs === null ? 'unknown' : fmtNs(a.importsNs)}`,
    `traced elaboration ${fmtNs(a.tracedNs)}`,
    a.overrunNs > 0 ? `over the file's time by ${fmtNs(a.overrunNs)}` : `untraced ${fmtNs(a.untracedNs)}`,
  ];
  const head = document.createElement('div');
  head.className = 'account-split';
  head.textContent = `Where the time went (${fmtNs(a.fileNs)}): ${parts.join(' · ')}`;
  head.title = sentences.join('; ');
  box.append(head);
  if (a.categories.length) {
    const cats = document.createElement('div');
    cats.className = 'account-categories';
    const sorted = [...a.categories].sort((x, y) => y.ns - x.ns || (x.category < y.category ? -1 : 1));
    const shown = sorted.slice(0, 8).map((c) => `${c.category} ${fmtNs(c.ns)}`);
    const more = sorted.length > 8 ? ` · ${sorted.length - 8} more` : '';
    cats.textContent = `Lean's categories (${fmtNs(a.categoriesNs)}): ${shown.join(' · ')}${more}`;
    box.append(cats);
  }
  const note = document.createElement('div');
  note.className = 'account-note';
  note.textContent = sentences.slice(1).join('; ');
  box.append(note);
  Object.assign(box.dataset, {
    fileNs: a.fileNs, basis: a.basis, importsNs: a.importsNs ?? '', tracedNs: a.tracedNs,
    untracedNs: a.untracedNs, overrunNs: a.overrunNs, categoriesNs: a.categoriesNs,
    categories: a.categories.length,
  });
}
