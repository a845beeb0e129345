// The two status bar items: the last capture (click: the viewer), and, in
// Restricted Mode, why the Profile commands are hidden.
import * as vscode from 'vscode';

/** The status bar item of the last capture. */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);

  /** Whether the item shows a failed capture. */
  private failing = false;

  constructor() { this.item.command = 'leanscope.showViewer'; }

  /** Shows a capture; clicking runs `command` (by default Show Viewer). */
  show(text: string, tooltip: string, command: string | vscode.Command = 'leanscope.showViewer'): void {
    this.failing = false;
    this.item.backgroundColor = undefined;
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.command = command;
    this.item.show();
  }

  /** Rewrites what is shown, keeping the click. */
  retitle(text: string, tooltip: string): void {
    this.item.text = text;
    this.item.tooltip = tooltip;
  }

  /** Shows a failed capture (the error icon in `text`, the error colour,
 * the message in `tooltip`) until the next capture starts; clicking shows the log. */
  failed(text: string, tooltip: string): void {
    this.show(text, tooltip, { title: 'Show Log', command: 'workbench.action.output.toggleOutput' });
    this.failing = true;
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
  }

  /** Whether the item shows a failed capture now. */
  get isFailure(): boolean { return this.failing; }

  /** A capture starts: a failure shown goes away. */
  captureStarted(): void {
    if (!this.failing) return;
    this.failing = false;
    this.item.backgroundColor = undefined;
    this.item.hide();
  }

  hide(): void { this.item.hide(); }

  dispose(): void { this.item.dispose(); }
}

/** Restricted Mode hides the Profile commands; this item says why, and
 * where to grant trust, until the workspace is trusted. */
export function showTrustHint(context: vscode.ExtensionContext): void {
  const hint = vscode.window.createStatusBarItem('leanscope.trust', vscode.StatusBarAlignment.Left, 9);
  hint.name = 'leanscope: trust';
  hint.text = '$(workspace-untrusted) leanscope: trust the workspace to profile';
  hint.tooltip = 'leanscope: Profile File, Profile Folder and Profile Project run Lean through lake, so they need a trusted workspace. Viewing recordings works in Restricted Mode. Click to manage trust.';
  hint.command = 'workbench.trust.manage';
  context.subscriptions.push(hint);
  if (!vscode.workspace.isTrusted) hint.show();
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => hint.hide()));
}
