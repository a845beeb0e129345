// A stand-in for the `vscode` module: enough of the API for the extension
// to run in Node, recording what it does (decorations, messages, webview
// HTML) so tests can assert on it. VS Code itself cannot be downloaded here.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

class Disposable {
  constructor(fn) { this._fn = fn; }
  dispose() { if (this._fn) { this._fn(); this._fn = undefined; } }
  static from(...ds) { return new Disposable(() => ds.forEach((d) => d.dispose())); }
}

class EventEmitter {
  constructor() { this.listeners = new Set(); this.event = (fn) => { this.listeners.add(fn); return new Disposable(() => this.listeners.delete(fn)); }; }
  fire(v) { for (const l of [...this.listeners]) l(v); }
  dispose() { this.listeners.clear(); }
}

class Position {
  constructor(line, character) { this.line = line; this.character = character; }
}
class Range {
  constructor(a, b, c, d) {
    if (a instanceof Position) { this.start = a; this.end = b; } else { this.start = new Position(a, b); this.end = new Position(c, d); }
  }
  get isEmpty() { return this.start.line === this.end.line && this.start.character === this.end.character; }
}
class Selection extends Range {
  constructor(anchor, active) { super(anchor, active); this.anchor = anchor; this.active = active; }
}

class Uri {
  constructor(scheme, p) { this.scheme = scheme; this.path = p; }
  static file(p) { return new Uri('file', path.resolve(p)); }
  static parse(s) {
    const u = new URL(s);
    return u.protocol === 'file:' ? new Uri('file', decodeURIComponent(u.pathname)) : Object.assign(new Uri(u.protocol.slice(0, -1), u.pathname), { _raw: s });
  }
  static joinPath(base, ...parts) { return new Uri(base.scheme, path.posix.join(base.path, ...parts)); }
  get fsPath() { return this.path; }
  toString() { return this._raw || (this.scheme === 'file' ? require('node:url').pathToFileURL(this.path).href : `${this.scheme}:${this.path}`); }
  with(change) { return new Uri(change.scheme ?? this.scheme, change.path ?? this.path); }
}

class ThemeColor { constructor(id) { this.id = id; } }
class Diagnostic { constructor(range, message, severity) { this.range = range; this.message = message; this.severity = severity; } }
class MarkdownString { constructor(value) { this.value = value || ''; } }
class Hover { constructor(contents, range) { this.contents = Array.isArray(contents) ? contents : [contents]; this.range = range; } }
class CodeLens { constructor(range, command) { this.range = range; this.command = command; } get isResolved() { return !!this.command; } }
class CancellationTokenSource {
  constructor() {
    const em = new EventEmitter();
    this._em = em;
    this.token = { isCancellationRequested: false, onCancellationRequested: em.event };
  }
  cancel() { if (!this.token.isCancellationRequested) { this.token.isCancellationRequested = true; this._em.fire(); } }
  dispose() {}
}

function createVscodeStub(options = {}) {
  const log = { errors: [], warnings: [], infos: [], statusMessages: [], progress: [], output: [], modal: [], dialogs: [] };
  const settings = { ...(options.settings || {}) };
  const commands = new Map();
  const codeLensProviders = [];
  const hoverProviders = [];
  const events = {
    changeText: new EventEmitter(), changeConfig: new EventEmitter(), visibleEditors: new EventEmitter(),
    selection: new EventEmitter(), saveText: new EventEmitter(),
  };
  const decorationTypes = [];
  const documents = [];
  const editors = [];
  const panels = [];
  const statusItems = [];
  const diagnosticCollections = [];
  let dialogAnswers = [];
  let progressTokens = [];

  function lines(text) { return text.split(/\r\n|\n/); }
  function makeDocument(uri, text) {
    const doc = {
      uri, _text: text, version: 1, isDirty: false, languageId: uri.fsPath.endsWith('.lean') ? 'lean4' : 'plaintext',
      fileName: uri.fsPath,
      getText() { return this._text; },
      get lineCount() { return lines(this._text).length; },
      lineAt(i) {
        const l = lines(this._text)[i];
        if (l === undefined) throw new Error(`line ${i} out of range`);
        return { lineNumber: i, text: l, range: new Range(i, 0, i, l.length) };
      },
      async save() { fs.writeFileSync(this.uri.fsPath, this._text); this.isDirty = false; return true; },
    };
    documents.push(doc);
    return doc;
  }
  function makeEditor(doc, viewColumn = 1) {
    const ed = {
      document: doc, viewColumn, decorations: new Map(), selections: [new Selection(new Position(0, 0), new Position(0, 0))],
      get selection() { return this.selections[0]; },
      setDecorations(type, opts) { this.decorations.set(type.key, opts.map((o) => (o instanceof Range ? { range: o } : o))); },
      revealRange(range) { this.revealed = range; },
    };
    editors.push(ed);
    return ed;
  }

  const window = {
    activeTextEditor: undefined,
    get visibleTextEditors() { return editors.filter((e) => e.visible !== false); },
    createOutputChannel(name) {
      const ch = { name, appendLine: (l) => log.output.push(l), append: (l) => log.output.push(l), show() {}, dispose() {}, clear() {} };
      return ch;
    },
    createTextEditorDecorationType(options) {
      const t = { key: `decoration-${decorationTypes.length}`, options, dispose() {} };
      decorationTypes.push(t);
      return t;
    },
    createStatusBarItem(...args) {
      // (alignment, priority) or (id, alignment, priority), as in VS Code.
      const id = typeof args[0] === 'string' ? args.shift() : undefined;
      const [alignment, priority] = args;
      const item = { id, name: undefined, alignment, priority, text: '', tooltip: '', command: undefined, visible: false, show() { this.visible = true; }, hide() { this.visible = false; }, dispose() {} };
      statusItems.push(item);
      return item;
    },
    async showErrorMessage(msg) { log.errors.push(msg); return undefined; },
    async showWarningMessage(msg, ...rest) {
      log.warnings.push(msg);
      if (rest[0] && rest[0].modal) { log.modal.push(msg); return dialogAnswers.shift(); }
      return undefined;
    },
    async showInformationMessage(msg) { log.infos.push(msg); return undefined; },
    setStatusBarMessage(msg) { log.statusMessages.push(msg); return new Disposable(); },
    async showOpenDialog(opts) { log.dialogs.push(opts); return dialogAnswers.shift(); },
    // An input box shows its options and takes the next answer; `undefined` (Escape) when none.
    async showInputBox(opts) { log.dialogs.push(opts); return dialogAnswers.shift(); },
    async withProgress(opts, task) {
      const cts = new CancellationTokenSource();
      const rec = { options: opts, reports: [], cancel: () => cts.cancel() };
      log.progress.push(rec);
      progressTokens.push(rec);
      return task({ report: (v) => rec.reports.push(v) }, cts.token);
    },
    createWebviewPanel(viewType, title, showOptions, panelOptions) {
      const received = new EventEmitter();
      const disposed = new EventEmitter();
      const webview = {
        html: '', options: panelOptions, posted: [],
        cspSource: options.cspSource || 'https://stub.vscode-cdn.net',
        asWebviewUri: (uri) => (options.asWebviewUri ? options.asWebviewUri(uri) : new Uri('https', `/stub-resource${uri.path}`)),
        postMessage: async (m) => { webview.posted.push(m); return true; },
        onDidReceiveMessage: received.event,
      };
      const panel = {
        viewType, title, showOptions, options: panelOptions, webview, disposed: false,
        reveal() { this.revealed = (this.revealed || 0) + 1; },
        onDidDispose: disposed.event,
        dispose() { if (!this.disposed) { this.disposed = true; disposed.fire(); } },
        /** Test helper: a message from the page. */
        receive: (m) => received.fire(m),
      };
      panels.push(panel);
      return panel;
    },
    async showTextDocument(doc, opts = {}) {
      let ed = editors.find((e) => e.document === doc);
      if (!ed) ed = makeEditor(doc, opts.viewColumn || 1);
      if (opts.selection) ed.selections = [new Selection(opts.selection.start, opts.selection.end)];
      window.activeTextEditor = ed;
      return ed;
    },
    onDidChangeVisibleTextEditors: events.visibleEditors.event,
    onDidChangeTextEditorSelection: events.selection.event,
    onDidChangeActiveTextEditor: new EventEmitter().event,
  };

  const workspace = {
    isTrusted: options.trusted !== false,
    onDidGrantWorkspaceTrust: new EventEmitter().event,
    workspaceFolders: (options.workspaceFolders || []).map((p, index) => ({ uri: Uri.file(p), name: path.basename(p), index })),
    get textDocuments() { return documents; },
    getWorkspaceFolder(uri) { return workspace.workspaceFolders.find((f) => uri.fsPath.startsWith(f.uri.fsPath + path.sep)); },
    getConfiguration(section) {
      const prefix = section ? `${section}.` : '';
      return {
        get: (key, dflt) => (Object.prototype.hasOwnProperty.call(settings, prefix + key) ? settings[prefix + key] : dflt),
        has: (key) => Object.prototype.hasOwnProperty.call(settings, prefix + key),
        update: async (key, value) => { settings[prefix + key] = value; },
      };
    },
    async openTextDocument(uri) {
      const u = typeof uri === 'string' ? Uri.file(uri) : uri;
      const found = documents.find((d) => d.uri.toString() === u.toString());
      if (found) return found;
      return makeDocument(u, fs.readFileSync(u.fsPath, 'utf8'));
    },
    onDidChangeTextDocument: events.changeText.event,
    onDidChangeConfiguration: events.changeConfig.event,
    onDidSaveTextDocument: events.saveText.event,
  };

  const languages = {
    registerCodeLensProvider(selector, provider) { codeLensProviders.push({ selector, provider }); return new Disposable(() => {}); },
    registerHoverProvider(selector, provider) { hoverProviders.push({ selector, provider }); return new Disposable(() => {}); },
    createDiagnosticCollection(name) {
      const c = {
        name, entries: new Map(),
        set(uri, diags) { c.entries.set(uri.toString(), diags || []); },
        get(uri) { return c.entries.get(uri.toString()) || []; },
        delete(uri) { c.entries.delete(uri.toString()); },
        clear() { c.entries.clear(); },
        dispose() { c.entries.clear(); },
      };
      diagnosticCollections.push(c);
      return c;
    },
  };

  const vscodeCommands = {
    registerCommand(id, fn) {
      if (commands.has(id)) throw new Error(`command ${id} already registered`);
      commands.set(id, fn);
      return new Disposable(() => commands.delete(id));
    },
    async executeCommand(id, ...args) {
      const fn = commands.get(id);
      if (!fn) throw new Error(`command '${id}' not found`);
      return fn(...args);
    },
    async getCommands() { return [...commands.keys()]; },
  };

  // Other installed extensions, by id (`options.extensions`: id → what
  // `getExtension` answers, e.g. `{ packageJSON, exports }`).
  const installed = { ...(options.extensions || {}) };
  const extensions = {
    getExtension(id) {
      const e = installed[id];
      return e ? { id, isActive: true, activate: async () => e.exports, ...e } : undefined;
    },
    get all() { return Object.keys(installed).map((id) => extensions.getExtension(id)); },
  };

  const api = {
    Uri, Range, Position, Selection, Disposable, EventEmitter, ThemeColor, MarkdownString, Hover, CodeLens, CancellationTokenSource, Diagnostic,
    DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
    DiagnosticTag: { Unnecessary: 1, Deprecated: 2 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2 },
    OverviewRulerLane: { Left: 1, Center: 2, Right: 4, Full: 7 },
    TextEditorRevealType: { Default: 0, InCenter: 1, InCenterIfOutsideViewport: 2, AtTop: 3 },
    window, workspace, languages, commands: vscodeCommands, extensions,
  };

  // Test helpers (not part of the vscode API).
  const test = {
    log, settings, installed, commands, codeLensProviders, hoverProviders, decorationTypes, documents, editors, panels, statusItems, diagnosticCollections,
    /** Saves a document (its text to disk), as the user does. */
    async save(doc) { await doc.save(); events.saveText.fire(doc); },
    answerDialogs(...answers) { dialogAnswers = answers; },
    /** Opens a document in a visible editor, as if the user opened it. */
    async openEditor(file) {
      const doc = await workspace.openTextDocument(Uri.file(file));
      const ed = await window.showTextDocument(doc);
      events.visibleEditors.fire(window.visibleTextEditors);
      return ed;
    },
    /** Replaces a document's text, as if the user typed. */
    edit(doc, text) { doc._text = text; doc.version++; doc.isDirty = true; events.changeText.fire({ document: doc, contentChanges: [] }); },
    /** Replaces a document's text with no change event (a file reopened
     * after it changed on disk), then re-shows the visible editors. */
    replaceSilently(doc, text) { doc._text = text; doc.version++; events.visibleEditors.fire(window.visibleTextEditors); },
    moveCursor(editor, line, character = 0) {
      const p = new Position(line, character);
      editor.selections = [new Selection(p, p)];
      events.selection.fire({ textEditor: editor, selections: editor.selections });
    },
    setSetting(key, value) { settings[key] = value; events.changeConfig.fire({ affectsConfiguration: (s) => key === s || key.startsWith(`${s}.`) }); },
    codeLenses(doc) { return codeLensProviders.flatMap((p) => p.provider.provideCodeLenses(doc, new CancellationTokenSource().token) || []); },
    hover(doc, line, character = 0) {
      for (const p of hoverProviders) { const h = p.provider.provideHover(doc, new Position(line, character)); if (h) return h; }
      return undefined;
    },
    /** Decorations of `editor` per decoration type, with the type's options. */
    decorations(editor) {
      return decorationTypes.map((t) => ({ type: t, items: editor.decorations.get(t.key) || [] }));
    },
    lastProgress() { return progressTokens[progressTokens.length - 1]; },
  };
  return { vscode: api, test };
}

/** Loads an extension bundle with `require('vscode')` answered by `stub`. */
function loadWithStub(bundle, stub) {
  const original = Module._load;
  Module._load = function (request, parent, isMain) {
    if (request === 'vscode') return stub;
    return original.call(this, request, parent, isMain);
  };
  try {
    delete require.cache[require.resolve(bundle)];
    return require(bundle);
  } finally {
    Module._load = original;
  }
}

/** A minimal ExtensionContext for an extension living in `extensionPath`. */
function makeContext(vscodeApi, extensionPath) {
  const pkg = JSON.parse(fs.readFileSync(path.join(extensionPath, 'package.json'), 'utf8'));
  return {
    subscriptions: [],
    extensionPath,
    extensionUri: vscodeApi.Uri.file(extensionPath),
    extension: { packageJSON: pkg, id: `${pkg.publisher}.${pkg.name}` },
    asAbsolutePath: (p) => path.join(extensionPath, p),
    globalState: { get() {}, update: async () => {} },
    workspaceState: { get() {}, update: async () => {} },
  };
}

async function disposeContext(ctx) {
  for (const d of ctx.subscriptions.reverse()) { try { await d.dispose(); } catch { /* ignore */ } }
}

module.exports = { createVscodeStub, loadWithStub, makeContext, disposeContext };
