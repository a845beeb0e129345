// leanscope for VS Code: Profile File through the bundled `leanscope serve`,
// timings in the editor, and the viewer in a webview.
//
// `activate` only wires things together: each command lives in its own
// module under commands/, and what they share (the sidecar, the
// annotations, the viewer, the status bar, what was captured) is handed to
// them as `Services`.
import * as vscode from 'vscode';
import { bundledSidecar, Sidecar } from './sidecar';
import { AnnotationController } from './annotations';
import { ViewerHost } from './viewer';
import { AnnotationSource, AnnotationsResult, METHODS } from './protocol';
import { bumpNotNeededBelow, sidecarBinary } from './settings';
import { registerMcpServer } from './mcp';
import { StatusBar, showTrustHint } from './statusBar';
import { CaptureHistory, LastCapture } from './history';
import { SessionCapture } from './sessionCapture';
import { reportCaptureFailure, reportFailure, Services } from './services';
import { viewerSourceResolver } from './sources';
import { annotateRevealed, followCursor } from './viewerSync';
import { profileFile } from './commands/profileFile';
import { profileFolder } from './commands/profileFolder';
import { profileProject } from './commands/profileProject';
import { openRecording } from './commands/openRecording';
import { showViewer } from './commands/showViewer';
import { showHotSpots } from './commands/showHotSpots';
import { toggleAnnotations } from './commands/toggleAnnotations';
import { clear } from './commands/clear';
import { OnSaveProfiler } from './onSave';
import { compareWithBaseline } from './commands/compareWithBaseline';
import { compareRevisions } from './commands/compareRevisions';

/** Each command of the manifest (`contributes.commands`) and what runs it. */
const COMMAND_HANDLERS = {
  'leanscope.profileFile': profileFile,
  'leanscope.profileFolder': profileFolder,
  'leanscope.profileProject': profileProject,
  'leanscope.openRecording': openRecording,
  'leanscope.showViewer': showViewer,
  'leanscope.showHotSpots': showHotSpots,
  'leanscope.toggleAnnotations': toggleAnnotations,
  'leanscope.clear': clear,
  'leanscope.compareWithBaseline': compareWithBaseline,
  'leanscope.compareRevisions': (services: Services, base?: unknown) => compareRevisions(services, typeof base === 'string' ? base : undefined),
} as const;

export const COMMANDS = Object.keys(COMMAND_HANDLERS) as Array<keyof typeof COMMAND_HANDLERS>;

/** What `activate` returns (VS Code hands it to other extensions; the
 * tests use it to look inside). */
export interface LeanscopeApi {
  sidecar: Sidecar;
  annotations: AnnotationController;
  viewer: ViewerHost;
  lastCapture(): LastCapture | undefined;
  lastSession(): SessionCapture | undefined;
  /** Profile on save (`leanscope.profile.onSave`). */
  onSave: OnSaveProfiler;
}

let active: Sidecar | undefined;

export function activate(context: vscode.ExtensionContext): LeanscopeApi {
  const output = vscode.window.createOutputChannel('leanscope');
  const log = (line: string): void => output.appendLine(`${new Date().toISOString()} ${line}`);
  context.subscriptions.push(output);

  const sidecar = new Sidecar({
    binary: sidecarBinary(context.extensionPath),
    bundled: bundledSidecar(context.extensionPath),
    log,
    onDied: (message, restarting) => {
      if (restarting) void vscode.window.showWarningMessage(`leanscope: ${message}`);
      else void vscode.window.showErrorMessage(`leanscope: ${message}`, 'Show Output').then((a) => { if (a) output.show(); });
    },
  });
  active = sidecar;
  context.subscriptions.push({ dispose: () => sidecar.dispose() });
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('leanscope.sidecarPath')) void sidecar.useBinary(sidecarBinary(context.extensionPath));
  }));

  const annotations = new AnnotationController(context,
    (source: AnnotationSource, text) => sidecar.request<AnnotationsResult>(METHODS.annotations, { ...source, text, bumpNotNeededBelow: bumpNotNeededBelow() }), log);
  context.subscriptions.push(annotations);

  const history = new CaptureHistory();
  const viewer = new ViewerHost(context, log, viewerSourceResolver(history), annotateRevealed(annotations, log));
  context.subscriptions.push(viewer);

  const status = new StatusBar();
  context.subscriptions.push(status);
  showTrustHint(context);

  const services: Services = {
    sidecar, annotations, viewer, status, history, log, fail: reportFailure(log),
    captureFailed: reportCaptureFailure(log, status, () => output.show(true)),
  };
  for (const id of COMMANDS) {
    const run = COMMAND_HANDLERS[id] as (services: Services, ...args: any[]) => unknown;
    context.subscriptions.push(vscode.commands.registerCommand(id, (...args: any[]) => run(services, ...args)));
  }
  context.subscriptions.push(followCursor(annotations, viewer));
  const onSave = new OnSaveProfiler(services);
  context.subscriptions.push(onSave);
  const mcp = registerMcpServer(context);
  if (mcp) context.subscriptions.push(mcp);

  log(`leanscope extension ${context.extension?.packageJSON?.version ?? ''} active; sidecar ${sidecarBinary(context.extensionPath)}; MCP server ${mcp ? 'registered' : 'not registered (this VS Code has no MCP API)'}`);
  return { sidecar, annotations, viewer, lastCapture: () => history.last, lastSession: () => history.lastSession, onSave };
}

/** Stops the sidecar (`shutdown`, `exit`; it stops any running Lean). */
export async function deactivate(): Promise<void> {
  const s = active;
  active = undefined;
  if (s) await s.dispose();
}
