// A capture into a session: Profile Folder, Profile Project, and Profile
// File with `leanscope.profile.repeat` over 1 (a one-file session of its runs).
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CaptureFolderParams, CaptureFolderResult, METHODS, SessionManifestStatus } from './protocol';
import { FolderProgress, readManifest } from './sessions';
import { folderCaptureParams } from './settings';
import { describeLake, lakeFor } from './leanExtension';
import { formatValue, runCount } from './format';
import { requestWithProgress } from './progress';
import { Services } from './services';
import type { SessionCapture } from './history';
import { isInside } from './paths';

export type { SessionCapture } from './history';

/** How long to wait, after a cancelled folder capture, for its manifest to
 * leave `running` (the sidecar answers before it writes the last state). */
export const CANCEL_SETTLE_MS = 15000;

/** Profile commands run Lean through lake, so they need a trusted workspace;
 * false (and says so) when it is not. */
export function requireTrust(): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showErrorMessage('leanscope: profiling runs Lean through lake in this workspace, so it needs a trusted workspace (Workspaces: Manage Workspace Trust).');
  return false;
}

/** Asks to save the unsaved .lean files under `dir` (Lean reads files
 * from disk); false when the user declines or a save fails. */
async function saveDirtyUnder(dir: string): Promise<boolean> {
  const dirty = vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file'
    && d.uri.fsPath.endsWith('.lean') && isInside(d.uri.fsPath, dir));
  if (dirty.length === 0) return true;
  const names = dirty.map((d) => path.relative(dir, d.uri.fsPath)).join(', ');
  const choice = await vscode.window.showWarningMessage(
    `${dirty.length === 1 ? '1 file has' : `${dirty.length} files have`} unsaved changes (${names}). Lean profiles the files on disk: save them first?`,
    { modal: true }, 'Save and Profile');
  if (choice !== 'Save and Profile') return false;
  for (const d of dirty) {
    if (!(await d.save())) { void vscode.window.showErrorMessage(`leanscope: could not save ${d.uri.fsPath}.`); return false; }
  }
  return true;
}

/** Waits for a cancelled session's manifest to leave `running`. */
async function settledManifest(session: string): Promise<ReturnType<typeof readManifest>> {
  // Cancelled before the sidecar created the session: there is none to wait for.
  const until = Date.now() + (fs.existsSync(session) ? CANCEL_SETTLE_MS : 1000);
  for (;;) {
    const m = readManifest(session);
    if ((m && m.status !== 'running') || Date.now() > until) return m;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `leanscope/captureFolder` with per-file progress and Cancel, then the
 * session in the viewer (and, for a file, its medians in the editor).
 * `folder` is the folder (or the project's root, or the file) captured
 * inside the project at `root`; `fileParams` are Profile File's. */
export async function captureSession(services: Services, what: 'folder' | 'project' | 'file', folder: vscode.Uri, root: string,
  fileParams?: CaptureFolderParams): Promise<SessionCapture | undefined> {
  const { sidecar, viewer, status, history, log, captureFailed } = services;
  const label = `${what} ${path.basename(folder.fsPath)}`;
  if (!requireTrust()) return undefined;
  // Profile File asked to save the file already.
  if (what !== 'file' && !(await saveDirtyUnder(what === 'project' ? root : folder.fsPath))) return undefined;
  const params = fileParams ?? folderCaptureParams(folder, root, what === 'project');
  if (what === 'file') fs.mkdirSync(path.dirname(params.output!), { recursive: true });
  const session = params.output!;
  log(`capture ${label} ${JSON.stringify({ ...params, folder: undefined, file: undefined })}; ${describeLake(lakeFor(folder))}`);
  const shown = new FolderProgress();
  status.captureStarted();
  let answer;
  try {
    answer = await requestWithProgress<CaptureFolderResult>(sidecar, log, { title: `leanscope: profiling ${label}`, name: 'capture' },
      METHODS.captureFolder, params, (p, progress) => {
        if (p.kind === 'end') { if (p.message) log(`progress: ${p.message}`); return; }
        const u = shown.update(p.message, p.percentage);
        if (u) { progress.report(u); log(`progress: ${u.message}`); }
      });
  } catch (e) { captureFailed(`profiling ${label}`, e); return undefined; }
  const { result, cancelled } = answer;
  const manifest = cancelled ? await settledManifest(session) : readManifest(session);
  const counts = result?.counts ?? manifest?.counts ?? { planned: 0, completed: 0, failed: 0 };
  const state = result?.status ?? manifest?.status ?? 'cancelled';
  const outcome: SessionCapture = { session: result?.session ?? session, status: state, counts, cancelled, result, progress: shown.shown };
  const files = (n: number): string => `${n} file${n === 1 ? '' : 's'}`;
  if (cancelled) {
    log(`capture of ${label} cancelled; Lean was stopped; session ${session} is ${state} with ${counts.completed} of ${counts.planned} files`);
    void vscode.window.showInformationMessage(manifest
      ? `leanscope: capture of ${label} cancelled; Lean was stopped. ${counts.completed} of ${files(counts.planned)} captured before are kept in the session.`
      : `leanscope: capture of ${label} cancelled before the session was started; nothing was written.`);
    if (!manifest) return outcome;
  } else {
    log(`session ${outcome.session}: ${state}, ${counts.completed} of ${counts.planned} files, ${counts.failed} failed${result!.withErrors ? `, Lean reported errors in ${result!.withErrors}` : ''}${result!.notes.length ? `; notes: ${result!.notes.join(' | ')}` : ''}`);
    if (counts.failed > 0) {
      void vscode.window.showWarningMessage(`leanscope: ${counts.failed} of ${files(counts.planned)} failed to capture in ${label}; the other ${files(counts.planned - counts.failed)} are in the session. The viewer lists each failure with Lean's error.`);
    }
    if (result!.withErrors > 0) {
      void vscode.window.showInformationMessage(`leanscope: Lean reported errors in ${files(result!.withErrors)} of ${label}; their recordings keep them.`);
    }
  }
  history.sessionRecorded(outcome);
  status.show(`$(pulse) ${path.basename(folder.fsPath)} ${counts.completed}/${files(counts.planned)}${counts.failed ? ` (${counts.failed} failed)` : ''}${cancelled ? ' (cancelled)' : ''}`,
    `leanscope: last capture: ${label}, session ${state} (${counts.completed} of ${files(counts.planned)} captured, ${counts.failed} failed). Click to open the viewer.`,
    { title: 'Show Viewer', command: 'leanscope.showViewer', arguments: [{ session: outcome.session }] });
  if (what === 'file' && !cancelled) await annotateSessionFile(services, outcome, folder);
  viewer.show({ kind: 'session', file: path.join(outcome.session, 'session.json') });
  return outcome;
}

/** The medians of a repeated file in its editor, from its session. */
async function annotateSessionFile(services: Services, outcome: SessionCapture, file: vscode.Uri): Promise<void> {
  const { annotations, status, fail } = services;
  try {
    const doc = await vscode.workspace.openTextDocument(file);
    const fresh = await annotations.load(doc, { session: outcome.session, file: file.fsPath });
    if (!fresh) {
      void vscode.window.showInformationMessage('leanscope: the file changed while it was profiled; its annotations appear when the text matches the recorded source again.');
      return;
    }
    const answer = annotations.answerOf(doc.uri);
    if (answer?.runs !== undefined) {
      const note = annotations.fileNoteOf(doc.uri);
      status.retitle(`$(pulse) ${path.basename(file.fsPath)} median ${formatValue(answer.fileNs, answer.measure ?? 'time')} (${runCount(answer.runs)})`,
        `leanscope: last capture of ${path.basename(file.fsPath)}: the median of ${runCount(answer.runs)} (the runs are kept in ${outcome.session}). Click to open the viewer.${note ? `\n\n${note}.` : ''}`);
    }
  } catch (e) { fail('annotating', e); }
}
