// Where the source file of a recording (or of a session's file) is, for
// the editor's annotations and the viewer's reveal requests.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ViewerHost } from './viewer';
import { readManifest } from './sessions';
import { CaptureHistory } from './history';

/** Where the source of a recording is: next to the project holding
 * `.leanscope/recordings/`, else in a workspace folder. */
export function findSource(recording: string, sourcePath: string): vscode.Uri | undefined {
  if (path.isAbsolute(sourcePath)) return fs.existsSync(sourcePath) ? vscode.Uri.file(sourcePath) : undefined;
  const roots: string[] = [];
  const dir = path.dirname(recording);
  if (path.basename(dir) === 'recordings' && path.basename(path.dirname(dir)) === '.leanscope') roots.push(path.dirname(path.dirname(dir)));
  for (const f of vscode.workspace.workspaceFolders ?? []) roots.push(f.uri.fsPath);
  for (const r of roots) {
    const p = path.join(r, sourcePath);
    if (fs.existsSync(p)) return vscode.Uri.file(p);
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
      const root = readManifest(path.dirname(target.file))?.projectRoot;
      const rel = msg.path ?? msg.sourcePath;
      if (root && rel && !path.isAbsolute(rel)) {
        // Only files inside the project (the page could name any path).
        const p = path.resolve(root, rel);
        if (p.startsWith(path.resolve(root) + path.sep) && fs.existsSync(p)) return vscode.Uri.file(p);
      }
    }
    return msg.sourcePath ? findSource(target.file, msg.sourcePath) : undefined;
  };
}
