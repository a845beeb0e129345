// File paths on every OS the extension runs on, and from every OS a
// recording may come from: Windows drive letters (in either case, with `\`
// or `/`), `file:///c%3A/…` URIs, and the project-relative `/` paths of
// portable recordings, mapped to the files of this machine. The platform is
// a parameter (default: this one) so that tests on Linux can use Windows
// inputs.
import * as path from 'node:path';

/** Node's path functions of `platform`. */
export function pathOf(platform: string = process.platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

const DRIVE = /^([A-Za-z]):/;

/** A path as VS Code's `Uri.file(p).fsPath` writes it: normalized, and on
 * Windows with backslashes and a lower-case drive letter. */
export function normalizeFsPath(p: string, platform: string = process.platform): string {
  if (platform !== 'win32') return path.posix.normalize(p);
  const q = path.win32.normalize(p.replace(/\//g, '\\'));
  return q.replace(DRIVE, (_, d: string) => `${d.toLowerCase()}:`);
}

/** Whether two paths name the same file: on Windows whatever the case
 * (of the drive letter and all: its file systems ignore it) and the
 * separators. */
export function samePath(a: string, b: string, platform: string = process.platform): boolean {
  const x = normalizeFsPath(a, platform);
  const y = normalizeFsPath(b, platform);
  return platform === 'win32' ? x.toLowerCase() === y.toLowerCase() : x === y;
}

/** Whether `file` is strictly inside the folder `dir`. */
export function isInside(file: string, dir: string, platform: string = process.platform): boolean {
  const p = pathOf(platform);
  // path.win32.relative compares case-insensitively.
  const rel = p.relative(normalizeFsPath(dir, platform), normalizeFsPath(file, platform));
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${p.sep}`) && !p.isAbsolute(rel);
}

/** Whether a path is absolute on some OS: `/…` (POSIX), `C:\…` or `C:/…`
 * (a Windows drive), `\\server\share\…` (UNC). */
export function isAbsoluteAnywhere(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

/** The segments of a relative path written with `/` or `\`; undefined
 * when it is absolute somewhere or climbs out of its folder (`..`). */
export function relativeSegments(rel: string): string[] | undefined {
  if (isAbsoluteAnywhere(rel) || DRIVE.test(rel)) return undefined;
  const parts = rel.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
  if (!parts.length || parts.includes('..')) return undefined;
  return parts;
}

/** `rel` (project-relative, `/` or `\`) as a path under `root` on
 * `platform`; undefined when it is not a relative path inside it. */
export function resolveInside(root: string, rel: string, platform: string = process.platform): string | undefined {
  const parts = relativeSegments(rel);
  if (!parts) return undefined;
  return pathOf(platform).join(normalizeFsPath(root, platform), ...parts);
}

/** The most trailing segments tried of a path made on another machine. */
export const MAX_FOREIGN_TAIL_SEGMENTS = 32;

/** Where a source path a recording or the sidecar names may be on this
 * machine, most likely first: a path absolute here is itself; a relative
 * one (what portable recordings hold: project-relative, `/`) is under each
 * root; a path absolute on another machine or OS (`C:\Users\me\demo\Demo\A.lean`
 * opened on Linux, `/home/me/demo/Demo/A.lean` on Windows) is its trailing
 * segments under each root, the longest first. */
export function sourceCandidates(sourcePath: string, roots: string[], platform: string = process.platform): string[] {
  const p = pathOf(platform);
  const out: string[] = [];
  const add = (c: string | undefined) => { if (c && !out.some((o) => samePath(o, c, platform))) out.push(c); };
  const hereAbsolute = platform === 'win32' ? /^[A-Za-z]:[\\/]/.test(sourcePath) || sourcePath.startsWith('\\\\') : sourcePath.startsWith('/');
  if (hereAbsolute) add(normalizeFsPath(sourcePath, platform));
  if (!isAbsoluteAnywhere(sourcePath)) {
    for (const r of roots) add(resolveInside(r, sourcePath, platform));
    return out;
  }
  const segments = sourcePath.replace(DRIVE, '').split(/[\\/]+/).filter((s) => s !== '' && s !== '.' && s !== '..');
  const longest = Math.min(segments.length, MAX_FOREIGN_TAIL_SEGMENTS);
  for (let n = longest; n >= 1; n--) {
    const tail = segments.slice(segments.length - n);
    for (const r of roots) add(p.join(normalizeFsPath(r, platform), ...tail));
  }
  return out;
}

/** The file path of a `file:` URI as VS Code's `Uri.fsPath` gives it:
 * `file:///c%3A/Users/me/A.lean` and `file:///C:/Users/me/A.lean` are
 * `c:\Users\me\A.lean` on Windows; `file://server/share/A.lean` is
 * `\\server\share\A.lean` there. Throws for another scheme. */
export function fsPathOfFileUri(uri: string, platform: string = process.platform): string {
  const u = new URL(uri);
  if (u.protocol !== 'file:') throw new Error(`${uri} is not a file: URI`);
  const decoded = decodeURIComponent(u.pathname);
  if (platform !== 'win32') return u.host ? `//${u.host}${decoded}` : decoded;
  if (u.host) return `\\\\${u.host}${decoded.replace(/\//g, '\\')}`;
  const local = /^\/[A-Za-z]:/.test(decoded) ? decoded.slice(1) : decoded;
  return normalizeFsPath(local, platform);
}
