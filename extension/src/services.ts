// What every command works with, made once by `activate`.
import * as vscode from 'vscode';
import { Sidecar } from './sidecar';
import { AnnotationController } from './annotations';
import { ViewerHost } from './viewer';
import { StatusBar } from './statusBar';
import { CaptureHistory } from './history';
import { editorMessage } from './messages';
import { SidecarError } from './sidecar';

export interface Services {
  /** The `leanscope serve` client (started on first use). */
  sidecar: Sidecar;
  /** Timings in the editors. */
  annotations: AnnotationController;
  /** The viewer's webview panel. */
  viewer: ViewerHost;
  status: StatusBar;
  history: CaptureHistory;
  /** A line in the leanscope output channel. */
  log: (line: string) => void;
  /** Logs and shows `leanscope: <what> failed: <why>`. */
  fail: (what: string, e: unknown) => void;
  /** A capture that failed (no `lake`, a sidecar error): logged, shown with
   * *Open Settings* and *Show Log*, and in the status bar until the next
   * capture starts. */
  captureFailed: (what: string, e: unknown) => void;
}

/** The buttons of a failed capture's notification. */
export const OPEN_SETTINGS = 'Open Settings';
export const SHOW_LOG = 'Show Log';

/** The setting a failed capture's *Open Settings* opens: the sidecar's path
 * when the sidecar could not run, else where `lake` comes from. */
export function settingFor(e: unknown): string {
  // An answer of the sidecar (it ran) names what went wrong in Lean's or lake's
  // terms: where lake comes from. Anything else: the sidecar did not run.
  if (e instanceof SidecarError || (e instanceof Error && 'kind' in e)) return 'leanscope.lakePath';
  const msg = e instanceof Error ? e.message : String(e);
  return /sidecar|leanscope serve|bin\/leanscope/i.test(msg) ? 'leanscope.sidecarPath' : 'leanscope.lakePath';
}

/** The command that opens the settings editor where `leanscope.lakePath`
 * and `leanscope.sidecarPath` (machine settings) count: the Remote settings
 * in a remote window (code-server, SSH, WSL, dev container), whose User
 * settings leave them out, else the User settings. Both take a search query. */
export function settingsCommand(remoteName: string | undefined): string {
  return remoteName ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings';
}

/** The `captureFailed` of `Services`. */
export function reportCaptureFailure(log: (line: string) => void, status: StatusBar, showLog: () => void): (what: string, e: unknown) => void {
  return (what, e) => {
    const msg = editorMessage(e);
    log(`${what} failed: ${msg}`);
    status.failed(`$(error) leanscope: ${what} failed`, `leanscope: ${what} failed: ${msg}\n\nClick to show the leanscope log; the next capture clears this.`);
    void vscode.window.showErrorMessage(`leanscope: ${what} failed: ${msg}`, OPEN_SETTINGS, SHOW_LOG).then((choice) => {
      if (choice === OPEN_SETTINGS) void vscode.commands.executeCommand(settingsCommand(vscode.env?.remoteName), { query: settingFor(e) });
      else if (choice === SHOW_LOG) showLog();
    });
  };
}

/** The `fail` of `Services`: the error in the editor's words, logged and shown. */
export function reportFailure(log: (line: string) => void): (what: string, e: unknown) => void {
  return (what, e) => {
    const msg = editorMessage(e);
    log(`${what} failed: ${msg}`);
    void vscode.window.showErrorMessage(`leanscope: ${what} failed: ${msg}`);
  };
}
