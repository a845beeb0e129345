// The webview that hosts the viewer (viewer-wasm/www and viewer-wasm/pkg,
// copied to media/viewer by the build) and the editor ⇄ viewer round trip.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

/** The files of the viewer the extension ships (media/viewer), what
 * extension/build.mjs copies: the page, stylesheet and worker of
 * viewer-wasm/www, and from viewer-wasm/pkg the page's script bundled into
 * one module (viewer.js) and the wasm with its glue. The webview test
 * checks that this list is media/viewer's. */
export const VIEWER_FILES = [
  'index.html', 'viewer.css', 'viewer.js', 'worker.js', 'viewer_wasm.js', 'viewer_wasm_bg.wasm',
];

/** The Content-Security-Policy of the webview: scripts only from the
 * extension (with the page's nonce), WebAssembly compilation, the worker
 * from a blob URL, data fetched only from webview resource URIs. */
export function viewerCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' 'wasm-unsafe-eval'`,
    'worker-src blob:',
    `connect-src ${cspSource}`,
    `style-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export interface ViewerConfig {
  assets: string;
  /** false: the viewer's worker reads recordings itself. VS Code's webview
   * answers only the page's own workers' fetches (a worker started by a
   * worker gets 404 from its service worker), so the viewer's second,
   * reading worker is not used there. */
  readerWorker?: boolean;
  recording?: string; recordingName?: string;
  session?: string; index?: string;
}

function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The page of the webview, made from the viewer's own index.html: the CSP
 * in a meta tag, stylesheet and scripts from `config.assets`, the host shim
 * first, and the data URLs in the `#leanscope-config` block. */
export function viewerHtml(template: string, cspSource: string, nonce: string, hostScript: string, config: ViewerConfig): string {
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  const replaceOnce = (s: string, from: string | RegExp, to: string): string => {
    const out = s.replace(from, to);
    if (out === s) throw new Error(`the viewer's index.html has no ${String(from)}; media/viewer is out of date`);
    return out;
  };
  let html = template;
  html = replaceOnce(html, /<meta charset="utf-8">/i,
    `<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="${attr(viewerCsp(cspSource, nonce))}">`);
  html = replaceOnce(html, /<link rel="stylesheet" href="viewer.css">/, `<link rel="stylesheet" href="${attr(config.assets)}viewer.css">`);
  html = replaceOnce(html, /<script type="application\/json" id="leanscope-config">[^<]*<\/script>/,
    `<script type="application/json" id="leanscope-config">${json}</script>`);
  html = replaceOnce(html, /<script type="module" src="viewer.js"><\/script>/,
    `<script nonce="${nonce}" src="${attr(hostScript)}" defer></script>\n<script type="module" nonce="${nonce}" src="${attr(config.assets)}viewer.js"></script>`);
  return html;
}

/** What the viewer shows: one recording or a session directory. */
export interface ViewerTarget {
  kind: 'recording' | 'session';
  /** The `.lsrec` file, or the session's `session.json`. */
  file: string;
  /** The source file of a recording, for reveal requests. */
  source?: vscode.Uri;
}

/** How long a reveal request that repeats the editor's own selection is
 * ignored (ms). */
export const ECHO_MS = 2000;

export interface SelectRequest { declaration?: string; line?: number }

interface RevealMessage {
  type: 'leanscope.revealRange';
  path?: string; sourcePath?: string;
  range?: { startLine: number; startCol: number; endLine: number; endCol: number };
}

export class ViewerHost implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private target: ViewerTarget | undefined;
  private loaded = false;
  private queued: SelectRequest | undefined;
  /** Messages for the page held until it has opened its data. */
  private pending: unknown[] = [];
  /** The last selection the editor sent, and when: the viewer answers a
   * selection with a reveal request, which must not move the cursor back. */
  private echo: { req: SelectRequest; until: number } | undefined;
  /** The declaration the viewer last revealed in the editor: the cursor
   * landing in it must not be sent back as a new selection. */
  lastRevealed: string | undefined;
  /** Messages the webview posted (kept for the output channel and tests). */
  readonly received: unknown[] = [];

  constructor(private readonly context: vscode.ExtensionContext, private readonly log: (l: string) => void,
    private readonly resolveSource: (target: ViewerTarget, msg: RevealMessage) => Promise<vscode.Uri | undefined>,
    /** Called with the document a reveal request opened (to annotate it). */
    private readonly revealed?: (target: ViewerTarget, doc: vscode.TextDocument) => Promise<void>) {}

  get current(): ViewerTarget | undefined { return this.target; }
  get webviewPanel(): vscode.WebviewPanel | undefined { return this.panel; }

  private mediaRoot(): vscode.Uri { return vscode.Uri.joinPath(this.context.extensionUri, 'media'); }

  /** Shows `target` (opening the panel, or replacing what it shows) and
   * selects a declaration or line once the viewer has loaded. */
  show(target: ViewerTarget, select?: SelectRequest): void {
    const same = this.panel && this.target && this.target.file === target.file;
    if (same && this.panel) {
      this.target = { ...this.target!, source: target.source ?? this.target!.source };
      this.panel.reveal(undefined, true);
      if (select) this.select(select);
      return;
    }
    this.panel?.dispose();
    const dataDir = vscode.Uri.file(path.dirname(target.file));
    const panel = vscode.window.createWebviewPanel('leanscope.viewer', `leanscope: ${path.basename(target.kind === 'session' ? path.dirname(target.file) : target.file)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [this.mediaRoot(), dataDir],
      });
    this.panel = panel;
    this.target = target;
    this.loaded = false;
    this.queued = select;
    this.pending = [];
    panel.onDidDispose(() => { if (this.panel === panel) { this.panel = undefined; this.target = undefined; } });
    panel.webview.onDidReceiveMessage((m) => this.onMessage(m));
    panel.webview.html = this.html(panel.webview, target);
  }

  html(webview: vscode.Webview, target: ViewerTarget): string {
    const viewerDir = vscode.Uri.joinPath(this.mediaRoot(), 'viewer');
    const templatePath = path.join(viewerDir.fsPath, 'index.html');
    let template: string;
    try {
      template = fs.readFileSync(templatePath, 'utf8');
    } catch (e) {
      throw new Error(`The viewer is missing from the extension (${templatePath}): ${(e as Error).message}`);
    }
    const nonce = randomBytes(18).toString('base64').replace(/[^A-Za-z0-9]/g, '');
    const assets = webview.asWebviewUri(viewerDir).toString().replace(/\/?$/, '/');
    const data = webview.asWebviewUri(vscode.Uri.file(target.file)).toString();
    const config: ViewerConfig = target.kind === 'session'
      ? { assets, readerWorker: false, session: data, index: webview.asWebviewUri(vscode.Uri.file(path.join(path.dirname(target.file), 'index.jsonl'))).toString() }
      : { assets, readerWorker: false, recording: data, recordingName: path.basename(target.file) };
    const host = webview.asWebviewUri(vscode.Uri.joinPath(this.mediaRoot(), 'host.js')).toString();
    return viewerHtml(template, webview.cspSource, nonce, host, config);
  }

  /** Posts `message` to the page of the panel now showing: at once when
   * it has opened its data, else when it reports `leanscope.loaded` (the
   * viewer answers messages only after it started and opened its data). */
  post(message: unknown): void {
    if (!this.panel) return;
    if (!this.loaded) { this.pending.push(message); return; }
    void this.panel.webview.postMessage(message);
  }

  /** Selects a declaration or line in the viewer (queued until it loaded). */
  select(req: SelectRequest): void {
    if (!this.panel) return;
    if (!this.loaded) { this.queued = req; return; }
    this.echo = { req, until: Date.now() + ECHO_MS };
    void this.panel.webview.postMessage({ type: 'leanscope.select', ...req });
  }

  private async onMessage(m: unknown): Promise<void> {
    this.received.push(m);
    if (!m || typeof m !== 'object') return;
    const msg = m as { type?: string; error?: string | null };
    if (msg.type === 'leanscope.loaded') {
      this.loaded = true;
      if (msg.error) {
        this.log(`viewer: ${msg.error}`);
        void vscode.window.showErrorMessage(`leanscope viewer: ${msg.error}`);
      }
      const held = this.pending;
      this.pending = [];
      for (const p of held) void this.panel?.webview.postMessage(p);
      const q = this.queued;
      this.queued = undefined;
      if (q) this.select(q);
    } else if (msg.type === 'leanscope.error') {
      // What the page shows as an error (a session's file that cannot be
      // opened, …), also where the user looks for the extension's errors.
      const text = (m as { message?: unknown }).message;
      if (typeof text === 'string') this.log(`viewer: ${text}`);
    } else if (msg.type === 'leanscope.revealRange') {
      await this.reveal(m as RevealMessage);
    }
  }

  private async reveal(msg: RevealMessage & { declaration?: string; line?: number }): Promise<void> {
    if (!this.target || !msg.range) return;
    const echo = this.echo;
    if (echo && Date.now() < echo.until
      && ((echo.req.declaration !== undefined && echo.req.declaration === msg.declaration)
        || (echo.req.line !== undefined && echo.req.line === msg.line))) {
      this.echo = undefined;
      return;
    }
    const uri = await this.resolveSource(this.target, msg);
    if (!uri) {
      void vscode.window.showWarningMessage(`leanscope: cannot find the source file ${msg.sourcePath ?? msg.path ?? ''} of this recording in the workspace.`);
      return;
    }
    this.lastRevealed = msg.declaration;
    const r = msg.range;
    const range = new vscode.Range(r.startLine, r.startCol, r.endLine, r.endCol);
    const doc = await vscode.workspace.openTextDocument(uri);
    const column = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString())?.viewColumn ?? vscode.ViewColumn.One;
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: column, selection: range, preserveFocus: false });
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    if (this.revealed) await this.revealed(this.target, doc);
  }

  dispose(): void { this.panel?.dispose(); }
}
