// The webview page the extension builds, in real headless Chromium with the
// extension's CSP: the recording streamed in through webview resource URIs,
// and the round trip editor ⇄ viewer through postMessage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { activateExtension, makeWorld, packagedSidecar, waitFor } from './helpers.mjs';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.svg': 'image/svg+xml' };

/** Plays VS Code's resource server: files under the panel's
 * localResourceRoots only, at `<origin>/vscode-resource/<path>`. */
function resourceServer(getPanel) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/page') {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(getPanel().webview.html);
      return;
    }
    const prefix = '/vscode-resource';
    const file = path.resolve(decodeURIComponent(url.pathname.slice(prefix.length)));
    const roots = getPanel().options.localResourceRoots.map((u) => u.fsPath);
    const allowed = url.pathname.startsWith(prefix) && roots.some((r) => file === r || file.startsWith(r + path.sep));
    requests.push({ file, allowed });
    if (!allowed || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(allowed ? 404 : 403);
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream', 'Access-Control-Allow-Origin': '*' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, requests, origin: `http://127.0.0.1:${server.address().port}` })));
}

/** The extension activated against the stand-in with webview resources
 * served by `resourceServer`, and a headless Chromium to show its panel
 * in; `h.panel` is the panel the page at `${h.res.origin}/page` shows. */
async function webviewHarness(options = {}) {
  const h = { panel: null };
  const res = await resourceServer(() => h.panel);
  const x = activateExtension({
    ...options,
    stubOptions: {
      cspSource: res.origin,
      asWebviewUri: (uri) => ({ scheme: 'http', path: `/vscode-resource${uri.path}`, toString: () => `${res.origin}/vscode-resource${encodeURI(uri.path)}` }),
    },
  });
  const browserDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-chromium-'));
  const browser = await chromium.launchPersistentContext(browserDir, {
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 900 },
  });
  return Object.assign(h, {
    res, x, browser,
    close: async () => {
      await browser.close();
      res.server.close();
      await x.dispose();
      fs.rmSync(browserDir, { recursive: true, force: true });
    },
  });
}

/** The packaged sidecar, a copy of the demo project as the workspace, a
 *  1 ms threshold, and the harness around them. */
async function demoProjectHarness() {
  packagedSidecar();
  const w = makeWorld();
  const h = await webviewHarness({
    workspaceFolders: [w.project],
    settings: { 'leanscope.thresholdMs': 1 },
  });
  return { w, h };
}

test('the viewer webview: CSP, streamed recording, select ⇄ reveal', async () => {
  const { w, h } = await demoProjectHarness();
  const { res, x, browser } = h;
  try {
    const file = w.file('Demo/Clean.lean');
    const editor = await x.test.openEditor(file);
    const result = await x.test.commands.get('leanscope.profileFile')();
    assert.ok(result, x.test.log.errors.join('\n'));

    // The CodeLens of double_add opens the viewer at it.
    const lens = x.test.codeLenses(editor.document).find((l) => l.command.arguments[0].declaration === 'Demo.Clean.double_add');
    await x.test.commands.get(lens.command.command)(...lens.command.arguments);
    const panel = x.test.panels[0];
    h.panel = panel;
    assert.equal(panel.viewType, 'leanscope.viewer');
    assert.equal(panel.options.enableScripts, true);
    assert.deepEqual(panel.options.localResourceRoots.map((u) => u.fsPath), [path.join(x.context.extensionPath, 'media'), path.dirname(result.recording)]);
    const csp = panel.webview.html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/)[1];
    assert.match(csp, /script-src 'nonce-[A-Za-z0-9]+' 'wasm-unsafe-eval'; worker-src blob:; connect-src http:\/\/127\.0\.0\.1:\d+;/);

    const page = await browser.newPage();
    const violations = [];
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    await page.exposeBinding('__toHost', (_src, m) => panel.receive(m));
    await page.addInitScript(() => {
      window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), getState: () => undefined, setState: () => {} });
      document.addEventListener('securitypolicyviolation', (e) => { (window.__violations ||= []).push(`${e.violatedDirective} ${e.blockedURI}`); });
    });
    // Host → page: what the extension posts reaches the page's window.
    const posted = panel.webview.posted;
    panel.webview.postMessage = async (m) => { posted.push(m); await page.evaluate((msg) => window.postMessage(msg, '*'), m); return true; };

    await page.goto(`${res.origin}/page`);
    const loaded = await waitFor('leanscope.loaded', () => x.api.viewer.received.find((m) => m.type === 'leanscope.loaded'), 30000);
    assert.equal(loaded.error, null, `viewer error: ${loaded.error}; console: ${consoleErrors.join(' | ')}`);
    assert.ok(x.api.viewer.received.some((m) => m.type === 'leanscope.ready'));
    // The recording was streamed from its own directory through the resource server.
    assert.ok(res.requests.some((r) => r.file === result.recording && r.allowed), JSON.stringify(res.requests));
    assert.ok(res.requests.some((r) => r.file.endsWith('media/viewer/viewer_wasm_bg.wasm') && r.allowed));
    // media/viewer is VIEWER_FILES, and every script of it was loaded: the
    // page's one bundled module under its nonce (the CSP names no script
    // origin), worker.js and the glue fetched for the worker.
    const viewerDir = path.join(x.context.extensionPath, 'media/viewer');
    assert.deepEqual([...x.module('viewer').VIEWER_FILES].sort(), fs.readdirSync(viewerDir).sort());
    for (const f of fs.readdirSync(viewerDir).filter((n) => n.endsWith('.js'))) {
      assert.ok(res.requests.some((r) => r.file === path.join(viewerDir, f) && r.allowed), `${f} was not loaded`);
    }

    // The queued selection from the CodeLens reached the viewer.
    assert.deepEqual(posted[0], { type: 'leanscope.select', declaration: 'Demo.Clean.double_add' });
    await page.waitForFunction(() => window.__leanscope.state.sel && window.__leanscope.state.sel.title === 'Demo.Clean.double_add');
    // …and its echo (the viewer reveals what it selected) did not move the cursor.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(editor.selection.active.line, 0);

    // Select in the webview → reveal in the editor.
    await page.click('#tab-declarations');
    await page.click('#list li[data-name="Demo.Clean.le_double"]');
    await waitFor('the editor to reveal le_double', () => editor.selection.start.line === 15);
    const reveal = x.api.viewer.received.filter((m) => m.type === 'leanscope.revealRange').at(-1);
    assert.equal(reveal.declaration, 'Demo.Clean.le_double');
    assert.deepEqual(reveal.range, { startLine: 15, startCol: 0, endLine: 20, endCol: 9 });
    assert.deepEqual([editor.selection.start.line, editor.selection.start.character, editor.selection.end.line, editor.selection.end.character], [15, 0, 20, 9]);
    assert.equal(x.vscode.window.activeTextEditor, editor);
    // The cursor landing in le_double is not sent back to the viewer.
    const sentBefore = posted.length;
    x.test.moveCursor(editor, 15, 0);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(posted.length, sentBefore);

    // Cursor in another declaration → the webview selects it.
    x.test.moveCursor(editor, 24, 4);
    await page.waitForFunction(() => window.__leanscope.state.sel && window.__leanscope.state.sel.title === 'Demo.Clean.cases_example', null, { timeout: 10000 });
    assert.deepEqual(posted.at(-1), { type: 'leanscope.select', declaration: 'Demo.Clean.cases_example' });

    // The CSP is in force: another origin is refused, and files outside the
    // resource roots are not served.
    const foreign = await page.evaluate(async (u) => { try { await fetch(u); return 'fetched'; } catch (e) { return 'blocked'; } }, res.origin.replace('127.0.0.1', 'localhost') + '/page');
    assert.equal(foreign, 'blocked');
    const outside = await page.evaluate(async (u) => (await fetch(u)).status, `${res.origin}/vscode-resource${encodeURI(file)}`);
    assert.equal(outside, 403);
    const v = await page.evaluate(() => window.__violations || []);
    assert.deepEqual(v.filter((s) => !s.includes('localhost')), [], 'no CSP violation by the viewer itself');
    assert.equal(v.filter((s) => s.includes('localhost')).length, 1);
    const out = path.join(path.dirname(new URL(import.meta.url).pathname), 'out');
    fs.mkdirSync(out, { recursive: true });
    await page.screenshot({ path: path.join(out, 'webview.png') });
  } finally {
    await h.close();
    w.cleanup();
  }
});

/** A leanscope binary that writes synthetic sessions: the packaged sidecar
 * once it has `synth-session`, else LEANSCOPE_SYNTH. */
function sessionWriter() {
  const candidates = [path.join(path.dirname(new URL(import.meta.url).pathname), '../../extension/bin/leanscope'), process.env.LEANSCOPE_SYNTH].filter(Boolean);
  return candidates.find((b) => fs.existsSync(b) && spawnSync(b, ['synth-session', '--help']).status === 0);
}

test('Open Recording… on a session folder shows the session in the webview', { skip: sessionWriter() ? false : 'no leanscope with synth-session (the packaged sidecar lacks it; set LEANSCOPE_SYNTH)' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-session-'));
  const session = path.join(dir, 'session');
  const made = spawnSync(sessionWriter(), ['synth-session', '-o', session, '--files', '4', '--events', '300', '--fail-every', '0', '--error-every', '0'], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const h = await webviewHarness({});
  const { res, x, browser } = h;
  try {
    const target = await x.test.commands.get('leanscope.openRecording')(x.vscode.Uri.file(session));
    assert.deepEqual(target, { kind: 'session', file: path.join(session, 'session.json') });
    const panel = x.test.panels[0];
    h.panel = panel;
    assert.deepEqual(panel.options.localResourceRoots.map((u) => u.fsPath), [path.join(x.context.extensionPath, 'media'), session]);
    const page = await browser.newPage();
    await page.exposeBinding('__toHost', (_src, m) => panel.receive(m));
    await page.addInitScript(() => {
      window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), getState: () => undefined, setState: () => {} });
    });
    await page.goto(`${res.origin}/page`);
    const loaded = await waitFor('leanscope.loaded', () => x.api.viewer.received.find((m) => m.type === 'leanscope.loaded'), 30000);
    assert.equal(loaded.error, null);
    // The viewer loads the index after it reported loaded.
    await waitFor('the index to be fetched', () => res.requests.some((r) => r.file === path.join(session, 'index.jsonl') && r.allowed), 10000);
    await page.click('#tab-files');
    const files = await page.$$eval('#list li', (lis) => lis.length);
    assert.equal(files, 4, 'the four files of the session are listed');
    assert.equal(x.test.log.errors.length, 0, x.test.log.errors.join('\n'));
  } finally {
    await h.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('Profile Folder opens its session in the webview; a declaration picked there opens in the editor', async () => {
  const { w, h } = await demoProjectHarness();
  const { res, x, browser } = h;
  try {
    const out = await x.test.commands.get('leanscope.profileFolder')(x.vscode.Uri.file(w.file('Demo')));
    assert.ok(out, x.test.log.errors.join('\n'));
    const panel = x.test.panels.at(-1);
    h.panel = panel;
    assert.deepEqual(panel.options.localResourceRoots.map((u) => u.fsPath), [path.join(x.context.extensionPath, 'media'), out.session]);
    const page = await browser.newPage();
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    await page.exposeBinding('__toHost', (_src, m) => panel.receive(m));
    await page.addInitScript(() => {
      window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), getState: () => undefined, setState: () => {} });
    });
    await page.goto(`${res.origin}/page`);
    const loaded = await waitFor('leanscope.loaded', () => x.api.viewer.received.find((m) => m.type === 'leanscope.loaded'), 30000);
    assert.equal(loaded.error, null, `viewer error: ${loaded.error}; console: ${consoleErrors.join(' | ')}`);
    // The manifest, the index and the recordings come from the session
    // directory through the resource server (the index after the viewer
    // reported loaded).
    for (const f of ['session.json', 'index.jsonl']) {
      await waitFor(`${f} to be fetched`, () => res.requests.some((r) => r.file === path.join(out.session, f) && r.allowed), 10000);
    }
    await page.click('#tab-files');
    await page.waitForFunction(() => document.querySelectorAll('#list li[data-kind="file"]').length === 7, null, { timeout: 10000 });
    const paths = await page.$$eval('#list li[data-kind="file"]', (lis) => lis.map((li) => li.dataset.path).sort());
    assert.deepEqual(paths, ['Demo/Async.lean', 'Demo/Broken.lean', 'Demo/Clean.lean', 'Demo/Heartbeats.lean', 'Demo/Huge.lean', 'Demo/Imports.lean', 'Demo/Unicode.lean']);
    // A declaration from the session index: the viewer opens its file and
    // asks the host to reveal it; the source is found under the project root
    // that session.json names.
    await page.click('#tab-declarations');
    await page.waitForSelector('#list li[data-name="Demo.Clean.le_double"]', { timeout: 15000 });
    await page.click('#list li[data-name="Demo.Clean.le_double"]');
    const editor = await waitFor('the editor to show Clean.lean', () => {
      const ed = x.vscode.window.activeTextEditor;
      return ed && ed.document.uri.fsPath === w.file('Demo/Clean.lean') && ed.selection.start.line === 15 ? ed : undefined;
    }, 15000);
    assert.deepEqual([editor.selection.start.line, editor.selection.end.line, editor.selection.end.character], [15, 20, 9]);
    assert.ok(res.requests.some((r) => r.file.startsWith(path.join(out.session, 'files') + path.sep) && r.allowed), 'a recording of the session was streamed');
    assert.deepEqual(x.test.log.errors, []);
    assert.deepEqual(x.test.log.warnings, []);
  } finally {
    await h.close();
    w.cleanup();
  }
});

test('Compare with Baseline shows the Diff tab of the candidate session in the webview', async () => {
  const sidecar = packagedSidecar();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-compare-'));
  const base = path.join(dir, 'base');
  const cand = path.join(dir, 'cand');
  for (const [out, seed] of [[base, '1'], [cand, '2']]) {
    const made = spawnSync(sidecar, ['synth-session', '-o', out, '--files', '4', '--events', '300', '--seed', seed], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
  }
  const cli = spawnSync(sidecar, ['compare', base, cand, '--metric', 'total_ns', '--json', '-'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const expected = JSON.parse(cli.stdout);
  const rows = expected.matched.length + expected.new.length + expected.missing.length;
  assert.ok(rows > 0 && rows < 500, `${rows} rows fit in one list`);
  const h = await webviewHarness({});
  const { res, x, browser } = h;
  try {
    await x.test.commands.get('leanscope.openRecording')(x.vscode.Uri.file(cand));
    const panel = x.test.panels.at(-1);
    h.panel = panel;
    const page = await browser.newPage();
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    await page.exposeBinding('__toHost', (_src, m) => panel.receive(m));
    await page.addInitScript(() => {
      window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), getState: () => undefined, setState: () => {} });
      document.addEventListener('securitypolicyviolation', (e) => { (window.__violations ||= []).push(`${e.violatedDirective} ${e.blockedURI}`); });
    });
    panel.webview.postMessage = async (m) => { panel.webview.posted.push(m); await page.evaluate((msg) => window.postMessage(msg, '*'), m); return true; };

    // Compared before the page exists: the diff waits for the viewer.
    x.test.answerDialogs([x.vscode.Uri.file(base)]);
    const out = await x.test.commands.get('leanscope.compareWithBaseline')();
    assert.ok(out, x.test.log.errors.join('\n'));
    assert.equal(x.test.panels.at(-1), panel, 'the viewer already showing the candidate is reused');
    assert.deepEqual(panel.webview.posted, []);

    await page.goto(`${res.origin}/page`);
    const loaded = await waitFor('leanscope.loaded', () => x.api.viewer.received.find((m) => m.type === 'leanscope.loaded'), 30000);
    assert.equal(loaded.error, null, `viewer error: ${loaded.error}; console: ${consoleErrors.join(' | ')}`);
    await waitFor('the diff to be posted', () => panel.webview.posted.some((m) => m.type === 'leanscope.diff'), 5000);
    await page.waitForSelector('#tab-diff:not([hidden])', { timeout: 10000 });
    await page.waitForFunction((n) => document.querySelectorAll('#list li[data-kind="diff"]').length === n, rows, { timeout: 10000 });
    assert.equal(await page.getAttribute('#tab-diff', 'aria-selected'), 'true');
    const regressions = expected.matched.filter((m) => m.status === 'regression').length;
    const improvements = expected.matched.filter((m) => m.status === 'improvement').length;
    assert.equal(await page.textContent('#tab-diff'), `Diff ▲${regressions} ▼${improvements}`);
    assert.equal(await page.$$eval('#list li.diff.regression', (lis) => lis.length), regressions);

    // A row picked in the Diff tab is selected in the candidate, which asks the host to reveal it.
    const first = await page.$eval('#list li[data-kind="diff"]', (li) => ({ name: li.dataset.name, file: li.dataset.file }));
    await page.click('#list li[data-kind="diff"]');
    const reveal = await waitFor('a reveal request', () => x.api.viewer.received.find((m) => m.type === 'leanscope.revealRange'), 15000);
    assert.equal(reveal.path, first.file);
    assert.equal(reveal.declaration, first.name);
    assert.deepEqual(await page.evaluate(() => window.__violations || []), [], 'no CSP violation');
  } finally {
    await h.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
