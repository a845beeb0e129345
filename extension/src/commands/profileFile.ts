// Profile File: one capture of a .lean file (`leanscope/capture`), its
// timings in the editor; or, with `leanscope.profile.repeat` over 1, a
// one-file session of its runs with the medians in the editor.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CaptureResult, METHODS } from '../protocol';
import { findProjectRoot } from '../sessions';
import { captureParams, profileSettings, repeatedFileParams } from '../settings';
import { formatNs } from '../format';
import { requestWithProgress } from '../progress';
import { captureSession, requireTrust, SessionCapture } from '../sessionCapture';
import { Services } from '../services';

/** Profiles `arg` (from the Explorer or the editor title), else the active
 * editor's file, after asking to save it if it has unsaved changes. */
export async function profileFile(services: Services, arg?: vscode.Uri): Promise<CaptureResult | SessionCapture | undefined> {
  const { sidecar, annotations, viewer, status, history, log, fail } = services;
  const file = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  if (!file) { void vscode.window.showErrorMessage('leanscope: open a .lean file (or pick one in the Explorer) to profile it.'); return undefined; }
  if (file.scheme !== 'file' || !file.fsPath.endsWith('.lean')) {
    void vscode.window.showErrorMessage(`leanscope: ${file.fsPath || file.toString()} is not a local .lean file.`);
    return undefined;
  }
  if (!requireTrust()) return undefined;
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === file.toString());
  if (open?.isDirty) {
    const choice = await vscode.window.showWarningMessage(`${path.basename(file.fsPath)} has unsaved changes. Lean profiles the file on disk: save it first?`, { modal: true }, 'Save and Profile');
    if (choice !== 'Save and Profile') return undefined;
    if (!(await open.save())) { void vscode.window.showErrorMessage(`leanscope: could not save ${file.fsPath}.`); return undefined; }
  }
  const { repeat, warmup } = profileSettings();
  if (repeat > 1) {
    const root = findProjectRoot(file.fsPath);
    if (!root) {
      void vscode.window.showErrorMessage(`leanscope: ${file.fsPath} is not inside a Lean project (no lean-toolchain, lakefile.toml or lakefile.lean in or above its folder).`);
      return undefined;
    }
    return captureSession(services, 'file', file, root, repeatedFileParams(file, root, repeat, warmup));
  }
  const params = captureParams(file);
  if (params.output) fs.mkdirSync(path.dirname(params.output), { recursive: true });
  log(`capture ${file.fsPath} ${JSON.stringify({ ...params, uri: undefined })}`);
  let answer;
  try {
    answer = await requestWithProgress<CaptureResult>(sidecar, log, { title: `leanscope: profiling ${path.basename(file.fsPath)}`, name: 'capture' },
      METHODS.capture, params, (p, progress) => {
        if (p.message) { progress.report({ message: p.message }); log(`progress: ${p.message}`); }
      });
  } catch (e) { fail(`profiling ${path.basename(file.fsPath)}`, e); return undefined; }
  if (answer.cancelled) {
    log('capture cancelled; Lean was stopped');
    void vscode.window.showInformationMessage('leanscope: capture cancelled; Lean was stopped and nothing was written.');
    return undefined;
  }
  const result = answer.result!;
  history.recorded({ recording: result.recording, source: file, result });
  log(`recorded ${result.recording}: ${result.events} events, ${result.declarations} declarations, status ${result.status}${result.notes.length ? `; notes: ${result.notes.join(' | ')}` : ''}`);
  const time = result.elapsedNs !== null ? formatNs(result.elapsedNs) : `${result.leanWallMs} ms (wall)`;
  status.show(`$(pulse) ${path.basename(file.fsPath)} ${time}`,
    `leanscope: last capture of ${result.module} (${result.events} events, ${result.declarations} declarations${result.errors ? `, ${result.errors} errors` : ''}). Click to open the viewer.`);
  if (result.status === 'error') {
    void vscode.window.showWarningMessage(`leanscope: Lean reported ${result.errors} error${result.errors === 1 ? '' : 's'} in ${path.basename(file.fsPath)}; the recording keeps them.`);
  }
  try {
    const doc = await vscode.workspace.openTextDocument(file);
    const fresh = await annotations.load(doc, result.recording);
    if (!fresh) void vscode.window.showInformationMessage('leanscope: the file changed while it was profiled; its annotations appear when the text matches the recorded source again.');
  } catch (e) { fail('annotating', e); }
  if (viewer.current) viewer.show({ kind: 'recording', file: result.recording, source: file });
  return result;
}
