// Profile File: one capture of a .lean file (`leanscope/capture`), its
// timings in the editor; or, with `leanscope.profile.repeat` over 1, a
// one-file session of its runs with the medians in the editor.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { CaptureResult } from '../protocol';
import { findProjectRoot } from '../sessions';
import { profileSettings, repeatedFileParams } from '../settings';
import { captureFile } from '../fileCapture';
import { captureSession, requireTrust, SessionCapture } from '../sessionCapture';
import { Services } from '../services';

/** Profiles `arg` (from the Explorer or the editor title), else the active
 * editor's file, after asking to save it if it has unsaved changes. */
export async function profileFile(services: Services, arg?: vscode.Uri): Promise<CaptureResult | SessionCapture | undefined> {
  const { captureFailed } = services;
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
  const outcome = await captureFile(services, file);
  if (outcome.kind === 'failed') { captureFailed(`profiling ${path.basename(file.fsPath)}`, outcome.error); return undefined; }
  if (outcome.kind === 'cancelled') {
    void vscode.window.showInformationMessage('leanscope: capture cancelled; Lean was stopped and nothing was written.');
    return undefined;
  }
  if (!outcome.annotated) void vscode.window.showInformationMessage('leanscope: the file changed while it was profiled; its annotations appear when the text matches the recorded source again.');
  return outcome.result;
}
