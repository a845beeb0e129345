// The shapes of `leanscope serve`'s answers (schemas/rpc/serve.schema.json).
export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }
export type RangeKind = 'exact' | 'matched' | 'inherited' | 'none';

export interface Operation {
  class: string; label: string; kind: string;
  inclusiveNs: number; selfNs: number; thread: number;
  range: Range | null; rangeKind: RangeKind;
}
export interface LineBar {
  line: number; events: number; totalNs: number; selfNs: number;
  share: number | null; selfShare: number | null; top: Operation[];
}
export interface Declaration {
  index: number; name: string; kind: string; range: Range; selectionRange: Range;
  generated: boolean; events: number; totalNs: number | null; selfNs: number | null;
  share: number | null; selfShare: number | null;
}
export interface FreshAnnotations {
  stale: false; sourceSha256: string; fileNs: number; shareBasis: 'elapsed' | 'traced';
  lines: LineBar[]; declarations: Declaration[];
}
export interface StaleAnnotations { stale: true; recordedSha256: string; bufferSha256: string }
export type AnnotationsResult = FreshAnnotations | StaleAnnotations;

/** The capture backends the sidecar accepts (`backend` of a capture). */
export const CAPTURE_BACKENDS = ['auto', 'stock'] as const;

/** What every capture takes from the settings. */
export interface CaptureSettings {
  thresholdMs?: number; lake?: string; timeoutSeconds?: number; backend?: string;
}
export interface CaptureParams extends CaptureSettings {
  uri: string; output?: string; workDoneToken?: string;
}
export interface CaptureFolderParams extends CaptureSettings {
  folder: string; project?: boolean; output?: string; jobs?: number; workDoneToken?: string;
}
export type SessionManifestStatus = 'running' | 'complete' | 'partial' | 'cancelled';
export interface CaptureFolderResult {
  session: string; status: SessionManifestStatus;
  counts: { planned: number; completed: number; failed: number };
  captured: number; withErrors: number; notes: string[];
}
export interface CaptureResult {
  recording: string; status: 'ok' | 'error'; module: string; leanVersion: string;
  events: number; declarations: number; errors: number; elapsedNs: number | null;
  clock: string; notes: string[]; leanWallMs: number;
}
export interface OpenResult {
  module: string; sourcePath: string; sourceSha256: string; sourceLines: number;
  leanVersion: string; status: string; fileNs: number | null; elapsedNs: number | null;
  declarations: unknown[]; [k: string]: unknown;
}

/** The method names this extension calls. */
export const METHODS = {
  capture: 'leanscope/capture',
  open: 'leanscope/open',
  annotations: 'leanscope/annotations',
  captureFolder: 'leanscope/captureFolder',
} as const;

/** JSON-RPC error code of a cancelled request (LSP RequestCancelled). */
export const REQUEST_CANCELLED = -32800;
