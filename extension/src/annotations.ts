// Editor annotations from `leanscope/annotations`: line bars with the
// inclusive time, a gutter heat mark, CodeLens per declaration, hovers.
// The numbers come from the sidecar; this file only lays them out.
import * as vscode from 'vscode';
import type { AnnotationSource, Declaration, FreshAnnotations, LineBar, Operation } from './protocol';
import { formatBytes, formatShare, formatValue, lensTitle, runCount, spreadText } from './format';
import type { Measure } from './format';
import { hoverHeadroom, lensHeadroom, overThreshold } from './headroom';
import { HeadroomProblems } from './headroomProblems';
import { headroomSettings } from './settings';
import { LineMap, mapLines, splitLines } from './staleLines';
import { LEAN_EXTENSION_ID } from './leanExtension';

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
  /** The declaration's last line (a lens is stale when any of its lines changed). */
  endLine: number;
  /** The line of its name (after a doc comment, attributes or `set_option … in`):
   * where its headroom warning and hover are. */
  nameLine: number;
  declaration: string;
  index: number;
  title: string;
  /** The warning after the declaration's line when a limit's share is at or
   * over the threshold (`⚠ 85% of maxHeartbeats 200000`), else none. */
  warning?: string;
  /** Its limits, in the hover of its first line. */
  headroomHover: string[];
  /** What its run did beyond time, in the same hover: the memory Lean gained while it ran,
   * and that Lean was stopped while running it. */
  runHover: string[];
}
export interface ComputedAnnotations {
  lines: LineAnnotation[];
  lenses: LensAnnotation[];
}

function code(s: string): string {
  // A code span that cannot be closed early by the label's own backticks.
  const t = s.replace(/\r?\n/g, ' ');
  const ticks = (t.match(/`+/g) || []).reduce((m, r) => Math.max(m, r.length), 0);
  const fence = '`'.repeat(ticks + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** A declaration's memory growth and, in a partial recording, that it was in flight. */
export function runHover(d: Declaration, partial?: string): string[] {
  const out: string[] = [];
  if (d.memoryGrowthBytes !== undefined) {
    const m = d.memorySpread;
    const over = m ? ` (median of ${runCount(m.runs)} · min–max ${formatBytes(m.min)}–${formatBytes(m.max)})` : '';
    out.push(`**${d.name}** · memory: +${formatBytes(d.memoryGrowthBytes)} resident while it ran${over}`);
  }
  if (d.inFlight) out.push(`**unfinished**: Lean was stopped while running it${partial ? ` (${partial})` : ''}; its time is how long it had run`);
  return out.map((l, i) => (i ? `\n\n${l}` : l));
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
export function computeAnnotations(answer: FreshAnnotations, threshold = 0.8): ComputedAnnotations {
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
    .map((d): LensAnnotation => {
      const over = d.headroom ? overThreshold(d.headroom, threshold) : [];
      return {
        line: d.range.start.line,
        endLine: d.range.end.line,
        nameLine: d.selectionRange.start.line,
        declaration: d.name,
        index: d.index,
        title: (runs !== undefined
          ? lensTitle(d.totalNs as number, d.selfNs, d.share, measure, d.spread?.total.runs ?? runs, runs)
          : lensTitle(d.totalNs as number, d.selfNs, d.share, measure)) + (d.headroom ? lensHeadroom(d.headroom, threshold) : '')
          + (d.inFlight ? ' · unfinished' : ''),
        ...(over.length ? { warning: `⚠ ${over.join('; ')}` } : {}),
        headroomHover: hoverHeadroom(d, threshold),
        runHover: runHover(d, answer.partial),
      };
    });
  return { lines, lenses };
}

/** What is drawn of an entry over a buffer: each line annotation and lens
 * at its line in the buffer now, and whether it is stale (its lines edited
 * since the capture, or the last capture of the file failed). */
export interface Layout {
  lines: Array<{ at: number; ann: LineAnnotation; stale: boolean }>;
  /** `nameAt`: the buffer line of the declaration's name, when it is still there. */
  lenses: Array<{ at: number; nameAt: number | undefined; lens: LensAnnotation; stale: boolean }>;
}

/** Places `computed` over a buffer that differs from the recorded text as
 * `map` says (identity when it does not); `failed`: all stale. */
export function layoutAnnotations(computed: ComputedAnnotations, map: LineMap | undefined, failed: boolean): Layout {
  const lines: Layout['lines'] = [];
  for (const ann of computed.lines) {
    const at = map ? map.at(ann.line) : ann.line;
    if (at !== undefined) lines.push({ at, ann, stale: failed || (map?.changed(ann.line) ?? false) });
  }
  const lenses: Layout['lenses'] = [];
  for (const lens of computed.lenses) {
    const at = map ? map.at(lens.line) : lens.line;
    if (at !== undefined) {
      lenses.push({ at, nameAt: map ? map.at(lens.nameLine) : lens.nameLine, lens, stale: failed || (map?.rangeChanged(lens.line, lens.endLine) ?? false) });
    }
  }
  return { lines, lenses };
}

/** The first line of a stale annotation's hover. */
export function staleNote(failure: string | undefined): string {
  return failure
    ? `**stale**: the last capture of this file failed: ${failure.replace(/\r?\n/g, ' ')}. These are the previous capture's numbers.`
    : '**stale**: this line changed since the capture; the next capture replaces its numbers.';
}

/** `source`'s recording, or its session's file, for the log. */
export function describeSource(source: AnnotationSource): string {
  return 'recording' in source ? source.recording : `${source.file} of the session ${source.session}`;
}

interface Entry {
  source: AnnotationSource;
  answer: FreshAnnotations;
  computed: ComputedAnnotations;
  /** The text the recording is of (what Lean read). */
  recorded: string;
  /** Why the last capture of the file failed (all annotations stale), if it did. */
  failure?: string;
  /** Whether the buffer's text is the recorded source, as of `version` of
   * `doc` (a document reopened, or changed while no event came, is checked
   * again before anything is drawn), and the layout over it. */
  fresh: boolean;
  doc: vscode.TextDocument | undefined;
  version: number;
  layout?: Layout;
}

export type AnnotationsFetcher = (source: AnnotationSource, text: string) => Promise<import('./protocol').AnnotationsResult>;

/** Keeps the annotations of every profiled document and draws them. */
export class AnnotationController implements vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  private enabled = true;
  private readonly barType: vscode.TextEditorDecorationType;
  private readonly textType: vscode.TextEditorDecorationType;
  private readonly heatTypes: vscode.TextEditorDecorationType[];
  private readonly staleType: vscode.TextEditorDecorationType;
  private readonly warningType: vscode.TextEditorDecorationType;
  private readonly problems = new HeadroomProblems();
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
    // Beside the Lean 4 extension the glyph margin is shared: VS Code draws
    // the gutter icons of one line as one element with both decorations'
    // classes, so one icon hides the other (Lean's progress and diagnostic
    // marks, vscode-lean4/src/taskgutter.ts). There the heat mark is a
    // border at the left of the line instead (docs/vscode.md).
    const besideLean = vscode.extensions?.getExtension(LEAN_EXTENSION_ID) !== undefined;
    for (let level = 1; level <= HEAT_LEVELS; level++) {
      const color = `rgba(230, 120, 0, ${(0.25 * level).toFixed(2)})`;
      const mark: vscode.DecorationRenderOptions = besideLean
        ? { isWholeLine: true, borderStyle: 'solid', borderColor: color, borderWidth: '0 0 0 3px' }
        : { gutterIconPath: vscode.Uri.joinPath(context.extensionUri, 'media', `heat-${level}.svg`), gutterIconSize: 'contain' };
      this.heatTypes.push(vscode.window.createTextEditorDecorationType({
        ...mark,
        overviewRulerLane: vscode.OverviewRulerLane.Right,
        overviewRulerColor: color,
      }));
    }
    // Stale line text: dimmed (the attachment has no opacity of its own;
    // VS Code writes textDecoration into its style).
    this.staleType = vscode.window.createTextEditorDecorationType({
      after: { margin: '0 0 0 0.5em', color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic', textDecoration: 'none; opacity: 0.45' },
    });
    this.warningType = vscode.window.createTextEditorDecorationType({
      after: { margin: '0 0 0 1em', color: new vscode.ThemeColor('editorWarning.foreground') },
      overviewRulerLane: vscode.OverviewRulerLane.Left,
      overviewRulerColor: new vscode.ThemeColor('editorWarning.foreground'),
    });
    const selector: vscode.DocumentSelector = [{ scheme: 'file', pattern: '**/*.lean' }];
    this.disposables.push(
      this.barType, this.textType, ...this.heatTypes, this.staleType, this.warningType, this.lensEmitter, this.problems,
      vscode.languages.registerCodeLensProvider(selector, {
        onDidChangeCodeLenses: this.lensEmitter.event,
        provideCodeLenses: (doc) => this.codeLenses(doc),
      }),
      vscode.languages.registerHoverProvider(selector, { provideHover: (doc, pos) => this.hover(doc, pos) }),
      vscode.workspace.onDidChangeTextDocument((e) => this.onTextChanged(e.document)),
      vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((ed) => this.draw(ed))),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('leanscope.annotations')) this.redrawAll();
        if (e.affectsConfiguration('leanscope.headroom.bumpNotNeededBelowPercent')) void this.refetchAll();
        else if (e.affectsConfiguration('leanscope.headroom')) this.recomputeAll();
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
    if (doc && (!this.isFresh(e, doc) || e.failure !== undefined)) return undefined;
    const d = e.answer.declarations.find((x) => x.range.start.line <= line && line <= x.range.end.line);
    return d?.name;
  }

  /** Asks the sidecar for the annotations of `doc` from `source` (a
   * recording, or a session's file: medians over its runs for a repeated
   * capture) and draws them. `recorded`: the text the capture was of (by
   * default the buffer's); lines of the buffer that differ from it show as
   * stale. Returns whether the recorded source is that text (false: nothing
   * drawn, the previous annotations are gone). */
  async load(doc: vscode.TextDocument, source: AnnotationSource | string, recorded?: string): Promise<boolean> {
    const from: AnnotationSource = typeof source === 'string' ? { recording: source } : source;
    const text = recorded ?? doc.getText();
    const answer = await this.fetch(from, text);
    const key = doc.uri.toString();
    if (answer.stale) {
      this.entries.delete(key);
      this.problems.delete(doc.uri);
      this.redrawDocument(doc);
      this.log(`annotations: ${doc.uri.fsPath} differs from the source recorded in ${describeSource(from)} (buffer ${answer.bufferSha256.slice(0, 12)}…, recorded ${answer.recordedSha256.slice(0, 12)}…)`);
      return false;
    }
    const computed = computeAnnotations(answer, headroomSettings().threshold);
    this.entries.set(key, { source: from, answer, computed, recorded: text, fresh: text === doc.getText(), doc, version: doc.version });
    this.enabled = true;
    this.problems.show(doc.uri, answer.declarations, headroomSettings());
    this.redrawDocument(doc);
    return true;
  }

  /** The last capture of `uri` failed with `message`: its annotations stay,
   * all stale, and their hovers name the error. False when it has none. */
  markFailed(uri: vscode.Uri, message: string): boolean {
    const e = this.entries.get(uri.toString());
    if (!e) return false;
    e.failure = message;
    e.layout = undefined;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (doc) this.redrawDocument(doc);
    return true;
  }

  /** Why the last capture of `uri` failed, while its annotations are kept stale. */
  failureOf(uri: vscode.Uri): string | undefined { return this.entries.get(uri.toString())?.failure; }

  /** Whether `doc`'s text is the recorded source (hashing it only when the
   * document or its version changed since the last check). */
  private isFresh(e: Entry, doc: vscode.TextDocument): boolean {
    if (e.doc !== doc || e.version !== doc.version) {
      e.fresh = doc.getText() === e.recorded;
      e.doc = doc;
      e.version = doc.version;
      e.layout = undefined;
    }
    return e.fresh;
  }

  /** Where each annotation of `e` is in `doc` now, and which are stale. */
  private layoutOf(e: Entry, doc: vscode.TextDocument): Layout {
    const fresh = this.isFresh(e, doc);
    if (!e.layout) {
      e.layout = layoutAnnotations(e.computed, fresh ? undefined : mapLines(splitLines(e.recorded), splitLines(doc.getText())), e.failure !== undefined);
    }
    return e.layout;
  }

  private onTextChanged(doc: vscode.TextDocument): void {
    const e = this.entries.get(doc.uri.toString());
    if (!e) return;
    const was = e.fresh;
    // Edited away from the recorded text: the changed lines go stale as
    // they change; back to it: all fresh again.
    if (this.isFresh(e, doc) === was && was) return;
    this.redrawDocument(doc);
  }

  /** What the sidecar computes changed (the unneeded-bump share): every
   * document's annotations asked for again, from the text they were of. */
  private async refetchAll(): Promise<void> {
    for (const [key, e] of [...this.entries]) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
      if (!doc) continue;
      try {
        await this.load(doc, e.source, e.recorded);
      } catch (err) { this.log(`annotations of ${doc.uri.fsPath} again: ${err instanceof Error ? err.message : String(err)}`); }
    }
  }

  /** The headroom settings changed: lenses, warnings and Problems again. */
  private recomputeAll(): void {
    const settings = headroomSettings();
    for (const [key, e] of this.entries) {
      e.computed = computeAnnotations(e.answer, settings.threshold);
      e.layout = undefined;
      if (this.enabled) this.problems.show(vscode.Uri.parse(key), e.answer.declarations, settings);
    }
    this.redrawAll();
  }

  toggle(): boolean {
    this.enabled = !this.enabled;
    if (this.enabled) this.recomputeAll();
    else { this.problems.clear(); this.redrawAll(); }
    return this.enabled;
  }

  clear(): void {
    this.entries.clear();
    this.problems.clear();
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
    const style = this.style();
    const bars: vscode.DecorationOptions[] = [];
    const texts: vscode.DecorationOptions[] = [];
    const stale: vscode.DecorationOptions[] = [];
    const warnings: vscode.DecorationOptions[] = [];
    const heat: vscode.DecorationOptions[][] = this.heatTypes.map(() => []);
    if (this.enabled && e) {
      const doc = editor.document;
      const lineCount = doc.lineCount;
      const layout = this.layoutOf(e, doc);
      for (const { at: line, ann: l, stale: old } of layout.lines) {
        if (line >= lineCount) continue;
        const end = doc.lineAt(line).range.end;
        const at = new vscode.Range(end, end);
        if (old) {
          // Dimmed, without bar or heat: a number of text that is no more.
          stale.push({ range: at, renderOptions: { after: { contentText: `${l.text} · stale` } } });
          continue;
        }
        if (style === 'bars') {
          bars.push({ range: at, renderOptions: { after: { contentText: '\u200b', width: `${l.barPx}px` } } });
        }
        if (style !== 'gutter') texts.push({ range: at, renderOptions: { after: { contentText: l.text } } });
        heat[l.heat - 1].push({ range: new vscode.Range(line, 0, line, 0) });
      }
      for (const { nameAt: line, lens, stale: old } of layout.lenses) {
        if (!lens.warning || old || line === undefined || line >= lineCount) continue;
        const end = doc.lineAt(line).range.end;
        warnings.push({ range: new vscode.Range(end, end), renderOptions: { after: { contentText: lens.warning } } });
      }
    }
    editor.setDecorations(this.barType, bars);
    editor.setDecorations(this.textType, texts);
    editor.setDecorations(this.staleType, stale);
    editor.setDecorations(this.warningType, warnings);
    this.heatTypes.forEach((t, i) => editor.setDecorations(t, heat[i]));
    this.decorationCalls += 4 + this.heatTypes.length;
  }

  codeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const e = this.entries.get(doc.uri.toString());
    if (!this.enabled || !e) return [];
    if (!vscode.workspace.getConfiguration('leanscope').get<boolean>('annotations.codeLens', true)) return [];
    const target = 'recording' in e.source ? { recording: e.source.recording } : { session: e.source.session };
    return this.layoutOf(e, doc).lenses.filter((x) => x.at < doc.lineCount).map(({ at, lens: l, stale }) => new vscode.CodeLens(new vscode.Range(at, 0, at, 0), {
      title: stale ? `stale · ${l.title}` : l.title,
      tooltip: stale ? `${e.failure ? `The last capture failed: ${e.failure}` : `${l.declaration} changed since the capture`}. Show it in the leanscope viewer`
        : `Show ${l.declaration} in the leanscope viewer`,
      command: 'leanscope.showViewer',
      arguments: [{ ...target, source: doc.uri.toString(), declaration: l.declaration }],
    }));
  }

  hover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const e = this.entries.get(doc.uri.toString());
    if (!this.enabled || !e) return undefined;
    const layout = this.layoutOf(e, doc);
    const l = layout.lines.find((x) => x.at === pos.line);
    const d = layout.lenses.find((x) => (x.at === pos.line || x.nameAt === pos.line) && x.lens.headroomHover.length + x.lens.runHover.length > 0);
    if (!l && !d) return undefined;
    const parts: string[] = [];
    if (l?.stale || d?.stale) parts.push(staleNote(e.failure));
    if (l) parts.push(l.ann.hover);
    if (d && d.lens.headroomHover.length) parts.push(d.lens.headroomHover.join(''));
    if (d && d.lens.runHover.length) parts.push(d.lens.runHover.join(''));
    const md = new vscode.MarkdownString(parts.join('\n\n'));
    return new vscode.Hover(md, doc.lineAt(pos.line).range);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

