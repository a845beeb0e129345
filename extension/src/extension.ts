// leanscope for VS Code: Profile File through the bundled `leanscope serve`,
// timings in the editor, and the viewer in a webview.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { Sidecar, SidecarError, resolveSidecarBinary } from './sidecar';
import { AnnotationController } from './annotations';
import { ViewerHost, ViewerTarget } from './viewer';
import { formatNs } from './format';
import { AnnotationsResult, CaptureParams, CaptureResult, METHODS, OpenResult, REQUEST_CANCELLED } from './protocol';

export { computeAnnotations, lineHover, sha256Text, BAR_MAX_PX, HEAT_LEVELS } from './annotations';
export { viewerHtml, viewerCsp, VIEWER_FILES } from './viewer';
export { formatNs, formatNsLike, formatShare, lensTitle } from './format';
export { resolveSidecarBinary, MAX_RESTARTS } from './sidecar';

let active: Sidecar | undefined;

export const COMMANDS = [
  'leanscope.profileFile', 'leanscope.profileFolder', 'leanscope.profileProject', 'leanscope.openRecording',
  'leanscope.showViewer', 'leanscope.toggleAnnotations', 'leanscope.clear',
] as const;

export interface LastCapture { recording: string; source: vscode.Uri; result: CaptureResult }

/** What `activate` returns (VS Code hands it to other extensions; the
 * tests use it to look inside). */
export interface LeanscopeApi {
  sidecar: Sidecar;
  annotations: AnnotationController;
  viewer: ViewerHost;
  lastCapture(): LastCapture | undefined;
}

function config(): vscode.WorkspaceConfiguration { return vscode.workspace.getConfiguration('leanscope'); }

/** The parameters of `leanscope/capture` from the settings. */
export function captureParams(file: vscode.Uri, now = new Date()): CaptureParams {
  const c = config();
  const params: CaptureParams = { uri: file.toString() };
  const threshold = c.get<number>('thresholdMs', 10);
  if (typeof threshold === 'number' && threshold >= 0) params.thresholdMs = threshold;
  const lake = (c.get<string>('lakePath', '') || '').trim();
  if (lake) params.lake = lake;
  const timeout = c.get<number>('timeoutSeconds', 0);
  if (typeof timeout === 'number' && timeout >= 1) params.timeoutSeconds = Math.floor(timeout);
  let out = (c.get<string>('outputDirectory', '') || '').trim();
  if (out) {
    if (!path.isAbsolute(out)) {
      const folder = vscode.workspace.getWorkspaceFolder(file) ?? vscode.workspace.workspaceFolders?.[0];
      out = path.resolve(folder ? folder.uri.fsPath : path.dirname(file.fsPath), out);
    }
    const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
    params.output = path.join(out, `${path.basename(file.fsPath, '.lean')}-${stamp}.lsrec`);
  }
  return params;
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

  const annotations = new AnnotationController(context,
    (recording, text) => sidecar.request<AnnotationsResult>(METHODS.annotations, { recording, text }), log);
  context.subscriptions.push(annotations);

  const sources = new Map<string, vscode.Uri>();
  const viewer = new ViewerHost(context, log, async (target, msg) => {
    if (target.source) return target.source;
    const known = sources.get(target.file);
    if (known) return known;
    return msg.sourcePath ? findSource(target.file, msg.sourcePath) : undefined;
  });
  context.subscriptions.push(viewer);

  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  status.command = 'leanscope.showViewer';
  context.subscriptions.push(status);

  let last: LastCapture | undefined;

  const fail = (what: string, e: unknown): void => {
    const msg = e instanceof Error ? e.message : String(e);
    log(`${what} failed: ${msg}`);
    void vscode.window.showErrorMessage(`leanscope: ${what} failed: ${msg}`);
  };

  async function profileFile(arg?: vscode.Uri): Promise<CaptureResult | undefined> {
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
    sources.set(result.recording, file);
    log(`recorded ${result.recording}: ${result.events} events, ${result.declarations} declarations, status ${result.status}${result.notes.length ? `; notes: ${result.notes.join(' | ')}` : ''}`);
    const time = result.elapsedNs !== null ? formatNs(result.elapsedNs) : `${result.leanWallMs} ms (wall)`;
    status.text = `$(pulse) ${path.basename(file.fsPath)} ${time}`;
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

  async function needsSessions(what: string): Promise<void> {
    let methods = '';
    try { await sidecar.connect(); methods = sidecar.methods.join(', '); } catch (e) { methods = `unknown (${(e as Error).message})`; }
    void vscode.window.showErrorMessage(`leanscope: ${what} needs the sessions feature, which this leanscope sidecar does not offer over JSON-RPC (its methods: ${methods}). Profile single files with "leanscope: Profile File", or run "leanscope profile" on the folder from a terminal once sessions land.`);
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

  function showViewer(arg?: { recording?: string; source?: string; declaration?: string }): ViewerTarget | undefined {
    let recording = arg?.recording;
    let source = arg?.source ? vscode.Uri.parse(arg.source) : undefined;
    if (!recording) {
      const ed = vscode.window.activeTextEditor;
      const fromEditor = ed ? annotations.recordingOf(ed.document.uri) : undefined;
      if (fromEditor && ed) { recording = fromEditor; source = ed.document.uri; }
      else if (viewer.current) { viewer.show(viewer.current); return viewer.current; }
      else if (last) { recording = last.recording; source = last.source; }
    }
    if (!recording) {
      void vscode.window.showInformationMessage('leanscope: profile a file or open a recording first.');
      return undefined;
    }
    const target: ViewerTarget = { kind: 'recording', file: recording, source: source ?? sources.get(recording) };
    viewer.show(target, arg?.declaration ? { declaration: arg.declaration } : undefined);
    return target;
  }

  const register = (id: (typeof COMMANDS)[number], fn: (...args: any[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  };
  register('leanscope.profileFile', profileFile);
  register('leanscope.profileFolder', () => needsSessions('Profile Folder'));
  register('leanscope.profileProject', () => needsSessions('Profile Project'));
  register('leanscope.openRecording', openRecording);
  register('leanscope.showViewer', showViewer);
  register('leanscope.toggleAnnotations', () => {
    const on = annotations.toggle();
    void vscode.window.setStatusBarMessage(`leanscope: annotations ${on ? 'shown' : 'hidden'}`, 2000);
    return on;
  });
  register('leanscope.clear', () => {
    annotations.clear();
    status.hide();
    last = undefined;
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
  return { sidecar, annotations, viewer, lastCapture: () => last };
}

/** Stops the sidecar (`shutdown`, `exit`; it stops any running Lean). */
export async function deactivate(): Promise<void> {
  const s = active;
  active = undefined;
  if (s) await s.dispose();
}
