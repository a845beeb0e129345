// Profile on save (`leanscope.profile.onSave`, off by default): a saved
// .lean file is captured in the background, through Profile File's capture
// (fileCapture.ts), after `onSaveDelayMs`; a newer save cancels the file's
// running capture (the sidecar stops Lean). A status bar item shows what
// runs. A capture that fails keeps the previous annotations, stale, with
// the error in their hovers. Never in an untrusted workspace.
import * as vscode from 'vscode';
import * as path from 'node:path';
import type { CancellationToken } from 'vscode-jsonrpc/node';
import { captureFile } from './fileCapture';
import { editorMessage } from './messages';
import { SaveScheduler, SchedulerState } from './saveScheduler';
import { onSaveSettings } from './settings';
import { Services } from './services';

/** Whether a saved document is one to capture: a local .lean file. */
export function isLeanFile(doc: { uri: vscode.Uri }): boolean {
  return doc.uri.scheme === 'file' && doc.uri.fsPath.endsWith('.lean');
}

/** The status bar text of what on-save captures run and wait. */
export function onSaveStatusText(state: SchedulerState): string | undefined {
  const names = state.running.map((k) => path.basename(vscode.Uri.parse(k).fsPath));
  if (names.length === 0) return undefined;
  const waiting = state.waiting.length ? ` (+${state.waiting.length} waiting)` : '';
  return `$(sync~spin) leanscope: profiling ${names.join(', ')} on save${waiting}`;
}

export class OnSaveProfiler implements vscode.Disposable {
  private readonly scheduler: SaveScheduler;
  private readonly item = vscode.window.createStatusBarItem('leanscope.onSave', vscode.StatusBarAlignment.Left, 11);
  private readonly disposables: vscode.Disposable[] = [];
  /** Captures started, cancelled, recorded, failed (for tests and the log). */
  readonly counts = { started: 0, cancelled: 0, recorded: 0, failed: 0 };

  constructor(private readonly services: Services) {
    this.item.name = 'leanscope: profile on save';
    this.scheduler = new SaveScheduler((key, token) => this.capture(key, token), onSaveSettings, (s) => this.showState(s));
    this.disposables.push(this.item, vscode.workspace.onDidSaveTextDocument((doc) => this.saved(doc)));
  }

  /** A document was saved: captured later when the setting is on, the file
   * a local .lean file and the workspace trusted. */
  saved(doc: vscode.TextDocument): void {
    if (!isLeanFile(doc) || !onSaveSettings().enabled) return;
    if (!vscode.workspace.isTrusted) return;
    this.scheduler.saved(doc.uri.toString());
  }

  private async capture(key: string, token: CancellationToken): Promise<void> {
    if (token.isCancellationRequested || !vscode.workspace.isTrusted) return;
    const uri = vscode.Uri.parse(key);
    const { annotations, log, status } = this.services;
    this.counts.started++;
    const outcome = await captureFile(this.services, uri, { background: { token } });
    // Cancelled by a newer save: whatever the capture answered (an error
    // when Lean was stopped early), the newer capture replaces it.
    if (outcome.kind === 'cancelled' || (outcome.kind === 'failed' && token.isCancellationRequested)) {
      this.counts.cancelled++;
      if (outcome.kind === 'failed') log(`on-save capture of ${path.basename(uri.fsPath)} stopped by a newer save: ${editorMessage(outcome.error)}`);
      return;
    }
    if (outcome.kind === 'recorded') { this.counts.recorded++; return; }
    this.counts.failed++;
    const why = editorMessage(outcome.error);
    const name = path.basename(uri.fsPath);
    log(`on-save capture of ${name} failed: ${why}`);
    // The previous numbers stay, stale, and say why; with none, the status bar does.
    const kept = annotations.markFailed(uri, why);
    status.failed(`$(error) ${name}: capture failed`, `leanscope: the on-save capture of ${name} failed: ${why}${kept ? ' The previous annotations are kept, marked stale.' : ''}`);
  }

  private showState(state: SchedulerState): void {
    const text = onSaveStatusText(state);
    if (!text) { this.item.hide(); return; }
    this.item.text = text;
    this.item.tooltip = `leanscope: capturing on save (leanscope.profile.onSave). A newer save cancels a file's running capture.${state.waiting.length ? ` Waiting: ${state.waiting.map((k) => path.basename(vscode.Uri.parse(k).fsPath)).join(', ')}.` : ''}`;
    this.item.show();
  }

  /** What runs and waits now. */
  state(): SchedulerState { return this.scheduler.state(); }

  dispose(): void {
    this.scheduler.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
