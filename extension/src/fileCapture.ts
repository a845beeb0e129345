// One capture of one .lean file (`leanscope/capture`) and its timings in the
// editor: the one capture path of Profile File and of the on-save capture.
// Profile File runs it under a progress notification with Cancel; the
// on-save capture in the background, cancelled by a newer save.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CancellationToken } from 'vscode-jsonrpc/node';
import { CaptureResult, METHODS } from './protocol';
import { captureParams } from './settings';
import { formatNs, formatValue } from './format';
import { Cancellable, requestCancellable, requestWithProgress } from './progress';
import { Services } from './services';
import { describeLake, lakeFor } from './leanExtension';

/** How the capture runs: by default under a notification (Cancel in it);
 * `background`: no notification or pop-up, cancelled by its token. */
export interface FileCaptureOptions {
  background?: { token: CancellationToken };
}

/** What came of a capture: its result (drawn in the editor), cancelled, or
 * the error that stopped it (nothing was drawn). */
export type FileCaptureOutcome =
  | { kind: 'recorded'; result: CaptureResult; annotated: boolean }
  | { kind: 'cancelled' }
  | { kind: 'failed'; error: unknown };

/** Captures `file` as it is on disk and draws the recording's annotations
 * over its editor; the text Lean read is taken when the capture starts, so
 * lines edited meanwhile show as stale. */
export async function captureFile(services: Services, file: vscode.Uri, options: FileCaptureOptions = {}): Promise<FileCaptureOutcome> {
  const { sidecar, annotations, viewer, status, history, log } = services;
  const params = captureParams(file);
  const name = path.basename(file.fsPath);
  let captured: string;
  try {
    captured = fs.readFileSync(file.fsPath, 'utf8');
    if (params.output) fs.mkdirSync(path.dirname(params.output), { recursive: true });
  } catch (e) { return { kind: 'failed', error: e }; }
  const lake = describeLake(lakeFor(file));
  log(`capture${options.background ? ' (on save)' : ''} ${file.fsPath} ${JSON.stringify({ ...params, uri: undefined })}; ${lake}`);
  let answer: Cancellable<CaptureResult>;
  try {
    answer = options.background
      ? await requestCancellable<CaptureResult>(sidecar, METHODS.capture, params, options.background.token)
      : await requestWithProgress<CaptureResult>(sidecar, log, { title: `leanscope: profiling ${name}`, name: 'capture' },
        METHODS.capture, params, (p, progress) => {
          if (p.message) { progress.report({ message: p.message }); log(`progress: ${p.message}`); }
        });
  } catch (e) { return { kind: 'failed', error: e }; }
  if (answer.cancelled) {
    log(`capture of ${name} cancelled; Lean was stopped`);
    return { kind: 'cancelled' };
  }
  const result = answer.result!;
  history.recorded({ recording: result.recording, source: file, result });
  log(`recorded ${result.recording}: ${result.events} events, ${result.declarations} declarations, status ${result.status}${result.notes.length ? `; notes: ${result.notes.join(' | ')}` : ''}`);
  const tooltip = (what: string): string => `leanscope: last capture of ${result.module}${options.background ? ' (on save)' : ''}: ${what}`
    + ` (${result.events} events, ${result.declarations} declarations${result.errors ? `, ${result.errors} errors` : ''}; ${lake}). Click to open the viewer.`;
  const time = result.elapsedNs !== null ? formatNs(result.elapsedNs) : `${result.leanWallMs} ms (wall)`;
  status.show(`$(pulse) ${name} ${time}`, tooltip(time));
  if (result.status === 'stopped' && result.stop) {
    // A partial recording: what Lean reported before it was stopped, and what it was running.
    const f = result.stop.inFlight;
    const running = f ? ` ${f.declaration || f.text} was running (${formatNs(f.runningNs)}, unfinished).` : '';
    const message = `leanscope: ${result.stop.detail}; the recording of ${name} is partial: it keeps what Lean reported until then.${running}`;
    log(message);
    if (!options.background) void vscode.window.showWarningMessage(message);
  } else if (result.status === 'error' && !options.background) {
    void vscode.window.showWarningMessage(`leanscope: Lean reported ${result.errors} error${result.errors === 1 ? '' : 's'} in ${name}; the recording keeps them.`);
  }
  let annotated = false;
  try {
    const doc = await vscode.workspace.openTextDocument(file);
    annotated = await annotations.load(doc, result.recording, captured);
    const drawn = annotations.answerOf(doc.uri);
    if (annotated && drawn?.measure === 'heartbeats') {
      // A heartbeat capture: the status bar counts heartbeats, as the editor does.
      const hb = formatValue(drawn.fileNs, 'heartbeats');
      status.retitle(`$(pulse) ${name} ${hb}`, tooltip(`${hb} (Lean's heartbeats; 1 k hb = 1 unit of maxHeartbeats)`));
    }
  } catch (e) { return { kind: 'failed', error: e }; }
  if (viewer.current) viewer.show({ kind: 'recording', file: result.recording, source: file });
  return { kind: 'recorded', result, annotated };
}
