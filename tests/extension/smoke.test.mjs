// End-to-end smoke test: the BUNDLED extension (dist/extension.js) in Node
// with the `vscode` stand-in runs "Profile File" on the demo project through
// the real packaged sidecar (extension/bin/leanscope) and the fake Lean
// toolchain, and we check what the editor would show; then Cancel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO, activateExtension, fakeLean, isAlive, makeWorld, packagedSidecar, sessionManifest, waitFor } from './helpers.mjs';

const CLEAN_DECLARATIONS = ['Demo.Clean.double', 'Demo.Clean.double_add', 'Demo.Clean.length_append_comm', 'Demo.Clean.le_double', 'Demo.Clean.cases_example'];
// 0-based lines of the declarations in fixtures/projects/demo/Demo/Clean.lean.
const CLEAN_DECLARATION_LINES = [4, 6, 10, 15, 22];

test('Profile File through the packaged sidecar: decorations, CodeLens, hovers, status bar', async () => {
  packagedSidecar();
  const w = makeWorld();
  const x = activateExtension({ workspaceFolders: [w.project], settings: { 'leanscope.thresholdMs': 1 } });
  try {
    const file = w.file('Demo/Clean.lean');
    const editor = await x.test.openEditor(file);
    const result = await x.test.commands.get('leanscope.profileFile')();
    assert.ok(result, `capture failed: ${x.test.log.errors.join(' | ')}\n${x.test.log.output.join('\n')}`);
    assert.equal(result.status, 'ok');
    assert.equal(result.module, 'Demo.Clean');
    assert.equal(result.declarations, 5);
    assert.equal(result.errors, 0);
    assert.equal(path.dirname(result.recording), path.join(w.project, '.leanscope/recordings'));
    assert.ok(fs.existsSync(result.recording));
    assert.deepEqual(x.test.log.errors, []);

    // The progress notification: cancellable, titled, fed by $/progress.
    const progress = x.test.lastProgress();
    assert.equal(progress.options.cancellable, true);
    assert.equal(progress.options.title, 'leanscope: profiling Clean.lean');
    const messages = progress.reports.map((r) => r.message);
    assert.ok(messages.some((m) => /^Starting Lean on Demo\.Clean/.test(m)), messages.join('\n'));

    // The sidecar's own answer for the same buffer, to compare with.
    const answer = await x.api.sidecar.request('leanscope/annotations', { recording: result.recording, text: editor.document.getText() });
    assert.equal(answer.stale, false);
    assert.ok(answer.lines.length >= 5, `${answer.lines.length} lines`);
    assert.deepEqual(answer.declarations.map((d) => d.name), CLEAN_DECLARATIONS);
    assert.deepEqual(answer.declarations.map((d) => d.range.start.line), CLEAN_DECLARATION_LINES);

    // Decorations: one per timed line, at the end of the line, with the
    // line's inclusive time and share; the bar proportional to the longest.
    const decos = x.test.decorations(editor);
    const [bars, texts, ...heat] = decos.map((d) => d.items);
    const maxNs = Math.max(...answer.lines.map((l) => l.totalNs));
    const src = fs.readFileSync(file, 'utf8').split('\n');
    assert.equal(texts.length, answer.lines.length);
    assert.equal(bars.length, answer.lines.length);
    answer.lines.forEach((l, i) => {
      const t = texts[i];
      assert.deepEqual([t.range.start.line, t.range.start.character, t.range.end.character], [l.line, src[l.line].length, src[l.line].length]);
      const share = Math.round(l.share * 100);
      assert.equal(t.renderOptions.after.contentText, `${x.module('format').formatNs(l.totalNs)} (${share === 0 && l.share > 0 ? '<1' : share}%)`);
      assert.equal(bars[i].renderOptions.after.width, `${Math.max(1, Math.round(l.totalNs / maxNs * x.module('annotations').BAR_MAX_PX))}px`);
    });
    // The longest line has the full bar and the hottest gutter mark.
    const longest = answer.lines.find((l) => l.totalNs === maxNs);
    assert.ok(heat[3].some((h) => h.range.start.line === longest.line));
    assert.equal(heat.flat().length, answer.lines.length, 'one gutter mark per timed line');
    assert.match(decos[2].type.options.gutterIconPath.fsPath, /media\/heat-1\.svg$/);
    assert.ok(fs.existsSync(decos[2].type.options.gutterIconPath.fsPath));

    // Line 9 (0-based 8) is `omega` in double_add: its hover lists it, matched.
    const omega = answer.lines.find((l) => l.line === 8);
    assert.ok(omega, 'line 8 has a bar');
    assert.equal(omega.top[0].label, 'omega');
    assert.equal(omega.top[0].rangeKind, 'matched');
    const hover = x.test.hover(editor.document, 8, 3);
    assert.ok(hover, 'hover on line 9');
    assert.match(hover.contents[0].value, new RegExp(`line 9: ${x.module('format').formatNs(omega.totalNs).replace('.', '\\.')} inclusive`));
    assert.match(hover.contents[0].value, /\| `omega` \| Elab\.step · tactic \| .* \| matched \|/);
    assert.equal(x.test.hover(editor.document, 1, 0), undefined, 'no hover on an untimed line');

    // CodeLens: one per declaration with time, above it, with its numbers.
    const lenses = x.test.codeLenses(editor.document);
    const timed = answer.declarations.filter((d) => d.totalNs !== null);
    assert.equal(lenses.length, timed.length);
    assert.equal(timed.length, 5, 'every Clean declaration has recorded time');
    lenses.forEach((lens, i) => {
      const d = timed[i];
      assert.equal(lens.range.start.line, d.range.start.line);
      assert.equal(lens.command.title, x.module('format').lensTitle(d.totalNs, d.selfNs, d.share));
      assert.match(lens.command.title, /^(\d+(\.\d+)?) (s|ms|µs|ns) · self \d+(\.\d+)? \3 · (<1|\d+)% of file wall time$/, 'the self time in the unit of the total');
      assert.equal(lens.command.command, 'leanscope.showViewer');
      assert.deepEqual(lens.command.arguments[0], { recording: result.recording, source: editor.document.uri.toString(), declaration: d.name });
    });
    // The values the fixture's replayed Lean run implies (the viewer shows
    // the same: le_double 14.1 ms, self 2.6 ms).
    assert.deepEqual(lenses.map((l) => `${l.range.start.line} ${l.command.title}`), [
      '4 5.1 ms · self 5.1 ms · 3% of file wall time',
      '6 10.0 ms · self 2.2 ms · 7% of file wall time',
      '10 9.8 ms · self 2.2 ms · 6% of file wall time',
      '15 14.1 ms · self 2.6 ms · 9% of file wall time',
      '22 10.7 ms · self 4.2 ms · 7% of file wall time',
    ]);
    assert.deepEqual(texts.map((t) => `${t.range.start.line} ${t.renderOptions.after.contentText}`), [
      '4 5.1 ms (3%)', '6 10.0 ms (7%)', '7 7.9 ms (5%)', '8 6.2 ms (4%)', '10 9.8 ms (6%)', '12 7.6 ms (5%)',
      '13 4.5 ms (3%)', '15 14.1 ms (9%)', '16 11.5 ms (8%)', '17 1.5 ms (1%)', '19 7.7 ms (5%)', '20 5.8 ms (4%)',
      '22 10.7 ms (7%)', '23 6.5 ms (4%)', '24 3.4 ms (2%)', '25 1.2 ms (1%)',
    ]);
    assert.equal(answer.fileNs, 151_718_000);
    const doubleAdd = lenses.find((l) => l.command.arguments[0].declaration === 'Demo.Clean.double_add');
    assert.equal(doubleAdd.range.start.line, 6);

    // The status bar shows the last capture and opens the viewer.
    const status = x.test.statusItems[0];
    assert.equal(status.visible, true);
    assert.equal(status.text, '$(pulse) Clean.lean 151.7 ms');
    assert.equal(status.command, 'leanscope.showViewer');

    // Stale: the edited line's time is dimmed (its own decoration, ` · stale`),
    // the declaration around it is `stale · …`, the other lines stay as
    // they were; undoing brings it all back. One batch per change.
    const original = editor.document.getText();
    const before = x.api.annotations.decorationCalls;
    const STALE = 6; // bars, text, 4 heat levels, then stale, warning
    x.test.edit(editor.document, original.replace('omega', 'omega '));
    assert.equal(x.api.annotations.decorationCalls - before, 8, 'one batch: one call per decoration type');
    let dec = x.test.decorations(editor);
    const omegaLine = answer.lines.find((l) => l.line === 8);
    assert.ok(omegaLine, 'line 9 (omega) is timed');
    assert.deepEqual(dec[STALE].items.map((i) => [i.range.start.line, i.renderOptions.after.contentText]),
      [[8, `${x.module("annotations").computeAnnotations(answer).lines.find((l) => l.line === 8).text} · stale`]]);
    assert.equal(dec[STALE].type.options.after.textDecoration, 'none; opacity: 0.45', 'dimmed');
    assert.equal(dec[1].items.length, answer.lines.length - 1, 'the other lines keep their times');
    assert.ok(!dec[1].items.some((i) => i.range.start.line === 8));
    const staleLenses = x.test.codeLenses(editor.document);
    assert.equal(staleLenses.length, 5);
    assert.deepEqual(staleLenses.filter((l) => l.command.title.startsWith('stale · ')).map((l) => l.range.start.line), [CLEAN_DECLARATION_LINES[1]]);
    assert.match(x.test.hover(editor.document, 8, 3).contents[0].value, /^\*\*stale\*\*: this line changed since the capture/);
    // A line added above moves every annotation below it down one line.
    x.test.edit(editor.document, `-- a comment\n${original}`);
    dec = x.test.decorations(editor);
    assert.equal(dec[STALE].items.length, 0, 'an inserted line has no time to dim');
    assert.deepEqual(dec[1].items.map((i) => i.range.start.line), answer.lines.map((l) => l.line + 1));
    assert.deepEqual(x.test.codeLenses(editor.document).map((l) => l.range.start.line), CLEAN_DECLARATION_LINES.map((l) => l + 1));
    x.test.edit(editor.document, original);
    assert.equal(x.test.decorations(editor)[1].items.length, answer.lines.length, 'back when the text matches');
    assert.equal(x.test.decorations(editor)[STALE].items.length, 0);
    assert.equal(x.test.codeLenses(editor.document).length, 5);
    assert.ok(x.test.codeLenses(editor.document).every((l) => !l.command.title.startsWith('stale')));
    // Text that changed with no change event is caught before drawing.
    x.test.replaceSilently(editor.document, `${original}-- edited elsewhere\n`);
    dec = x.test.decorations(editor);
    assert.equal(dec[1].items.length, answer.lines.length, 'a line added at the end changes no time');
    x.test.replaceSilently(editor.document, original.replace('omega', 'simp'));
    assert.equal(x.test.decorations(editor)[STALE].items.length, 1, 'stale after a silent change');
    x.test.replaceSilently(editor.document, original);
    assert.equal(x.test.decorations(editor)[1].items.length, answer.lines.length);
    // A failed capture keeps the numbers, all stale, the hover naming the error.
    assert.equal(x.api.annotations.markFailed(editor.document.uri, 'lake: no such toolchain'), true);
    dec = x.test.decorations(editor);
    assert.equal(dec[STALE].items.length, answer.lines.length);
    assert.equal(dec[1].items.length, 0);
    assert.match(x.test.hover(editor.document, 8, 3).contents[0].value, /^\*\*stale\*\*: the last capture of this file failed: lake: no such toolchain\./);
    assert.ok(x.test.codeLenses(editor.document).every((l) => l.command.title.startsWith('stale · ')));
    await x.api.annotations.load(editor.document, result.recording);
    assert.equal(x.test.decorations(editor)[STALE].items.length, 0, 'a new capture replaces the stale numbers');
    assert.equal(x.api.annotations.failureOf(editor.document.uri), undefined);
    // The sidecar agrees: a different buffer is stale there too.
    const stale = await x.api.sidecar.request('leanscope/annotations', { recording: result.recording, text: `${original} ` });
    assert.equal(stale.stale, true);
    assert.equal(stale.recordedSha256, answer.sourceSha256);

    // leanscope.annotations.style and .codeLens take effect at once.
    const heatMarks = (d) => d.slice(2, 6).flatMap((h) => h.items).length;
    x.test.setSetting('leanscope.annotations.style', 'text');
    let d = x.test.decorations(editor);
    assert.deepEqual([d[0].items.length, d[1].items.length, heatMarks(d)], [0, answer.lines.length, answer.lines.length], 'text: times and heat, no bars');
    x.test.setSetting('leanscope.annotations.style', 'gutter');
    d = x.test.decorations(editor);
    assert.deepEqual([d[0].items.length, d[1].items.length, heatMarks(d)], [0, 0, answer.lines.length], 'gutter: heat only');
    x.test.setSetting('leanscope.annotations.style', 'bars');
    d = x.test.decorations(editor);
    assert.deepEqual([d[0].items.length, d[1].items.length, heatMarks(d)], [answer.lines.length, answer.lines.length, answer.lines.length]);
    x.test.setSetting('leanscope.annotations.codeLens', false);
    assert.deepEqual(x.test.codeLenses(editor.document), []);
    x.test.setSetting('leanscope.annotations.codeLens', true);
    assert.equal(x.test.codeLenses(editor.document).length, 5);

    // Toggle and Clear.
    assert.equal(await x.test.commands.get('leanscope.toggleAnnotations')(), false);
    assert.equal(x.test.decorations(editor)[1].items.length, 0);
    assert.equal(await x.test.commands.get('leanscope.toggleAnnotations')(), true);
    assert.equal(x.test.decorations(editor)[1].items.length, answer.lines.length);
    await x.test.commands.get('leanscope.clear')();
    assert.equal(x.test.decorations(editor)[1].items.length, 0);
    assert.equal(status.visible, false);

    // Open Recording… brings the annotations back from the file alone and
    // opens the viewer on it.
    const target = await x.test.commands.get('leanscope.openRecording')(x.vscode.Uri.file(result.recording));
    assert.equal(target.kind, 'recording');
    assert.equal(target.source.fsPath, file);
    assert.equal(x.test.decorations(editor)[1].items.length, answer.lines.length);
    assert.equal(x.test.panels.length, 1);
    const roots = x.test.panels[0].options.localResourceRoots.map((u) => u.fsPath);
    assert.deepEqual(roots, [path.join(x.context.extensionPath, 'media'), path.dirname(result.recording)]);

    // A recording whose source changed since: the sidecar says stale, the
    // editor shows nothing for it.
    await x.test.commands.get('leanscope.clear')();
    x.test.edit(editor.document, original.replace('unfold double\n', 'unfold double\n  skip\n'));
    await x.test.commands.get('leanscope.openRecording')(x.vscode.Uri.file(result.recording));
    assert.ok(x.test.decorations(editor).every((d) => d.items.length === 0));
    assert.ok(x.test.log.output.some((l) => l.includes(`annotations: ${file} differs from the source recorded in ${result.recording}`)));
    x.test.edit(editor.document, original);
  } finally {
    await x.dispose();
    w.cleanup();
  }
});


test('Profile File with leanscope.profile.repeat = 4: a one-file session of its runs, medians in the editor', async () => {
  packagedSidecar();
  const w = makeWorld();
  const x = activateExtension({ workspaceFolders: [w.project], settings: { 'leanscope.thresholdMs': 1, 'leanscope.profile.repeat': 4 } });
  try {
    const file = w.file('Demo/Clean.lean');
    const editor = await x.test.openEditor(file);
    const out = await x.test.commands.get('leanscope.profileFile')();
    assert.ok(out && out.session, `capture failed: ${x.test.log.errors.join(' | ')}\n${x.test.log.output.join('\n')}`);
    assert.deepEqual(x.test.log.errors, []);
    assert.equal(out.status, 'complete');
    assert.equal(out.cancelled, false);
    assert.deepEqual(out.counts, { planned: 1, completed: 1, failed: 0 });
    assert.deepEqual(out.result.repeats, { runs: 4, warmup: 1 }, 'leanscope.profile.warmup defaults to 1');
    assert.equal(path.dirname(out.session), path.join(w.project, '.leanscope/sessions'));
    assert.match(path.basename(out.session), /^Clean-\d{8}T\d{6}Z$/);
    assert.deepEqual(w.recordings(), [], 'no single capture was made');
    const m = sessionManifest(out.session);
    assert.deepEqual(m.target, { kind: 'file', path: 'Demo/Clean.lean' });
    assert.deepEqual(m.repeats, { runs: 4, warmup: 1 });
    assert.deepEqual(m.files[0].runs.map((r) => r.repeat), [0, 1, 2, 3]);
    // The progress notification: cancellable, one message per run.
    const progress = x.test.lastProgress();
    assert.equal(progress.options.cancellable, true);
    assert.equal(progress.options.title, 'leanscope: profiling file Clean.lean');
    assert.ok(out.progress.some((p) => /Demo\/Clean\.lean \(warm-up\)/.test(p)), out.progress.join('\n'));
    assert.ok(out.progress.some((p) => /Demo\/Clean\.lean \(run 4\/4\): ok/.test(p)), out.progress.join('\n'));

    // The editor is annotated from the session's file, and can fetch again.
    assert.deepEqual(x.api.annotations.sourceOf(editor.document.uri), { session: out.session, file });
    assert.equal(x.api.annotations.recordingOf(editor.document.uri), undefined);
    const text = editor.document.getText();
    const answer = await x.api.sidecar.request('leanscope/annotations', { session: out.session, file, text });
    assert.equal(answer.stale, false);
    assert.equal(answer.runs, 4);
    // The replayed runs are alike: every run's time is the median, the first run the median run.
    assert.equal(answer.recording, path.join(out.session, m.files[0].runs[0].recording));
    assert.equal(answer.fileNs, 151_718_000);
    assert.deepEqual(answer.fileSpread, { runs: 4, median: 151_718_000, min: 151_718_000, max: 151_718_000, q1: 151_718_000, q3: 151_718_000 });
    assert.deepEqual(x.api.annotations.answerOf(editor.document.uri), answer);
    assert.equal(await x.api.annotations.load(editor.document, x.api.annotations.sourceOf(editor.document.uri)), true);

    // Line text: the median; the same numbers as one capture of this file.
    const texts = x.test.decorations(editor)[1].items;
    assert.deepEqual(texts.map((t) => `${t.range.start.line} ${t.renderOptions.after.contentText}`), [
      '4 median 5.1 ms (3%)', '6 median 10.0 ms (7%)', '7 median 7.9 ms (5%)', '8 median 6.2 ms (4%)', '10 median 9.8 ms (6%)',
      '12 median 7.6 ms (5%)', '13 median 4.5 ms (3%)', '15 median 14.1 ms (9%)', '16 median 11.5 ms (8%)', '17 median 1.5 ms (1%)',
      '19 median 7.7 ms (5%)', '20 median 5.8 ms (4%)', '22 median 10.7 ms (7%)', '23 median 6.5 ms (4%)', '24 median 3.4 ms (2%)',
      '25 median 1.2 ms (1%)',
    ]);
    // Hover: the median with its spread over the 4 runs, the median run's operations.
    const hover = x.test.hover(editor.document, 8, 3).contents[0].value;
    assert.match(hover, /line 9: 6\.2 ms inclusive · self 6\.2 ms · 4% of file wall time · 1 event in the median run/);
    assert.match(hover, /inclusive: median of 4 runs · min–max 6\.2 ms–6\.2 ms · IQR 6\.2 ms–6\.2 ms/);
    assert.match(hover, /Operations of the median run:/);
    assert.match(hover, /\| `omega` \| Elab\.step · tactic \| .* \| matched \|/);
    // CodeLens: the median and the run count; it opens the session.
    const lenses = x.test.codeLenses(editor.document);
    assert.deepEqual(lenses.map((l) => `${l.range.start.line} ${l.command.title}`), [
      '4 median 5.1 ms (4 runs) · self 5.1 ms · 3% of file wall time',
      '6 median 10.0 ms (4 runs) · self 2.2 ms · 7% of file wall time',
      '10 median 9.8 ms (4 runs) · self 2.2 ms · 6% of file wall time',
      '15 median 14.1 ms (4 runs) · self 2.6 ms · 9% of file wall time',
      '22 median 10.7 ms (4 runs) · self 4.2 ms · 7% of file wall time',
    ]);
    assert.deepEqual(lenses[3].command.arguments[0], { session: out.session, source: editor.document.uri.toString(), declaration: 'Demo.Clean.le_double' });
    // The session in the viewer; the status bar says median and runs.
    assert.deepEqual(x.api.viewer.current, { kind: 'session', file: path.join(out.session, 'session.json') });
    assert.deepEqual(x.api.lastSession(), out);
    const status = x.test.statusItems[0];
    assert.equal(status.text, '$(pulse) Clean.lean median 151.7 ms (4 runs)');
    assert.deepEqual(status.command.arguments, [{ session: out.session }]);
  } finally {
    await x.dispose();
    w.cleanup();
  }
});
test('Cancel stops the fake Lean, answers RequestCancelled and writes nothing', async () => {
  packagedSidecar();
  const w = makeWorld({ delayScale: '100', pidfile: true });
  const x = activateExtension({ workspaceFolders: [w.project] });
  try {
    const file = w.file('Demo/Clean.lean');
    const running = x.test.commands.get('leanscope.profileFile')(x.vscode.Uri.file(file));
    // The pidfile also lists short-lived runs (`lean --version`): wait for
    // a `lean` that is still running, the capture's.
    const leanPid = await waitFor('the fake lean to run', () => {
      const t = fs.existsSync(w.pids) ? fs.readFileSync(w.pids, 'utf8') : '';
      return [...t.matchAll(/^lean (\d+)$/gm)].map((m) => Number(m[1])).find(isAlive);
    });
    assert.ok(isAlive(leanPid));
    const pids = fs.readFileSync(w.pids, 'utf8').trim().split('\n').map((l) => Number(l.split(' ')[1]));
    x.test.lastProgress().cancel(); // the notification's Cancel button
    const asked = Date.now();
    const result = await running;
    assert.equal(result, undefined);
    assert.ok(Date.now() - asked < 5000, 'cancelled promptly');
    assert.deepEqual(x.test.log.infos, ['leanscope: capture cancelled; Lean was stopped and nothing was written.']);
    assert.deepEqual(x.test.log.errors, []);
    await waitFor('lake and lean to be gone', () => pids.every((p) => !isAlive(p)), 5000);
    assert.deepEqual(w.recordings().filter((f) => f.endsWith('.lsrec')), []);
    assert.ok(x.test.log.output.some((l) => l.includes('capture: cancel requested')));
    // The sidecar got $/cancelRequest and stopped Lean (its log, in the output channel).
    await waitFor('the sidecar to log the cancellation', () => x.test.log.output.some((l) => /\[sidecar\].*cancelled; stopping Lean/.test(l)), 5000);
    // The sidecar is still good for work afterwards.
    process.env.LEANSCOPE_FAKE_DELAY_SCALE = '0';
    assert.equal(x.api.sidecar.pid !== undefined && isAlive(x.api.sidecar.pid), true);
  } finally {
    await x.dispose();
    w.cleanup();
  }
});

test('the sidecar is restarted once when it dies, then the error is clear', async () => {
  packagedSidecar();
  const w = makeWorld();
  const x = activateExtension({ workspaceFolders: [w.project] });
  try {
    const file = x.vscode.Uri.file(w.file('Demo/Clean.lean'));
    await x.api.sidecar.connect();
    const first = x.api.sidecar.pid;
    process.kill(first, 'SIGKILL');
    await waitFor('the death to be noticed', () => x.test.log.warnings.length > 0);
    assert.match(x.test.log.warnings[0], /^leanscope: The leanscope sidecar was killed by SIGKILL( \(last output: [^)]*\))?\. It is restarted for the next request\.$/);
    const r = await x.test.commands.get('leanscope.profileFile')(file);
    assert.equal(r?.status, 'ok', x.test.log.errors.join('\n'));
    const second = x.api.sidecar.pid;
    assert.notEqual(second, first);
    process.kill(second, 'SIGKILL');
    await waitFor('the second death', () => x.test.log.errors.length > 0);
    assert.match(x.test.log.errors[0], /was killed by SIGKILL( \(last output: .*\))?\. It will not be restarted again; reload the window to try again\. See the "leanscope" output\.$/);
    await x.test.commands.get('leanscope.profileFile')(file);
    assert.match(x.test.log.errors.at(-1), /profiling Clean\.lean failed: The leanscope sidecar was killed by SIGKILL.*It will not be restarted again/);
    assert.ok(x.test.log.output.some((l) => l.includes('starting ') && l.includes('serve --stdio')));
  } finally {
    await x.dispose();
    w.cleanup();
  }
});

// The files of fixtures/projects/demo/Demo, in capture order, and what the
// fake toolchain's replay makes of each (Broken.lean has Lean errors).
const DEMO_FOLDER = [['Demo/Async.lean', 'ok'], ['Demo/Broken.lean', 'error'], ['Demo/Clean.lean', 'ok'], ['Demo/Heartbeats.lean', 'ok'], ['Demo/Huge.lean', 'ok'], ['Demo/Imports.lean', 'ok'], ['Demo/Unicode.lean', 'ok']];

/** The session's manifest with its journal replayed (mid-run, session.json
 *  is only the last checkpoint). */
function manifestOf(session) {
  return sessionManifest(session);
}

test('Profile Folder and Profile Project through the packaged sidecar: per-file progress, session, viewer, status bar, failures', async () => {
  packagedSidecar();
  const w = makeWorld();
  // The workspace is the folder above the project, as when a user opens a
  // directory holding several projects.
  const x = activateExtension({ workspaceFolders: [w.dir], settings: { 'leanscope.thresholdMs': 1 } });
  try {
    // Profile Folder, as from the Explorer's context menu on Demo/.
    const out = await x.test.commands.get('leanscope.profileFolder')(x.vscode.Uri.file(w.file('Demo')));
    assert.ok(out, `capture failed: ${x.test.log.errors.join(' | ')}\n${x.test.log.output.join('\n')}`);
    assert.equal(out.cancelled, false);
    assert.equal(path.dirname(out.session), path.join(w.project, '.leanscope/sessions'));
    assert.match(path.basename(out.session), /^Demo-\d{8}T\d{6}Z$/);
    const m = manifestOf(out.session);
    assert.equal(m.status, 'complete');
    assert.deepEqual(m.counts, { planned: 7, completed: 7, failed: 0 });
    assert.equal(m.thresholdMs, 1, 'leanscope.thresholdMs reached the sidecar');
    assert.equal(m.projectRoot, w.project);
    assert.deepEqual(m.files.map((f) => [f.path, f.status]), DEMO_FOLDER);
    for (const f of m.files) assert.ok(fs.existsSync(path.join(out.session, f.recording)), f.recording);
    assert.deepEqual(out.result.counts, m.counts);
    assert.equal(out.result.session, out.session);
    assert.equal(out.result.withErrors, 1);
    assert.equal(out.status, 'complete');

    // The notification: cancellable, one "n/total path" line as each file
    // starts and one with its status as it ends, the bar filled to 100%.
    const progress = x.test.lastProgress();
    assert.equal(progress.options.title, 'leanscope: profiling folder Demo');
    assert.equal(progress.options.cancellable, true);
    const expected = ['0/7 files'];
    DEMO_FOLDER.forEach(([p, st], i) => expected.push(`${i + 1}/7 ${p}`, `${i + 1}/7 ${p}: ${st}`));
    assert.deepEqual(progress.reports.map((r) => r.message), expected);
    assert.deepEqual(out.progress, expected);
    assert.equal(progress.reports.reduce((a, r) => a + (r.increment ?? 0), 0), 100);
    assert.deepEqual(x.test.log.errors, []);
    assert.deepEqual(x.test.log.warnings, [], 'no file failed');
    assert.deepEqual(x.test.log.infos, ['leanscope: Lean reported errors in 1 file of folder Demo; their recordings keep them.']);
    // The extension names no backend, and the sidecar runs its only one, stock.
    assert.ok(x.test.log.output.some((l) => / capture folder Demo \{"thresholdMs":1,"output":/.test(l)), x.test.log.output.join('\n'));
    // (The sidecar's stderr may reach the log after the result.)
    await waitFor('the sidecar to log the session capture\'s backend', () => x.test.log.output.some((l) => /\[sidecar\] leanscope serve: session capture \d+ of .*Demo into .* \(stock backend\)/.test(l)), 10000)
      .catch((e) => assert.fail(`${e.message}: ${x.test.log.output.join('\n')}`));

    // The session opens in the viewer, its directory a resource root.
    const panel = x.test.panels.at(-1);
    assert.equal(panel.viewType, 'leanscope.viewer');
    assert.deepEqual(panel.options.localResourceRoots.map((u) => u.fsPath), [path.join(x.context.extensionPath, 'media'), out.session]);
    const config = JSON.parse(panel.webview.html.match(/id="leanscope-config">([^<]*)<\/script>/)[1]);
    const resource = (p) => panel.webview.asWebviewUri(x.vscode.Uri.file(p)).toString();
    assert.equal(config.session, resource(path.join(out.session, 'session.json')));
    assert.equal(config.index, resource(path.join(out.session, 'index.jsonl')));
    assert.deepEqual(x.api.viewer.current, { kind: 'session', file: path.join(out.session, 'session.json') });

    // The viewer asks to reveal a declaration of one of the session's files
    // (by its project-relative path): the editor opens it from the project
    // root that session.json names (the workspace folder is not that root).
    panel.receive({ type: 'leanscope.loaded', error: null });
    panel.receive({ type: 'leanscope.revealRange', path: 'Demo/Clean.lean', sourcePath: 'Demo/Clean.lean', declaration: 'Demo.Clean.le_double', range: { startLine: 15, startCol: 0, endLine: 20, endCol: 9 } });
    const revealed = await waitFor('Clean.lean to open at le_double', () => {
      const ed = x.vscode.window.activeTextEditor;
      return ed && ed.document.uri.fsPath === w.file('Demo/Clean.lean') ? ed : undefined;
    }, 5000);
    assert.deepEqual([revealed.selection.start.line, revealed.selection.end.line, revealed.selection.end.character], [15, 20, 9]);
    // The file opened from the session is annotated from it.
    const from = await waitFor('Clean.lean annotated from the session', () => x.api.annotations.sourceOf(revealed.document.uri), 15000);
    assert.deepEqual(from, { session: out.session, file: w.file('Demo/Clean.lean') });
    assert.ok(x.api.annotations.declarationAt(revealed.document.uri, 15), 'le_double has its time');
    assert.deepEqual(x.test.log.warnings, []);
    // A path that leaves the project is not opened.
    fs.writeFileSync(path.join(w.dir, 'Outside.lean'), 'theorem o : True := trivial\n');
    panel.receive({ type: 'leanscope.revealRange', path: '../Outside.lean', sourcePath: '../Outside.lean', range: { startLine: 0, startCol: 0, endLine: 0, endCol: 1 } });
    await waitFor('the reveal to be refused', () => x.test.log.warnings.length === 1, 5000);
    assert.equal(x.test.log.warnings[0], 'leanscope: cannot find the source file ../Outside.lean of this recording in the workspace.');
    assert.equal(x.vscode.window.activeTextEditor, revealed);
    x.test.log.warnings.length = 0;

    // The status bar shows the last capture and opens its session.
    const status = x.test.statusItems[0];
    assert.equal(status.visible, true);
    assert.equal(status.text, '$(pulse) Demo 7/7 files');
    assert.equal(status.command.command, 'leanscope.showViewer');
    assert.deepEqual(status.command.arguments, [{ session: out.session }]);
    assert.deepEqual(x.api.lastSession(), out);

    // Profile Project from the Command Palette, with Demo/Clean.lean active:
    // the project holding it (lean-toolchain), all its files, the root
    // module Demo.lean included, and Unrecorded.lean, for which the fake
    // toolchain has no recorded output: it fails, the others are kept, and
    // the user is told how many failed.
    // First the demo as it is: Profile Folder of its root, the root module
    // Demo.lean included (it has its recorded output, fixtures/lean-output/root), ends complete.
    const whole = await x.test.commands.get('leanscope.profileFolder')(x.vscode.Uri.file(w.project));
    assert.ok(whole, x.test.log.errors.join('\n'));
    assert.equal(whole.status, 'complete');
    assert.deepEqual(manifestOf(whole.session).counts, { planned: 8, completed: 8, failed: 0 });
    assert.equal(manifestOf(whole.session).files.find((f) => f.path === 'Demo.lean').status, 'ok');
    assert.deepEqual(x.test.log.warnings, [], 'nothing failed');
    fs.writeFileSync(w.file('Unrecorded.lean'), 'theorem unrecorded : True := trivial\n');
    await x.test.openEditor(w.file('Demo/Clean.lean'));
    x.test.settings['leanscope.outputDirectory'] = 'profiles';
    const proj = await x.test.commands.get('leanscope.profileProject')();
    assert.ok(proj, x.test.log.errors.join('\n'));
    assert.equal(path.dirname(proj.session), path.join(w.dir, 'profiles'), 'leanscope.outputDirectory, relative to the workspace folder');
    assert.match(path.basename(proj.session), /^demo-\d{8}T\d{6}Z$/);
    const pm = manifestOf(proj.session);
    assert.equal(pm.status, 'partial');
    assert.deepEqual(pm.counts, { planned: 9, completed: 8, failed: 1 });
    assert.deepEqual(pm.target, { kind: 'project', path: '' });
    assert.deepEqual(m.target, { kind: 'folder', path: 'Demo' });
    const failed = pm.files.filter((f) => f.status === 'failed');
    assert.deepEqual(failed.map((f) => f.path), ['Unrecorded.lean']);
    assert.match(failed[0].error, /no recorded Lean output for Unrecorded\.lean/);
    assert.deepEqual(proj.counts, pm.counts);
    assert.equal(x.test.lastProgress().options.title, 'leanscope: profiling project demo');
    assert.equal(x.test.lastProgress().reports.at(-1).message.startsWith('9/9 '), true, x.test.lastProgress().reports.map((r) => r.message).join('\n'));
    assert.deepEqual(x.test.log.warnings, ['leanscope: 1 of 9 files failed to capture in project demo; the other 8 files are in the session. The viewer lists each failure with Lean\'s error.']);
    assert.equal(status.text, '$(pulse) demo 8/9 files (1 failed)');
    assert.deepEqual(status.command.arguments, [{ session: proj.session }]);
    assert.deepEqual(x.api.viewer.current, { kind: 'session', file: path.join(proj.session, 'session.json') });
    assert.deepEqual(x.test.panels.at(-1).options.localResourceRoots.map((u) => u.fsPath), [path.join(x.context.extensionPath, 'media'), proj.session]);
    assert.equal(fs.readdirSync(path.join(w.dir, 'profiles')).length, 1);

    // Settings that the sidecar checks come back as errors a user can act on.
    x.test.settings['leanscope.lakePath'] = path.join(w.dir, 'no-such-lake');
    assert.equal(await x.test.commands.get('leanscope.profileFolder')(x.vscode.Uri.file(w.file('Demo'))), undefined);
    assert.match(x.test.log.errors.at(-1), new RegExp(`^leanscope: profiling folder Demo failed: cannot find lake: looked for ${path.join(w.dir, 'no-such-lake')}`));
    // In the editor's words: the setting and elan, not the CLI's flag.
    assert.doesNotMatch(x.test.log.errors.at(-1), /--lake/);
    assert.match(x.test.log.errors.at(-1), /Install Lean with elan .*, or set the setting leanscope\.lakePath to your lake \(in a remote window .* Remote settings/);
    assert.equal(fs.readdirSync(path.join(w.dir, 'profiles')).length, 1, 'no session for a capture that could not start');
    // The status bar shows the failure (in the error colour) until the next capture starts.
    assert.equal(status.text, '$(error) leanscope: profiling folder Demo failed');
    assert.equal(status.backgroundColor?.id, 'statusBarItem.errorBackground');
    assert.match(status.tooltip, /cannot find lake/);
    assert.deepEqual(x.test.log.errorItems.at(-1), ['Open Settings', 'Show Log']);
  } finally {
    await x.dispose();
    w.cleanup();
  }
});

test('leanscope.timeoutSeconds stops a slow Lean and says so', async () => {
  packagedSidecar();
  const w = makeWorld({ delayScale: '20' });
  const x = activateExtension({ workspaceFolders: [w.project], settings: { 'leanscope.timeoutSeconds': 1 } });
  try {
    const started = Date.now();
    await x.test.commands.get('leanscope.profileFile')(x.vscode.Uri.file(w.file('Demo/Clean.lean')));
    assert.ok(Date.now() - started < 4000, 'stopped after about a second, not after the replay\'s 4.8 s');
    // The partial recording is kept and said to be partial.
    assert.ok(x.test.log.output.some((l) => /Lean did not finish within 1 s and was stopped; the recording of Clean\.lean is partial/.test(l)), x.test.log.output.join('\n'));
  } finally {
    await x.dispose();
    w.cleanup();
  }
});

test('Cancel during Profile Folder kills the fake Lean process group; the session is cancelled and keeps completed files', async () => {
  packagedSidecar();
  const w = makeWorld({ delayScale: '10', pidfile: true });
  const x = activateExtension({ workspaceFolders: [w.project], settings: { 'leanscope.thresholdMs': 1 } });
  try {
    const running = x.test.commands.get('leanscope.profileFolder')(x.vscode.Uri.file(w.file('Demo')));
    const sessions = path.join(w.project, '.leanscope/sessions');
    // Cancel while Lean runs on the third file, Clean.lean, after two were
    // committed (Async.lean takes 4.5 s of replay here).
    const cmdline = (pid) => { try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'); } catch { return ''; } };
    const leanPid = await waitFor('Lean to run on Demo/Clean.lean', () => {
      const t = fs.existsSync(w.pids) ? fs.readFileSync(w.pids, 'utf8') : '';
      return [...t.matchAll(/^lean (\d+)$/gm)].map((m) => Number(m[1])).find((p) => isAlive(p) && cmdline(p).includes('Demo/Clean.lean'));
    }, 60000);
    // Clean.lean is announced after Broken.lean is reported done, which it
    // is only once committed (sessions commit in groups).
    await waitFor('the notification to show Clean.lean', () => x.test.lastProgress().reports.at(-1)?.message === '3/7 Demo/Clean.lean', 5000);
    const [session] = fs.readdirSync(sessions).map((d) => path.join(sessions, d));
    assert.equal(manifestOf(session).counts.completed, 2);
    const pids = fs.readFileSync(w.pids, 'utf8').trim().split('\n').map((l) => Number(l.split(' ')[1]));
    // Its lake parent is in the same process group, which is not ours.
    const pgid = Number(fs.readFileSync(`/proc/${leanPid}/stat`, 'utf8').split(') ')[1].split(' ')[2]);
    assert.notEqual(pgid, process.pid);
    x.test.lastProgress().cancel(); // the notification's Cancel button
    const asked = Date.now();
    const out = await running;
    assert.ok(Date.now() - asked < 5000, 'cancelled promptly');
    assert.ok(out, x.test.log.errors.join('\n'));
    assert.equal(out.cancelled, true);
    assert.equal(out.session, session);
    assert.equal(out.status, 'cancelled');
    assert.equal(out.result, undefined);
    await waitFor('lake and lean to be gone', () => pids.every((p) => !isAlive(p)), 5000);
    assert.ok(!isAlive(leanPid));
    let groupAlive = true;
    try { process.kill(-pgid, 0); } catch { groupAlive = false; }
    assert.equal(groupAlive, false, 'the whole process group is gone');
    // session.json: cancelled, the two completed files kept, the rest not captured.
    const m = manifestOf(session);
    assert.equal(m.status, 'cancelled');
    assert.equal(m.counts.planned, 7);
    assert.equal(m.counts.completed, 2);
    assert.deepEqual(out.counts, m.counts);
    assert.deepEqual(m.files.slice(0, 2).map((f) => [f.path, f.status]), DEMO_FOLDER.slice(0, 2));
    for (const f of m.files.slice(0, 2)) assert.ok(fs.existsSync(path.join(session, f.recording)), f.recording);
    assert.ok(m.files.slice(2).every((f) => f.status !== 'ok' && f.status !== 'error'), JSON.stringify(m.files));
    assert.deepEqual(x.test.log.errors, []);
    assert.deepEqual(x.test.log.infos, ['leanscope: capture of folder Demo cancelled; Lean was stopped. 2 of 7 files captured before are kept in the session.']);
    assert.ok(x.test.log.output.some((l) => l.includes('capture: cancel requested')));
    await waitFor('the sidecar to log the cancellation', () => x.test.log.output.some((l) => /\[sidecar\].*cancelled; stopping Lean/.test(l)), 5000);
    // The cancelled session is what the viewer and the status bar show.
    assert.deepEqual(x.api.viewer.current, { kind: 'session', file: path.join(session, 'session.json') });
    assert.equal(x.test.statusItems[0].text, '$(pulse) Demo 2/7 files (cancelled)');
    assert.equal(x.api.sidecar.pid !== undefined && isAlive(x.api.sidecar.pid), true, 'the sidecar lives on');
  } finally {
    await x.dispose();
    w.cleanup();
  }
});

test('Compare with Baseline through the packaged sidecar: the counts and rows of leanscope compare, the diff sent to the viewer, errors', async () => {
  const sidecar = packagedSidecar();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-cmp-'));
  fs.writeFileSync(path.join(dir, 'lean-toolchain'), 'leanprover/lean4:v4.19.0\n');
  const sessions = path.join(dir, '.leanscope', 'sessions');
  const base = path.join(sessions, 'base');
  const cand = path.join(sessions, 'cand');
  const run = (args) => spawnSync(sidecar, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  for (const [out, seed] of [[base, '1'], [cand, '2']]) {
    const r = run(['synth-session', '-o', out, '--files', '4', '--events', '300', '--seed', seed]);
    assert.equal(r.status, 0, r.stderr);
  }
  /** What `leanscope compare BASE CAND --json -` reports (exit 1: a regression). */
  const cli = (baseline, extra = []) => {
    const r = run(['compare', baseline, cand, '--metric', 'total_ns', ...extra, '--json', '-']);
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    return JSON.parse(r.stdout);
  };
  const expected = cli(base);
  const count = (c, status) => c.matched.filter((m) => m.status === status).length;
  assert.ok(count(expected, 'regression') > 0 && count(expected, 'improvement') > 0, 'the two seeds differ both ways');

  const x = activateExtension({ workspaceFolders: [dir] });
  try {
    // The candidate is what the viewer shows: open the candidate session.
    await x.test.commands.get('leanscope.openRecording')(x.vscode.Uri.file(cand));
    const panel = x.test.panels.at(-1);
    x.test.answerDialogs([x.vscode.Uri.file(base)]);
    const out = await x.test.commands.get('leanscope.compareWithBaseline')();
    assert.ok(out, x.test.log.errors.join('\n'));
    assert.deepEqual(x.test.log.errors, []);
    // The baseline dialog starts in the project's .leanscope/.
    assert.equal(x.test.log.dialogs.at(-1).defaultUri.fsPath, path.join(dir, '.leanscope'));
    assert.deepEqual(out.params, { baseline: base, candidate: cand, metric: 'total_ns', absoluteTolerance: 0, relativeToleranceBps: 0 });
    assert.deepEqual(out.result.comparison.matched, expected.matched);
    assert.deepEqual(out.result.comparison.new, expected.new);
    assert.deepEqual(out.result.comparison.missing, expected.missing);
    const summary = `leanscope: ${count(expected, 'regression')} regressions, ${count(expected, 'improvement')} improvements, `
      + `${expected.new.length} new, ${expected.missing.length} missing (metric total_ns)`;
    assert.deepEqual(x.test.log.infos, [summary]);
    assert.deepEqual(x.test.log.warnings, [], 'complete inputs: no warning');
    // The same panel shows the candidate; the diff waits until the viewer has opened its data.
    assert.equal(x.test.panels.at(-1), panel);
    assert.deepEqual([x.api.viewer.current.kind, x.api.viewer.current.file], ['session', path.join(cand, 'session.json')]);
    const diffs = () => panel.webview.posted.filter((m) => m.type === 'leanscope.diff');
    assert.equal(diffs().length, 0, 'nothing is posted before the viewer has loaded');
    panel.receive({ type: 'leanscope.ready' });
    assert.equal(diffs().length, 0, 'ready is not enough: the data is not open yet');
    panel.receive({ type: 'leanscope.loaded', error: null });
    await waitFor('the diff to be posted', () => diffs().length === 1, 5000);
    assert.deepEqual(diffs()[0].document.comparison.matched, expected.matched);
    assert.equal(diffs()[0].document.candidate, out.result.candidate);

    // From the Explorer (a session's manifest) with tolerances from the settings:
    // the settings reach the sidecar, the loaded viewer gets the diff at once.
    x.test.settings['leanscope.compare.relativeTolerancePercent'] = 5;
    x.test.settings['leanscope.compare.absoluteToleranceMs'] = 0.5;
    x.test.answerDialogs([x.vscode.Uri.file(path.join(base, 'session.json'))]);
    const tolerant = await x.test.commands.get('leanscope.compareWithBaseline')(x.vscode.Uri.file(path.join(cand, 'session.json')));
    assert.ok(tolerant, x.test.log.errors.join('\n'));
    assert.deepEqual(tolerant.params, { baseline: base, candidate: cand, metric: 'total_ns', absoluteTolerance: 500_000, relativeToleranceBps: 500 });
    const expectedTolerant = cli(base, ['--absolute-tolerance', '500000', '--relative-tolerance-bps', '500']);
    assert.deepEqual(tolerant.result.comparison.matched, expectedTolerant.matched);
    assert.equal(x.test.log.infos.at(-1), `leanscope: ${x.module('compare').compareSummary(tolerant.counts, 'total_ns')}`);
    assert.equal(tolerant.counts.regressions, count(expectedTolerant, 'regression'));
    assert.equal(tolerant.counts.unchanged, count(expectedTolerant, 'unchanged'));
    assert.equal(x.test.panels.at(-1), panel);
    await waitFor('the second diff to be posted', () => diffs().length === 2, 5000);
    assert.deepEqual(diffs()[1].document.comparison.matched, expectedTolerant.matched);

    // An incomplete baseline (a summary that dropped events) is compared anyway, with a warning.
    const summarized = run(['summary', base, '--group-by', 'declaration', '--json', '-']);
    assert.equal(summarized.status, 0, summarized.stderr);
    const incomplete = path.join(dir, 'incomplete.json');
    fs.writeFileSync(incomplete, JSON.stringify({ ...JSON.parse(summarized.stdout), dropped_events: 3 }));
    x.test.settings['leanscope.compare.relativeTolerancePercent'] = 0;
    x.test.settings['leanscope.compare.absoluteToleranceMs'] = 0;
    x.test.answerDialogs([x.vscode.Uri.file(incomplete)]);
    const partial = await x.test.commands.get('leanscope.compareWithBaseline')();
    assert.ok(partial, x.test.log.errors.join('\n'));
    assert.deepEqual(partial.result.comparison.matched, cli(incomplete, ['--allow-incomplete']).matched);
    assert.equal(x.test.log.warnings.length, 1, x.test.log.warnings.join('\n'));
    assert.match(x.test.log.warnings[0], /^leanscope: compared anyway, but an input is incomplete: .*baseline.*3 dropped event\(s\)/);
    assert.deepEqual(partial.result.warnings.length, 1);
    await waitFor('the third diff to be posted', () => diffs().length === 3, 5000);

    // A baseline that cannot be compared: the sidecar's message is shown, nothing is posted.
    const junk = path.join(dir, 'junk.json');
    fs.writeFileSync(junk, '{"not": "a profile"}\n');
    const refused = run(['compare', junk, cand, '--metric', 'total_ns', '--json', '-']);
    assert.equal(refused.status, 2);
    const reason = refused.stderr.trim().split(`${junk}: `).at(-1);
    assert.match(reason, /unrecognized format/);
    x.test.answerDialogs([x.vscode.Uri.file(junk)]);
    const infos = x.test.log.infos.length;
    assert.equal(await x.test.commands.get('leanscope.compareWithBaseline')(), undefined);
    assert.equal(x.test.log.errors.length, 1, x.test.log.errors.join('\n'));
    assert.ok(x.test.log.errors[0].startsWith('leanscope: cannot compare cand with junk.json: '), x.test.log.errors[0]);
    assert.ok(x.test.log.errors[0].includes(reason), `${x.test.log.errors[0]}\nshould contain ${reason}`);
    assert.equal(x.test.log.infos.length, infos);
    assert.equal(diffs().length, 3);
  } finally { await x.dispose(); fs.rmSync(dir, { recursive: true, force: true }); }
});

test('Compare with Baseline without a viewer: the candidate is the last capture, shown in a new viewer', async () => {
  const sidecar = packagedSidecar();
  const w = makeWorld();
  const x = activateExtension({ workspaceFolders: [w.project], settings: { 'leanscope.thresholdMs': 1 } });
  try {
    const first = await x.test.commands.get('leanscope.profileFile')(x.vscode.Uri.file(w.file('Demo/Clean.lean')));
    assert.ok(first, x.test.log.errors.join('\n'));
    // Recording names have a millisecond stamp; make sure the second one differs.
    await new Promise((r) => setTimeout(r, 20));
    const second = await x.test.commands.get('leanscope.profileFile')(x.vscode.Uri.file(w.file('Demo/Clean.lean')));
    assert.ok(second, x.test.log.errors.join('\n'));
    assert.notEqual(first.recording, second.recording);
    assert.equal(x.test.panels.length, 0, 'no viewer is open');
    x.test.answerDialogs([x.vscode.Uri.file(first.recording)]);
    const out = await x.test.commands.get('leanscope.compareWithBaseline')();
    assert.ok(out, x.test.log.errors.join('\n'));
    assert.equal(x.test.log.dialogs.length, 1, 'only the baseline was asked for');
    assert.equal(x.test.log.dialogs[0].defaultUri.fsPath, path.join(w.project, '.leanscope'));
    assert.deepEqual([out.params.baseline, out.params.candidate], [first.recording, second.recording]);
    const r = spawnSync(sidecar, ['compare', first.recording, second.recording, '--metric', 'total_ns', '--json', '-'], { encoding: 'utf8' });
    const expected = JSON.parse(r.stdout);
    assert.deepEqual(out.result.comparison.matched, expected.matched);
    assert.ok(expected.matched.length > 0);
    const n = (s) => expected.matched.filter((m) => m.status === s).length;
    assert.equal(x.test.log.infos.at(-1), `leanscope: ${x.module('compare').compareSummary({ regressions: n('regression'), improvements: n('improvement'), unchanged: n('unchanged'), new: expected.new.length, missing: expected.missing.length }, 'total_ns')}`);
    // The viewer opens on the candidate recording and gets the diff once loaded.
    assert.equal(x.test.panels.length, 1);
    const panel = x.test.panels[0];
    assert.equal(x.api.viewer.current.file, second.recording);
    assert.equal(x.api.viewer.current.kind, 'recording');
    panel.receive({ type: 'leanscope.loaded', error: null });
    await waitFor('the diff to be posted', () => panel.webview.posted.some((m) => m.type === 'leanscope.diff'), 5000);
  } finally { await x.dispose(); w.cleanup(); }
});

/** A Git repository whose `feature` branch (checked out, upstream `trunk`)
 * makes `slow` in Demo/A.lean cost `headMs` instead of 30 ms, and a fake
 * toolchain folder (its fixtures beside it: the sandbox clears the
 * environment) first on PATH. */
function revisionWorld(headMs) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-rev-'));
  const tc = path.join(dir, 'toolchain');
  fs.mkdirSync(path.join(tc, 'bin'), { recursive: true });
  for (const n of ['lake', 'lean']) fs.symlinkSync(fakeLean(), path.join(tc, 'bin', n));
  fs.mkdirSync(path.join(tc, 'fixtures/lean-output'), { recursive: true });
  fs.copyFileSync(path.join(REPO, 'fixtures/lean-output/toolchains.json'), path.join(tc, 'fixtures/lean-output/toolchains.json'));
  process.env.PATH = `${path.join(tc, 'bin')}:/usr/bin:/bin`;
  process.env.HOME = dir;
  const repo = path.join(dir, 'repo');
  fs.mkdirSync(path.join(repo, 'Demo'), { recursive: true });
  const git = (...a) => { const r = spawnSync('git', ['-C', repo, ...a], { encoding: 'utf8' }); assert.equal(r.status, 0, r.stderr); return r.stdout; };
  const slow = (ms) => `theorem slow : True := by\n  trivial -- leanscope-fake: cost ${ms}ms\n`;
  git('init', '-q', '-b', 'trunk');
  git('config', 'user.email', 'test@example.invalid');
  git('config', 'user.name', 'test');
  fs.writeFileSync(path.join(repo, 'lakefile.toml'), 'name = "demo"\ndefaultTargets = ["Demo"]\n\n[[lean_lib]]\nname = "Demo"\n');
  fs.writeFileSync(path.join(repo, 'lean-toolchain'), 'leanprover/lean4:v4.18.0\n');
  fs.writeFileSync(path.join(repo, 'Demo/A.lean'), slow(30));
  git('add', '-A');
  git('commit', '-qm', 'base');
  git('checkout', '-qb', 'feature');
  git('branch', '-q', '--set-upstream-to', 'trunk');
  fs.writeFileSync(path.join(repo, 'Demo/A.lean'), slow(headMs));
  git('commit', '-qam', 'feature');
  return { dir, repo, git, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

test('Compare Revisions through the packaged sidecar: the upstream offered, progress, the Diff view of both sides, Cancel', async () => {
  packagedSidecar();
  const w = revisionWorld(130);
  const x = activateExtension({ workspaceFolders: [w.repo] });
  try {
    assert.equal(x.module('commands/compareRevisions').defaultBase(w.repo), 'trunk', 'the upstream of the current branch');
    x.test.answerDialogs('trunk');
    const out = await x.test.commands.get('leanscope.compareRevisions')();
    assert.ok(out && out.result, x.test.log.errors.join('\n'));
    assert.deepEqual(x.test.log.errors, []);
    assert.equal(x.test.log.dialogs.at(-1).value, 'trunk', 'the input box offers the upstream');
    assert.deepEqual(out.params, { repo: w.repo, base: 'trunk', head: 'HEAD' });
    assert.equal(out.result.state, 'complete');
    assert.equal(out.result.files, 1);
    for (const m of ['building base (1 modules)', '[1/1] base Demo/A.lean', '[1/1] head Demo/A.lean']) {
      assert.ok(out.progress.includes(m), `${m}: ${out.progress.join(' | ')}`);
    }
    const slow = out.result.diff.comparison.matched.find((m) => m.key.name === 'slow');
    assert.equal(slow.status, 'regression');
    assert.equal(slow.delta, 100e6);
    assert.match(x.test.log.infos.at(-1), /^leanscope: trunk → HEAD: 1 file compared, 0 flagged; declarations: 1 regression, 0 improvements, 0 new, 0 missing \(metric total_ns\)\. The report is in .*report\.md\.$/);
    // The viewer shows the head side's session and gets the diff once loaded.
    assert.equal(x.api.viewer.current.kind, 'session');
    assert.equal(x.api.viewer.current.file, path.join(out.result.headSession, 'session.json'));
    const panel = x.test.panels.at(-1);
    panel.receive({ type: 'leanscope.loaded', error: null });
    await waitFor('the diff to be posted', () => panel.webview.posted.some((m) => m.type === 'leanscope.diff' && m.document.comparison.matched.length === 1), 5000);

    // Escape in the input box runs nothing.
    x.test.answerDialogs(undefined);
    assert.equal(await x.test.commands.get('leanscope.compareRevisions')(), undefined);
  } finally { await x.dispose(); w.cleanup(); }

  // Cancel: the head sample spends 60 s; Cancel stops it at once.
  const slowWorld = revisionWorld(60000);
  const y = activateExtension({ workspaceFolders: [slowWorld.repo] });
  try {
    y.test.answerDialogs('trunk');
    const running = y.test.commands.get('leanscope.compareRevisions')();
    await waitFor('the head sample to run', () => y.test.lastProgress()?.reports.some((r) => r.message === '[1/1] head Demo/A.lean'), 60000);
    const cancelledAt = Date.now();
    y.test.lastProgress().cancel();
    const out = await running;
    assert.ok(Date.now() - cancelledAt < 20000, 'answered once the sample was stopped');
    assert.equal(out.cancelled, true);
    assert.equal(y.test.log.infos.at(-1), 'leanscope: comparison of trunk with HEAD cancelled; Lean was stopped.');
    assert.deepEqual(y.test.log.errors, []);
  } finally { await y.dispose(); slowWorld.cleanup(); }
});

test('Profile on save through the packaged sidecar: a save captures in heartbeats; a newer save cancels the slow one; a failure keeps the numbers, stale', async () => {
  packagedSidecar();
  const w = makeWorld({ pidfile: true });
  const x = activateExtension({
    workspaceFolders: [w.project],
    settings: { 'leanscope.profile.onSave': true, 'leanscope.profile.onSaveDelayMs': 0, 'leanscope.measure': 'heartbeats', 'leanscope.thresholdHeartbeats': 0 },
  });
  const source = (hb, cost) => `def f : Nat := 1 -- leanscope-fake: heartbeats ${hb}\n\ntheorem t : True := by\n  trivial -- leanscope-fake: cost ${cost}ms\n`;
  try {
    const file = w.file('Demo/Saved.lean');
    fs.writeFileSync(file, source(1000, 1));
    const editor = await x.test.openEditor(file);
    const onSave = x.api.onSave;
    // A save starts a capture (in heartbeats), drawn when it ends.
    await x.test.save(editor.document);
    await waitFor('the first on-save capture', () => onSave.counts.recorded === 1 || onSave.counts.failed > 0, 30000);
    assert.equal(onSave.counts.failed, 0, x.test.log.output.join('\n'));
    assert.equal(x.api.annotations.answerOf(editor.document.uri).measure, 'heartbeats');
    const texts = () => x.test.decorations(editor)[1].items.map((i) => [i.range.start.line, i.renderOptions.after.contentText]);
    assert.deepEqual(texts().filter(([l]) => l === 0).map(([, t]) => t.split(' (')[0]), ['1.00 k hb']);
    assert.equal(x.test.statusItems[0].text.split(' ').slice(-2).join(' '), x.module('format').formatValue(x.api.annotations.answerOf(editor.document.uri).fileNs, 'heartbeats').split(' ').slice(-2).join(' '));
    assert.deepEqual(x.test.log.progress.length, 0, 'no notification for an on-save capture');

    // A slow save, then a newer one while it runs: the first is cancelled
    // (its Lean stopped, nothing written), only the second is drawn.
    const before = w.recordings().length;
    const leans = () => (fs.existsSync(w.pids) ? fs.readFileSync(w.pids, 'utf8').match(/^lean /gm)?.length ?? 0 : 0);
    const leansBefore = leans();
    x.test.edit(editor.document, source(2000, 20000));
    await x.test.save(editor.document);
    await waitFor('the slow capture\'s Lean running', () => onSave.state().running.length === 1 && leans() > leansBefore, 30000);
    assert.match(x.test.statusItems.find((i) => i.id === 'leanscope.onSave').text, /profiling Saved\.lean on save/);
    // While it runs, the edited line is stale.
    assert.ok(x.test.decorations(editor)[6].items.some((i) => i.range.start.line === 0), 'line 1 dimmed while the capture runs');
    x.test.edit(editor.document, source(3000, 1));
    await x.test.save(editor.document);
    await waitFor('the newer capture', () => onSave.counts.recorded === 2 || onSave.counts.failed > 0, 30000);
    assert.equal(onSave.counts.cancelled, 1, x.test.log.output.join('\n'));
    assert.equal(onSave.counts.failed, 0);
    assert.equal(w.recordings().length, before + 1, 'the cancelled capture wrote nothing');
    assert.deepEqual(texts().filter(([l]) => l === 0).map(([, t]) => t.split(' (')[0]), ['3.00 k hb']);
    assert.equal(x.test.decorations(editor)[6].items.length, 0, 'nothing stale');
    assert.equal(x.test.statusItems.find((i) => i.id === 'leanscope.onSave').visible, false);

    // A capture that fails (an unknown directive: the fake exits 70): the
    // previous numbers stay, all stale, and the hover names the error.
    x.test.edit(editor.document, `${source(3000, 1)}-- leanscope-fake: nonsense\n`);
    await x.test.save(editor.document);
    await waitFor('the failed capture', () => onSave.counts.failed === 1 || onSave.counts.recorded === 3, 30000);
    assert.equal(onSave.counts.failed, 1, 'the capture failed');
    const failure = x.api.annotations.failureOf(editor.document.uri);
    assert.ok(failure, 'the failure is kept');
    assert.ok(x.test.decorations(editor)[6].items.some((i) => i.range.start.line === 0), 'all stale');
    assert.match(x.test.hover(editor.document, 0, 3).contents[0].value, /^\*\*stale\*\*: the last capture of this file failed: /);
    assert.match(x.test.statusItems[0].text, /Saved\.lean: capture failed/);

    // Turned off, or in an untrusted workspace: a save captures nothing.
    x.test.settings['leanscope.profile.onSave'] = false;
    await x.test.save(editor.document);
    x.test.settings['leanscope.profile.onSave'] = true;
    x.vscode.workspace.isTrusted = false;
    await x.test.save(editor.document);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(onSave.counts.started, 4);
    assert.deepEqual(onSave.state(), { running: [], waiting: [] });
  } finally { await x.dispose(); w.cleanup(); }
});

test('Headroom through the packaged sidecar: shares in the CodeLens, warnings, Problems entries and the unneeded bump of Demo/Heartbeats.lean', async () => {
  packagedSidecar();
  const w = makeWorld();
  const x = activateExtension({ workspaceFolders: [w.project], settings: { 'leanscope.measure': 'heartbeats' } });
  try {
    const file = w.file('Demo/Heartbeats.lean');
    const editor = await x.test.openEditor(file);
    const result = await x.test.commands.get('leanscope.profileFile')();
    assert.ok(result, `capture failed: ${x.test.log.errors.join(' | ')}\n${x.test.log.output.join('\n')}`);
    const src = fs.readFileSync(file, 'utf8').split('\n');
    const lineOf = (re) => src.findIndex((l) => re.test(l));
    const lenses = x.test.codeLenses(editor.document);
    const lens = (name) => lenses.find((l) => l.command.arguments[0].declaration === `Demo.Heartbeats.${name}`)?.command.title;
    assert.match(lens('needs_bump'), / · 88% of maxHeartbeats 400000$/);
    assert.match(lens('near_default'), / · 85% of maxHeartbeats 200000$/);
    assert.match(lens('in_section'), / · 60% of maxHeartbeats 100000 · instance 90% of synthInstance\.maxHeartbeats 10000$/);
    assert.match(lens('small'), / · 10% of maxHeartbeats 200000$/);
    // The warnings after the lines of the three over 80 %.
    const warnings = x.test.decorations(editor)[7].items.map((i) => [i.range.start.line, i.renderOptions.after.contentText]);
    assert.deepEqual(warnings.map(([l]) => l).sort((a, b) => a - b),
      [lineOf(/^theorem needs_bump/), lineOf(/^theorem near_default/), lineOf(/^theorem in_section/)]);
    // Problems: those three warnings and the hint on the unneeded bump.
    const [collection] = x.test.diagnosticCollections;
    const diags = collection.get(editor.document.uri);
    assert.deepEqual(diags.map((d) => [d.code, d.range.start.line]).sort((a, b) => a[1] - b[1]), [
      ['headroom', lineOf(/^theorem needs_bump/)], ['bumpNotNeeded', lineOf(/^set_option maxHeartbeats 800000 in/)],
      ['headroom', lineOf(/^theorem near_default/)], ['headroom', lineOf(/^theorem in_section/)],
    ]);
    // The threshold and the Problems setting take effect at once.
    x.test.setSetting('leanscope.headroom.warnPercent', 86);
    assert.deepEqual(collection.get(editor.document.uri).filter((d) => d.code === 'headroom').length, 2);
    assert.equal(x.test.decorations(editor)[7].items.length, 2);
    x.test.setSetting('leanscope.headroom.problems', false);
    assert.deepEqual(collection.get(editor.document.uri).map((d) => d.code), ['bumpNotNeeded']);
    // 15 % of the default is not under 10 %: asked again, the sidecar flags nothing.
    x.test.setSetting('leanscope.headroom.bumpNotNeededBelowPercent', 10);
    await waitFor('no unneeded bump under 10 %', () => collection.get(editor.document.uri).length === 0);
    x.test.setSetting('leanscope.headroom.bumpNotNeededBelowPercent', 50);
    await waitFor('the unneeded bump again', () => collection.get(editor.document.uri).length === 1);
    x.test.setSetting('leanscope.headroom.bumpHints', false);
    assert.deepEqual(collection.get(editor.document.uri), []);
    await x.test.commands.get('leanscope.clear')();
    assert.equal(collection.entries.size, 0, 'Clear removes the Problems entries');
  } finally { await x.dispose(); w.cleanup(); }
});

test('Profile File with repeats in heartbeats: the medians over the runs in heartbeats, as for time', async () => {
  packagedSidecar();
  const w = makeWorld();
  const x = activateExtension({
    workspaceFolders: [w.project],
    settings: { 'leanscope.measure': 'heartbeats', 'leanscope.thresholdHeartbeats': 0, 'leanscope.profile.repeat': 3, 'leanscope.profile.warmup': 0 },
  });
  try {
    const file = w.file('Demo/Runs.lean');
    // Run k uses count k of the list: 1000, 3000, 2000; the median is 2000.
    fs.writeFileSync(file, `-- leanscope-fake: run-log ${path.join(w.dir, 'runs.log')}\ndef f : Nat := 1 -- leanscope-fake: heartbeats-runs 1000,3000,2000\n`);
    const editor = await x.test.openEditor(file);
    const out = await x.test.commands.get('leanscope.profileFile')();
    assert.ok(out?.session, `capture failed: ${x.test.log.errors.join(' | ')}\n${x.test.log.output.join('\n')}`);
    const answer = x.api.annotations.answerOf(editor.document.uri);
    assert.equal(answer.measure, 'heartbeats');
    assert.equal(answer.runs, 3);
    const lens = x.test.codeLenses(editor.document).map((l) => l.command.title);
    assert.ok(lens.some((t) => t.startsWith('median 2.00 k hb (3 runs) · self ')), lens.join(' | '));
    const texts = x.test.decorations(editor)[1].items.map((i) => i.renderOptions.after.contentText);
    assert.ok(texts.some((t) => t.startsWith('median 2.00 k hb')), texts.join(' | '));
    assert.match(x.test.hover(editor.document, 1).contents[0].value, /inclusive: median of 3 runs · min–max 1\.00 k hb–3\.00 k hb/);
    assert.match(x.test.statusItems[0].text, /Runs\.lean median .* hb \(3 runs\)/);
  } finally { await x.dispose(); w.cleanup(); }
});
