// The folder panel (the folder's files and subfolders, with their times and
// shares) and the breadcrumbs of the header.
import { $, el } from './dom.js';
import { state } from './state.js';
import { fmtNs } from './measure.js';
import { call } from './worker-client.js';
import { showBanner } from './banner.js';
import { shareRow } from './row-parts.js';
import { renderList } from './list.js';
import { openFile } from './file.js';
import { selectNone } from './selection.js';
import { writeHash } from './links.js';
import { refreshFlame } from './flame.js';

/** Shows folder `node` (the lists too, unless `opts.keepFile`). */
export async function openFolder(node, opts) {
  state.folder = await call('folder', node);
  state.node = node;
  if (!opts.keepFile) state.scopeFile = false;
  state.folderIndex = -1;
  renderFolder();
  renderCrumbs();
  renderList();
  writeHash();
  refreshFlame();
}

/** Opens the folder of `path`, and the file `file` in it when it can be
 *  opened. */
export async function revealPath(path, file) {
  const n = await call('findPath', path.split('/').slice(0, -1).join('/'));
  if (n >= 0) await openFolder(n, {});
  if (file !== undefined && file !== null) {
    const entry = state.folder.children.find((c) => c.file === file);
    if (entry && (entry.status === 'ok' || entry.status === 'error')) await openFile(file);
  }
}

/** The header's path: session / folders / file › selection. */
export function renderCrumbs() {
  const c = $('crumbs');
  c.replaceChildren();
  const crumbs = state.folder.breadcrumbs;
  crumbs.forEach((b, i) => {
    if (i > 0) c.append(el('span', { class: 'sep', text: '/' }));
    c.append(el('a', { text: b.node === 0 ? 'session' : b.name, dataset: { node: b.node }, onclick: () => openFolder(b.node, {}) }));
  });
  if (state.fileEntry && state.scopeFile) {
    c.append(el('span', { class: 'sep', text: '/' }));
    c.append(el('a', { text: state.fileEntry.path.split('/').pop(), onclick: () => selectNone() }));
  }
  if (state.sel && state.sel.title) {
    c.append(el('span', { class: 'sep', text: '›' }));
    c.append(el('span', { text: state.sel.title }));
  }
}

export function renderFolder() {
  const f = state.folder;
  $('folder-total').textContent = `${f.node.path || 'session'} · ${fmtNs(f.node.totalNs)} · ${f.node.files} file${f.node.files === 1 ? '' : 's'}`;
  const list = $('folder-list');
  list.replaceChildren();
  for (const c of f.children) {
    const cls = [c.isFile ? 'file' : 'folder', c.status || ''].join(' ');
    const status = c.isFile && c.status !== 'ok' ? el('span', { class: 'badge', text: c.status }) : null;
    const extra = c.isFile ? null : el('span', { class: 'path', text: `${c.files} file${c.files === 1 ? '' : 's'}${c.failed ? `, ${c.failed} failed` : ''}` });
    const li = el('li', {
      class: cls, title: c.error || c.path,
      dataset: { node: c.node, path: c.path, totalNs: c.totalNs, file: c.file ?? '' },
      onclick: () => activateFolderRow(c),
    },
    el('span', { class: 'name' }, c.name, status, extra),
    el('span', { class: 'time', text: c.committed ? fmtNs(c.totalNs) : '—' }),
    shareRow(c.shareOfParent, c.shareOfSession));
    list.append(li);
  }
  if (f.children.length === 0) list.append(el('li', { class: 'muted', text: 'No files.' }));
}

/** Opens a folder row's folder or file; says why a file cannot be opened. */
export function activateFolderRow(c) {
  if (!c.isFile) return openFolder(c.node, {});
  if (c.status === 'ok' || c.status === 'error') return openFile(c.file);
  showBanner(`${c.path}: ${c.status}${c.error ? ` — ${c.error}` : ''}`, c.status === 'failed');
  return null;
}
