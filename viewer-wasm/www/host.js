// The page's host: the VS Code webview (through acquireVsCodeApi) or the
// page that shows this one in an iframe. What the page tells it:
//   leanscope.ready        the worker started
//   leanscope.error        {message}: an error the banner shows
//   leanscope.revealRange  {path, sourcePath, range, declaration|tactic|line|event}:
//                          what was selected, for the editor to reveal
// and what it asks of the page (listenToHost):
//   leanscope.open    a configuration (as in index.html's block): open this data
//   leanscope.diff    {document}: show this diff
//   leanscope.select  {path?, declaration?, line?}: select there
//   leanscope.show    {view: 'hotspots' | 'flame'}: show the Hot spots tab
//                     or the flame graph
import { showBanner } from './banner.js';

// eslint-disable-next-line no-undef
const vscodeApi = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : null;

/** Sends `msg` to the host, if there is one. */
export function postHost(msg) {
  if (vscodeApi) vscodeApi.postMessage(msg);
  else if (window.parent && window.parent !== window) window.parent.postMessage(msg, '*');
}

/** Answers the host's messages with `open(config)`, `diff(document)`,
 *  `select(place)` and `show(view)`; a failure is shown in the banner. */
export function listenToHost({ open, diff, select, show }) {
  window.addEventListener('message', async (e) => {
    const m = e.data;
    if (!m || typeof m.type !== 'string') return;
    try {
      if (m.type === 'leanscope.open') await open(m);
      else if (m.type === 'leanscope.diff') await diff(m.document);
      else if (m.type === 'leanscope.select') await select(m);
      else if (m.type === 'leanscope.show') await show(m.view);
    } catch (err) {
      showBanner(`${m.type}: ${err.message}`, true);
    }
  });
}
