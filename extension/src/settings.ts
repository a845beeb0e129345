// The `leanscope.*` settings, read when a command runs, and the request
// parameters built from them.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { resolveSidecarBinary } from './sidecar';
import { CaptureFolderParams, CaptureParams, CaptureSettings, CompareSettings } from './protocol';
import { sessionDirectory, stamp } from './sessions';
import type { Measure } from './format';
import { lakeFor } from './leanExtension';

function config(): vscode.WorkspaceConfiguration { return vscode.workspace.getConfiguration('leanscope'); }

/** The sidecar binary: `leanscope.sidecarPath`, else the one bundled in the extension. */
export function sidecarBinary(extensionPath: string): string {
  return resolveSidecarBinary(config().get<string>('sidecarPath', ''), extensionPath);
}

/** `leanscope.measure`: what Lean measures each step by (anything but
 * `heartbeats` counts as time). */
export function measureSetting(): Measure {
  return config().get<string>('measure', 'time') === 'heartbeats' ? 'heartbeats' : 'time';
}

/** What every capture takes from the settings: measure, threshold, lake and
 * timeout. With heartbeats the threshold is `thresholdHeartbeats` (the
 * sidecar refuses `thresholdMs` with them). `lake`: `leanscope.lakePath`,
 * else, with the Lean 4 extension installed, the one its rule finds for
 * `near` (leanExtension.ts). */
export function captureSettings(near?: vscode.Uri): CaptureSettings {
  const c = config();
  const params: CaptureSettings = {};
  if (measureSetting() === 'heartbeats') {
    params.measure = 'heartbeats';
    const hb = c.get<number>('thresholdHeartbeats', 1000000);
    if (typeof hb === 'number' && Number.isFinite(hb) && hb >= 0) params.thresholdHeartbeats = Math.floor(hb);
  } else {
    const threshold = c.get<number>('thresholdMs', 10);
    if (typeof threshold === 'number' && threshold >= 0) params.thresholdMs = threshold;
  }
  const { lake } = lakeFor(near);
  if (lake) params.lake = lake;
  const timeout = c.get<number>('timeoutSeconds', 0);
  if (typeof timeout === 'number' && timeout >= 1) params.timeoutSeconds = Math.floor(timeout);
  return params;
}

/** What Compare with Baseline takes from the settings, in the sidecar's
 * units: `leanscope.compare.metric` (an unknown one is passed on, and the
 * sidecar names the accepted ones), `absoluteToleranceMs` in nanoseconds
 * (it applies to the time metrics, `*_ns`; 0 for the others) and
 * `relativeTolerancePercent` in basis points. Negative or non-numeric
 * tolerances count as 0. */
export function compareSettings(): CompareSettings {
  const c = config();
  const raw = c.get<string>('compare.metric', 'total_ns');
  const metric = typeof raw === 'string' && raw.trim() ? raw.trim() : 'total_ns';
  const amount = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  const ms = amount(c.get<number>('compare.absoluteToleranceMs', 0));
  const percent = amount(c.get<number>('compare.relativeTolerancePercent', 0));
  return {
    metric,
    absoluteTolerance: metric.endsWith('_ns') ? Math.round(ms * 1e6) : 0,
    relativeToleranceBps: Math.round(percent * 100),
  };
}

/** The `leanscope.outputDirectory` setting as an absolute path (a relative
 * one is resolved against the workspace folder of `near`), or '' when unset. */
export function outputDirectory(near: vscode.Uri): string {
  const out = (config().get<string>('outputDirectory', '') || '').trim();
  if (!out || path.isAbsolute(out)) return out;
  const folder = vscode.workspace.getWorkspaceFolder(near) ?? vscode.workspace.workspaceFolders?.[0];
  return path.resolve(folder ? folder.uri.fsPath : path.dirname(near.fsPath), out);
}

/** Most runs (and warm-ups) a repeated capture may ask for (the sidecar's
 * `recording::repeats::MAX_REPEATS`). */
export const MAX_REPEATS = 1000;

/** How Profile File captures: `leanscope.profile.repeat` runs (1 to
 * MAX_REPEATS, whole; anything else counts as 1) after
 * `leanscope.profile.warmup` discarded ones (0 to MAX_REPEATS, default 1;
 * used only when repeat is over 1). */
export function profileSettings(): { repeat: number; warmup: number } {
  const c = config();
  const whole = (v: unknown, min: number, dflt: number): number =>
    (typeof v === 'number' && Number.isFinite(v) ? Math.min(MAX_REPEATS, Math.max(min, Math.floor(v))) : dflt);
  return { repeat: whole(c.get<number>('profile.repeat', 1), 1, 1), warmup: whole(c.get<number>('profile.warmup', 1), 0, 1) };
}

/** The parameters of `leanscope/captureFolder` for Profile File with
 * repeats: the file's runs into a one-file session named after the file. */
export function repeatedFileParams(file: vscode.Uri, root: string, repeat: number, warmup: number, now = new Date()): CaptureFolderParams {
  const named = path.join(path.dirname(file.fsPath), path.basename(file.fsPath, '.lean'));
  return {
    file: file.fsPath, repeat, warmup, ...captureSettings(file),
    output: sessionDirectory(named, root, outputDirectory(file), now),
  };
}

/** The parameters of `leanscope/capture` from the settings. */
export function captureParams(file: vscode.Uri, now = new Date()): CaptureParams {
  const params: CaptureParams = { uri: file.toString(), ...captureSettings(file) };
  const out = outputDirectory(file);
  if (out) params.output = path.join(out, `${path.basename(file.fsPath, '.lean')}-${stamp(now)}.lsrec`);
  return params;
}

/** The parameters of `leanscope/captureFolder` for a folder (or, with
 * `project`, the whole project at `folder`) inside the project at `root`;
 * the session directory is always named, so a cancelled capture can be
 * opened too. */
export function folderCaptureParams(folder: vscode.Uri, root: string, project: boolean, now = new Date()): CaptureFolderParams {
  return {
    folder: folder.fsPath, ...(project ? { project: true } : {}), ...captureSettings(folder),
    output: sessionDirectory(folder.fsPath, root, outputDirectory(folder), now),
  };
}

/** How the on-save capture runs: `leanscope.profile.onSave` (off unless
 * turned on), its debounce `onSaveDelayMs` (0 to 60000, default 1000) and
 * how many on-save captures may run at once (`onSaveMaxConcurrent`, 1 to 8,
 * default 2). */
export function onSaveSettings(): { enabled: boolean; delayMs: number; maxConcurrent: number } {
  const c = config();
  const num = (v: unknown, min: number, max: number, dflt: number): number =>
    (typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(min, Math.floor(v))) : dflt);
  return {
    enabled: c.get<boolean>('profile.onSave', false) === true,
    delayMs: num(c.get<number>('profile.onSaveDelayMs', 1000), 0, 60000, 1000),
    maxConcurrent: num(c.get<number>('profile.onSaveMaxConcurrent', 2), 1, 8, 2),
  };
}

/** How headroom is shown: a warning (decoration and, with `problems`, a
 * Problems entry) at or over `threshold` (a share: `headroom.warnPercent`
 * / 100, default 80 %), and a hint on unneeded bumps (`headroom.bumpHints`). */
export function headroomSettings(): { threshold: number; problems: boolean; bumpHints: boolean } {
  const c = config();
  const p = c.get<number>('headroom.warnPercent', 80);
  return {
    threshold: (typeof p === 'number' && Number.isFinite(p) && p > 0 ? p : 80) / 100,
    problems: c.get<boolean>('headroom.problems', true) !== false,
    bumpHints: c.get<boolean>('headroom.bumpHints', true) !== false,
  };
}

/** `leanscope.headroom.bumpNotNeededBelowPercent` (0 to 100, default 50) as
 * the share `leanscope/annotations` takes (`bumpNotNeededBelow`): a
 * `set_option maxHeartbeats N in` is not needed when the declaration's
 * heartbeats are under this share of the default. */
export function bumpNotNeededBelow(): number {
  const p = config().get<number>('headroom.bumpNotNeededBelowPercent', 50);
  return (typeof p === 'number' && Number.isFinite(p) ? Math.min(100, Math.max(0, p)) : 50) / 100;
}
