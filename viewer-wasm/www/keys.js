// The keyboard: arrows and Enter in the folder, the list and the source
// (in the Hot spots table, → and ← expand and fold a key's callers); on the
// page, / (filter), Escape (select nothing), 1–4 (tabs), h (Hot spots), f
// (the flame graph, and back to the timeline). The timeline's and the flame
// graph's own keys are in timeline.js and flame.js.
import { $ } from './dom.js';
import { state } from './state.js';
import { openFolder, activateFolderRow } from './folders.js';
import { setTab } from './list.js';
import { setPanelMode } from './flame.js';
import { selectLine, selectNone } from './selection.js';

/** Moves the keyboard's row in list `listId` by `delta` (its index is
 *  state[indexKey]). */
function moveIn(listId, indexKey, delta) {
  const items = [...$(listId).children];
  if (!items.length) return;
  state[indexKey] = Math.max(0, Math.min(items.length - 1, state[indexKey] + delta));
  items.forEach((li, i) => li.classList.toggle('selected', i === state[indexKey]));
  items[state[indexKey]].scrollIntoView({ block: 'nearest' });
}

export function initKeys() {
  $('folder-list').addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') moveIn('folder-list', 'folderIndex', 1);
    else if (e.key === 'ArrowUp') moveIn('folder-list', 'folderIndex', -1);
    else if (e.key === 'Enter' && state.folderIndex >= 0) activateFolderRow(state.folder.children[state.folderIndex]);
    else if ((e.key === 'Backspace' || e.key === 'ArrowLeft') && state.folder.breadcrumbs.length > 1) {
      openFolder(state.folder.breadcrumbs[state.folder.breadcrumbs.length - 2].node, {});
    } else return;
    e.preventDefault();
  });
  $('list').addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') moveIn('list', 'listIndex', 1);
    else if (e.key === 'ArrowUp') moveIn('list', 'listIndex', -1);
    else if (e.key === 'Enter' && state.listIndex >= 0) state.listRows[state.listIndex].act();
    else if ((e.key === 'ArrowRight' || e.key === 'ArrowLeft') && state.listIndex >= 0 && state.listRows[state.listIndex].expand) {
      state.listRows[state.listIndex].expand(e.key === 'ArrowRight');
    } else return;
    e.preventDefault();
  });
  $('source').addEventListener('keydown', (e) => {
    if (state.file === null) return;
    const cur = state.sel && state.sel.kind === 'line' ? state.sel.value : (state.selRange ? state.selRange.startLine : -1);
    if (e.key === 'ArrowDown') selectLine(Math.min(state.lines.length - 1, cur + 1));
    else if (e.key === 'ArrowUp') selectLine(Math.max(0, cur - 1));
    else return;
    e.preventDefault();
  });
  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) {
      if (e.key === 'Escape') e.target.blur();
      return;
    }
    if (e.key === '/') { e.preventDefault(); $('filter').focus(); }
    else if (e.key === 'Escape') selectNone();
    else if (e.key === '1' || e.key === '2' || e.key === '3') setTab(['files', 'declarations', 'tactics'][Number(e.key) - 1]);
    else if (e.key === '4' && state.diff) setTab('diff');
    else if (e.key === 'h') setTab('hotspots');
    else if (e.key === 'f') setPanelMode(state.panelMode === 'flame' ? 'timeline' : 'flame');
  });
}
