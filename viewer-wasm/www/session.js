// Opening the data the page was given (a session, with its index and maybe
// a diff, or a lone recording), and the session's header: its status, its
// counts and its problem files.
import { $, el, virtualRows } from './dom.js';
import { state } from './state.js';
import { fmtNs } from './measure.js';
import { call } from './worker-client.js';
import { showBanner } from './banner.js';
import { markFirstPaint } from './first-view.js';
import { openFolder, revealPath } from './folders.js';
import { renderList } from './list.js';
import { openFile } from './file.js';
import { showDiff } from './diff.js';
import { keepingLink } from './links.js';
import { showView } from './hotspots.js';

/** Opens the data of `config` (the page's configuration, or the host's
 *  `leanscope.open`), then the place the page's link points at. */
export async function openData(config) {
  await keepingLink(() => openDataInner(config));
  // What the host asked to open on: the Hot spots tab or the flame graph.
  if (config.view) await showView(config.view);
}

async function openDataInner(config) {
  if (config.diff) {
    // Small next to the data; loaded first so a link to the diff tab works.
    try {
      showDiff(await call('loadDiff', new URL(config.diff, document.baseURI).href));
    } catch (e) {
      showBanner(`Cannot read the diff: ${e.message}`, true);
    }
  }
  if (config.session) {
    const url = new URL(config.session, document.baseURI).href;
    state.summary = await call('openSession', url);
    const indexUrl = config.index ? new URL(config.index, document.baseURI).href : new URL('index.jsonl', url).href;
    renderSession();
    await openFolder(0, { fromHash: true });
    markFirstPaint();
    call('loadIndex', indexUrl).then((info) => {
      state.indexInfo = info;
      if (info.warnings && info.warnings.length) showBanner(`Index: ${info.warnings.join('; ')}`, false);
      if (!state.scopeFile) renderList();
    }, (e) => showBanner(`Cannot read the index: ${e.message}`, true));
  } else if (config.recording) {
    const url = new URL(config.recording, document.baseURI).href;
    const name = config.recordingName || decodeURIComponent(url.split('/').pop());
    state.summary = await call('openSingle', url, name, config.recordingEvents ?? -1);
    renderSession();
    await openFolder(0, {});
    markFirstPaint();
    await openFile(0);
    state.summary = await call('sessionSummary');
    renderSession();
    await openFolder(0, { keepFile: true });
  } else {
    showBanner('No session or recording was given to the viewer.', false);
  }
}

/** The header: the session's status, its counts, and the files that
 *  failed or have no time. */
export function renderSession() {
  const s = state.summary;
  const pill = $('session-status');
  pill.hidden = false;
  pill.className = `pill ${s.statusLabel}`;
  pill.textContent = s.statusLabel;
  pill.title = s.statusLabel === 'interrupted'
    ? 'The session is marked running, but its capture stopped (crash or kill): what is shown is what was committed.'
    : `session ${s.statusLabel}`;
  $('session-counts').textContent = s.single
    ? ''
    : `${s.completed} of ${s.planned} files captured · ${s.failed} failed · total ${fmtNs(s.totalNs)}`
      + (s.repeats ? ` · repeated capture: ${s.repeats.runs} runs per file (${s.repeats.warmup} warm-up discarded), every time is a median over the runs` : '');
  const probs = $('problems');
  probs.replaceChildren();
  const problems = s.problemFiles.filter((p) => p.status !== 'ok');
  probs.hidden = problems.length === 0;
  if (s.filesWithoutElapsed > 0 && !s.single) {
    probs.hidden = false;
    probs.append(el('div', { class: 'muted note', text: `${s.filesWithoutElapsed} file(s) have no elapsed time from Lean; their time is unknown and not counted in folder totals.` }));
  }
  if (problems.length) probs.append(virtualRows(problems, problemRow, PROBLEM_ROW_H));
}

const PROBLEM_ROW_H = 18;
function problemRow(p) {
  return el('div', { class: `problem ${p.status}`, dataset: { path: p.path } },
    el('span', { class: 'status', text: p.status }),
    el('a', { text: p.path, href: '#', onclick: (e) => { e.preventDefault(); revealPath(p.path, p.file); } }),
    p.error ? el('span', { class: 'muted', text: ` — ${p.error}` }) : null);
}
