// The extension in a real VS Code (code-server 4.100.3 = VS Code 1.100.3),
// installed from the packaged VSIX and driven in Chromium the way a user
// works: the palette, the editor, notifications, the status bar and the
// viewer's webview (two iframes deep). Screenshots go to tests/vscode/out/.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createVscodeStub, extensionModule } from '../extension/helpers.mjs';
import { REPO, makeWorkspace, openVsCode, leanscope, leanscopeBin, cleanupShared, STEP_MS, leanExtensionMissing, outputChannel } from './harness.mjs';
import { fakeLean } from '../extension/helpers.mjs';

// The editor's own formatting of times (the rule of the CLI and the viewer
// too), to compare what is shown with the CLI's numbers of the same recording.
const { formatNs, formatValue } = extensionModule('format', createVscodeStub({}).vscode);

const open = [];
after(async () => {
  for (const o of open.splice(0)) await o();
  cleanupShared();
});
async function start(w, options) {
  const vs = await openVsCode(w, options);
  open.push(async () => { await vs.close(); w.cleanup(); });
  return vs;
}

/** The viewer's state: what it lists and selected, and whether its
 * timeline drew anything (some pixel differs from the first). */
async function viewerState(frame) {
  return frame.evaluate(() => {
    const c = document.getElementById('timeline');
    let drawn = false;
    if (c && c.width && c.height) {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 4; i < d.length && !drawn; i += 4) {
        if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) drawn = true;
      }
    }
    const rows = (sel) => [...document.querySelectorAll(sel)].map((li) => ({ ...li.dataset, selected: li.classList.contains('selected') }));
    return {
      banner: document.getElementById('banner').hidden ? '' : document.getElementById('banner').textContent,
      title: document.getElementById('file-title').textContent,
      declarations: rows('#list li[data-kind="declaration"]'),
      folder: rows('#folder-list li'),
      diff: rows('#list li[data-kind="diff"]'),
      sourceLines: document.querySelectorAll('#source-lines > *').length,
      selectedTitle: document.querySelector('#details h3')?.textContent ?? null,
      timelineDrawn: drawn,
      // Nothing cut off sideways: the page is as wide as the webview.
      overflowX: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      filePanelRight: document.getElementById('file-panel').getBoundingClientRect().right,
      width: document.documentElement.clientWidth,
    };
  });
}

async function waitViewer(vs, frame, what, pred) {
  const deadline = Date.now() + STEP_MS;
  let s;
  for (;;) {
    try {
      s = await viewerState(frame);
    } catch (e) {
      // The panel was replaced (a new target): read the new one.
      if (!/detached/.test(e.message) || Date.now() > deadline) throw e;
      frame = await vs.viewerFrame();
      continue;
    }
    if (pred(s)) return s;
    if (Date.now() > deadline) throw new Error(`viewer: timed out waiting for ${what}; it shows ${JSON.stringify(s).slice(0, 2000)}`);
    await frame.waitForTimeout(100);
  }
}

test('Profile File, annotations, hover, viewer ↔ editor, Profile Folder, Compare with Baseline', async (ctx) => {
  const w = makeWorkspace({ delayScale: '1' });
  const vs = await start(w);
  const { page } = vs;
  // Each step leaves a screenshot of what was on screen when it failed.
  let failures = 0;
  const t = {
    test: (name, fn) => ctx.test(name, async () => {
      try { await fn(); } catch (e) { await vs.screenshot(`FAILED-${++failures}`).catch(() => {}); throw e; }
    }),
  };

  await t.test('the commands are in the palette', async () => {
    const titles = await vs.paletteEntries('leanscope:', 'leanscope: Profile Folder');
    for (const c of ['Profile File', 'Profile Folder', 'Profile Project', 'Open Recording…', 'Show Viewer', 'Show Hot Spots', 'Compare with Baseline…', 'Compare Revisions…']) {
      assert.ok(titles.some((x) => x.endsWith(c)), `${c} in ${titles.join(', ')}`);
    }
    // Profile Folder without any editor open: it asks for the folder.
    assert.ok(titles.some((x) => x.endsWith('Profile Folder')), 'Profile Folder without a .lean editor');
  });

  let recording;
  await t.test('Profile File: progress, status bar, line times, CodeLens equal the recording', async () => {
    await vs.openFile('Demo/Clean.lean');
    await vs.watchNotifications();
    await vs.run('leanscope: Profile File');
    const status = await vs.waitForStatus(/Clean\.lean \d/);
    const seen = await vs.seenNotifications();
    assert.ok(seen.some((s) => /leanscope: profiling Clean\.lean/.test(s)), `progress shown: ${JSON.stringify(seen)}`);
    [recording] = w.recordings();
    assert.ok(recording, 'a recording was written');
    const file = JSON.parse(leanscope('query', recording, '--kind', 'file', '--json')).rows[0];
    const decls = JSON.parse(leanscope('query', recording, '--json', '--all')).rows;
    const info = leanscope('info', recording);
    const elapsed = /file time\s+([\d.]+) ms elapsed/.exec(info);
    assert.ok(elapsed, info);
    assert.match(status, new RegExp(`Clean\\.lean ${formatNs(file.durationMs * 1e6).replace('.', '\\.')}`));
    // One CodeLens per declaration with recorded time, as the CLI reports it.
    await page.waitForFunction((n) => document.querySelectorAll('.monaco-editor .codelens-decoration').length >= n, decls.length, { timeout: STEP_MS });
    const lenses = await vs.codeLenses();
    assert.equal(lenses.length, decls.length, lenses.join(' | '));
    for (const d of decls) {
      const total = d.durationMs * 1e6;
      const head = `${formatNs(total)} · self ${formatValue(d.selfMs * 1e6, 'time', total)} · `;
      // The share names its denominator: Lean's elapsed time for the file, imports included.
      assert.ok(lenses.some((l) => l.startsWith(head) && / of file wall time$/.test(l)), `${d.name}: ${head}… in ${lenses.join(' | ')}`);
    }
    // Line times after the lines: `double` is one line, whose time is the
    // declaration's.
    const texts = await vs.lineTexts();
    const double = decls.find((d) => d.name === 'Demo.Clean.double');
    const share = Math.round((double.durationMs / file.durationMs) * 100);
    assert.equal(texts[double.line - 1], `${formatNs(double.durationMs * 1e6)} (${share}%)`, JSON.stringify(texts));
    assert.ok(Object.keys(texts).length >= decls.length, `a time on each timed line: ${JSON.stringify(texts)}`);
    await vs.screenshot('profile-file');
  });

  await t.test('a hover with the line\'s operations', async () => {
    await vs.goToLine(16);
    await vs.run('Show or Focus Hover');
    const hover = page.locator('.monaco-hover .hover-contents', { hasText: 'leanscope' }).first();
    await hover.waitFor({ timeout: STEP_MS });
    await vs.screenshot('hover');
    const text = await hover.innerText();
    assert.match(text, /leanscope · line 16: .* inclusive · self /);
    const heads = await page.locator('.monaco-hover table th').allInnerTexts();
    assert.deepEqual(heads.map((h) => h.replace(/\s+/g, ' ').trim()), ['operation', 'class · kind', 'inclusive', 'self', 'thread', 'range']);
    // `self` and `thread` are apart on screen.
    // The ink of the words, without the spaces around them.
    const boxes = await page.locator('.monaco-hover table th').evaluateAll((ths) => ths.map((th) => {
      const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
      let node; let box = null;
      while ((node = walker.nextNode())) {
        const t = node.textContent;
        const start = t.search(/\S/);
        if (start < 0) continue;
        const end = t.length - (t.length - t.trimEnd().length);
        const r = document.createRange(); r.setStart(node, start); r.setEnd(node, end);
        box = r.getBoundingClientRect();
      }
      return box ? { left: box.left, right: box.right } : null;
    }));
    assert.ok(boxes[4].left - boxes[3].right >= 6, `gap between self and thread: ${JSON.stringify(boxes.slice(3, 5))}`);
    // The columns in plain words under the table.
    assert.match(text, /inherited \(from the step around it\)/);
    await page.keyboard.press('Escape');
    // The file's first line: where its time went, as `leanscope info` accounts it.
    await vs.goToLine(1);
    await vs.run('Show or Focus Hover');
    const first = page.locator('.monaco-hover .hover-contents', { hasText: 'where the file' }).first();
    await first.waitFor({ timeout: STEP_MS });
    const info = leanscope('info', recording);
    const imports = /imports ([\d.]+ m?s)/.exec(info);
    assert.ok(imports, info);
    assert.match(await first.innerText(), new RegExp(`where the file's [\\d.]+ ms of wall time \\(Lean's elapsed time\\) went: imports ${imports[1].replace('.', '\\.')}`));
    await vs.screenshot('hover-first-line');
    await page.keyboard.press('Escape');
  });

  let frame;
  await t.test('Show Viewer: the recording\'s declarations and timeline in the webview', async () => {
    await vs.run('leanscope: Show Viewer');
    frame = await vs.viewerFrame();
    const decls = JSON.parse(leanscope('query', recording, '--json', '--all')).rows;
    const s = await waitViewer(vs, frame, 'declarations and a drawn timeline',
      (x) => x.declarations.length === decls.length && x.sourceLines > 0 && x.timelineDrawn);
    assert.equal(s.banner, '', 'no error in the page');
    assert.deepEqual(s.declarations.map((d) => d.name).sort(), decls.map((d) => d.name).sort());
    // Half the window: nothing cut off sideways.
    assert.ok(s.overflowX <= 0, `page scrolls sideways by ${s.overflowX}px`);
    assert.ok(s.filePanelRight <= s.width + 1, `file panel ends at ${s.filePanelRight} of ${s.width}`);
    await vs.screenshot('viewer-recording');
  });

  await t.test('a click in the viewer moves the editor\'s selection; the cursor selects in the viewer', async () => {
    const decls = JSON.parse(leanscope('query', recording, '--json', '--all')).rows;
    const target = decls.find((d) => d.name === 'Demo.Clean.cases_example');
    await frame.locator('#list li[data-kind="declaration"][data-name="Demo.Clean.cases_example"]').click();
    // The declaration selected in the editor: the cursor at its end.
    await page.waitForFunction((l) => /selected/.test(document.getElementById('status.editor.selection')?.innerText || '')
      && (document.getElementById('status.editor.selection')?.innerText || '').includes(`Ln ${l},`),
    target.endLine, { timeout: STEP_MS });
    // The cursor into another declaration: the viewer selects it.
    const other = decls.find((d) => d.name === 'Demo.Clean.double_add');
    await page.locator('.monaco-editor .view-lines').first().click();
    await vs.goToLine(other.line + 1);
    const s = await waitViewer(vs, frame, 'double_add selected', (x) => (x.selectedTitle || '').endsWith(` ${other.name}`));
    assert.equal(s.selectedTitle, `theorem ${other.name}`);
    await vs.screenshot('viewer-selection');
  });

  await t.test('Show Hot Spots: the file\'s bottom-up table in the webview, a key\'s callers and callees', async () => {
    await vs.run('leanscope: Show Hot Spots');
    frame = await vs.viewerFrame();
    const top = JSON.parse(leanscope('top', recording, '--json', '-', '--limit', '1000'));
    const omega = top.rows.find((r) => r.key.label === 'Elab.step omega');
    assert.ok(omega, `omega in ${top.rows.map((r) => r.key.label).join(', ')}`);
    await frame.locator('#tab-hotspots[aria-selected="true"]').waitFor({ timeout: STEP_MS });
    const row = frame.locator('#list li[data-kind="hotspot"][data-label="Elab.step omega"]');
    await row.waitFor({ timeout: STEP_MS });
    // The webview's numbers are the CLI's: one model.
    assert.equal(Number(await row.getAttribute('data-self-ns')), omega.self);
    assert.equal(Number(await row.getAttribute('data-total-ns')), omega.total);
    await row.click();
    await frame.locator('.sandwich-title', { hasText: 'Callers' }).waitFor({ timeout: STEP_MS });
    await frame.locator('.sandwich-title', { hasText: 'Callees' }).waitFor({ timeout: STEP_MS });
    await vs.screenshot('viewer-hot-spots');
    // The keyboard back to the editor: the commands that follow are typed into the palette.
    await page.locator('.monaco-editor .view-lines').first().click();
  });

  let firstSession;
  await t.test('Profile Folder: per-file progress, the session in the viewer', async () => {
    await vs.watchNotifications();
    await vs.openFile('Demo/Clean.lean');
    await vs.run('leanscope: Profile Folder');
    const status = await vs.waitForStatus(/Demo \d+\/\d+ files/);
    const seen = await vs.seenNotifications();
    [firstSession] = w.sessions();
    const manifest = JSON.parse(fs.readFileSync(path.join(firstSession, 'session.json'), 'utf8'));
    const files = manifest.files.map((f) => f.path);
    assert.ok(files.length >= 5, JSON.stringify(files));
    // Each file as it went, `k/n path`.
    const perFile = seen.filter((x) => /\d+\/\d+ Demo\//.test(x));
    assert.ok(perFile.length >= 2, `per-file progress: ${JSON.stringify(seen)}`);
    const failed = manifest.files.filter((f) => f.status === 'failed').length;
    const done = manifest.files.filter((f) => f.status !== 'failed' && f.status !== 'pending').length;
    assert.match(status, new RegExp(`Demo ${done}/${files.length} files${failed ? ` \\(${failed} failed\\)` : ''}`));
    // The session in the viewer: its files, and one opened with its timeline.
    frame = await vs.viewerFrame();
    let s = await waitViewer(vs, frame, 'the session\'s files', (x) => x.folder.length > 0 && x.banner === '');
    const clean = s.folder.find((r) => r.path === 'Demo' || r.path.endsWith('Clean.lean'));
    assert.ok(clean, JSON.stringify(s.folder));
    if (clean.path === 'Demo') await frame.locator('#folder-list li[data-path="Demo"]').click();
    await frame.locator('#folder-list li[data-path="Demo/Clean.lean"]').click();
    const cleanRec = path.join(firstSession, manifest.files.find((f) => f.path === 'Demo/Clean.lean').recording);
    const decls = JSON.parse(leanscope('query', cleanRec, '--json', '--all')).rows;
    s = await waitViewer(vs, frame, 'Clean.lean of the session', (x) => x.declarations.length === decls.length && x.timelineDrawn);
    assert.equal(s.banner, '');
    assert.deepEqual(s.declarations.map((d) => d.name).sort(), decls.map((d) => d.name).sort());
    await vs.screenshot('viewer-session');
  });

  await t.test('an error loading a session\'s file is shown in the page and in the leanscope output channel', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(firstSession, 'session.json'), 'utf8'));
    const entry = manifest.files.find((f) => f.path === 'Demo/Async.lean');
    // Taken away for this test only: the session is compared later, and a
    // committed file without its recording is (rightly) an error there.
    const recording = path.join(firstSession, entry.recording);
    const bytes = fs.readFileSync(recording);
    fs.rmSync(recording);
    try {
      await frame.locator('#folder-list li[data-path="Demo/Async.lean"]').click();
      const s = await waitViewer(vs, frame, 'the error', (x) => /Cannot open the recording/.test(x.banner));
      assert.match(s.banner, /HTTP 404/);
      await vs.run('Output: Show Output Channels');
      const channel = page.locator('.quick-input-list .monaco-list-row', { hasText: /^leanscope$/ }).first();
      await channel.waitFor({ timeout: STEP_MS });
      await channel.click();
      // The channel's lines as drawn (a long line wraps into several).
      await page.waitForFunction((file) => {
        const text = [...document.querySelectorAll('.output-view .view-lines .view-line')]
          .map((l) => l.textContent).join('').replace(/\u00a0/g, ' ');
        return /viewer: Cannot open the recording: cannot fetch https:\/\/\S*vscode-resource/.test(text)
          && text.includes(`${file}: HTTP 404`);
      }, path.basename(entry.recording), { timeout: STEP_MS });
      await vs.screenshot('output-channel');
    } finally {
      fs.writeFileSync(recording, bytes);
    }
  });

  let secondSession;
  await t.test('Profile Folder from the palette without a Lean editor asks for the folder', async () => {
    await vs.run('View: Close All Editors');
    await page.locator('.tabs-container .tab').first().waitFor({ state: 'detached', timeout: STEP_MS }).catch(() => {});
    await vs.run('leanscope: Profile Folder');
    await vs.screenshot('profile-folder-dialog');
    await vs.answerFolderDialog(w.file('Demo'), 'Profile Folder');
    const deadline = Date.now() + STEP_MS;
    while (w.sessions().length < 2 && Date.now() < deadline) await page.waitForTimeout(100);
    secondSession = w.sessions().find((s) => s !== firstSession);
    assert.ok(secondSession, 'a second session was written');
    // (The session's directory is made before its manifest is written.)
    const manifest = () => {
      try { return JSON.parse(fs.readFileSync(path.join(secondSession, 'session.json'), 'utf8')); } catch { return { status: 'running' }; }
    };
    while (manifest().status === 'running' && Date.now() < deadline) await page.waitForTimeout(100);
    assert.equal(manifest().status, JSON.parse(fs.readFileSync(path.join(firstSession, 'session.json'), 'utf8')).status);
    // The viewer shows the new session.
    frame = await vs.viewerFrame();
    await waitViewer(vs, frame, 'the second session', () => true);
    assert.match(await page.locator('.tabs-container .tab.active').innerText(), new RegExp(path.basename(secondSession)));
  });

  await t.test('Compare with Baseline: the Diff tab\'s rows', async () => {
    // Earlier notifications out of the way: this one must be seen.
    await vs.run('Notifications: Clear All Notifications');
    await vs.run('leanscope: Compare with Baseline…');
    await vs.answerFileDialog(path.join(firstSession, 'session.json'));
    const summary = await vs.waitForNotification(/\d+ regressions?, \d+ improvements?/);
    const json = path.join(w.dir, 'compare.json');
    const settings = ['--metric', 'total_ns', '--json', json];
    spawnCompare(firstSession, secondSession, settings);
    const expected = JSON.parse(fs.readFileSync(json, 'utf8'));
    const rows = expected.matched.length + expected.missing.length + expected.new.length;
    const regressions = expected.matched.filter((r) => r.status === 'regression').length;
    assert.match(summary, new RegExp(`^leanscope: ${regressions} regression`));
    frame = await vs.viewerFrame();
    const s = await waitViewer(vs, frame, 'the Diff tab\'s rows', (x) => x.diff.length === Math.min(rows, 500));
    const names = (list) => list.map((r) => r.key.name).sort();
    assert.deepEqual(s.diff.map((r) => r.name).sort(),
      [...names(expected.matched), ...names(expected.missing), ...names(expected.new)].sort());
    assert.equal(s.diff.filter((r) => r.status === 'regression').length, regressions);
    await vs.screenshot('viewer-diff');
  });
});

/** `leanscope compare` (exit 1 on a regression: both answers are fine here). */
function spawnCompare(baseline, candidate, extra) {
  const r = spawnSync(leanscopeBin(), ['compare', baseline, candidate, ...extra], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`leanscope compare: ${r.status}: ${r.stderr}`);
}

test('Profile File with leanscope.profile.repeat: medians over the runs in the editor', async () => {
  const w = makeWorkspace();
  const vs = await start(w, { settings: { 'leanscope.profile.repeat': 3, 'leanscope.profile.warmup': 0 } });
  const { page } = vs;
  await vs.openFile('Demo/Clean.lean');
  await vs.run('leanscope: Profile File');
  const status = await vs.waitForStatus(/Clean\.lean median .* \(3 runs\)/);
  // A session of that one file, its three runs each a recording.
  const [session] = w.sessions();
  assert.ok(session, 'a session was written');
  const manifest = JSON.parse(fs.readFileSync(path.join(session, 'session.json'), 'utf8'));
  assert.deepEqual([manifest.target.kind, manifest.repeats.runs, manifest.files.length], ['file', 3, 1]);
  assert.equal(manifest.files[0].runs.length, 3);
  // The CodeLens of each declaration: the CLI's median over the runs.
  const decls = JSON.parse(leanscope('query', session, '--json', '--all')).rows;
  const file = JSON.parse(leanscope('query', session, '--kind', 'file', '--json')).rows[0];
  assert.match(status, new RegExp(`Clean\\.lean median ${formatNs(file.durationSpread.median * 1e6).replace('.', '\\.')} \\(3 runs\\)`));
  await page.waitForFunction((n) => document.querySelectorAll('.monaco-editor .codelens-decoration').length >= n, decls.length, { timeout: STEP_MS });
  const lenses = await vs.codeLenses();
  for (const d of decls) {
    const head = `median ${formatNs(d.durationSpread.median * 1e6)} (3 runs) · self `;
    assert.ok(lenses.some((l) => l.startsWith(head)), `${d.name}: ${head}… in ${lenses.join(' | ')}`);
  }
  // The line text says median; the hover gives the spread and whose operations.
  const texts = await vs.lineTexts();
  assert.ok(Object.values(texts).length > 0 && Object.values(texts).every((t) => t.startsWith('median ')), JSON.stringify(texts));
  await vs.goToLine(16);
  await vs.run('Show or Focus Hover');
  const hover = page.locator('.monaco-hover .hover-contents', { hasText: 'leanscope' }).first();
  await hover.waitFor({ timeout: STEP_MS });
  await vs.screenshot('hover-repeated');
  const text = await hover.innerText();
  assert.match(text, /leanscope · line 16: .* inclusive · self .* in the median run/);
  assert.match(text, /inclusive: median of 3 runs · min–max /);
  assert.match(text, /Operations of the median run:/);
  await page.keyboard.press('Escape');
});

test('A capture Lean did not finish: the partial notice, the unfinished declaration with its memory in the hover, the viewer\'s unfinished event and memory lane', async () => {
  // Four theorems of 300 ms, 200 ms, 5 s and 100 ms, the third holding 64 MiB
  // (fixtures/runaway/Blow.lean), and a timeout of 2 s.
  const w = makeWorkspace();
  fs.copyFileSync(path.join(REPO, 'fixtures/runaway/Blow.lean'), w.file('Demo/Blow.lean'));
  const vs = await start(w, { settings: { 'leanscope.timeoutSeconds': 2 } });
  const { page } = vs;
  await vs.openFile('Demo/Blow.lean');
  await vs.run('leanscope: Profile File');
  await vs.waitForStatus(/Blow\.lean \d/);
  const notice = await vs.waitForNotification(/the recording of Blow\.lean is partial/);
  assert.match(notice, /Lean did not finish within 2 s and was stopped.*third was running \([\d.]+ m?s, unfinished\)/);
  const [recording] = w.recordings();
  const info = JSON.parse(leanscope('info', '--json', recording));
  assert.equal(info.capture.status, 'stopped');
  assert.equal(info.stop.inFlight.declaration, 'third');
  // The CodeLens of the unfinished declaration says so; the fourth has none (never reached).
  await page.waitForFunction(() => document.querySelectorAll('.monaco-editor .codelens-decoration').length >= 3, null, { timeout: STEP_MS });
  const lenses = await vs.codeLenses();
  assert.equal(lenses.length, 3, lenses.join(' | '));
  assert.ok(lenses.some((l) => / · unfinished$/.test(l)), lenses.join(' | '));
  // Its hover: the memory it grew and that Lean was stopped while running it.
  await vs.goToLine(3);
  await vs.run('Show or Focus Hover');
  const hover = page.locator('.monaco-hover .hover-contents', { hasText: 'unfinished' }).first();
  await hover.waitFor({ timeout: STEP_MS });
  const text = await hover.innerText();
  assert.match(text, /third · memory: \+\d+(\.\d)? MiB resident while it ran/);
  assert.match(text, /unfinished: Lean was stopped while running it/);
  await vs.screenshot('hover-partial');
  await page.keyboard.press('Escape');
  // The viewer: the open event drawn unfinished, and the memory lane with its hover.
  await vs.run('leanscope: Show Viewer');
  const frame = await vs.viewerFrame();
  await frame.waitForFunction(() => window.__leanscope.timeline && window.__leanscope.timeline.unfinished !== null, null, { timeout: STEP_MS });
  const u = await frame.evaluate(() => window.__leanscope.timeline.unfinished);
  assert.equal(u.event, info.stop.inFlight.event);
  assert.equal(u.endNs - u.startNs, info.stop.inFlight.runningNs);
  assert.match(await frame.textContent('#file-facts'), /partial: Lean did not finish within 2 s and was stopped; unfinished: third/);
  assert.equal(await frame.isHidden('#memory-wrap'), false);
  const lane = await frame.evaluate(() => window.__leanscope.memoryLane.shown);
  assert.equal(lane.peakBytes, info.memory.peakBytes);
  const box = await frame.$eval('#memory-lane', (c) => ({ w: c.clientWidth }));
  await frame.hover('#memory-lane', { position: { x: box.w - 3, y: 20 } });
  await frame.waitForSelector('#memory-tip:not([hidden])', { timeout: STEP_MS });
  assert.match(await frame.textContent('#memory-tip'), /MiB at [\d.]+ (s|ms): running third \(unfinished: Lean was stopped\)/);
  await vs.screenshot('viewer-partial-memory');
});

test('Cancel stops Lean\'s process group', async () => {
  const w = makeWorkspace({ delayScale: '40', pidfile: true });
  const vs = await start(w);
  await vs.openFile('Demo/Clean.lean');
  await vs.run('leanscope: Profile Folder');
  const cancel = vs.page.locator('.notification-toast', { hasText: 'leanscope: profiling' }).locator('.monaco-button', { hasText: 'Cancel' });
  await cancel.waitFor({ timeout: STEP_MS });
  // Lean is running: its pid is in the fake's pidfile and alive.
  const deadline = Date.now() + STEP_MS;
  let pids = [];
  while (Date.now() < deadline) {
    // The fake writes `lake PID` / `lean PID` per run.
    pids = fs.existsSync(w.pids) ? [...fs.readFileSync(w.pids, 'utf8').matchAll(/^\w+ (\d+)$/gm)].map((m) => Number(m[1])) : [];
    if (pids.length && pids.some(alive)) break;
    await vs.page.waitForTimeout(50);
  }
  assert.ok(pids.some(alive), 'a fake Lean runs');
  await vs.screenshot('cancel-running');
  await cancel.click();
  const status = await vs.waitForStatus(/\(cancelled\)/);
  assert.match(status, /Demo \d+\/\d+ files.*\(cancelled\)/);
  // The sidecar answers Cancel at once and kills the process group; the
  // processes are gone a moment later (the stand-in tests allow 5 s too).
  const gone = Date.now() + 5000;
  while (pids.some(alive) && Date.now() < gone) await vs.page.waitForTimeout(50);
  for (const pid of pids) assert.equal(alive(pid), false, `Lean ${pid} was stopped`);
  const [session] = w.sessions();
  assert.equal(JSON.parse(fs.readFileSync(path.join(session, 'session.json'), 'utf8')).status, 'cancelled');
  await vs.screenshot('cancelled');
});

test('Compare Revisions: the upstream offered, the run\'s progress, the Diff tab of both sides', async () => {
  const w = makeWorkspace();
  // The project as a Git repository: `feature` (checked out, upstream
  // `trunk`) makes `slow` cost 130 ms instead of 30. The fake finds its
  // toolchains.json in its toolchain folder: the sandbox clears the
  // environment.
  fs.mkdirSync(path.join(w.dir, 'fixtures/lean-output'), { recursive: true });
  fs.copyFileSync(path.join(REPO, 'fixtures/lean-output/toolchains.json'), path.join(w.dir, 'fixtures/lean-output/toolchains.json'));
  const git = (...a) => {
    const r = spawnSync('git', ['-C', w.project, ...a], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  };
  const slow = (ms) => `theorem slow : True := by\n  trivial -- leanscope-fake: cost ${ms}ms\n`;
  fs.writeFileSync(w.file('Demo/Rev.lean'), slow(30));
  git('init', '-q', '-b', 'trunk');
  git('config', 'user.email', 'test@example.invalid');
  git('config', 'user.name', 'test');
  git('add', '-A');
  git('commit', '-qm', 'base');
  git('checkout', '-qb', 'feature');
  git('branch', '-q', '--set-upstream-to', 'trunk');
  fs.writeFileSync(w.file('Demo/Rev.lean'), slow(130));
  git('commit', '-qam', 'feature');
  const vs = await start(w);
  const { page } = vs;
  await vs.watchNotifications();
  // Once the extension host has read the manifest.
  await vs.paletteEntries('leanscope:', 'leanscope: Compare Revisions…');
  await vs.run('leanscope: Compare Revisions…');
  const input = page.locator('.quick-input-widget input');
  await page.waitForFunction(() => document.querySelector('.quick-input-widget input')?.value === 'trunk', null, { timeout: STEP_MS });
  assert.equal(await input.inputValue(), 'trunk', 'the upstream of the current branch is offered');
  await vs.screenshot('compare-revisions-input');
  await page.keyboard.press('Enter');
  const done = await vs.waitForNotification(/trunk → HEAD: 1 file compared/);
  assert.match(done, /declarations: 1 regression, 0 improvements, 0 new, 0 missing/);
  const seen = await vs.seenNotifications();
  assert.ok(seen.some((n) => n.includes('[1/1] head Demo/Rev.lean')), seen.join(' | '));
  const frame = await vs.viewerFrame();
  const v = await waitViewer(vs, frame, 'the Diff tab of the two sides', (x) => x.diff.length === 1);
  assert.equal(v.diff[0].name, 'slow');
  assert.equal(v.diff[0].status, 'regression');
  assert.equal(Number(v.diff[0].delta), 100e6);
  await vs.screenshot('compare-revisions-diff');
});

/** A process that still runs: a zombie (killed, not yet reaped by
 * whoever adopted it) does not. */
function alive(pid) {
  try { process.kill(pid, 0); } catch { return false; }
  try { return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z'; } catch { return false; }
}

test('Restricted Mode: no Profile commands, a hint that trust is needed; the viewing commands are listed', async () => {
  const w = makeWorkspace();
  // Profile on save turned on (in the Machine settings, which Restricted
  // Mode does not ignore): a save still captures nothing.
  const vs = await start(w, { trusted: false, settings: { 'leanscope.profile.onSave': true, 'leanscope.profile.onSaveDelayMs': 0 } });
  await vs.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: STEP_MS });
  const hint = await vs.waitForStatus(/leanscope: trust the workspace to profile/);
  assert.match(hint, /trust the workspace to profile/);
  const titles = await vs.paletteEntries('leanscope:', 'leanscope: Show Viewer');
  assert.ok(titles.some((x) => x.endsWith('Show Viewer')), titles.join(', '));
  for (const c of ['Profile File', 'Profile Folder', 'Profile Project']) {
    assert.ok(!titles.some((x) => x.endsWith(c)), `${c} hidden in Restricted Mode: ${titles.join(', ')}`);
  }
  await vs.openFile('Demo/Clean.lean');
  await vs.page.locator('.monaco-editor .view-lines').first().click();
  await vs.typeAtEnd(1, ' ');
  await vs.page.keyboard.press('Control+S');
  await vs.page.waitForFunction(() => !document.querySelector('.tabs-container .tab.dirty'), null, { timeout: STEP_MS });
  await vs.page.waitForTimeout(3000);
  assert.deepEqual(w.recordings(), [], 'no capture on save in Restricted Mode');
  assert.doesNotMatch(await vs.statusBar(), /profiling Clean\.lean on save/);
  await vs.screenshot('restricted');
});

test('Profile on save in heartbeats: a save captures; a newer save cancels the slow one; edited lines dimmed; the heartbeat CodeLens', async (ctx) => {
  const w = makeWorkspace({ pidfile: true });
  // `f` uses 2000 heartbeats, `t` 3000 and costs 8 ms: a `0` typed after
  // `f`'s makes it 20000, `00000` after `t`'s cost 800 s (far longer than
  // the whole test: that capture can only end by being cancelled); then
  // another `0` makes `f` 200000, and `t` is fast again.
  fs.writeFileSync(w.file('Demo/Saved.lean'), 'def f : Nat := 1 -- leanscope-fake: heartbeats 2000\n\n'
    + 'theorem t : True := by -- leanscope-fake: heartbeats 3000\n  trivial -- leanscope-fake: cost 8ms\n');
  const vs = await start(w, {
    settings: { 'leanscope.profile.onSave': true, 'leanscope.profile.onSaveDelayMs': 200, 'leanscope.measure': 'heartbeats', 'leanscope.thresholdHeartbeats': 0 },
  });
  const { page } = vs;
  const hb = (n) => formatValue(n, 'heartbeats');
  const lineOf = async (line) => (await vs.lineDecorations())[line] ?? [];
  const waitLine = async (line, what, pred) => {
    const deadline = Date.now() + STEP_MS;
    for (;;) {
      const d = await lineOf(line);
      if (pred(d)) return d;
      if (Date.now() > deadline) throw new Error(`line ${line + 1}: timed out waiting for ${what}; it shows ${JSON.stringify(d)}`);
      await page.waitForTimeout(100);
    }
  };
  await vs.openFile('Demo/Saved.lean');
  // Once the extension is active (it registers its commands on activation).
  await vs.paletteEntries('leanscope:', 'leanscope: Profile File');
  await page.locator('.monaco-editor .view-lines').first().click();

  await ctx.test('a save starts a capture; the CodeLens and line text in heartbeats', async () => {
    await vs.typeAtEnd(2, ' ');
    await page.keyboard.press('Control+S');
    await vs.waitForStatus(/Saved\.lean \d[\d.]* [kMG]? ?hb/);
    await waitLine(0, 'f in heartbeats', (d) => d.some((x) => x.text.startsWith(`${hb(2000)} (`) && x.opacity === 1));
    await page.waitForFunction(() => document.querySelectorAll('.monaco-editor .codelens-decoration').length >= 2, null, { timeout: STEP_MS });
    const lenses = await vs.codeLenses();
    assert.ok(lenses.some((l) => l.startsWith(`${hb(2000)} · self ${formatValue(2000, 'heartbeats', 2000)} · `)), lenses.join(' | '));
    assert.ok(lenses.some((l) => l.startsWith(`${hb(3000)} · self `)), lenses.join(' | '));
    assert.equal(w.recordings().length, 1, w.recordingsReport());
    await vs.screenshot('on-save-heartbeats');
  });

  await ctx.test('after an edit the changed line is dimmed; a second save during the slow capture cancels it, and only its annotations appear', async () => {
    // When each step happened, for the assertions' messages: with the
    // output channel's timestamped lines, they tell which save started
    // which capture.
    const at = {};
    const step = (name) => { at[name] = new Date().toISOString(); };
    await vs.typeAtEnd(1, '0');
    step('editedF');
    const stale = await waitLine(0, 'f dimmed', (d) => d.some((x) => x.text.endsWith(' · stale')));
    assert.ok(stale.find((x) => x.text.endsWith(' · stale')).opacity < 0.6, JSON.stringify(stale));
    await page.waitForFunction(() => [...document.querySelectorAll('.monaco-editor .codelens-decoration')].some((l) => l.innerText.startsWith('stale · ')),
      null, { timeout: STEP_MS });
    step('staleShown');
    await vs.screenshot('on-save-stale');
    // `t` slow (800 s), saved: the capture runs.
    await vs.typeAtEnd(4, '');
    for (let i = 0; i < 2; i++) await page.keyboard.press('ArrowLeft');
    await page.keyboard.type('00000');
    // The fake Leans that run on Saved.lean (not `lean --version`, which
    // each capture runs first).
    const leansOnFile = () => [...new Set((fs.existsSync(w.pids) ? [...fs.readFileSync(w.pids, 'utf8').matchAll(/^lean (\d+)$/gm)] : [])
      .map((m) => Number(m[1])))].filter((pid) => {
        try { return alive(pid) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').some((a) => a.endsWith('Saved.lean')); } catch { return false; }
      });
    step('savedSlow');
    await page.keyboard.press('Control+S');
    await vs.waitForStatus(/profiling Saved\.lean on save/);
    const deadline = Date.now() + STEP_MS;
    while (leansOnFile().length === 0 && Date.now() < deadline) await page.waitForTimeout(50);
    const slow = leansOnFile();
    assert.equal(slow.length, 1, `the slow capture's Lean runs: ${slow.join(', ')}`);
    step('leanSeen');
    await vs.screenshot('on-save-running');
    // A newer save: `f` 200000 and `t` fast again.
    await vs.typeAtEnd(1, '0');
    await vs.typeAtEnd(4, '');
    for (let i = 0; i < 2; i++) await page.keyboard.press('ArrowLeft');
    for (let i = 0; i < 5; i++) await page.keyboard.press('Backspace');
    step('savedNewer');
    await page.keyboard.press('Control+S');
    await waitLine(0, 'f of the second capture', (d) => d.some((x) => x.text.startsWith(`${hb(200000)} (`) && x.opacity === 1));
    // The first was cancelled: its Lean was stopped (the sidecar answers
    // once Lean's group is gone, and the newer capture starts after that
    // answer), and it wrote no recording (one from before, one now).
    const why = () => `test steps: ${JSON.stringify(at)}\npidfile:\n${fs.existsSync(w.pids) ? fs.readFileSync(w.pids, 'utf8') : '(none)'}\n${w.recordingsReport()}`;
    assert.equal(alive(slow[0]), false, `the slow capture's Lean ${slow[0]} was stopped\n${why()}`);
    assert.equal(w.recordings().length, 2, why());
    assert.ok(!Object.values(await vs.lineDecorations()).flat().some((x) => x.text.startsWith(`${hb(20000)} (`)), 'nothing of the cancelled capture');
    await page.waitForFunction((t) => [...document.querySelectorAll('.monaco-editor .codelens-decoration')].some((l) => l.innerText.startsWith(t)),
      `${hb(200000)} · self `, { timeout: STEP_MS });
    assert.ok(!(await vs.codeLenses()).some((l) => l.startsWith('stale')), (await vs.codeLenses()).join(' | '));
    await vs.screenshot('on-save-second');
  });
});

test('Headroom in heartbeats: the share in the CodeLens, the warning under set_option maxHeartbeats N in, the hint on an unneeded bump, Problems', async (ctx) => {
  const w = makeWorkspace();
  const vs = await start(w, { settings: { 'leanscope.measure': 'heartbeats' } });
  const { page } = vs;
  await vs.openFile('Demo/Heartbeats.lean');
  await vs.run('leanscope: Profile File');
  await vs.waitForStatus(/Heartbeats\.lean \d[\d.]* [kMG]? ?hb/);
  const src = fs.readFileSync(w.file('Demo/Heartbeats.lean'), 'utf8').split('\n');
  const lineOf = (re) => src.findIndex((l) => re.test(l));
  const needs = lineOf(/^theorem needs_bump/);
  const bump = lineOf(/^set_option maxHeartbeats 800000 in/);
  const inLine = lineOf(/^set_option maxHeartbeats 400000 in/);

  await ctx.test('the CodeLens gives the share of the limit in force', async () => {
    await page.waitForFunction(() => [...document.querySelectorAll('.monaco-editor .codelens-decoration')].some((l) => /of maxHeartbeats/.test(l.innerText)),
      null, { timeout: STEP_MS });
    const lenses = await vs.codeLenses();
    // 350 000 000 heartbeats of `set_option maxHeartbeats 400000 in`: 87.5 %.
    assert.ok(lenses.some((l) => l.startsWith(`${formatValue(350e6, 'heartbeats')} · self `) && l.endsWith(' · 88% of maxHeartbeats 400000')), lenses.join(' | '));
    // 20 000 000 under the default 200000: 10 %.
    assert.ok(lenses.some((l) => l.startsWith(`${formatValue(20e6, 'heartbeats')} · self `) && l.endsWith(' · 10% of maxHeartbeats 200000')), lenses.join(' | '));
    await vs.screenshot('headroom-lenses');
  });

  await ctx.test('a warning after the declaration under set_option maxHeartbeats N in, over 80 %', async () => {
    const deadline = Date.now() + STEP_MS;
    let d;
    for (;;) {
      d = (await vs.lineDecorations())[needs] ?? [];
      if (d.some((x) => x.text.startsWith('⚠ '))) break;
      if (Date.now() > deadline) throw new Error(`no warning on line ${needs + 1}: ${JSON.stringify(d)}`);
      await page.waitForTimeout(100);
    }
    // Short after the line; the hover and Problems say it whole.
    assert.ok(d.some((x) => x.text === '⚠ 88%'), JSON.stringify(d));
    const all = await vs.lineDecorations();
    assert.ok(!(all[lineOf(/^def small/)] ?? []).some((x) => x.text.startsWith('⚠ ')), 'no warning at 10 %');
    await vs.goToLine(needs + 1);
    await vs.run('Show or Focus Hover');
    const hover = page.locator('.monaco-hover .hover-contents', { hasText: 'maxHeartbeats:' }).first();
    await hover.waitFor({ timeout: STEP_MS });
    assert.match(await hover.innerText(), /maxHeartbeats: used 350 M hb = 88% of maxHeartbeats 400000, set by set_option maxHeartbeats 400000 in on line \d+ \(default 200000\)/);
    assert.ok((await hover.innerText()).includes(`over the warning threshold of 80%: 88% of maxHeartbeats 400000 (set_option maxHeartbeats 400000 in on line ${inLine + 1})`), await hover.innerText());
    await vs.screenshot('headroom-warning');
    await page.keyboard.press('Escape');
  });

  await ctx.test('Problems: the warning, and the hint on the unneeded bump (its line faded)', async () => {
    await vs.run('View: Focus Problems');
    const rows = page.locator('.markers-panel .monaco-list-row');
    await page.waitForFunction(() => [...document.querySelectorAll('.markers-panel .monaco-list-row')].some((r) => /is not needed/.test(r.innerText)),
      null, { timeout: STEP_MS });
    const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
    assert.ok(texts.some((t) => /Demo\.Heartbeats\.needs_bump is close to its heartbeat limit: 88% of maxHeartbeats 400000/.test(t)), texts.join(' | '));
    assert.ok(texts.some((t) => /set_option maxHeartbeats 800000 in is not needed: Demo\.Heartbeats\.bump_not_needed used 30\.0 M hb, 15% of the default maxHeartbeats 200000/.test(t)), texts.join(' | '));
    // The option's line is faded as removable code.
    const faded = await page.evaluate((line) => {
      const top = [...document.querySelectorAll('.monaco-editor .margin-view-overlays > div')]
        .find((n) => Number(n.querySelector('.line-numbers')?.textContent) === line + 1)?.style.top;
      return [...document.querySelectorAll('.monaco-editor .view-overlays > div, .monaco-editor .view-lines .view-line')]
        .some((l) => l.style.top === top && l.querySelector('.squiggly-inline-unnecessary, [class*="unnecessary"]'));
    }, bump);
    assert.ok(faded, `line ${bump + 1} faded`);
    await vs.screenshot('headroom-problems');
  });
});

/** Each after-line text and CodeLens of the editor: whether it lies in
 * the editor's visible text area (a long line's time can be scrolled off to
 * the right), and, there, whether it is on top: the element at its box's
 * middle is itself or inside it (nothing drawn over it). */
async function uncovered(page) {
  return page.evaluate(() => {
    const out = { texts: [], lenses: [] };
    const area = document.querySelector('.monaco-editor .lines-content')?.closest('.monaco-scrollable-element')?.getBoundingClientRect();
    const onTop = (el) => {
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) return 'empty';
      if (!area || r.right > area.right || r.left < area.left || r.bottom > area.bottom || r.top < area.top) return 'outside';
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !!hit && (hit === el || el.contains(hit));
    };
    for (const s of document.querySelectorAll('.monaco-editor .view-lines .view-line span')) {
      const c = getComputedStyle(s, '::after').content;
      if (c && c !== 'none' && c !== 'normal' && c !== '""' && c !== '"\u200b"') out.texts.push({ text: JSON.parse(c), onTop: onTop(s) });
    }
    for (const l of document.querySelectorAll('.monaco-editor .codelens-decoration a')) out.lenses.push({ text: l.textContent, onTop: onTop(l) });
    return out;
  });
}

test('Beside the Lean 4 extension: leanscope in its ∀ menu, Profile File from there with the lake of lean4.envPathExtensions, both extensions\' decorations shown', async (ctx) => {
  const missing = leanExtensionMissing();
  if (missing) { ctx.skip(`skipped: ${missing}`); return; }
  const w = makeWorkspace();
  // The fake toolchain only in a folder the Lean extension's setting names:
  // not on PATH, and no leanscope.lakePath.
  const tools = path.join(w.dir, 'lean-tools');
  fs.mkdirSync(tools);
  for (const name of ['lake', 'lean']) fs.symlinkSync(fakeLean(), path.join(tools, name));
  const vs = await start(w, {
    leanExtension: true, fakeOnPath: false,
    settings: { 'leanscope.lakePath': '', 'lean4.envPathExtensions': [tools] },
  });
  const { page } = vs;
  let failures = 0;
  const t = {
    test: (name, fn) => ctx.test(name, async () => {
      try { await fn(); } catch (e) { await vs.screenshot(`FAILED-lean4-${++failures}`).catch(() => {}); throw e; }
    }),
  };
  await vs.openFile('Demo/Clean.lean');

  await t.test('the Lean extension ran the fake lean --version and shows its ∀ menu, with leanscope\'s commands', async () => {
    // The ∀ menu (the submenu lean4.titlebar, labelled "Lean 4") appears once
    // the Lean extension found Lean (lean --version through its PATH).
    const button = page.locator('.editor-actions .action-item [aria-label="Lean 4"]').first();
    await button.waitFor({ timeout: STEP_MS * 2 });
    // Its entries for an active Lean (Restart File: `lean4.isLeanFeatureSetActive`)
    // come once its checks passed: open the menu until they are there.
    const menu = page.locator('.context-view .monaco-menu').first();
    const deadline = Date.now() + STEP_MS * 2;
    let items;
    // Without elan (the fake toolchain has none) the Lean extension asks
    // once, in a modal dialog, whether to install it: proceed, as a user
    // with their own toolchain would.
    const proceed = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Proceed Regardless' });
    let dialogs = 0;
    for (;;) {
      if (await proceed.isVisible()) { await proceed.click(); dialogs++; }
      try {
        await button.click({ timeout: 5000 });
        await menu.waitFor({ timeout: 5000 });
        items = (await menu.locator('.action-item .action-label').allInnerTexts()).map((x) => x.trim()).filter(Boolean);
      } catch (e) {
        if (Date.now() > deadline) throw e;
        continue; // a dialog came first
      }
      if (items.includes('Restart File') || Date.now() > deadline) break;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(2000);
    }
    await vs.screenshot('lean4-menu');
    for (const c of ['Profile File', 'Profile Folder', 'Profile Project', 'Show Viewer', 'Show Hot Spots', 'Toggle Annotations']) {
      assert.ok(items.includes(c), `${c} in the ∀ menu: ${items.join(' | ')}`);
    }
    // The Lean extension's own entries are there too, those of an active Lean among them.
    const lean = outputChannel(w.dir, 'Lean: Editor');
    const notes = await page.locator('.notification-toast .notification-list-item-message').allInnerTexts().catch(() => []);
    assert.ok(items.includes('Restart File'), `${items.join(' | ')}\nnotifications: ${notes.join(' | ')}\n${lean.slice(-3000)}`);
    assert.ok(dialogs <= 1, `the elan dialog came ${dialogs} times`);
  });

  await t.test('Profile File from the ∀ menu captures with the lake the Lean extension\'s setting names', async () => {
    await page.locator('.context-view .monaco-menu .action-item .action-label', { hasText: /^Profile File$/ }).first().click();
    await vs.waitForStatus(/Clean\.lean \d/);
    const [recording] = w.recordings();
    assert.ok(recording, w.recordingsReport());
    const log = outputChannel(w.dir, 'leanscope');
    const lake = path.join(tools, 'lake');
    assert.ok(log.includes(`"lake":${JSON.stringify(lake)}`), `the capture was sent ${lake}: ${log}`);
    assert.ok(log.includes(`lake ${lake} (from the Lean 4 extension's lean4.envPathExtensions)`), log);
    const tip = await page.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: 'Clean.lean' }).first().getAttribute('aria-label');
    assert.ok(tip !== null);
    assert.match(leanscope('info', recording), /^lean\s+4\.31\.0 /m, 'the fake lean of the tools folder ran');
  });

  await t.test('leanscope\'s line times and CodeLenses show, on top, on a Lean file with the Lean extension active', async () => {
    await page.waitForFunction(() => document.querySelectorAll('.monaco-editor .codelens-decoration').length > 0, null, { timeout: STEP_MS });
    await vs.screenshot('beside-lean4-infoview');
    // The Lean extension's infoview, opened beside, narrows the editor so
    // far that the line times, which start in one column after the longest
    // timed line, lie to the right of what is shown. With the infoview's
    // group closed, the editor is wide again.
    await vs.run('View: Close Editors in Other Groups');
    await page.waitForTimeout(1000);
    const seen = await uncovered(page);
    await vs.screenshot('beside-lean4');
    // Every CodeLens and every line time in view is drawn on top.
    const inView = seen.texts.filter((x) => x.onTop !== 'outside');
    assert.ok(inView.length >= seen.texts.length / 2 && inView.length > 0, JSON.stringify(seen));
    assert.ok(seen.lenses.length > 0, JSON.stringify(seen));
    for (const x of [...inView, ...seen.lenses]) assert.equal(x.onTop, true, `covered: ${JSON.stringify(x)}`);
    // The heat marks: not in the glyph margin, where VS Code would draw a
    // line's icons of both extensions as one element (one hiding the other),
    // but a border at each timed line's left.
    const marks = await page.evaluate(() => ({
      glyphs: document.querySelectorAll('.monaco-editor .glyph-margin-widgets > div').length,
      borders: [...document.querySelectorAll('.monaco-editor .view-overlays > div > div')]
        .map((d) => getComputedStyle(d))
        .filter((st) => st.borderLeftWidth === '3px' && /^rgba\(230, 120, 0, /.test(st.borderLeftColor)).length,
    }));
    assert.equal(marks.glyphs, 0, JSON.stringify(marks));
    assert.ok(marks.borders >= seen.lenses.length, JSON.stringify(marks));
  });
});

test('The Explorer\'s folder context menu runs Profile Folder in a remote window (code-server\'s resources are vscode-remote)', async () => {
  const w = makeWorkspace();
  const vs = await start(w);
  const { page } = vs;
  // Once the extension host has read the manifest (its menus with it).
  await vs.paletteEntries('leanscope:', 'leanscope: Profile Folder');
  await vs.watchNotifications();
  const row = page.locator('.explorer-folders-view .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: /^Demo$/ }) }).first();
  await row.waitFor({ timeout: STEP_MS });
  await row.click({ button: 'right' });
  const item = page.locator('.monaco-menu .action-item', { hasText: /^Profile Folder$/ }).first();
  await item.waitFor({ timeout: STEP_MS });
  await vs.screenshot('explorer-context-menu');
  await item.click();
  const status = await vs.waitForStatus(/Demo \d+\/\d+ files/);
  const [session] = w.sessions();
  assert.ok(session, 'a session was written');
  const manifest = JSON.parse(fs.readFileSync(path.join(session, 'session.json'), 'utf8'));
  assert.deepEqual(manifest.target, { kind: 'folder', path: 'Demo' });
  assert.equal(manifest.counts.failed, 0, JSON.stringify(manifest.counts));
  assert.equal(manifest.status, 'complete');
  assert.match(status, new RegExp(`Demo ${manifest.counts.completed}/${manifest.counts.planned} files`));
});

test('A failed capture (no lake on PATH): the notification offers Open Settings and Show Log, the status bar shows the failure; Open Settings opens the lake setting', async () => {
  const w = makeWorkspace();
  // No lake anywhere: not on PATH (the fake's link removed), no setting, no elan in the test's HOME.
  fs.rmSync(path.join(w.bin, 'lake'));
  const vs = await start(w, { settings: { 'leanscope.lakePath': '' } });
  const { page } = vs;
  await vs.openFile('Demo/Clean.lean');
  await vs.paletteEntries('leanscope:', 'leanscope: Profile File');
  await vs.run('leanscope: Profile File');
  const toast = page.locator('.notification-toast', { hasText: /leanscope: profiling Clean\.lean failed/ }).first();
  await toast.waitFor({ timeout: STEP_MS });
  assert.match(await toast.innerText(), /lake/);
  const status = await vs.waitForStatus(/leanscope: profiling Clean\.lean failed/);
  assert.match(status, /profiling Clean\.lean failed/);
  // The item in the error colour, its tooltip the message.
  const item = page.locator('.statusbar-item', { hasText: 'profiling Clean.lean failed' }).first();
  assert.match(await item.getAttribute('class'), /error-kind|has-background-color/);
  await vs.screenshot('capture-failed');
  const buttons = await toast.locator('.monaco-button').allInnerTexts();
  assert.ok(buttons.includes('Open Settings') && buttons.includes('Show Log'), buttons.join(', '));
  await toast.locator('.monaco-button', { hasText: 'Open Settings' }).click();
  // The settings editor, searching for the lake setting.
  await page.locator('.settings-editor').first().waitFor({ timeout: STEP_MS });
  try {
    await page.waitForFunction(() => /Lake Path/.test(document.querySelector('.settings-editor')?.innerText || ''), null, { timeout: STEP_MS });
  } catch (e) { await vs.screenshot('FAILED-capture-failed-settings'); throw e; }
  // Remote settings: a remote window's User settings leave machine settings out.
  assert.match(await page.locator('.settings-editor .settings-tabs-widget .checked').first().innerText(), /Remote/);
  await vs.screenshot('capture-failed-settings');
});
