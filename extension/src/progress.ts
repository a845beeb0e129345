// A long sidecar request under a progress notification with Cancel.
import * as vscode from 'vscode';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { Sidecar, SidecarError, WorkDoneProgress } from './sidecar';
import { REQUEST_CANCELLED } from './protocol';

/** The answer of a cancellable request, or none when it was cancelled. */
export interface Cancellable<R> { result?: R; cancelled: boolean }

/** Sends `method` with a cancellable progress notification titled `title`:
 * Cancel sends `$/cancelRequest` (the sidecar stops Lean) and logs `<name>:
 * cancel requested`; `onProgress` turns the sidecar's work-done progress
 * into the notification's. An answer of "cancelled" gives `cancelled`; any
 * other error is thrown. */
export async function requestWithProgress<R>(sidecar: Sidecar, log: (line: string) => void,
  what: { title: string; name: string }, method: string, params: object,
  onProgress: (p: WorkDoneProgress, shown: vscode.Progress<{ message?: string; increment?: number }>) => void): Promise<Cancellable<R>> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: what.title, cancellable: true }, async (shown, token) => {
    const cts = new CancellationTokenSource();
    const sub = token.onCancellationRequested(() => { log(`${what.name}: cancel requested`); cts.cancel(); });
    try {
      const result = await sidecar.request<R>(method, { ...params }, cts.token, (p) => onProgress(p, shown));
      return { result, cancelled: false };
    } catch (e) {
      if (e instanceof SidecarError && e.code === REQUEST_CANCELLED) return { cancelled: true };
      throw e;
    } finally {
      sub.dispose();
      cts.dispose();
    }
  });
}
