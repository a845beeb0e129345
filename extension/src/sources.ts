// Where the source file of a recording (or of a session's file) is, for
// the editor's annotations and the viewer's reveal requests.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ViewerHost } from './viewer';
import { readManifest } from './sessions';
import { CaptureHistory } from './history';
import { resolveInside, sourceCandidates } from './paths';

/** The project a recording or session under `<project>/.leanscope/` belongs to. */
export function projectOfOutput(dir: string, p: path.PlatformPath = path): string | undefined {
  for (let d = dir, up = 0; up < 3; up++, d = p.dirname(d)) {
    if (p.basename(d) === '.leanscope') return p.dirname(d);
  }
  return undefined;
}

/** Where the source of a recording is: the path it records when that is a
 * file here; else, relative to (or, for a path made on another machine,
 * the tail of it under) the project holding `.leanscope/recordings/`, then
 * each workspace folder (`paths.sourceCandidates`). */
export function findSource(recording: string, sourcePath: string): vscode.Uri | undefined {
  const roots: string[] = [];
  const project = projectOfOutput(path.dirname(recording));
  if (project) roots.push(project);
  for (const f of vscode.workspace.workspaceFolders ?? []) roots.push(f.uri.fsPath);
  for (const c of sourceCandidates(sourcePath, roots)) {
    if (fs.existsSync(c)) return vscode.Uri.file(c);
  }
  return undefined;
}

/** How the viewer finds the file a reveal request names. */
export type SourceResolver = ConstructorParameters<typeof ViewerHost>[2];

/** The file a reveal request of the viewer names: the shown recording's
 * known source, a file inside a session's project, else the recording's
 * source found as `findSource` does. */
export function viewerSourceResolver(history: CaptureHistory): SourceResolver {
  return async (target, msg) => {
    if (target.source) return target.source;
    const known = history.sources.get(target.file);
    if (known) return known;
    if (target.kind === 'session') {
      const dir = path.dirname(target.file);
      const rel = msg.path ?? msg.sourcePath;
      // The session's project: the one its manifest names when that is a
      // folder here, else the one holding its .leanscope/ (a session made
      // on another machine names that machine's folder).
      const roots = [readManifest(dir)?.projectRoot, projectOfOutput(dir)].filter((r): r is string => !!r && fs.existsSync(r));
      for (const root of rel ? roots : []) {
        // Only relative paths inside the project (the page could name any path).
        const p = resolveInside(root, rel!);
        if (p && fs.existsSync(p)) return vscode.Uri.file(p);
      }
    }
    return msg.sourcePath ? findSource(target.file, msg.sourcePath) : undefined;
  };
}
