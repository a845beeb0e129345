// Show Viewer: what the CodeLens, the status bar or the Command Palette
// asks to see, else what the active editor is annotated from, else what
// was shown or captured last.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { ViewerTarget } from '../viewer';
import { Services } from '../services';

/** What to show: a recording (with its source and a declaration to
 * select), or a session. */
export interface ShowViewerArgs { recording?: string; source?: string; declaration?: string; session?: string }

export function showViewer(services: Services, arg?: ShowViewerArgs): ViewerTarget | undefined {
  const { annotations, viewer, history } = services;
  if (arg?.session) {
    const target: ViewerTarget = { kind: 'session', file: path.join(arg.session, 'session.json') };
    viewer.show(target);
    return target;
  }
  let recording = arg?.recording;
  let source = arg?.source ? vscode.Uri.parse(arg.source) : undefined;
  if (!recording) {
    const ed = vscode.window.activeTextEditor;
    const fromEditor = ed ? annotations.sourceOf(ed.document.uri) : undefined;
    if (fromEditor && 'session' in fromEditor) return showViewer(services, { session: fromEditor.session });
    if (fromEditor && ed) { recording = fromEditor.recording; source = ed.document.uri; }
    else if (viewer.current) { viewer.show(viewer.current); return viewer.current; }
    else if (history.last) { recording = history.last.recording; source = history.last.source; }
    else if (history.lastSession) return showViewer(services, { session: history.lastSession.session });
  }
  if (!recording) {
    void vscode.window.showInformationMessage('leanscope: profile a file or open a recording first.');
    return undefined;
  }
  const target: ViewerTarget = { kind: 'recording', file: recording, source: source ?? history.sources.get(recording) };
  viewer.show(target, arg?.declaration ? { declaration: arg.declaration } : undefined);
  return target;
}
