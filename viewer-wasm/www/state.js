// What the page shows, in one object every view reads and writes: the
// session, the folder, the open file, the list and the selection. The views
// render from it; the deep link (links.js) is written from it.

export const state = {
  /** The session's summary (the worker's `sessionSummary`). */
  summary: null,
  /** The folder shown: its node, and its view (`folder` of the worker). */
  node: 0, folder: null,
  /** The list panel: its tab, filter text and order. */
  tab: 'files', filter: '', sort: 'total',
  /** The open file: its number, path and node, its summary (`loadFile`),
   *  and whether the lists show it (true) or the folder (false). */
  file: null, fileEntry: null, fileSummary: null, scopeFile: false,
  /** The open file's source lines and line bars ([line, inclusive, self,
   *  events]; their spreads for a repeated capture), and the largest bar. */
  lines: [], bars: new Map(), barSpreads: new Map(), maxNs: 0,
  /** The open file's declarations (in source order). */
  decls: null,
  /** The selection ({kind, value, title}), its source range and the range
   *  of its declaration. */
  sel: null, selRange: null, declRange: null,
  /** The rows listed ({li, act}) and the keyboard's place in the lists. */
  listRows: [], listIndex: -1, folderIndex: -1,
  /** The session index's answer (`loadIndex`), once read. */
  indexInfo: null,
  /** The diff's facts (`loadDiff`/`setDiff`), when there is one. */
  diff: null,
  /** Hot spots: the class shown ('' for all), the table's order (self by
   *  default), and the timeline panel's mode ('timeline' or 'flame'). */
  hotClass: '', hotSort: 'self', panelMode: 'timeline',
};

/** What the page tells its tests, its benchmarks and the VS Code host
 *  (`window.__leanscope`, set by viewer.js): timings, the state, and
 *  handles on the worker and the timeline. */
export const debug = { firstPaintMs: null, fileLoads: [], state };
