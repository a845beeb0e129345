// Open Recording…: a recording (with its source annotated, when found) or
// a session in the viewer.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { METHODS, OpenResult } from '../protocol';
import { ViewerTarget } from '../viewer';
import { findSource } from '../sources';
import { Services } from '../services';
import { SidecarError } from '../sidecar';

/** Opens `arg` (from the Explorer), else a file or folder asked for: a
 * `.lsrec`, a session folder or its `session.json`. */
export async function openRecording(services: Services, arg?: vscode.Uri): Promise<ViewerTarget | undefined> {
  const { sidecar, annotations, viewer, history, log, fail } = services;
  let picked = arg instanceof vscode.Uri ? arg : undefined;
  if (!picked) {
    const chosen = await vscode.window.showOpenDialog({
      canSelectFiles: true, canSelectFolders: true, canSelectMany: false,
      openLabel: 'Open in leanscope', filters: { 'leanscope recordings and sessions': ['lsrec', 'json'] },
    });
    picked = chosen?.[0];
    if (!picked) return undefined;
  }
  let file = picked.fsPath;
  try {
    if (fs.statSync(file).isDirectory()) file = path.join(file, 'session.json');
  } catch (e) { fail('opening', e); return undefined; }
  if (path.basename(file) === 'session.json') {
    if (!fs.existsSync(file)) { void vscode.window.showErrorMessage(`leanscope: ${path.dirname(file)} is not a session (no session.json).`); return undefined; }
    const target: ViewerTarget = { kind: 'session', file };
    viewer.show(target);
    return target;
  }
  let facts: OpenResult;
  try { facts = await sidecar.request<OpenResult>(METHODS.open, { recording: file }); } catch (e) {
    // Without a sidecar (the universal VSIX) the viewer still shows the
    // recording; only the editor's annotations need leanscope.
    if (e instanceof SidecarError && e.kind === 'noSidecar') {
      log(`open ${file} in the viewer only: ${e.message}`);
      void vscode.window.showInformationMessage(`leanscope: ${path.basename(file)} is shown in the viewer; editor annotations need a platform build of leanscope (see the "leanscope" output).`);
      const target: ViewerTarget = { kind: 'recording', file };
      viewer.show(target);
      return target;
    }
    fail(`opening ${path.basename(file)}`, e);
    return undefined;
  }
  const source = findSource(file, facts.sourcePath);
  const target: ViewerTarget = { kind: 'recording', file, source };
  if (source) {
    history.sources.set(file, source);
    try {
      const doc = await vscode.workspace.openTextDocument(source);
      await annotations.load(doc, file);
    } catch (e) { fail('annotating', e); }
  } else {
    log(`open: the source ${facts.sourcePath} of ${file} is not in the workspace; no editor annotations`);
  }
  viewer.show(target);
  return target;
}
