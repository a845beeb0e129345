// Profile Folder: every .lean file of a folder into a session.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findProjectRoot } from '../sessions';
import { captureSession, SessionCapture } from '../sessionCapture';
import { Services } from '../services';

/** Profiles `arg` (a folder from the Explorer; a .lean file from an editor's
 * title menu, such as the Lean 4 extension's ∀ menu: its folder), else the
 * active .lean file's folder, else a folder asked for. */
export async function profileFolder(services: Services, arg?: vscode.Uri): Promise<SessionCapture | undefined> {
  let folder = arg instanceof vscode.Uri ? arg : undefined;
  if (folder?.scheme === 'file' && folder.fsPath.endsWith('.lean')) {
    let isFile = false;
    try { isFile = fs.statSync(folder.fsPath).isFile(); } catch { /* reported below */ }
    if (isFile) folder = vscode.Uri.file(path.dirname(folder.fsPath));
  }
  if (!folder) {
    const active = vscode.window.activeTextEditor?.document.uri;
    if (active?.scheme === 'file' && active.fsPath.endsWith('.lean')) folder = vscode.Uri.file(path.dirname(active.fsPath));
  }
  if (!folder) {
    // From the Command Palette without a Lean file: pick the folder.
    const picked = await vscode.window.showOpenDialog({
      canSelectFolders: true, canSelectFiles: false, canSelectMany: false,
      defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri, openLabel: 'Profile Folder',
      title: 'leanscope: the folder whose .lean files to profile',
    });
    if (!picked || picked.length === 0) return undefined;
    folder = picked[0];
  }
  let isDir = false;
  try { isDir = folder.scheme === 'file' && fs.statSync(folder.fsPath).isDirectory(); } catch { /* reported below */ }
  if (!isDir) { void vscode.window.showErrorMessage(`leanscope: ${folder.fsPath || folder.toString()} is not a local folder.`); return undefined; }
  const root = findProjectRoot(folder.fsPath);
  if (!root) {
    void vscode.window.showErrorMessage(`leanscope: ${folder.fsPath} is not inside a Lean project (no lean-toolchain, lakefile.toml or lakefile.lean in it or above it).`);
    return undefined;
  }
  return captureSession(services, 'folder', folder, root);
}
