// What was captured in this window: the last recording, the last session,
// the newest of either, and the source file of each recording.
import * as vscode from 'vscode';
import type { CaptureFolderResult, CaptureResult, SessionManifestStatus } from './protocol';

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

/** The outcome of Profile File (one capture): its recording, the file, and
 * the sidecar's answer. */
export interface LastCapture { recording: string; source: vscode.Uri; result: CaptureResult }

export class CaptureHistory {
  last: LastCapture | undefined;
  lastSession: SessionCapture | undefined;
  /** The newest capture of either kind: a recording or a session directory. */
  newest: string | undefined;
  /** The source file of each recording captured or opened (by path). */
  readonly sources = new Map<string, vscode.Uri>();

  recorded(capture: LastCapture): void {
    this.last = capture;
    this.newest = capture.recording;
    this.sources.set(capture.recording, capture.source);
  }

  sessionRecorded(session: SessionCapture): void {
    this.lastSession = session;
    this.newest = session.session;
  }

  /** Forgets the captures (Clear); the sources stay known. */
  clear(): void {
    this.last = undefined;
    this.lastSession = undefined;
    this.newest = undefined;
  }
}
