// Compare with Baseline…: `leanscope/compare` of a candidate (a recording
// or a session) with a baseline, shown in the viewer's Diff tab.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMPARE_METRICS, CompareParams, CompareResult, METHODS } from '../protocol';
import { ViewerTarget } from '../viewer';
import { CompareCounts, compareCounts, compareSummary } from '../compare';
import { findProjectRoot } from '../sessions';
import { compareSettings } from '../settings';
import { CaptureHistory } from '../history';
import { Services } from '../services';

/** The outcome of Compare with Baseline: what was asked, the sidecar's
 * diff document, the counts the notification showed, and what the viewer
 * shows. */
export interface BaselineComparison {
  params: CompareParams;
  result: CompareResult;
  counts: CompareCounts;
  summary: string;
  target: ViewerTarget;
}

/** What the viewer can show for `file`: a `.lsrec`, or a session (its
 * folder or its session.json); undefined for anything else. */
function viewerTargetOf(file: string, history: CaptureHistory): ViewerTarget | undefined {
  let stat: fs.Stats;
  try { stat = fs.statSync(file); } catch { return undefined; }
  if (stat.isDirectory()) {
    const manifest = path.join(file, 'session.json');
    return fs.existsSync(manifest) ? { kind: 'session', file: manifest } : undefined;
  }
  if (path.basename(file) === 'session.json') return { kind: 'session', file };
  if (file.endsWith('.lsrec')) return { kind: 'recording', file, source: history.sources.get(file) };
  return undefined;
}

/** Where the baseline dialog starts: the `.leanscope/` directory of the
 * candidate's project, else of a workspace folder, else the candidate's folder. */
function baselineStart(candidate: string): vscode.Uri {
  const roots = [findProjectRoot(candidate), ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath)];
  for (const r of roots) {
    if (r && fs.existsSync(path.join(r, '.leanscope'))) return vscode.Uri.file(path.join(r, '.leanscope'));
  }
  return vscode.Uri.file(path.dirname(candidate));
}

/** The candidate is the Explorer's item, else what the viewer shows, else
 * the newest capture, else asked for; the baseline is asked for. The
 * sidecar compares; the viewer shows the candidate with its Diff tab. */
export async function compareWithBaseline(services: Services, arg?: vscode.Uri): Promise<BaselineComparison | undefined> {
  const { sidecar, viewer, history, log } = services;
  let target: ViewerTarget | undefined;
  if (arg instanceof vscode.Uri) {
    target = arg.scheme === 'file' ? viewerTargetOf(arg.fsPath, history) : undefined;
    if (!target) {
      void vscode.window.showErrorMessage(`leanscope: ${arg.fsPath || arg.toString()} is neither a recording (.lsrec) nor a session folder; the candidate must be one the viewer can show.`);
      return undefined;
    }
  } else if (viewer.current) {
    target = viewer.current;
  } else if (history.newest) {
    target = viewerTargetOf(history.newest, history);
  }
  if (!target) {
    const chosen = await vscode.window.showOpenDialog({
      title: 'leanscope: the candidate to compare (a recording or a session folder)',
      canSelectFiles: true, canSelectFolders: true, canSelectMany: false,
      openLabel: 'Candidate', filters: { 'leanscope recordings': ['lsrec'] },
    });
    const picked = chosen?.[0];
    if (!picked) return undefined;
    target = viewerTargetOf(picked.fsPath, history);
    if (!target) {
      void vscode.window.showErrorMessage(`leanscope: ${picked.fsPath} is neither a recording (.lsrec) nor a session folder (no session.json).`);
      return undefined;
    }
  }
  const candidate = target.kind === 'session' ? path.dirname(target.file) : target.file;
  const chosen = await vscode.window.showOpenDialog({
    title: `leanscope: the baseline to compare ${path.basename(candidate)} with`,
    defaultUri: baselineStart(candidate),
    canSelectFiles: true, canSelectFolders: true, canSelectMany: false,
    openLabel: 'Compare with Baseline',
    filters: { 'Recordings, sessions and profiles': ['lsrec', 'json', 'trace', 'folded', 'txt'], 'All files': ['*'] },
  });
  const picked = chosen?.[0];
  if (!picked) return undefined;
  // A session's manifest stands for its folder (the sidecar would read it as a summary).
  const baseline = path.basename(picked.fsPath) === 'session.json' ? path.dirname(picked.fsPath) : picked.fsPath;
  const params: CompareParams = { baseline, candidate, ...compareSettings() };
  if (!(COMPARE_METRICS as readonly string[]).includes(params.metric)) log(`compare: metric ${params.metric} is not one this extension knows; the sidecar decides`);
  log(`compare ${JSON.stringify(params)}`);
  let result: CompareResult;
  try {
    result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'leanscope: comparing' },
      () => sidecar.request<CompareResult>(METHODS.compare, { ...params }));
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    log(`compare failed: ${msg}`);
    void vscode.window.showErrorMessage(`leanscope: cannot compare ${path.basename(candidate)} with ${path.basename(baseline)}: ${msg}`);
    return undefined;
  }
  const counts = compareCounts(result);
  const summary = compareSummary(counts, result.comparison.metric);
  log(`compare ${result.baseline} → ${result.candidate}: ${summary}, ${counts.unchanged} within tolerance${result.warnings.length ? `; warnings: ${result.warnings.join(' | ')}` : ''}`);
  viewer.show(target);
  viewer.post({ type: 'leanscope.diff', document: result });
  void vscode.window.showInformationMessage(`leanscope: ${summary}`);
  if (result.warnings.length) {
    void vscode.window.showWarningMessage(`leanscope: compared anyway, but an input is incomplete: ${result.warnings.join('; ')}`);
  }
  return { params, result, counts, summary, target };
}
