// The real-VS-Code harness: code-server (VS Code 1.100.3 in the browser,
// installed by scripts/setup) with the packaged VSIX installed, the fake
// Lean toolchain on its PATH, and Debian's Chromium driven by
// playwright-core. Everything is asserted on what the page shows.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { REPO, fakeLean } from '../extension/helpers.mjs';

export { REPO };
export const CODE_SERVER_VERSION = '4.100.3';
export const CODE_SERVER_DIR = process.env.LEANSCOPE_CODE_SERVER_DIR
  || path.join(os.homedir(), '.cache/leanscope', `code-server-${CODE_SERVER_VERSION}`);
export const CODE_SERVER = path.join(CODE_SERVER_DIR, 'node_modules/code-server/out/node/entry.js');
/** Screenshots of every test, for a person to look at. */
export const OUT = path.join(REPO, 'tests/vscode/out');
/** How long a step on screen may take (a fresh machine, two busy cores). */
export const STEP_MS = 60000;

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run'];

/** The VSIX `npm run package` wrote (LEANSCOPE_VSIX, else the one in out/). */
export function vsixPath() {
  if (process.env.LEANSCOPE_VSIX) return process.env.LEANSCOPE_VSIX;
  const version = JSON.parse(fs.readFileSync(path.join(REPO, 'extension/package.json'), 'utf8')).version;
  const p = path.join(REPO, 'out', `leanscope-linux-x64-${version}.vsix`);
  if (!fs.existsSync(p)) throw new Error(`no VSIX at ${p}: run npm run package first (or set LEANSCOPE_VSIX)`);
  return p;
}

/** The leanscope binary the VSIX holds (extension/bin, put there by the
 * package step), to read the written recordings with the CLI. */
export function leanscopeBin() {
  const p = path.join(REPO, 'extension/bin/leanscope');
  if (!fs.existsSync(p)) throw new Error(`no ${p}: run npm run package first`);
  return p;
}

export function leanscope(...args) {
  const r = spawnSync(leanscopeBin(), args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`leanscope ${args.join(' ')}: status ${r.status}: ${r.stderr}`);
  return r.stdout;
}

function freePort() {
  return new Promise((ok, fail) => {
    const s = net.createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
  });
}

let extensionsDir = null;
/** The VSIX installed once into a directory every code-server of the run
 * shares (each has its own user data). */
function installedExtensions(env) {
  if (extensionsDir) return extensionsDir;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-vscode-ext-'));
  const udd = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-vscode-udd-'));
  const r = spawnSync(process.execPath, [CODE_SERVER, '--user-data-dir', udd, '--extensions-dir', dir,
    '--install-extension', vsixPath()], { encoding: 'utf8', env, timeout: STEP_MS * 2 });
  fs.rmSync(udd, { recursive: true, force: true });
  if (r.status !== 0 || !/successfully installed/i.test(r.stdout + r.stderr)) {
    throw new Error(`code-server --install-extension failed (status ${r.status}): ${r.stdout}\n${r.stderr}`);
  }
  extensionsDir = dir;
  return dir;
}

/** The official Lean 4 extension and the one it depends on, as VSIXs built
 * from their public sources (../shared/vendor, each with a README saying
 * how; LEANSCOPE_SHARED_DIR names another shared folder). */
export const SHARED = process.env.LEANSCOPE_SHARED_DIR || path.join(REPO, '../shared');
export const LEAN_VSIXS = [
  path.join(SHARED, 'vendor/even-better-toml/even-better-toml-0.21.2.vsix'),
  path.join(SHARED, 'vendor/vscode-lean4/lean4-0.0.239.vsix'),
];

/** Why the Lean 4 extension cannot be installed here ('' when it can). */
export function leanExtensionMissing() {
  const missing = LEAN_VSIXS.filter((f) => !fs.existsSync(f));
  return missing.length ? `the Lean 4 extension's VSIXs are missing (${missing.join(', ')}): the shared vendor folder is not beside the repository` : '';
}

let leanExtensionsDir = null;
/** leanscope's VSIX with the Lean 4 extension and Even Better TOML, in a
 * directory of their own (the other tests run without them). */
function installedWithLean(env) {
  if (leanExtensionsDir) return leanExtensionsDir;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-vscode-ext-lean-'));
  const udd = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-vscode-udd-'));
  const args = [CODE_SERVER, '--user-data-dir', udd, '--extensions-dir', dir];
  for (const v of [vsixPath(), ...LEAN_VSIXS]) args.push('--install-extension', v);
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', env, timeout: STEP_MS * 3 });
  fs.rmSync(udd, { recursive: true, force: true });
  const listed = spawnSync(process.execPath, [CODE_SERVER, '--extensions-dir', dir, '--list-extensions', '--show-versions'],
    { encoding: 'utf8', env, timeout: STEP_MS });
  for (const id of ['leanscope.leanscope@', 'leanprover.lean4@0.0.239', 'tamasfe.even-better-toml@0.21.2']) {
    if (r.status !== 0 || !listed.stdout.includes(id)) {
      throw new Error(`code-server --install-extension of leanscope and the Lean 4 extension failed (status ${r.status}; ${id} not listed): ${r.stdout}\n${r.stderr}\n${listed.stdout}`);
    }
  }
  leanExtensionsDir = dir;
  return dir;
}

/** Removes what the run shares (the installed extension). */
export function cleanupShared() {
  if (extensionsDir) fs.rmSync(extensionsDir, { recursive: true, force: true });
  extensionsDir = null;
  if (leanExtensionsDir) fs.rmSync(leanExtensionsDir, { recursive: true, force: true });
  leanExtensionsDir = null;
}

/** A copy of the demo project, the fake `lake`/`lean`, and the settings
 * the extension reads (Machine settings: lakePath is machine-overridable,
 * so in code-server, a remote window, only Remote settings count). */
export function makeWorkspace({ delayScale = '0', pidfile = false } = {}) {
  if (!fs.existsSync(CODE_SERVER)) throw new Error(`no code-server at ${CODE_SERVER}: run scripts/setup`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-vscode-'));
  const project = path.join(dir, 'demo');
  fs.cpSync(path.join(REPO, 'fixtures/projects/demo'), project, { recursive: true });
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  for (const name of ['lake', 'lean']) fs.symlinkSync(fakeLean(), path.join(bin, name));
  const pids = path.join(dir, 'pids');
  return {
    dir, project, bin, pids, delayScale, pidfile,
    file: (rel) => path.join(project, rel),
    recordings: () => {
      const d = path.join(project, '.leanscope/recordings');
      return fs.existsSync(d) ? fs.readdirSync(d).filter((f) => f.endsWith('.lsrec')).map((f) => path.join(d, f)) : [];
    },
    /** The recordings with their sizes and modification times, and the
     * leanscope output channel (the extension's log, the sidecar's stderr
     * among it): what an assertion on the recordings says when it fails. */
    recordingsReport: () => {
      const d = path.join(project, '.leanscope/recordings');
      const files = fs.existsSync(d) ? fs.readdirSync(d).sort() : [];
      const list = files.map((f) => {
        const st = fs.statSync(path.join(d, f));
        return `  ${f} (${st.size} bytes, modified ${st.mtime.toISOString()})`;
      });
      return `recordings in ${d}:\n${list.join('\n') || '  (none)'}\nthe leanscope output channel:\n${outputChannel(dir, 'leanscope')}`;
    },
    sessions: () => {
      const d = path.join(project, '.leanscope/sessions');
      return fs.existsSync(d) ? fs.readdirSync(d).map((f) => path.join(d, f)) : [];
    },
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** The text of the output channel `name` of the code-server run on the
 * workspace in `dir`: VS Code writes each channel to a file
 * (`<user data>/logs/<time>/…/output_logging_<time>/<n>-<name>.log`). */
export function outputChannel(dir, name) {
  const logs = path.join(dir, 'user-data/logs');
  const found = [];
  const walk = (d) => {
    let entries;
    try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(`-${name}.log`) || e.name === `${name}.log`) found.push(p);
    }
  };
  walk(logs);
  if (found.length === 0) return `  (no ${name} output channel log under ${logs})`;
  return found.map((f) => `${f}:\n${fs.readFileSync(f, 'utf8')}`).join('\n');
}

/** Starts code-server on the workspace and opens it in Chromium. With
 * `leanExtension`, the Lean 4 extension is installed beside leanscope; with
 * `fakeOnPath: false`, the fake toolchain is not on code-server's PATH. */
export async function openVsCode(w, { trusted = true, settings = {}, width = 1600, height = 1000, leanExtension = false, fakeOnPath = true } = {}) {
  const home = path.join(w.dir, 'home');
  const udd = path.join(w.dir, 'user-data');
  fs.mkdirSync(path.join(udd, 'Machine'), { recursive: true });
  fs.mkdirSync(path.join(udd, 'User'), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(udd, 'Machine/settings.json'), JSON.stringify({
    'leanscope.lakePath': path.join(w.bin, 'lake'),
    'leanscope.thresholdMs': 1,
    ...settings,
  }, null, 2));
  fs.writeFileSync(path.join(udd, 'User/settings.json'), JSON.stringify({
    // The tests save with Ctrl+S. In the browser VS Code auto-saves by
    // default (`files.autoSave` is `afterDelay` on the web, 1 s after the
    // last edit; off on the desktop): a pause of a second under load saved
    // a half-edited file, and Profile on save captured it.
    'files.autoSave': 'off',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'security.workspace.trust.startupPrompt': 'never',
    'security.workspace.trust.enabled': true,
    'workbench.editor.enablePreview': false,
    'files.simpleDialog.enable': true,
    'window.dialogStyle': 'custom',
  }, null, 2));
  const env = {
    PATH: fakeOnPath ? `${w.bin}:/usr/bin:/bin` : '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    LEANSCOPE_FAKE_FIXTURES: path.join(REPO, 'fixtures/lean-output'),
    LEANSCOPE_FAKE_DELAY_SCALE: w.delayScale,
    ...(w.pidfile ? { LEANSCOPE_FAKE_PIDFILE: w.pids } : {}),
  };
  const extensions = leanExtension ? installedWithLean(env) : installedExtensions(env);
  const port = await freePort();
  const args = [CODE_SERVER, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--user-data-dir', udd,
    '--extensions-dir', extensions, '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override',
    '--config', path.join(w.dir, 'code-server.yaml'),
    ...(trusted ? ['--disable-workspace-trust'] : []), w.project];
  const proc = spawn(process.execPath, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const listening = new Promise((ok, fail) => {
    const onData = (d) => { log += d; if (/HTTP server listening on/.test(log)) ok(); };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => fail(new Error(`code-server exited (status ${code}) before listening:\n${log}`)));
  });
  await withTimeout(listening, STEP_MS, () => `code-server did not listen:\n${log}`);
  const browserDir = path.join(w.dir, 'chromium');
  const context = await chromium.launchPersistentContext(browserDir, {
    executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, viewport: { width, height },
  });
  const page = context.pages()[0] || await context.newPage();
  const consoleLines = [];
  page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(w.project)}`);
  const vs = new VsCode(page, w);
  vs.consoleLines = consoleLines;
  vs.close = async () => {
    await context.close().catch(() => {});
    try { process.kill(-proc.pid, 'SIGTERM'); } catch { /* gone */ }
    await new Promise((ok) => { if (proc.exitCode !== null || proc.signalCode) ok(); else proc.once('exit', ok); });
  };
  vs.log = () => log;
  await page.locator('.monaco-workbench').waitFor({ timeout: STEP_MS });
  await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: STEP_MS });
  return vs;
}

function withTimeout(promise, ms, what) {
  let t;
  return Promise.race([promise, new Promise((_, fail) => { t = setTimeout(() => fail(new Error(what())), ms); })])
    .finally(() => clearTimeout(t));
}

/** What a user does in the workbench, and what it shows. */
export class VsCode {
  constructor(page, w) { this.page = page; this.w = w; }

  async screenshot(name) {
    fs.mkdirSync(OUT, { recursive: true });
    await this.page.screenshot({ path: path.join(OUT, `${name}.png`) });
  }

  /** Opens a file of the workspace through Quick Open. */
  async openFile(rel) {
    await this.page.keyboard.press('Control+P');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: STEP_MS });
    await input.fill(rel);
    await this.page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: STEP_MS });
    await this.page.keyboard.press('Enter');
    await this.page.locator(`.tabs-container .tab[data-resource-name="${path.basename(rel)}"]`).waitFor({ timeout: STEP_MS });
    await this.page.locator('.monaco-editor .view-lines').first().waitFor({ timeout: STEP_MS });
  }

  /** The titles the Command Palette lists for `text`. */
  async paletteEntries(text, expect) {
    // The palette lists the extension's commands once the extension host
    // has read its manifest: until `expect` is listed, ask again.
    const started = Date.now();
    for (;;) {
      await this.openPalette(text);
      const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: expect }).first();
      try {
        await row.waitFor({ timeout: 3000 });
        break;
      } catch (e) {
        if (Date.now() - started > STEP_MS) throw e;
        await this.page.keyboard.press('Escape');
      }
    }
    // The list as it settles: the same rows twice, 200 ms apart.
    let last = null;
    const deadline = Date.now() + STEP_MS;
    for (;;) {
      const now = await this.page.locator('.quick-input-list .monaco-list-row .quick-input-list-label').allTextContents();
      if (now.length && last && now.join('\n') === last.join('\n')) break;
      if (Date.now() > deadline) break;
      last = now;
      await this.page.waitForTimeout(200);
    }
    const rows = await this.page.locator('.quick-input-list .monaco-list-row .quick-input-list-label').allTextContents();
    await this.page.keyboard.press('Escape');
    return rows.map((r) => r.trim());
  }

  async openPalette(text) {
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: STEP_MS });
    await input.fill(`>${text}`);
  }

  /** Runs a command by its title in the Command Palette. */
  async run(title) {
    await this.openPalette(title);
    const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    await row.waitFor({ timeout: STEP_MS });
    await row.click();
  }

  /** The text of the status bar items. */
  statusBar() {
    return this.page.locator('#workbench\\.parts\\.statusbar').innerText();
  }

  async waitForStatus(re) {
    await this.page.waitForFunction((src) => new RegExp(src).test(document.getElementById('workbench.parts.statusbar')?.innerText || ''),
      re.source, { timeout: STEP_MS });
    return this.statusBar();
  }

  /** Every text the notifications show from now on, in order (kept by a
   * MutationObserver in the page, so short-lived ones are seen too). */
  async watchNotifications() {
    await this.page.evaluate(() => {
      window.__seen = [];
      const take = () => {
        for (const n of document.querySelectorAll('.notification-toast .notification-list-item-message')) {
          const t = n.textContent;
          if (window.__seen[window.__seen.length - 1] !== t) window.__seen.push(t);
        }
      };
      new MutationObserver(take).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
  }

  seenNotifications() { return this.page.evaluate(() => window.__seen.slice()); }

  async waitForNotification(re) {
    const n = this.page.locator('.notification-toast .notification-list-item-message').filter({ hasText: re }).first();
    await n.waitFor({ timeout: STEP_MS });
    return n.innerText();
  }

  /** The after-line texts of the timing decorations, by 0-based line (the
   * last of a line's). */
  async lineTexts() {
    const all = await this.lineDecorations();
    return Object.fromEntries(Object.entries(all).map(([line, ds]) => [line, ds[ds.length - 1].text]));
  }

  /** The after-line texts of the decorations with their opacity, by
   * 0-based line (`{ text, opacity }`, several per line). */
  async lineDecorations() {
    return this.page.evaluate(() => {
      const out = {};
      // The line numbers by their place (CodeLens zones shift the lines).
      const numberAt = new Map();
      for (const n of document.querySelectorAll('.monaco-editor .margin-view-overlays > div')) {
        const num = n.querySelector('.line-numbers');
        if (num) numberAt.set(n.style.top, Number(num.textContent));
      }
      for (const l of document.querySelectorAll('.monaco-editor .view-lines .view-line')) {
        for (const s of l.querySelectorAll('span')) {
          const st = getComputedStyle(s, '::after');
          const c = st.content;
          // (The bars' after-text is a zero-width space.)
          if (c && c !== 'none' && c !== 'normal' && c !== '""' && c !== '"\u200b"') {
            (out[numberAt.get(l.style.top) - 1] ??= []).push({ text: JSON.parse(c), opacity: Number(st.opacity) });
          }
        }
      }
      return out;
    });
  }

  /** Types `text` at the end of 1-based `line` of the active editor. */
  async typeAtEnd(line, text) {
    await this.goToLine(line);
    await this.page.keyboard.press('End');
    await this.page.keyboard.type(text);
  }

  /** The CodeLens titles shown. */
  codeLenses() {
    return this.page.locator('.monaco-editor .codelens-decoration').allInnerTexts();
  }

  /** The cursor position the status bar shows (1-based `Ln`, `Col`). */
  async cursor() {
    const t = await this.page.locator('#status\\.editor\\.selection').innerText();
    const m = /Ln (\d+), Col (\d+)/.exec(t);
    return m ? { line: Number(m[1]), col: Number(m[2]) } : null;
  }

  async goToLine(line) {
    await this.page.keyboard.press('Control+G');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: STEP_MS });
    await input.fill(`:${line}`);
    await this.page.keyboard.press('Enter');
    await this.page.waitForFunction((l) => (document.getElementById('status.editor.selection')?.innerText || '').includes(`Ln ${l},`),
      line, { timeout: STEP_MS });
  }

  /** The viewer's page: the frame (inside the webview's two iframes) that
   * holds the viewer's `#main`. */
  async viewerFrame() {
    const deadline = Date.now() + STEP_MS;
    for (;;) {
      for (const f of this.page.frames()) {
        try {
          if (await f.evaluate(() => !!document.getElementById('leanscope-config') && !!window.__leanscope)) return f;
        } catch { /* a frame that went away */ }
      }
      if (Date.now() > deadline) throw new Error('no viewer frame in the page');
      await this.page.waitForTimeout(100);
    }
  }

  /** VS Code's simple file dialog, once it is on screen: known by its title
   * and a path in its box (right after `run`, the same widget may still be
   * the palette's, whose box starts with `>`). Its box's locator. */
  async fileDialog(title) {
    await this.page.waitForFunction((src) => {
      const w = document.querySelector('.quick-input-widget');
      const t = w?.querySelector('.quick-input-title')?.textContent || '';
      const v = w?.querySelector('input')?.value || '';
      return !!w && w.style.display !== 'none' && new RegExp(src).test(t) && v.startsWith('/');
    }, title.source, { timeout: STEP_MS });
    return this.page.locator('.quick-input-widget input');
  }

  /** Answers VS Code's simple file dialog with a folder: typed with a
   * trailing slash, the dialog lists it, then its OK button (`okLabel`)
   * takes it. */
  async answerFolderDialog(folder, okLabel, title = /^leanscope: /) {
    const input = await this.fileDialog(title);
    await input.fill(`${folder}/`);
    // The dialog lists the folder: `..` and its subfolders.
    const expected = ['..', ...fs.readdirSync(folder, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)].sort();
    await this.page.waitForFunction((want) => {
      const rows = [...document.querySelectorAll('.quick-input-list .monaco-list-row .quick-input-list-label')].map((r) => r.textContent.trim()).sort();
      return JSON.stringify(rows) === JSON.stringify(want);
    }, expected, { timeout: STEP_MS });
    await this.page.locator('.quick-input-widget .monaco-button', { hasText: okLabel }).first().click();
    await input.waitFor({ state: 'hidden', timeout: STEP_MS });
  }

  /** Answers VS Code's simple file dialog with a path. The dialog is waited
   * for by its title (the palette's box, still on screen right after `run`,
   * is the same widget), and the typed path must hold for a moment: while
   * the dialog lists its starting folder it may rewrite the box (seen under
   * load: Enter then took that folder), so it is typed again until it holds. */
  async answerFileDialog(p, title = /^leanscope: /) {
    const input = await this.fileDialog(title);
    const deadline = Date.now() + STEP_MS;
    for (;;) {
      await input.fill(p);
      await this.page.waitForTimeout(500);
      if ((await input.inputValue()) === p) break;
      if (Date.now() > deadline) throw new Error(`the file dialog kept rewriting ${p} (now ${await input.inputValue()})`);
    }
    await this.page.keyboard.press('Enter');
  }
}
