// Profile Project: every .lean file of the Lean project of the active file
// (else of a workspace folder) into a session.
import * as vscode from 'vscode';
import { findProjectRoot } from '../sessions';
import { captureSession, SessionCapture } from '../sessionCapture';
import { Services } from '../services';

export async function profileProject(services: Services): Promise<SessionCapture | undefined> {
  const active = vscode.window.activeTextEditor?.document.uri;
  const starts = [
    ...(active?.scheme === 'file' ? [active.fsPath] : []),
    ...(vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
  ];
  for (const start of starts) {
    const root = findProjectRoot(start);
    if (root) return captureSession(services, 'project', vscode.Uri.file(root), root);
  }
  void vscode.window.showErrorMessage(starts.length
    ? `leanscope: no Lean project found (no lean-toolchain, lakefile.toml or lakefile.lean in or above ${starts.join(', ')}).`
    : 'leanscope: open a Lean project folder or a .lean file to profile its project.');
  return undefined;
}
