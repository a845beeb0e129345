// The viewer and the editor following each other: a file the viewer opens
// from a session gets the session's annotations, and the cursor in an
// annotated declaration selects it in the viewer.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { AnnotationController } from './annotations';
import { ViewerHost, ViewerTarget } from './viewer';
import { samePath } from './paths';

/** Given to the viewer: a session's file it opened gets the session's
 * annotations (medians over the runs for a repeated capture), unless it has
 * them already. */
export function annotateRevealed(annotations: AnnotationController, log: (line: string) => void) {
  return async (target: ViewerTarget, doc: vscode.TextDocument): Promise<void> => {
    if (target.kind !== 'session') return;
    const session = path.dirname(target.file);
    const have = annotations.sourceOf(doc.uri);
    if (have && 'session' in have && samePath(path.resolve(have.session), session)) return;
    try {
      const fresh = await annotations.load(doc, { session, file: doc.uri.fsPath });
      if (!fresh) log(`annotations: ${doc.uri.fsPath} differs from the source the session ${session} recorded`);
    } catch (e) {
      log(`annotations: ${doc.uri.fsPath} from the session ${session}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}

/** Cursor in an annotated declaration of the shown recording → select it
 * in the viewer (after 150 ms of rest; not what the viewer just revealed). */
export function followCursor(annotations: AnnotationController, viewer: ViewerHost): vscode.Disposable {
  let lastSelected: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  return vscode.window.onDidChangeTextEditorSelection((e) => {
    const cur = viewer.current;
    if (!cur || cur.kind !== 'recording') return;
    if (annotations.recordingOf(e.textEditor.document.uri) !== cur.file) return;
    const line = e.selections[0]?.active.line;
    if (line === undefined) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      const decl = annotations.declarationAt(e.textEditor.document.uri, line);
      if (decl && decl === viewer.lastRevealed) { lastSelected = decl; return; }
      if (decl && decl !== lastSelected) { lastSelected = decl; viewer.select({ declaration: decl }); }
    }, 150);
  });
}
