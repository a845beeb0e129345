// Headroom in the Problems panel: a warning on each declaration whose
// heartbeats pass the threshold share of its limit
// (`leanscope.headroom.warnPercent`; off with `leanscope.headroom.problems`),
// and a hint, with the option faded as removable code, on a
// `set_option maxHeartbeats N in` the declaration does not need
// (`leanscope.headroom.bumpHints`).
import * as vscode from 'vscode';
import type { Declaration } from './protocol';
import { bumpText, overThreshold } from './headroom';

/** Where the diagnostics say they come from. */
export const DIAGNOSTIC_SOURCE = 'leanscope';

export interface HeadroomDisplay { threshold: number; problems: boolean; bumpHints: boolean }

/** The diagnostics of a file's declarations (pure: the editor's types only). */
export function headroomDiagnostics(declarations: Declaration[], display: HeadroomDisplay): vscode.Diagnostic[] {
  const out: vscode.Diagnostic[] = [];
  for (const d of declarations) {
    const h = d.headroom;
    if (!h) continue;
    const over = display.problems ? overThreshold(h, display.threshold) : [];
    if (over.length) {
      const r = d.selectionRange;
      const diag = new vscode.Diagnostic(new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character),
        `${d.name} is close to its heartbeat limit: ${over.join('; ')}.`, vscode.DiagnosticSeverity.Warning);
      diag.source = DIAGNOSTIC_SOURCE;
      diag.code = 'headroom';
      out.push(diag);
    }
    const m = h.maxHeartbeats;
    if (display.bumpHints && m.bumpNotNeeded && m.from === 'in' && m.line !== undefined && m.line >= 1) {
      const line = m.line - 1;
      const diag = new vscode.Diagnostic(new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER),
        `set_option maxHeartbeats ${m.limit} in is not needed: ${bumpText(d)}.`, vscode.DiagnosticSeverity.Information);
      diag.source = DIAGNOSTIC_SOURCE;
      diag.code = 'bumpNotNeeded';
      diag.tags = [vscode.DiagnosticTag.Unnecessary];
      out.push(diag);
    }
  }
  return out;
}

/** The `leanscope` diagnostic collection. */
export class HeadroomProblems implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection(DIAGNOSTIC_SOURCE);

  show(uri: vscode.Uri, declarations: Declaration[], display: HeadroomDisplay): void {
    this.collection.set(uri, headroomDiagnostics(declarations, display));
  }

  delete(uri: vscode.Uri): void { this.collection.delete(uri); }

  clear(): void { this.collection.clear(); }

  dispose(): void { this.collection.dispose(); }
}
