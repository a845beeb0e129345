// Editor annotations from `leanscope/annotations`: line bars with the
// inclusive time, a gutter heat mark, CodeLens per declaration, hovers.
// The numbers come from the sidecar; this file only lays them out.
import * as vscode from 'vscode';
import { createHash } from 'node:crypto';
import type { AnnotationSource, FreshAnnotations, LineBar, Operation } from './protocol';
import { formatShare, formatValue, lensTitle, spreadText } from './format';
import type { Measure } from './format';

/** The widest line bar, in pixels (the longest line of the file). */
export const BAR_MAX_PX = 120;
/** Heat levels of the gutter mark (media/heat-1.svg … heat-N.svg). */
export const HEAT_LEVELS = 4;

export type AnnotationStyle = 'bars' | 'text' | 'gutter';

export interface LineAnnotation {
  line: number;
  /** Inclusive time, with the share of the file when there is one. */
  text: string;
  /** Bar width in pixels, proportional to the line's inclusive time. */
  barPx: number;
  /** 1 … HEAT_LEVELS, by the line's time against the longest line. */
  heat: number;
  hover: string;
}
export interface LensAnnotation {
  line: number;
  declaration: string;
  index: number;
  title: string;
}
export interface ComputedAnnotations {
  lines: LineAnnotation[];
  lenses: LensAnnotation[];
}

/** SHA-256 (hex) of a buffer's text as UTF-8, as the sidecar computes it. */
export function sha256Text(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function code(s: string): string {
  // A code span that cannot be closed early by the label's own backticks.
  const t = s.replace(/\r?\n/g, ' ');
  const ticks = (t.match(/`+/g) || []).reduce((m, r) => Math.max(m, r.length), 0);
  const fence = '`'.repeat(ticks + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** Space in the hover's table that markdown keeps. */
const NBSP = '&nbsp;&nbsp;';

function operationRow(op: Operation, measure: Measure): string {
  return `| ${code(op.label || op.class)} | ${op.class} · ${op.kind} | ${formatValue(op.inclusiveNs, measure)} | ${formatValue(op.selfNs, measure)} | ${op.thread} | ${op.rangeKind} |`;
}

/** The hover of a timed line: its totals and its longest operations (in
 * heartbeats for a recording measured in them). Over the runs of a repeated
 * capture (`runs`), the totals are medians, with their spread, and the
 * events and operations are the median run's. */
export function lineHover(bar: LineBar, measure: Measure = 'time', runs?: number): string {
  const share = formatShare(bar.share);
  const over = bar.spread !== undefined;
  const head = `**leanscope** · line ${bar.line + 1}: ${formatValue(bar.totalNs, measure)} inclusive · self ${formatValue(bar.selfNs, measure)}`
    + (share !== null ? ` · ${share} of file` : '')
    + ` · ${bar.events} event${bar.events === 1 ? '' : 's'}${over ? ' in the median run' : ''}`;
  const spread = bar.spread
    ? ['', `inclusive: ${spreadText(bar.spread.total, measure, runs)}`, '', `self: ${spreadText(bar.spread.self, measure, runs)}`]
    : [];
  if (bar.top.length === 0) return [head, ...spread].join('\n');
  return [
    head, ...spread, '', ...(over ? ['Operations of the median run:', ''] : []),
    // The hover's table has no padding between cells: the two numeric
    // columns are kept apart by non-breaking spaces before `thread`, or the right-aligned
    // `self` runs into `thread`; the values are centred under it.
    `| operation | class · kind | inclusive | self | ${NBSP}thread | range |`,
    '|---|---|---:|---:|:---:|---|',
    ...bar.top.map((op) => operationRow(op, measure)),
  ].join('\n');
}

/** Lays out an answer of `leanscope/annotations` (pure: no editor needed).
 * Over the runs of a repeated capture (`runs`), the line text reads
 * `median …`, hovers give the spread and lenses the run count. */
export function computeAnnotations(answer: FreshAnnotations): ComputedAnnotations {
  const measure: Measure = answer.measure ?? 'time';
  const runs = answer.runs;
  const maxNs = answer.lines.reduce((m, l) => Math.max(m, l.totalNs), 0);
  const lines = answer.lines.map((l): LineAnnotation => {
    const ratio = maxNs > 0 ? l.totalNs / maxNs : 0;
    const share = formatShare(l.share);
    const value = `${runs !== undefined ? 'median ' : ''}${formatValue(l.totalNs, measure)}`;
    return {
      line: l.line,
      text: share !== null ? `${value} (${share})` : value,
      barPx: Math.max(1, Math.round(ratio * BAR_MAX_PX)),
      heat: Math.min(HEAT_LEVELS, Math.max(1, Math.ceil(ratio * HEAT_LEVELS))),
      hover: lineHover(l, measure, runs),
    };
  });
  const lenses = answer.declarations
    .filter((d) => d.totalNs !== null)
    .map((d): LensAnnotation => ({
      line: d.range.start.line,
      declaration: d.name,
      index: d.index,
      title: runs !== undefined
        ? lensTitle(d.totalNs as number, d.selfNs, d.share, measure, d.spread?.total.runs ?? runs, runs)
        : lensTitle(d.totalNs as number, d.selfNs, d.share, measure),
    }));
  return { lines, lenses };
}

/** `source`'s recording, or its session's file, for the log. */
export function describeSource(source: AnnotationSource): string {
  return 'recording' in source ? source.recording : `${source.file} of the session ${source.session}`;
}

interface Entry {
  source: AnnotationSource;
  answer: FreshAnnotations;
  computed: ComputedAnnotations;
  /** Whether the buffer's text is the recorded source, as of `version` of
   * `doc` (a document reopened, or changed while no event came, is checked
   * again before anything is drawn). */
  fresh: boolean;
  doc: vscode.TextDocument | undefined;
  version: number;
}

export type AnnotationsFetcher = (source: AnnotationSource, text: string) => Promise<import('./protocol').AnnotationsResult>;

/** Keeps the annotations of every profiled document and draws them. */
export class AnnotationController implements vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  private enabled = true;
  private readonly barType: vscode.TextEditorDecorationType;
  private readonly textType: vscode.TextEditorDecorationType;
  private readonly heatTypes: vscode.TextEditorDecorationType[];
  private readonly lensEmitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  /** setDecorations calls made (one batch per update: a fixed number). */
  decorationCalls = 0;

  constructor(private readonly context: vscode.ExtensionContext, private readonly fetch: AnnotationsFetcher,
    private readonly log: (line: string) => void) {
    this.barType = vscode.window.createTextEditorDecorationType({
      after: { margin: '0 0 0 2em', height: '0.7em', backgroundColor: new vscode.ThemeColor('editorOverviewRuler.warningForeground') },
    });
    this.textType = vscode.window.createTextEditorDecorationType({
      after: { margin: '0 0 0 0.5em', color: new vscode.ThemeColor('editorCodeLens.foreground') },
    });
    this.heatTypes = [];
    for (let level = 1; level <= HEAT_LEVELS; level++) {
      this.heatTypes.push(vscode.window.createTextEditorDecorationType({
        gutterIconPath: vscode.Uri.joinPath(context.extensionUri, 'media', `heat-${level}.svg`),
        gutterIconSize: 'contain',
        overviewRulerLane: vscode.OverviewRulerLane.Right,
        overviewRulerColor: `rgba(230, 120, 0, ${(0.25 * level).toFixed(2)})`,
      }));
    }
    const selector: vscode.DocumentSelector = [{ scheme: 'file', pattern: '**/*.lean' }];
    this.disposables.push(
      this.barType, this.textType, ...this.heatTypes, this.lensEmitter,
      vscode.languages.registerCodeLensProvider(selector, {
        onDidChangeCodeLenses: this.lensEmitter.event,
        provideCodeLenses: (doc) => this.codeLenses(doc),
      }),
      vscode.languages.registerHoverProvider(selector, { provideHover: (doc, pos) => this.hover(doc, pos) }),
      vscode.workspace.onDidChangeTextDocument((e) => this.onTextChanged(e.document)),
      vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((ed) => this.draw(ed))),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('leanscope.annotations')) this.redrawAll();
      }),
    );
  }

  get isEnabled(): boolean { return this.enabled; }

  style(): AnnotationStyle {
    const s = vscode.workspace.getConfiguration('leanscope').get<string>('annotations.style', 'bars');
    return s === 'text' || s === 'gutter' ? s : 'bars';
  }

  /** The recording a document is annotated from, if any (not a session's). */
  recordingOf(uri: vscode.Uri): string | undefined {
    const s = this.entries.get(uri.toString())?.source;
    return s && 'recording' in s ? s.recording : undefined;
  }

  /** What a document is annotated from (to fetch again): a recording or a session's file. */
  sourceOf(uri: vscode.Uri): AnnotationSource | undefined { return this.entries.get(uri.toString())?.source; }

  /** The answer a document is drawn from (its runs, spreads). */
  answerOf(uri: vscode.Uri): FreshAnnotations | undefined { return this.entries.get(uri.toString())?.answer; }

  /** The declaration whose range holds `line`, when the document is fresh. */
  declarationAt(uri: vscode.Uri, line: number): string | undefined {
    const e = this.entries.get(uri.toString());
    if (!e) return undefined;
    const doc = vscode.workspace.textDocuments.find((x) => x.uri.toString() === uri.toString());
    if (doc && !this.isFresh(e, doc)) return undefined;
    const d = e.answer.declarations.find((x) => x.range.start.line <= line && line <= x.range.end.line);
    return d?.name;
  }

  /** Asks the sidecar for the annotations of `doc` from `source` (a
   * recording, or a session's file: medians over its runs for a repeated
   * capture) and draws them. Returns whether the buffer matched the
   * recorded source. */
  async load(doc: vscode.TextDocument, source: AnnotationSource | string): Promise<boolean> {
    const from: AnnotationSource = typeof source === 'string' ? { recording: source } : source;
    const answer = await this.fetch(from, doc.getText());
    const key = doc.uri.toString();
    if (answer.stale) {
      this.entries.delete(key);
      this.redrawDocument(doc);
      this.log(`annotations: ${doc.uri.fsPath} differs from the source recorded in ${describeSource(from)} (buffer ${answer.bufferSha256.slice(0, 12)}…, recorded ${answer.recordedSha256.slice(0, 12)}…)`);
      return false;
    }
    const computed = computeAnnotations(answer);
    this.entries.set(key, { source: from, answer, computed, fresh: true, doc, version: doc.version });
    this.enabled = true;
    this.redrawDocument(doc);
    return true;
  }

  /** Whether `doc`'s text is the recorded source (hashing it only when the
   * document or its version changed since the last check). */
  private isFresh(e: Entry, doc: vscode.TextDocument): boolean {
    if (e.doc !== doc || e.version !== doc.version) {
      e.fresh = sha256Text(doc.getText()) === e.answer.sourceSha256;
      e.doc = doc;
      e.version = doc.version;
    }
    return e.fresh;
  }

  private onTextChanged(doc: vscode.TextDocument): void {
    const e = this.entries.get(doc.uri.toString());
    if (!e) return;
    const was = e.fresh;
    if (this.isFresh(e, doc) === was) return;
    this.redrawDocument(doc);
  }

  toggle(): boolean {
    this.enabled = !this.enabled;
    this.redrawAll();
    return this.enabled;
  }

  clear(): void {
    this.entries.clear();
    this.redrawAll();
  }

  private redrawAll(): void {
    for (const ed of vscode.window.visibleTextEditors) this.draw(ed);
    this.lensEmitter.fire();
  }

  private redrawDocument(doc: vscode.TextDocument): void {
    for (const ed of vscode.window.visibleTextEditors) if (ed.document.uri.toString() === doc.uri.toString()) this.draw(ed);
    this.lensEmitter.fire();
  }

  /** Draws (or removes) every decoration of one editor: one call per
   * decoration type, whatever the number of lines. */
  draw(editor: vscode.TextEditor): void {
    const e = this.entries.get(editor.document.uri.toString());
    const show = this.enabled && e !== undefined && this.isFresh(e, editor.document);
    const style = this.style();
    const bars: vscode.DecorationOptions[] = [];
    const texts: vscode.DecorationOptions[] = [];
    const heat: vscode.DecorationOptions[][] = this.heatTypes.map(() => []);
    if (show && e) {
      const lineCount = editor.document.lineCount;
      for (const l of e.computed.lines) {
        if (l.line >= lineCount) continue;
        const end = editor.document.lineAt(l.line).range.end;
        const at = new vscode.Range(end, end);
        if (style === 'bars') {
          bars.push({ range: at, renderOptions: { after: { contentText: '\u200b', width: `${l.barPx}px` } } });
        }
        if (style !== 'gutter') texts.push({ range: at, renderOptions: { after: { contentText: l.text } } });
        heat[l.heat - 1].push({ range: new vscode.Range(l.line, 0, l.line, 0) });
      }
    }
    editor.setDecorations(this.barType, bars);
    editor.setDecorations(this.textType, texts);
    this.heatTypes.forEach((t, i) => editor.setDecorations(t, heat[i]));
    this.decorationCalls += 2 + this.heatTypes.length;
  }

  codeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const e = this.entries.get(doc.uri.toString());
    if (!this.enabled || !e || !this.isFresh(e, doc)) return [];
    if (!vscode.workspace.getConfiguration('leanscope').get<boolean>('annotations.codeLens', true)) return [];
    const target = 'recording' in e.source ? { recording: e.source.recording } : { session: e.source.session };
    return e.computed.lenses.map((l) => new vscode.CodeLens(new vscode.Range(l.line, 0, l.line, 0), {
      title: l.title,
      tooltip: `Show ${l.declaration} in the leanscope viewer`,
      command: 'leanscope.showViewer',
      arguments: [{ ...target, source: doc.uri.toString(), declaration: l.declaration }],
    }));
  }

  hover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const e = this.entries.get(doc.uri.toString());
    if (!this.enabled || !e || !this.isFresh(e, doc)) return undefined;
    const l = e.computed.lines.find((x) => x.line === pos.line);
    if (!l) return undefined;
    const md = new vscode.MarkdownString(l.hover);
    return new vscode.Hover(md, doc.lineAt(pos.line).range);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

