// The leanscope viewer page. It never parses data: a Web Worker (started
// from a Blob URL, worker-client.js) streams and decodes everything with
// the WebAssembly model and answers with view models, which the modules
// beside this one render. This entry wires them and starts the page:
//   state.js          what is shown (one object), and window.__leanscope
//   format.js         the one rule for times and heartbeat counts (shared
//                     with the CLI and the extension); measure.js applies
//                     it to the data's numbers
//   dom.js            el/$ and virtual rows; row-parts.js: cells of rows
//   host.js           messages with the VS Code webview or iframe parent
//   banner.js         the status/error line
//   first-view.js     the view the server rendered into the page
//   session.js        opening the data; the session header
//   folders.js        the folder panel and breadcrumbs
//   list.js, diff.js  the list panel's tabs, and the diff tab
//   file.js           opening a file; its header
//   source.js         the source with line bars
//   selection.js      selecting a declaration, tactic, line or event
//   details.js        the details panel
//   timeline.js       the timeline canvas
//   hotspots.js       the Hot spots tab: bottom-up table and sandwich
//   flame.js          the flame graph (the timeline panel's other mode)
//   links.js          the deep link (#node=…&file=…&tab=…&sel=…)
//   keys.js           the keyboard
import { $ } from './dom.js';
import { debug } from './state.js';
import { fmtNs } from './measure.js';
import { call, startWorker } from './worker-client.js';
import { postHost, listenToHost } from './host.js';
import { showBanner } from './banner.js';
import { guardFirstView, showFirstView, endFirstView, firstViewSnapshot } from './first-view.js';
import { openData } from './session.js';
import { initListControls, setTab } from './list.js';
import { showDiff } from './diff.js';
import { onProgress } from './file.js';
import { initSource } from './source.js';
import { selectAt } from './selection.js';
import { timeline, initTimeline } from './timeline.js';
import { followLinkChanges } from './links.js';
import { initKeys } from './keys.js';
import { initHotSpots, showView } from './hotspots.js';
import { flame, initFlame, refreshFlame } from './flame.js';
import { renderList } from './list.js';
import { initMemory, memoryLane } from './memory.js';

Object.assign(debug, {
  call, fmtNs, firstViewSnapshot, timeline, flame, showView, memoryLane,
  redrawTimeline: () => timeline.redraw(),
});
window.__leanscope = debug;

guardFirstView();
initTimeline();
initFlame();
initMemory();
initHotSpots(() => { renderList(); refreshFlame(); });
followLinkChanges();
listenToHost({
  open: openData,
  diff: async (document) => { showDiff(await call('setDiff', document)); setTab('diff'); },
  select: selectAt,
  show: showView,
});
initKeys();
initSource();
initListControls();

/** Reads the page's configuration, paints the server's first view, starts
 *  the worker and opens the data (or waits for the host to send it). */
async function main() {
  let config = {};
  try {
    config = JSON.parse($('leanscope-config').textContent);
  } catch (e) {
    showBanner(`The page's configuration is not valid JSON: ${e.message}`, true);
    return;
  }
  showFirstView(config);
  try {
    await startWorker(config, onProgress);
  } catch (e) {
    endFirstView();
    showBanner(`Cannot start the viewer: ${e.message}`, true);
    debug.error = e.message;
    return;
  }
  postHost({ type: 'leanscope.ready' });
  if (config.configured === false) {
    showBanner('Waiting for a session or recording from the host…', false);
    return;
  }
  try {
    await openData(config);
  } catch (e) {
    showBanner(`Cannot open the data: ${e.message}`, true);
    debug.error = e.message;
  } finally {
    endFirstView();
  }
}
debug.ready = main();
