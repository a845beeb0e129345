// Loaded before the viewer inside the VS Code webview. VS Code's API can be
// acquired only once: take it here, hand the same object to the viewer, and
// tell the extension when the viewer has opened its data (so a selection
// sent by the editor never reaches a viewer that is still loading).
(function () {
  'use strict';
  /* global acquireVsCodeApi */
  const api = acquireVsCodeApi();
  window.acquireVsCodeApi = () => api;
  document.addEventListener('DOMContentLoaded', () => {
    const viewer = window.__leanscope;
    if (!viewer || !viewer.ready) {
      api.postMessage({ type: 'leanscope.loaded', error: 'the viewer script did not start' });
      return;
    }
    viewer.ready.then(
      () => api.postMessage({ type: 'leanscope.loaded', error: viewer.error || null }),
      (e) => api.postMessage({ type: 'leanscope.loaded', error: String(e && e.message || e) }),
    );
  });
})();
