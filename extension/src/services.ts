// What every command works with, made once by `activate`.
import * as vscode from 'vscode';
import { Sidecar } from './sidecar';
import { AnnotationController } from './annotations';
import { ViewerHost } from './viewer';
import { StatusBar } from './statusBar';
import { CaptureHistory } from './history';
import { editorMessage } from './messages';

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
}

/** The `fail` of `Services`: the error in the editor's words, logged and shown. */
export function reportFailure(log: (line: string) => void): (what: string, e: unknown) => void {
  return (what, e) => {
    const msg = editorMessage(e);
    log(`${what} failed: ${msg}`);
    void vscode.window.showErrorMessage(`leanscope: ${what} failed: ${msg}`);
  };
}
