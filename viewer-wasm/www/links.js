// The deep link: the page's address after `#` says what is shown
// (node=folder, file, tab, sel=kind:number, view=flame), is kept up to date, and opens
// the same view when the page is loaded with it or the link changes.
import { state } from './state.js';
import { call } from './worker-client.js';
import { showBanner } from './banner.js';
import { isFirstViewOnly } from './first-view.js';
import { openFolder } from './folders.js';
import { renderList } from './list.js';
import { openFile } from './file.js';
import { selectDeclaration, selectLine, selectEvent, selectTactic } from './selection.js';
import { setPanelMode } from './flame.js';

/** True while a link is being opened: what it opens must not overwrite it. */
let restoring = false;

/** Writes what is shown into the link. */
export function writeHash() {
  if (restoring) return;
  const p = new URLSearchParams();
  p.set('node', state.node);
  if (state.file !== null && state.scopeFile) p.set('file', state.file);
  p.set('tab', state.tab);
  if (state.panelMode === 'flame') p.set('view', 'flame');
  if (state.sel && state.scopeFile) p.set('sel', `${state.sel.kind}:${state.sel.value}`);
  const h = `#${p.toString()}`;
  if (location.hash !== h) history.replaceState(null, '', h);
}

/** Runs `open` (opening the data) without touching the link the page was
 *  opened with, then opens what that link points at. */
export async function keepingLink(open) {
  const initialHash = location.hash;
  restoring = true;
  try {
    await open();
  } finally {
    restoring = false;
  }
  await restoreFromHash(initialHash);
}

/** Opens what link `hash` (by default the page's) points at. */
async function restoreFromHash(hash) {
  const p = new URLSearchParams((hash === undefined ? location.hash : hash).slice(1));
  if (![...p.keys()].length) { writeHash(); return; }
  restoring = true;
  try {
    if (p.has('tab')) state.tab = p.get('tab');
    const node = Number(p.get('node'));
    if (p.has('node') && Number.isInteger(node) && node !== state.node) await openFolder(node, {});
    if (p.has('file')) {
      const k = Number(p.get('file'));
      if (state.file !== k || !state.scopeFile) await openFile(k);
      if (p.has('tab')) { state.tab = p.get('tab'); await renderList(); }
      const [kind, value] = (p.get('sel') || '').split(':');
      const n = Number(value);
      if (kind && !(value && Number.isInteger(n) && n >= 0)) throw new Error(`the selection "${p.get('sel')}" is not a kind and a number`);
      if (kind === 'decl') await selectDeclaration(n);
      else if (kind === 'line') await selectLine(n);
      else if (kind === 'event') await selectEvent(n);
      else if (kind === 'tactic') {
        await selectTactic(await call('tactic', state.file, n));
      }
    } else {
      await renderList();
    }
    if (p.get('view') === 'flame') await setPanelMode('flame');
  } catch (e) {
    if (!e.reported) showBanner(`Cannot restore the link: ${e.message}`, true);
  } finally {
    restoring = false;
    writeHash();
  }
}

/** Follows the link when it changes (not while it is being written, nor
 *  before the data is open). */
export function followLinkChanges() {
  window.addEventListener('hashchange', () => { if (!restoring && !isFirstViewOnly()) restoreFromHash(); });
}
