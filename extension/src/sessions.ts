// Profile Folder / Profile Project: what to capture, where the session
// goes, and how the sidecar's per-file progress reads in the notification.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SessionManifestStatus } from './protocol';

export const TOOLCHAIN_FILE = 'lean-toolchain';
export const LAKEFILES = ['lakefile.toml', 'lakefile.lean'];

function isFile(p: string): boolean {
  try { return fs.statSync(p).isFile(); } catch { return false; }
}

/** The Lean project holding `start` (a file or a folder): the nearest
 * ancestor with `lean-toolchain`, else the nearest with a lakefile (the
 * sidecar's own rule), else undefined. */
export function findProjectRoot(start: string): string | undefined {
  let dir = path.resolve(start);
  if (isFile(dir)) dir = path.dirname(dir);
  let lakefileDir: string | undefined;
  for (;;) {
    if (isFile(path.join(dir, TOOLCHAIN_FILE))) return dir;
    if (!lakefileDir && LAKEFILES.some((f) => isFile(path.join(dir, f)))) lakefileDir = dir;
    const up = path.dirname(dir);
    if (up === dir) return lakefileDir;
    dir = up;
  }
}

/** `20260102T030405Z`: the time part of a session or recording name. */
export function stamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/** The directory a folder or project capture writes: under the
 * `leanscope.outputDirectory` setting when set (`<dir>/<Folder>-<time>`),
 * else `<project>/.leanscope/sessions/<Folder>-<time>`. The extension names
 * it so it can open the session even when the capture is cancelled. */
export function sessionDirectory(folder: string, project: string, outputDirectory: string, now: Date): string {
  const name = `${path.basename(folder) || 'session'}-${stamp(now)}`;
  const base = outputDirectory ? outputDirectory : path.join(project, '.leanscope', 'sessions');
  return path.join(base, name);
}

/** What the notification says while a folder capture runs, from the
 * sidecar's `$/progress` messages: `N files to capture` (begin),
 * `Capturing <path>` (a file starts), `[done/total] <path>: <status>` (a
 * file ends, with `percentage`). */
export class FolderProgress {
  total: number | undefined;
  done = 0;
  private percent = 0;
  /** The messages shown, in order (kept for the log and tests). */
  readonly shown: string[] = [];

  /** The notification update for one sidecar message, or undefined when
   * there is nothing new to show. `increment` is VS Code's (percent added). */
  update(message: string | undefined, percentage?: number): { message: string; increment?: number } | undefined {
    if (!message) return undefined;
    let text: string | undefined;
    const planned = /^(\d+) files? to capture$/.exec(message);
    const started = /^Capturing (.+)$/.exec(message);
    const finished = /^\[(\d+)\/(\d+)\] (.+): (\w+)$/.exec(message);
    if (planned) {
      this.total = Number(planned[1]);
      text = `0/${this.total} files`;
    } else if (started) {
      text = `${this.done + 1}/${this.total ?? '?'} ${started[1]}`;
    } else if (finished) {
      this.done = Number(finished[1]);
      this.total = Number(finished[2]);
      text = `${this.done}/${this.total} ${finished[3]}: ${finished[4]}`;
    } else {
      text = message;
    }
    let increment: number | undefined;
    if (typeof percentage === 'number' && percentage > this.percent) {
      increment = percentage - this.percent;
      this.percent = percentage;
    }
    this.shown.push(text);
    return increment === undefined ? { message: text } : { message: text, increment };
  }
}

/** The manifest's status and counts (the parts the extension reads). */
export interface ManifestFacts {
  status: SessionManifestStatus;
  counts: { planned: number; completed: number; failed: number };
  projectRoot: string;
}

export function readManifest(sessionDir: string): ManifestFacts | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(sessionDir, 'session.json'), 'utf8'));
    if (!m || typeof m !== 'object' || typeof m.status !== 'string' || !m.counts) return undefined;
    return { status: m.status, counts: m.counts, projectRoot: m.projectRoot };
  } catch {
    return undefined;
  }
}
