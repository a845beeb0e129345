// The first view: the session's summary and root folder that the server
// put in the page's configuration (`firstView`: the viewer model's own
// answers from the same session.json, see sidecar/src/viewer/first_view.rs),
// painted before the worker and its wasm are ready, then replaced by the
// worker's answers. And when the page first painted (debug.firstPaintMs).
import { $ } from './dom.js';
import { state, debug } from './state.js';
import { renderSession } from './session.js';
import { renderFolder, renderCrumbs } from './folders.js';

// Until the worker opened the data, the first view is only to look at:
// clicks and keys wait for the real one (a link changed meanwhile is
// opened by openData, which reads location.hash when it starts).
let firstViewOnly = false;

/** Whether the page shows only the first view (the worker is not ready). */
export function isFirstViewOnly() {
  return firstViewOnly;
}

/** The page now shows the worker's answers (or failed to start it). */
export function endFirstView() {
  firstViewOnly = false;
}

/** Drops clicks and keys while only the first view is shown. */
export function guardFirstView() {
  for (const type of ['click', 'keydown']) {
    document.addEventListener(type, (e) => {
      if (firstViewOnly) { e.stopPropagation(); e.preventDefault(); }
    }, true);
  }
}

/** Paints the configuration's first view, if it has one and the link
 *  opens nowhere else. */
export function showFirstView(config) {
  const v = config.firstView;
  if (!v || !config.session || !v.summary || !v.folder || location.hash.length > 1) return;
  firstViewOnly = true;
  state.summary = v.summary;
  state.folder = v.folder;
  state.node = 0;
  renderSession();
  renderFolder();
  renderCrumbs();
  $('list-scope').textContent = 'Loading…';
  debug.firstView = firstViewSnapshot();
  markFirstPaint();
}

/** What the folder view shows (compared by the tests with the worker's). */
export function firstViewSnapshot() {
  return ['crumbs', 'session-status', 'session-counts', 'problems', 'folder-total', 'folder-list']
    .map((id) => [id, $(id).innerHTML]);
}

/** Notes the time of the next frame as the first paint, unless one was
 *  noted already. */
export function markFirstPaint() {
  requestAnimationFrame(() => {
    if (debug.firstPaintMs === null) debug.firstPaintMs = performance.now();
  });
}
