// A long sidecar request that can be cancelled: under a progress
// notification with Cancel (the Profile commands), or by a token (the
// on-save capture, which runs in the background).
import * as vscode from 'vscode';
import { CancellationToken, CancellationTokenSource } from 'vscode-jsonrpc/node';
import { Sidecar, SidecarError, WorkDoneProgress } from './sidecar';
import { REQUEST_CANCELLED } from './protocol';

/** The answer of a cancellable request, or none when it was cancelled. */
export interface Cancellable<R> { result?: R; cancelled: boolean }

/** Sends `method`; `token` cancelled sends `$/cancelRequest` (the sidecar
 * stops Lean). An answer of "cancelled" gives `cancelled`; any other error
 * is thrown. */
export async function requestCancellable<R>(sidecar: Sidecar, method: string, params: object, token: CancellationToken,
  onProgress?: (p: WorkDoneProgress) => void): Promise<Cancellable<R>> {
  try {
    const result = await sidecar.request<R>(method, { ...params }, token, onProgress);
    return { result, cancelled: false };
  } catch (e) {
    if (e instanceof SidecarError && e.code === REQUEST_CANCELLED) return { cancelled: true };
    throw e;
  }
}

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
      return await requestCancellable<R>(sidecar, method, params, cts.token, (p) => onProgress(p, shown));
    } finally {
      sub.dispose();
      cts.dispose();
    }
  });
}
