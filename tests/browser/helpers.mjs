// Shared helpers of the browser tests and the browser benchmark: the
// leanscope binary, `leanscope view` as a child process, a plain static
// server, and headless Chromium through playwright-core.
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, extname, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { formatValue } from '../../viewer-wasm/www/format.js';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const OUT = join(ROOT, 'tests', 'browser', 'out');
mkdirSync(OUT, { recursive: true });

/** The leanscope binary the tests use (LEANSCOPE_BIN, or the debug build). */
export function leanscopeBin() {
  const bin = process.env.LEANSCOPE_BIN || join(ROOT, 'target', 'debug', 'leanscope');
  if (!existsSync(bin)) throw new Error(`${bin} does not exist: run scripts/build-viewer and cargo build -p leanscope`);
  return bin;
}

/** The fake `lake`/`lean` binary (fake-toolchain), debug build first. */
export function fakeLean() {
  for (const profile of ['debug', 'release']) {
    const p = join(ROOT, 'target', profile, 'fake-lean');
    if (existsSync(p)) return p;
  }
  throw new Error('no fake-lean binary: cargo build -p fake-toolchain');
}

export function leanscope(...args) {
  return execFileSync(leanscopeBin(), args, { encoding: 'utf8', maxBuffer: 1 << 28 });
}

export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), `leanscope-${prefix}-`));
}

/** Starts `leanscope view TARGET --no-open [EXTRA…]`; resolves with its URL. */
export function startView(target, extra = []) {
  const child = spawn(leanscopeBin(), ['view', target, '--no-open', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolveUrl, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolveUrl({ url: line.trim(), stop: () => child.kill('SIGTERM'), child });
    });
    child.on('exit', (code) => reject(new Error(`leanscope view exited with ${code}: ${stderr}`)));
  });
}

/** Waits until `test` (a function without free variables) holds in the
 *  page. The page checks it itself every 200 ms: Playwright's
 *  waitForFunction asks over the DevTools protocol (every animation frame
 *  by default, or at each polling interval), and each ask takes CPU from
 *  the browser's and the page's main threads, which on two cores slows a
 *  load being measured. Benchmarks take their figures inside the page, so
 *  checking seldom does not change them. */
export function waitInPage(page, test, timeoutMs = 120000) {
  return page.evaluate(`new Promise((ok, fail) => {
    const holds = ${test.toString()};
    const deadline = Date.now() + ${timeoutMs};
    const check = () => {
      if (holds()) ok();
      else if (Date.now() > deadline) fail(new Error('timed out waiting in the page'));
      else setTimeout(check, 200);
    };
    check();
  })`);
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json',
};

/** A plain static file server on 127.0.0.1 for DIR (no CSP, no token). */
export function staticServer(dir) {
  const root = resolve(dir);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404); res.end('not found'); return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream', 'Content-Length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => {
    ok({ url: `http://127.0.0.1:${server.address().port}/`, stop: () => server.close() });
  }));
}

export async function launchBrowser() {
  const userDataDir = tempDir('chromium');
  // Chromium 156 gives every new tab a hidden renderer for its address
  // bar's suggestion popup (chrome://omnibox-popup.top-chrome): browser UI
  // that a headless browser never shows, whose start-up took ~0.5 s of CPU
  // per page, on two cores mostly from the page being measured. The
  // features below turn that popup's web UI off.
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--enable-precise-memory-info',
    '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup'];
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium', headless: true, args, viewport: { width: 1500, height: 950 },
  });
  // The profile (with its HTTP cache) goes with the browser.
  const close = context.close.bind(context);
  context.close = async (...args) => {
    try {
      await close(...args);
    } finally {
      rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
    }
  };
  return context;
}

/** A time as the viewer (and the CLI) writes it: the one rule of
 *  viewer-wasm/www/format.js. */
export function fmtNs(ns) {
  return formatValue(ns);
}
