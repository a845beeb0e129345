// leanscope for VS Code: Profile File through the bundled `leanscope serve`,
// timings in the editor, and the viewer in a webview.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { Sidecar, SidecarError, resolveSidecarBinary } from './sidecar';
import { AnnotationController } from './annotations';
import { ViewerHost, ViewerTarget } from './viewer';
import { formatNs, formatValue, runCount } from './format';
import {
  AnnotationSource, AnnotationsResult, CaptureFolderParams, CaptureFolderResult, CaptureParams, CaptureResult, CaptureSettings,
  COMPARE_METRICS, CompareParams, CompareResult, CompareSettings, METHODS, OpenResult, REQUEST_CANCELLED, SessionManifestStatus,
} from './protocol';
import { editorMessage } from './messages';
import { CompareCounts, compareCounts, compareSummary } from './compare';
import { compareRevisions, RevisionComparison } from './revisions';
import { FolderProgress, findProjectRoot, readManifest, sessionDirectory, stamp } from './sessions';

export { computeAnnotations, lineHover, sha256Text, BAR_MAX_PX, HEAT_LEVELS } from './annotations';
export { viewerHtml, viewerCsp, VIEWER_FILES } from './viewer';
export { formatHeartbeats, formatNs, formatNsLike, formatShare, formatValue, lensTitle, runCount, spreadText } from './format';
export { resolveSidecarBinary, MAX_RESTARTS } from './sidecar';
export { findProjectRoot, sessionDirectory, FolderProgress } from './sessions';
export { CAPTURE_BACKENDS, COMPARE_METRICS } from './protocol';
export { editorMessage, REMOTE_SETTINGS_HINT } from './messages';
export { compareCounts, compareSummary } from './compare';
export type { CompareCounts } from './compare';
export { defaultBase } from './revisions';
export type { RevisionComparison } from './revisions';

let active: Sidecar | undefined;

export const COMMANDS = [
  'leanscope.profileFile', 'leanscope.profileFolder', 'leanscope.profileProject', 'leanscope.openRecording',
  'leanscope.showViewer', 'leanscope.toggleAnnotations', 'leanscope.clear', 'leanscope.compareWithBaseline',
  'leanscope.compareRevisions',
] as const;

export interface LastCapture { recording: string; source: vscode.Uri; result: CaptureResult }

/** The outcome of Profile Folder / Profile Project (and of Profile File
 * with `leanscope.profile.repeat` over 1): the session directory,
 * its final status and counts as its manifest says, and the sidecar's
 * answer (none when the capture was cancelled). */
export interface SessionCapture {
  session: string;
  status: SessionManifestStatus;
  counts: { planned: number; completed: number; failed: number };
  cancelled: boolean;
  result?: CaptureFolderResult;
  /** What the progress notification showed, in order. */
  progress: string[];
}

/** The outcome of Compare with Baseline: what was asked, the sidecar's
 * diff document, the counts the notification showed, and what the viewer
 * shows. */
export interface BaselineComparison {
  params: CompareParams;
  result: CompareResult;
  counts: CompareCounts;
  summary: string;
  target: ViewerTarget;
}

/** How long to wait, after a cancelled folder capture, for its manifest to
 * leave `running` (the sidecar answers before it writes the last state). */
export const CANCEL_SETTLE_MS = 15000;

/** What `activate` returns (VS Code hands it to other extensions; the
 * tests use it to look inside). */
export interface LeanscopeApi {
  sidecar: Sidecar;
  annotations: AnnotationController;
  viewer: ViewerHost;
  lastCapture(): LastCapture | undefined;
  lastSession(): SessionCapture | undefined;
}

function config(): vscode.WorkspaceConfiguration { return vscode.workspace.getConfiguration('leanscope'); }

/** What every capture takes from the settings: threshold, lake, timeout
 * and backend (the sidecar checks the backend and names the accepted ones). */
export function captureSettings(): CaptureSettings {
  const c = config();
  const params: CaptureSettings = {};
  const threshold = c.get<number>('thresholdMs', 10);
  if (typeof threshold === 'number' && threshold >= 0) params.thresholdMs = threshold;
  const lake = (c.get<string>('lakePath', '') || '').trim();
  if (lake) params.lake = lake;
  const timeout = c.get<number>('timeoutSeconds', 0);
  if (typeof timeout === 'number' && timeout >= 1) params.timeoutSeconds = Math.floor(timeout);
  const backend = c.get<string>('captureBackend', 'auto');
  if (typeof backend === 'string' && backend.trim()) params.backend = backend.trim();
  return params;
}

/** What Compare with Baseline takes from the settings, in the sidecar's
 * units: `leanscope.compare.metric` (an unknown one is passed on, and the
 * sidecar names the accepted ones), `absoluteToleranceMs` in nanoseconds
 * (it applies to the time metrics, `*_ns`; 0 for the others) and
 * `relativeTolerancePercent` in basis points. Negative or non-numeric
 * tolerances count as 0. */
export function compareSettings(): CompareSettings {
  const c = config();
  const raw = c.get<string>('compare.metric', 'total_ns');
  const metric = typeof raw === 'string' && raw.trim() ? raw.trim() : 'total_ns';
  const amount = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  const ms = amount(c.get<number>('compare.absoluteToleranceMs', 0));
  const percent = amount(c.get<number>('compare.relativeTolerancePercent', 0));
  return {
    metric,
    absoluteTolerance: metric.endsWith('_ns') ? Math.round(ms * 1e6) : 0,
    relativeToleranceBps: Math.round(percent * 100),
  };
}

/** The `leanscope.outputDirectory` setting as an absolute path (a relative
 * one is resolved against the workspace folder of `near`), or '' when unset. */
export function outputDirectory(near: vscode.Uri): string {
  const out = (config().get<string>('outputDirectory', '') || '').trim();
  if (!out || path.isAbsolute(out)) return out;
  const folder = vscode.workspace.getWorkspaceFolder(near) ?? vscode.workspace.workspaceFolders?.[0];
  return path.resolve(folder ? folder.uri.fsPath : path.dirname(near.fsPath), out);
}

/** Most runs (and warm-ups) a repeated capture may ask for (the sidecar's
 * `recording::repeats::MAX_REPEATS`). */
export const MAX_REPEATS = 1000;

/** How Profile File captures: `leanscope.profile.repeat` runs (1 to
 * MAX_REPEATS, whole; anything else counts as 1) after
 * `leanscope.profile.warmup` discarded ones (0 to MAX_REPEATS, default 1;
 * used only when repeat is over 1). */
export function profileSettings(): { repeat: number; warmup: number } {
  const c = config();
  const whole = (v: unknown, min: number, dflt: number): number =>
    (typeof v === 'number' && Number.isFinite(v) ? Math.min(MAX_REPEATS, Math.max(min, Math.floor(v))) : dflt);
  return { repeat: whole(c.get<number>('profile.repeat', 1), 1, 1), warmup: whole(c.get<number>('profile.warmup', 1), 0, 1) };
}

/** The parameters of `leanscope/captureFolder` for Profile File with
 * repeats: the file's runs into a one-file session named after the file. */
export function repeatedFileParams(file: vscode.Uri, root: string, repeat: number, warmup: number, now = new Date()): CaptureFolderParams {
  const named = path.join(path.dirname(file.fsPath), path.basename(file.fsPath, '.lean'));
  return {
    file: file.fsPath, repeat, warmup, ...captureSettings(),
    output: sessionDirectory(named, root, outputDirectory(file), now),
  };
}

/** The parameters of `leanscope/capture` from the settings. */
export function captureParams(file: vscode.Uri, now = new Date()): CaptureParams {
  const params: CaptureParams = { uri: file.toString(), ...captureSettings() };
  const out = outputDirectory(file);
  if (out) params.output = path.join(out, `${path.basename(file.fsPath, '.lean')}-${stamp(now)}.lsrec`);
  return params;
}

/** The parameters of `leanscope/captureFolder` for a folder (or, with
 * `project`, the whole project at `folder`) inside the project at `root`;
 * the session directory is always named, so a cancelled capture can be
 * opened too. */
export function folderCaptureParams(folder: vscode.Uri, root: string, project: boolean, now = new Date()): CaptureFolderParams {
  return {
    folder: folder.fsPath, ...(project ? { project: true } : {}), ...captureSettings(),
    output: sessionDirectory(folder.fsPath, root, outputDirectory(folder), now),
  };
}

/** Where the source of a recording is: next to the project holding
 * `.leanscope/recordings/`, else in a workspace folder. */
export function findSource(recording: string, sourcePath: string): vscode.Uri | undefined {
  if (path.isAbsolute(sourcePath)) return fs.existsSync(sourcePath) ? vscode.Uri.file(sourcePath) : undefined;
  const roots: string[] = [];
  const dir = path.dirname(recording);
  if (path.basename(dir) === 'recordings' && path.basename(path.dirname(dir)) === '.leanscope') roots.push(path.dirname(path.dirname(dir)));
  for (const f of vscode.workspace.workspaceFolders ?? []) roots.push(f.uri.fsPath);
  for (const r of roots) {
    const p = path.join(r, sourcePath);
    if (fs.existsSync(p)) return vscode.Uri.file(p);
  }
  return undefined;
}

export function activate(context: vscode.ExtensionContext): LeanscopeApi {
  const output = vscode.window.createOutputChannel('leanscope');
  const log = (line: string): void => output.appendLine(`${new Date().toISOString()} ${line}`);
  context.subscriptions.push(output);

  const sidecar = new Sidecar({
    binary: resolveSidecarBinary(config().get<string>('sidecarPath', ''), context.extensionPath),
    log,
    onDied: (message, restarting) => {
      if (restarting) void vscode.window.showWarningMessage(`leanscope: ${message}`);
      else void vscode.window.showErrorMessage(`leanscope: ${message}`, 'Show Output').then((a) => { if (a) output.show(); });
    },
  });
  active = sidecar;
  context.subscriptions.push({ dispose: () => sidecar.dispose() });
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration('leanscope.sidecarPath')) return;
    void sidecar.useBinary(resolveSidecarBinary(config().get<string>('sidecarPath', ''), context.extensionPath));
  }));

  const annotations = new AnnotationController(context,
    (source: AnnotationSource, text) => sidecar.request<AnnotationsResult>(METHODS.annotations, { ...source, text }), log);
  context.subscriptions.push(annotations);

  const sources = new Map<string, vscode.Uri>();
  const viewer = new ViewerHost(context, log, async (target, msg) => {
    if (target.source) return target.source;
    const known = sources.get(target.file);
    if (known) return known;
    if (target.kind === 'session') {
      const root = readManifest(path.dirname(target.file))?.projectRoot;
      const rel = msg.path ?? msg.sourcePath;
      if (root && rel && !path.isAbsolute(rel)) {
        // Only files inside the project (the page could name any path).
        const p = path.resolve(root, rel);
        if (p.startsWith(path.resolve(root) + path.sep) && fs.existsSync(p)) return vscode.Uri.file(p);
      }
    }
    return msg.sourcePath ? findSource(target.file, msg.sourcePath) : undefined;
  }, async (target, doc) => {
    // A session's file opened from the viewer gets the session's
    // annotations (medians over the runs for a repeated capture), unless
    // it has them already.
    if (target.kind !== 'session') return;
    const session = path.dirname(target.file);
    const have = annotations.sourceOf(doc.uri);
    if (have && 'session' in have && path.resolve(have.session) === session) return;
    try {
      const fresh = await annotations.load(doc, { session, file: doc.uri.fsPath });
      if (!fresh) log(`annotations: ${doc.uri.fsPath} differs from the source the session ${session} recorded`);
    } catch (e) {
      log(`annotations: ${doc.uri.fsPath} from the session ${session}: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
  context.subscriptions.push(viewer);

  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  status.command = 'leanscope.showViewer';
  context.subscriptions.push(status);

  // Restricted Mode hides the Profile commands; this says why, and where
  // to grant trust.
  const trustHint = vscode.window.createStatusBarItem('leanscope.trust', vscode.StatusBarAlignment.Left, 9);
  trustHint.name = 'leanscope: trust';
  trustHint.text = '$(workspace-untrusted) leanscope: trust the workspace to profile';
  trustHint.tooltip = 'leanscope: Profile File, Profile Folder and Profile Project run Lean through lake, so they need a trusted workspace. Viewing recordings works in Restricted Mode. Click to manage trust.';
  trustHint.command = 'workbench.trust.manage';
  context.subscriptions.push(trustHint);
  if (!vscode.workspace.isTrusted) trustHint.show();
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => trustHint.hide()));

  let last: LastCapture | undefined;
  let lastSession: SessionCapture | undefined;
  /** The newest capture of either kind: a recording or a session directory. */
  let newest: string | undefined;

  const fail = (what: string, e: unknown): void => {
    const msg = editorMessage(e);
    log(`${what} failed: ${msg}`);
    void vscode.window.showErrorMessage(`leanscope: ${what} failed: ${msg}`);
  };

  async function profileFile(arg?: vscode.Uri): Promise<CaptureResult | SessionCapture | undefined> {
    const file = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    if (!file) { void vscode.window.showErrorMessage('leanscope: open a .lean file (or pick one in the Explorer) to profile it.'); return undefined; }
    if (file.scheme !== 'file' || !file.fsPath.endsWith('.lean')) {
      void vscode.window.showErrorMessage(`leanscope: ${file.fsPath || file.toString()} is not a local .lean file.`);
      return undefined;
    }
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage('leanscope: profiling runs Lean through lake in this workspace, so it needs a trusted workspace (Workspaces: Manage Workspace Trust).');
      return undefined;
    }
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
      return profileSession('file', file, root, repeatedFileParams(file, root, repeat, warmup));
    }
    const params = captureParams(file);
    if (params.output) fs.mkdirSync(path.dirname(params.output), { recursive: true });
    log(`capture ${file.fsPath} ${JSON.stringify({ ...params, uri: undefined })}`);
    const result = await vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification,
      title: `leanscope: profiling ${path.basename(file.fsPath)}`,
      cancellable: true,
    }, async (progress, token) => {
      const cts = new CancellationTokenSource();
      const sub = token.onCancellationRequested(() => { log('capture: cancel requested'); cts.cancel(); });
      try {
        return await sidecar.request<CaptureResult>(METHODS.capture, { ...params }, cts.token, (p) => {
          if (p.message) { progress.report({ message: p.message }); log(`progress: ${p.message}`); }
        });
      } catch (e) {
        if (e instanceof SidecarError && e.code === REQUEST_CANCELLED) {
          log('capture cancelled; Lean was stopped');
          void vscode.window.showInformationMessage('leanscope: capture cancelled; Lean was stopped and nothing was written.');
          return undefined;
        }
        throw e;
      } finally {
        sub.dispose();
        cts.dispose();
      }
    }).then((r) => r, (e) => { fail(`profiling ${path.basename(file.fsPath)}`, e); return undefined; });
    if (!result) return undefined;
    last = { recording: result.recording, source: file, result };
    newest = result.recording;
    sources.set(result.recording, file);
    log(`recorded ${result.recording}: ${result.events} events, ${result.declarations} declarations, status ${result.status}${result.notes.length ? `; notes: ${result.notes.join(' | ')}` : ''}`);
    const time = result.elapsedNs !== null ? formatNs(result.elapsedNs) : `${result.leanWallMs} ms (wall)`;
    status.text = `$(pulse) ${path.basename(file.fsPath)} ${time}`;
    status.command = 'leanscope.showViewer';
    status.tooltip = `leanscope: last capture of ${result.module} (${result.events} events, ${result.declarations} declarations${result.errors ? `, ${result.errors} errors` : ''}). Click to open the viewer.`;
    status.show();
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

  /** Asks to save the unsaved .lean files under `dir` (Lean reads files
 * from disk); false when the user declines or a save fails. */
  async function saveDirtyUnder(dir: string): Promise<boolean> {
    const dirty = vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file'
      && d.uri.fsPath.endsWith('.lean') && d.uri.fsPath.startsWith(dir + path.sep));
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

  /** Profile Folder / Profile Project (and Profile File with repeats, as a
   * one-file session): `leanscope/captureFolder` with per-file progress and
   * Cancel, then the session in the viewer (and, for a file, its medians
   * in the editor). */
  async function profileSession(what: 'folder' | 'project' | 'file', folder: vscode.Uri, root: string,
    fileParams?: CaptureFolderParams): Promise<SessionCapture | undefined> {
    const label = `${what} ${path.basename(folder.fsPath)}`;
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage('leanscope: profiling runs Lean through lake in this workspace, so it needs a trusted workspace (Workspaces: Manage Workspace Trust).');
      return undefined;
    }
    // Profile File asked to save the file already.
    if (what !== 'file' && !(await saveDirtyUnder(what === 'project' ? root : folder.fsPath))) return undefined;
    const params = fileParams ?? folderCaptureParams(folder, root, what === 'project');
    if (what === 'file') fs.mkdirSync(path.dirname(params.output!), { recursive: true });
    const session = params.output!;
    log(`capture ${label} ${JSON.stringify({ ...params, folder: undefined, file: undefined })}`);
    const shown = new FolderProgress();
    let cancelled = false;
    const result = await vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification,
      title: `leanscope: profiling ${label}`,
      cancellable: true,
    }, async (progress, token) => {
      const cts = new CancellationTokenSource();
      const sub = token.onCancellationRequested(() => { log('capture: cancel requested'); cts.cancel(); });
      try {
        return await sidecar.request<CaptureFolderResult>(METHODS.captureFolder, { ...params }, cts.token, (p) => {
          if (p.kind === 'end') { if (p.message) log(`progress: ${p.message}`); return; }
          const u = shown.update(p.message, p.percentage);
          if (u) { progress.report(u); log(`progress: ${u.message}`); }
        });
      } catch (e) {
        if (e instanceof SidecarError && e.code === REQUEST_CANCELLED) { cancelled = true; return undefined; }
        throw e;
      } finally {
        sub.dispose();
        cts.dispose();
      }
    }).then((r) => r, (e) => { fail(`profiling ${label}`, e); return undefined; });
    if (!result && !cancelled) return undefined;
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
    lastSession = outcome;
    newest = outcome.session;
    status.text = `$(pulse) ${path.basename(folder.fsPath)} ${counts.completed}/${files(counts.planned)}${counts.failed ? ` (${counts.failed} failed)` : ''}${cancelled ? ' (cancelled)' : ''}`;
    status.tooltip = `leanscope: last capture: ${label}, session ${state} (${counts.completed} of ${files(counts.planned)} captured, ${counts.failed} failed). Click to open the viewer.`;
    status.command = { title: 'Show Viewer', command: 'leanscope.showViewer', arguments: [{ session: outcome.session }] };
    status.show();
    if (what === 'file' && !cancelled) await annotateSessionFile(outcome, folder);
    viewer.show({ kind: 'session', file: path.join(outcome.session, 'session.json') });
    return outcome;
  }

  /** The medians of a repeated file in its editor, from its session. */
  async function annotateSessionFile(outcome: SessionCapture, file: vscode.Uri): Promise<void> {
    try {
      const doc = await vscode.workspace.openTextDocument(file);
      const fresh = await annotations.load(doc, { session: outcome.session, file: file.fsPath });
      if (!fresh) {
        void vscode.window.showInformationMessage('leanscope: the file changed while it was profiled; its annotations appear when the text matches the recorded source again.');
        return;
      }
      const answer = annotations.answerOf(doc.uri);
      if (answer?.runs !== undefined) {
        status.text = `$(pulse) ${path.basename(file.fsPath)} median ${formatValue(answer.fileNs, answer.measure ?? 'time')} (${runCount(answer.runs)})`;
        status.tooltip = `leanscope: last capture of ${path.basename(file.fsPath)}: the median of ${runCount(answer.runs)} (session ${outcome.session}). Click to open the viewer.`;
      }
    } catch (e) { fail('annotating', e); }
  }

  async function profileFolder(arg?: vscode.Uri): Promise<SessionCapture | undefined> {
    let folder = arg instanceof vscode.Uri ? arg : undefined;
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
    return profileSession('folder', folder, root);
  }

  async function profileProject(): Promise<SessionCapture | undefined> {
    const active = vscode.window.activeTextEditor?.document.uri;
    const starts = [
      ...(active?.scheme === 'file' ? [active.fsPath] : []),
      ...(vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
    ];
    for (const start of starts) {
      const root = findProjectRoot(start);
      if (root) return profileSession('project', vscode.Uri.file(root), root);
    }
    void vscode.window.showErrorMessage(starts.length
      ? `leanscope: no Lean project found (no lean-toolchain, lakefile.toml or lakefile.lean in or above ${starts.join(', ')}).`
      : 'leanscope: open a Lean project folder or a .lean file to profile its project.');
    return undefined;
  }

  async function openRecording(arg?: vscode.Uri): Promise<ViewerTarget | undefined> {
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
    try { facts = await sidecar.request<OpenResult>(METHODS.open, { recording: file }); } catch (e) { fail(`opening ${path.basename(file)}`, e); return undefined; }
    const source = findSource(file, facts.sourcePath);
    const target: ViewerTarget = { kind: 'recording', file, source };
    if (source) {
      sources.set(file, source);
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

  function showViewer(arg?: { recording?: string; source?: string; declaration?: string; session?: string }): ViewerTarget | undefined {
    if (arg?.session) {
      const target: ViewerTarget = { kind: 'session', file: path.join(arg.session, 'session.json') };
      viewer.show(target);
      return target;
    }
    let recording = arg?.recording;
    let source = arg?.source ? vscode.Uri.parse(arg.source) : undefined;
    if (!recording) {
      const ed = vscode.window.activeTextEditor;
      const fromEditor = ed ? annotations.sourceOf(ed.document.uri) : undefined;
      if (fromEditor && 'session' in fromEditor) return showViewer({ session: fromEditor.session });
      if (fromEditor && ed) { recording = fromEditor.recording; source = ed.document.uri; }
      else if (viewer.current) { viewer.show(viewer.current); return viewer.current; }
      else if (last) { recording = last.recording; source = last.source; }
      else if (lastSession) return showViewer({ session: lastSession.session });
    }
    if (!recording) {
      void vscode.window.showInformationMessage('leanscope: profile a file or open a recording first.');
      return undefined;
    }
    const target: ViewerTarget = { kind: 'recording', file: recording, source: source ?? sources.get(recording) };
    viewer.show(target, arg?.declaration ? { declaration: arg.declaration } : undefined);
    return target;
  }

  /** What the viewer can show for `file`: a `.lsrec`, or a session (its
   * folder or its session.json); undefined for anything else. */
  function viewerTargetOf(file: string): ViewerTarget | undefined {
    let stat: fs.Stats;
    try { stat = fs.statSync(file); } catch { return undefined; }
    if (stat.isDirectory()) {
      const manifest = path.join(file, 'session.json');
      return fs.existsSync(manifest) ? { kind: 'session', file: manifest } : undefined;
    }
    if (path.basename(file) === 'session.json') return { kind: 'session', file };
    if (file.endsWith('.lsrec')) return { kind: 'recording', file, source: sources.get(file) };
    return undefined;
  }

  /** Where the baseline dialog starts: the `.leanscope/` directory of the
   * candidate's project, else of a workspace folder, else the candidate's folder. */
  function baselineStart(candidate: string): vscode.Uri {
    const roots = [findProjectRoot(candidate), ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath)];
    for (const r of roots) {
      if (r && fs.existsSync(path.join(r, '.leanscope'))) return vscode.Uri.file(path.join(r, '.leanscope'));
    }
    return vscode.Uri.file(path.dirname(candidate));
  }

  /** Compare with Baseline: the candidate is the Explorer's item, else what
   * the viewer shows, else the newest capture, else asked for; the baseline
   * is asked for. The sidecar compares; the viewer shows the candidate with
   * its Diff tab. */
  async function compareWithBaseline(arg?: vscode.Uri): Promise<BaselineComparison | undefined> {
    let target: ViewerTarget | undefined;
    if (arg instanceof vscode.Uri) {
      target = arg.scheme === 'file' ? viewerTargetOf(arg.fsPath) : undefined;
      if (!target) {
        void vscode.window.showErrorMessage(`leanscope: ${arg.fsPath || arg.toString()} is neither a recording (.lsrec) nor a session folder; the candidate must be one the viewer can show.`);
        return undefined;
      }
    } else if (viewer.current) {
      target = viewer.current;
    } else if (newest) {
      target = viewerTargetOf(newest);
    }
    if (!target) {
      const chosen = await vscode.window.showOpenDialog({
        title: 'leanscope: the candidate to compare (a recording or a session folder)',
        canSelectFiles: true, canSelectFolders: true, canSelectMany: false,
        openLabel: 'Candidate', filters: { 'leanscope recordings': ['lsrec'] },
      });
      const picked = chosen?.[0];
      if (!picked) return undefined;
      target = viewerTargetOf(picked.fsPath);
      if (!target) {
        void vscode.window.showErrorMessage(`leanscope: ${picked.fsPath} is neither a recording (.lsrec) nor a session folder (no session.json).`);
        return undefined;
      }
    }
    const candidate = target.kind === 'session' ? path.dirname(target.file) : target.file;
    const chosen = await vscode.window.showOpenDialog({
      title: `leanscope: the baseline to compare ${path.basename(candidate)} with`,
      defaultUri: baselineStart(candidate),
      canSelectFiles: true, canSelectFolders: true, canSelectMany: false,
      openLabel: 'Compare with Baseline',
      filters: { 'Recordings, sessions and profiles': ['lsrec', 'json', 'trace', 'folded', 'txt'], 'All files': ['*'] },
    });
    const picked = chosen?.[0];
    if (!picked) return undefined;
    // A session's manifest stands for its folder (the sidecar would read it as a summary).
    const baseline = path.basename(picked.fsPath) === 'session.json' ? path.dirname(picked.fsPath) : picked.fsPath;
    const params: CompareParams = { baseline, candidate, ...compareSettings() };
    if (!(COMPARE_METRICS as readonly string[]).includes(params.metric)) log(`compare: metric ${params.metric} is not one this extension knows; the sidecar decides`);
    log(`compare ${JSON.stringify(params)}`);
    let result: CompareResult;
    try {
      result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'leanscope: comparing' },
        () => sidecar.request<CompareResult>(METHODS.compare, { ...params }));
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      log(`compare failed: ${msg}`);
      void vscode.window.showErrorMessage(`leanscope: cannot compare ${path.basename(candidate)} with ${path.basename(baseline)}: ${msg}`);
      return undefined;
    }
    const counts = compareCounts(result);
    const summary = compareSummary(counts, result.comparison.metric);
    log(`compare ${result.baseline} → ${result.candidate}: ${summary}, ${counts.unchanged} within tolerance${result.warnings.length ? `; warnings: ${result.warnings.join(' | ')}` : ''}`);
    viewer.show(target);
    viewer.post({ type: 'leanscope.diff', document: result });
    void vscode.window.showInformationMessage(`leanscope: ${summary}`);
    if (result.warnings.length) {
      void vscode.window.showWarningMessage(`leanscope: compared anyway, but an input is incomplete: ${result.warnings.join('; ')}`);
    }
    return { params, result, counts, summary, target };
  }

  const register = (id: (typeof COMMANDS)[number], fn: (...args: any[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  };
  register('leanscope.profileFile', profileFile);
  register('leanscope.profileFolder', profileFolder);
  register('leanscope.profileProject', profileProject);
  register('leanscope.openRecording', openRecording);
  register('leanscope.showViewer', showViewer);
  register('leanscope.compareWithBaseline', compareWithBaseline);
  register('leanscope.compareRevisions', (base?: string): Promise<RevisionComparison | undefined> =>
    compareRevisions({ sidecar, viewer, log, fail, lake: captureSettings().lake }, typeof base === 'string' ? base : undefined));
  register('leanscope.toggleAnnotations', () => {
    const on = annotations.toggle();
    void vscode.window.setStatusBarMessage(`leanscope: annotations ${on ? 'shown' : 'hidden'}`, 2000);
    return on;
  });
  register('leanscope.clear', () => {
    annotations.clear();
    status.hide();
    last = undefined;
    lastSession = undefined;
    newest = undefined;
  });

  // Cursor in an annotated declaration → select it in the viewer.
  let lastSelected: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  context.subscriptions.push(vscode.window.onDidChangeTextEditorSelection((e) => {
    const cur = viewer.current;
    if (!cur || cur.kind !== 'recording') return;
    if (annotations.recordingOf(e.textEditor.document.uri) !== cur.file) return;
    const line = e.selections[0]?.active.line;
    if (line === undefined) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      const decl = annotations.declarationAt(e.textEditor.document.uri, line);
      if (decl && decl === viewer.lastRevealed) { lastSelected = decl; return; }
      if (decl && decl !== lastSelected) { lastSelected = decl; viewer.select({ declaration: decl }); }
    }, 150);
  }));

  log(`leanscope extension ${context.extension?.packageJSON?.version ?? ''} active; sidecar ${resolveSidecarBinary(config().get<string>('sidecarPath', ''), context.extensionPath)}`);
  return { sidecar, annotations, viewer, lastCapture: () => last, lastSession: () => lastSession };
}

/** Stops the sidecar (`shutdown`, `exit`; it stops any running Lean). */
export async function deactivate(): Promise<void> {
  const s = active;
  active = undefined;
  if (s) await s.dispose();
}
