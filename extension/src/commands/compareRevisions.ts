// Compare Revisions…: did this branch make Lean slower, and which
// declaration? `leanscope/compareRevisions` (the sidecar's `revisions run
// --profile`) with progress and Cancel, then the Diff view of the two sides.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ViewerTarget } from '../viewer';
import { CompareRevisionsParams, CompareRevisionsResult, METHODS } from '../protocol';
import { compareCounts, compareSummary } from '../compare';
import { captureSettings } from '../settings';
import { requestWithProgress } from '../progress';
import { Services } from '../services';

/** The base offered first: the current branch's upstream (`@{upstream}`),
 * else `main`. */
export function defaultBase(repo: string): string {
  const r = spawnSync('git', ['-C', repo, 'rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}'], { encoding: 'utf8' });
  const upstream = r.status === 0 ? r.stdout.trim() : '';
  return upstream || 'main';
}

/** The repository to compare in: the workspace folder of the active file,
 * else the first workspace folder. */
export function repositoryFolder(): string | undefined {
  const active = vscode.window.activeTextEditor?.document.uri;
  const folder = (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
}

/** The outcome of Compare Revisions…, for the tests. */
export interface RevisionComparison {
  params: CompareRevisionsParams;
  result?: CompareRevisionsResult;
  cancelled: boolean;
  /** The progress messages shown, in order. */
  progress: string[];
  /** What the viewer shows (complete runs). */
  target?: ViewerTarget;
}

/** Asks for the base (default: the upstream, else `main`), runs the
 * profiled revision run with progress and Cancel, and opens the Diff view
 * of the head side against the base side. */
export async function compareRevisions(services: Services, base?: string): Promise<RevisionComparison | undefined> {
  const { sidecar, viewer, log, fail } = services;
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showErrorMessage('leanscope: comparing revisions runs Lean through lake on both sides, so it needs a trusted workspace (Workspaces: Manage Workspace Trust).');
    return undefined;
  }
  const repo = repositoryFolder();
  if (!repo) {
    void vscode.window.showErrorMessage('leanscope: open a folder inside a Git repository to compare its revisions.');
    return undefined;
  }
  const chosen = base ?? await vscode.window.showInputBox({
    title: 'leanscope: Compare Revisions',
    prompt: 'The base revision (branch, tag or commit). HEAD is compared with its merge base with it, file by file, each side in a sandbox.',
    value: defaultBase(repo),
    ignoreFocusOut: true,
  });
  if (!chosen || !chosen.trim()) return undefined;
  const { lake } = captureSettings(vscode.Uri.file(repo));
  const params: CompareRevisionsParams = { repo, base: chosen.trim(), head: 'HEAD', ...(lake ? { lake } : {}) };
  log(`compareRevisions ${JSON.stringify(params)}`);
  const outcome: RevisionComparison = { params, cancelled: false, progress: [] };
  let answer;
  try {
    answer = await requestWithProgress<CompareRevisionsResult>(sidecar, log, { title: `leanscope: comparing ${params.base} with HEAD`, name: 'compareRevisions' },
      METHODS.compareRevisions, params, (p, progress) => {
        if (!p.message) return;
        log(`progress: ${p.message}`);
        if (p.kind === 'end') return;
        outcome.progress.push(p.message);
        progress.report({ message: p.message });
      });
  } catch (e) { fail(`comparing ${params.base} with HEAD`, e); return undefined; }
  const { result } = answer;
  outcome.cancelled = answer.cancelled;
  if (outcome.cancelled) {
    void vscode.window.showInformationMessage(`leanscope: comparison of ${params.base} with HEAD cancelled; Lean was stopped.`);
    return outcome;
  }
  if (!result) return undefined;
  outcome.result = result;
  log(`compareRevisions ${result.runId}: ${result.state}, ${result.files} files, ${result.flagged} flagged, workspace ${result.workspace}`);
  if (result.state === 'error') {
    void vscode.window.showErrorMessage(`leanscope: the comparison of ${params.base} with HEAD failed: ${result.error ?? 'unknown error'} (workspace ${result.workspace})`);
    return outcome;
  }
  if (result.state === 'no_changes' || !result.headSession || !result.diff) {
    void vscode.window.showInformationMessage(`leanscope: no library .lean file differs between ${params.base} and HEAD.`);
    return outcome;
  }
  const target: ViewerTarget = { kind: 'session', file: path.join(result.headSession, 'session.json') };
  viewer.show(target);
  viewer.post({ type: 'leanscope.diff', document: result.diff });
  outcome.target = target;
  const summary = compareSummary(compareCounts(result.diff), result.diff.comparison.metric);
  void vscode.window.showInformationMessage(`leanscope: ${params.base} → HEAD: ${result.files} file${result.files === 1 ? '' : 's'} compared, ${result.flagged} flagged; declarations: ${summary}. The report is in ${path.join(result.workspace, 'report.md')}.`);
  return outcome;
}
