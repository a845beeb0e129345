// The shapes of `leanscope serve`'s answers (schemas/rpc/serve.schema.json).
export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }
export type RangeKind = 'exact' | 'matched' | 'inherited' | 'none';

export interface Operation {
  class: string; label: string; kind: string;
  inclusiveNs: number; selfNs: number; thread: number;
  range: Range | null; rangeKind: RangeKind;
}
/** A time over the runs of a repeated capture, in whole ns (or heartbeats):
 * quartiles from 4 runs. */
export interface WholeSpread { runs: number; median: number; min: number; max: number; q1?: number; q3?: number }
/** A time and its self time over runs (`totalNs`/`selfNs` are their medians). */
export interface TimeSpread { total: WholeSpread; self: WholeSpread }
export interface LineBar {
  line: number; events: number; totalNs: number; selfNs: number;
  share: number | null; selfShare: number | null; top: Operation[];
  /** A repeated capture's file: the spread over its runs. */
  spread?: TimeSpread;
}
/** Where the limit in force on a declaration comes from: a `set_option … in`
 * on it, a file-level `set_option`, or Lean's default for the toolchain. */
export type LimitFrom = 'in' | 'file' | 'default';
/** One limit on a declaration (`maxHeartbeats` or `synthInstance.maxHeartbeats`):
 * `limit` and `default` in the option's unit (thousands of heartbeats),
 * `heartbeats` raw (as `trace.profiler.useHeartbeats` reports them), `share`
 * = heartbeats / (limit × 1000), absent when the limit is 0 (no limit);
 * `line`: 1-based line of the `set_option`, absent for the default. */
export interface LimitUse {
  limit: number; from: LimitFrom; line?: number; heartbeats: number; share?: number; default: number;
}
export interface MaxHeartbeatsUse extends LimitUse {
  /** A `set_option maxHeartbeats N in` the declaration does not need: it
   * fits under the default with room to spare. */
  bumpNotNeeded: boolean;
}
export interface SynthInstanceUse extends LimitUse {
  /** The goal of the slowest instance search inside the declaration. */
  instance: string;
}
/** How close a declaration is to its limits (heartbeat recordings). */
export interface Headroom { maxHeartbeats: MaxHeartbeatsUse; synthInstance?: SynthInstanceUse }
export interface Declaration {
  index: number; name: string; kind: string; range: Range; selectionRange: Range;
  generated: boolean; events: number; totalNs: number | null; selfNs: number | null;
  share: number | null; selfShare: number | null;
  spread?: TimeSpread;
  headroom?: Headroom;
  /** The resident memory Lean gained while it ran (when the capture sampled memory). */
  memoryGrowthBytes?: number;
  /** Over the runs of a repeated capture: the growth's spread (`memoryGrowthBytes` is its median). */
  memorySpread?: WholeSpread;
  /** Lean was running it when it was stopped: its time is unfinished. */
  inFlight?: boolean;
}
export interface FreshAnnotations {
  stale: false; sourceSha256: string; fileNs: number; shareBasis: 'elapsed' | 'traced';
  /** What the numbers (`*Ns`) count: nanoseconds, or heartbeats. */
  measure?: 'time' | 'heartbeats' | 'untimed';
  /** A repeated capture's file: the runs the times are medians of, the
   * median run's recording (whose operations `top` lists), the file time's spread. */
  runs?: number; recording?: string; fileSpread?: WholeSpread;
  lines: LineBar[]; declarations: Declaration[];
  /** A recording Lean did not finish: why it was stopped. */
  partial?: string;
  /** Where the file's time went, and how the declarations' shares add up
   * (a repeated capture's file: the median run's). Absent from older sidecars. */
  account?: FileAccount;
}
/** `leanscope info`'s time account of a file, with the declarations' share sum. */
export interface FileAccount {
  fileNs: number; basis: 'elapsed' | 'cumulative' | 'traced';
  importsNs?: number; tracedNs: number; untracedNs: number; overrunNs: number;
  /** Over 1: the declarations ran in parallel. */
  declarationShareSum?: number;
  threads: number;
}
export interface StaleAnnotations { stale: true; recordedSha256: string; bufferSha256: string }
export type AnnotationsResult = FreshAnnotations | StaleAnnotations;

/** What every capture takes from the settings (no `backend`: the sidecar
 * runs its only one, stock). */
export interface CaptureSettings {
  thresholdMs?: number; lake?: string; timeoutSeconds?: number;
  /** `heartbeats`: Lean with `trace.profiler.useHeartbeats` (then
   * `thresholdHeartbeats`, never `thresholdMs`). Absent: time. */
  measure?: 'time' | 'heartbeats'; thresholdHeartbeats?: number;
}
export interface CaptureParams extends CaptureSettings {
  uri: string; output?: string; workDoneToken?: string;
}
export interface CaptureFolderParams extends CaptureSettings {
  /** A folder, or (with `repeat`) one `.lean` file as `file`. */
  folder?: string; file?: string; project?: boolean; output?: string; jobs?: number;
  repeat?: number; warmup?: number; workDoneToken?: string;
}
/** What `leanscope/annotations` annotates from: a recording, or a session's file. */
export type AnnotationSource = { recording: string } | { session: string; file: string };
export type SessionManifestStatus = 'running' | 'complete' | 'partial' | 'cancelled';
export interface CaptureFolderResult {
  session: string; status: SessionManifestStatus;
  counts: { planned: number; completed: number; failed: number };
  captured: number; withErrors: number; notes: string[];
  repeats?: { runs: number; warmup: number };
}
/** Why Lean was stopped before it finished (a capture of status `stopped`). */
export interface CaptureStop {
  reason: 'unknown' | 'timeout' | 'cancelled' | 'memory limit' | 'signal';
  detail: string; wallNs: number;
  inFlight?: { declaration: string; text: string; runningNs: number } | null;
}
export interface CaptureResult {
  recording: string; status: 'ok' | 'error' | 'stopped'; module: string; leanVersion: string;
  events: number; declarations: number; errors: number; elapsedNs: number | null;
  clock: string; notes: string[]; leanWallMs: number;
  stop?: CaptureStop; peakMemoryBytes?: number;
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
  compare: 'leanscope/compare',
  compareRevisions: 'leanscope/compareRevisions',
} as const;

/** The metrics `leanscope/compare` accepts (`metric`). */
export const COMPARE_METRICS = [
  'total_ns', 'self_ns', 'mean_ns', 'median_ns', 'p95_ns', 'max_ns', 'min_ns', 'calls',
  'total_heartbeats', 'self_heartbeats', 'alloc_bytes', 'peak_live_bytes',
] as const;

/** What Compare with Baseline takes from the settings, in the sidecar's units. */
export interface CompareSettings {
  metric: string; absoluteTolerance: number; relativeToleranceBps: number;
}
export interface CompareParams extends CompareSettings {
  baseline: string; candidate: string; groupBy?: string;
}
export type CompareStatus = 'regression' | 'improvement' | 'unchanged';
/** One row both inputs have (`leanscope compare --json`). */
export interface CompareMatched {
  key: Record<string, unknown>; status: CompareStatus;
  baseline: number; candidate: number; delta: number; change_bps: number | null; [k: string]: unknown;
}
export interface Comparison {
  schema_version: number; metric: string; absolute_tolerance: number; relative_tolerance_bps: number;
  has_regression: boolean; matched: CompareMatched[]; missing: unknown[]; new: unknown[]; [k: string]: unknown;
}
/** The diff document the viewer's Diff tab shows. */
export interface CompareResult {
  baseline: string; candidate: string; warnings: string[]; comparison: Comparison;
}

/** `leanscope/compareRevisions`: a profiled revision run of HEAD against its merge base with `base`. */
export interface CompareRevisionsParams {
  repo: string; base: string; head?: string; workspace?: string; repeat?: number; lake?: string;
  timeoutFileSeconds?: number; timeoutBuildSeconds?: number; timeoutTotalSeconds?: number; workDoneToken?: string;
}
export interface CompareRevisionsResult {
  workspace: string; state: 'complete' | 'no_changes' | 'error'; runId: string; files: number; flagged: number;
  error: string | null; headSession: string | null; diff: CompareResult | null;
}

/** JSON-RPC error code of a cancelled request (LSP RequestCancelled). */
export const REQUEST_CANCELLED = -32800;
