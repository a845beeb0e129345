// speedscope (npm `speedscope`, its static build served on 127.0.0.1) as a
// real consumer of leanscope's exports, for the speedscope test and
// benchmark: a file is loaded the way speedscope's `#profileURL=` hash
// parameter loads one (a same-origin fetch), its import time is the one
// speedscope itself logs (`console.time('import')`), and what it imported
// is read back through its own Export button (a speedscope JSON file of
// the profiles it built: every call's open and close, and each profile's
// total), saved with its shortcut for Export (Ctrl+S).
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, tempDir, staticServer } from './helpers.mjs';
import { rmSync } from 'node:fs';

export const SPEEDSCOPE_DIR = join(ROOT, 'node_modules', 'speedscope', 'dist', 'release');

/** A directory with speedscope's static build, served; put files to load in `dir`. */
export async function serveSpeedscope() {
  const dir = tempDir('speedscope');
  cpSync(SPEEDSCOPE_DIR, dir, { recursive: true });
  const server = await staticServer(dir);
  return { dir, url: server.url, stop: () => { server.stop(); rmSync(dir, { recursive: true, force: true }); } };
}

/** Headless Chromium with software WebGL, which speedscope draws with. */
export async function launchForSpeedscope() {
  const userDataDir = tempDir('chromium-speedscope');
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    acceptDownloads: true,
    args: ['--headless', '--no-sandbox', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
      '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup'],
    viewport: { width: 1400, height: 900 },
  });
  const close = context.close.bind(context);
  context.close = async () => {
    try { await close(); } finally { rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 }); }
  };
  return context;
}

/** Loads `file` (served at `base`) in speedscope; resolves with its import
 *  time (ms, as speedscope logs it), the console's warnings and errors, and
 *  the page (still open). */
export async function loadInSpeedscope(browser, base, file, timeoutMs = 600000) {
  const page = await browser.newPage();
  const warnings = [];
  let importMs = null;
  let imported;
  const done = new Promise((ok) => { imported = ok; });
  page.on('console', (m) => {
    const text = m.text();
    const timing = /^import: ([\d.]+) ?(ms|s)/.exec(text);
    if (timing) {
      importMs = Number(timing[1]) * (timing[2] === 's' ? 1000 : 1);
      imported();
    } else if (m.type() === 'warning' || m.type() === 'error') {
      warnings.push(text);
    }
  });
  page.on('pageerror', (e) => warnings.push(`page error: ${e.message}`));
  const started = Date.now();
  await page.goto(`${base}index.html#profileURL=${encodeURIComponent(base + file)}`);
  // The deadline is cleared once the import is in: a pending timer would
  // keep the test's process alive for the rest of it.
  let deadline;
  try {
    await Promise.race([done, new Promise((_, fail) => {
      deadline = setTimeout(() => fail(new Error(`speedscope did not import ${file} in ${timeoutMs} ms`)), timeoutMs);
    })]);
  } finally {
    clearTimeout(deadline);
  }
  // It has drawn once the flame chart's canvas is laid out.
  await page.waitForSelector('canvas', { timeout: timeoutMs });
  return { page, importMs, warnings, wallMs: Date.now() - started };
}

/** What speedscope imported, through its Export button: per profile, its
 *  name, total, the number of calls it opened, how many it left open, and
 *  whether each close matched the innermost open call. */
export async function exportedBySpeedscope(page, timeoutMs = 600000) {
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: timeoutMs }),
    // Its Export button's shortcut (Ctrl+S), which saves the same file.
    page.keyboard.press('Control+s'),
  ]);
  const doc = JSON.parse(readFileSync(await download.path(), 'utf8'));
  const profiles = doc.profiles.map((p) => {
    const stack = [];
    let opened = 0; let mismatched = 0;
    for (const e of p.events) {
      if (e.type === 'O') { stack.push(e.frame); opened += 1; }
      else if (stack.pop() !== e.frame) mismatched += 1;
    }
    return { name: p.name, unit: p.unit, total: p.endValue - p.startValue, opened, leftOpen: stack.length, mismatched };
  });
  return { frames: doc.shared.frames, profiles };
}
