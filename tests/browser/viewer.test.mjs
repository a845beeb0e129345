// Browser end-to-end tests of the viewer: a synthetic session served by
// `leanscope view`, walked folder → file → declaration → tactic → line in
// headless Chromium, with every number checked against what the native
// `recording` code wrote for the same session (index.jsonl, session.json,
// `leanscope info --json`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, appendFileSync, rmSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { spawnSync } from 'node:child_process';
import {
  OUT, leanscope, leanscopeBin, tempDir, startView, staticServer, launchBrowser, fmtNs,
} from './helpers.mjs';

let dir; let session; let manifest; let index; let view; let browser;

const fileTime = (f) => (f.status === 'ok' || f.status === 'error' ? msToNsOrZero(f.elapsedMs) : 0);
const msToNsOrZero = (ms) => (ms === undefined || ms === null ? 0 : Math.round(ms * 1e6));
const underPath = (p, folder) => folder === '' || p === folder || p.startsWith(`${folder}/`);
const folderTotal = (folder) => manifest.files.filter((f) => underPath(f.path, folder)).reduce((a, f) => a + fileTime(f), 0);
const msToNs = (ms) => Math.round(ms * 1e6);

before(async () => {
  dir = tempDir('viewer-test');
  session = join(dir, 'session');
  leanscope('synth-session', '-o', session, '--files', '9', '--events', '3000', '--threads', '3', '--seed', '5');
  manifest = JSON.parse(readFileSync(join(session, 'session.json'), 'utf8'));
  index = readFileSync(join(session, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  view = await startView(session);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (view) view.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function openViewer(url, init) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  if (init) await page.addInitScript(init);
  await page.goto(url);
  await page.waitForFunction(() => window.__leanscope && document.querySelectorAll('#folder-list li').length > 0);
  // Past the first view the server rendered: the worker opened the data.
  await page.evaluate(() => window.__leanscope.ready);
  page.errors = errors;
  return page;
}

async function rowData(page, selector) {
  return page.$$eval(selector, (els) => els.map((e) => ({ ...e.dataset, text: e.textContent })));
}

test('walks folder → file → declaration → tactic → line with the numbers recording computed', async () => {
  const page = await openViewer(view.url);
  // Session status and failed files are shown.
  assert.equal(manifest.status, 'partial');
  assert.equal(await page.textContent('#session-status'), 'partial');
  const failed = manifest.files.filter((f) => f.status === 'failed');
  assert.ok(failed.length >= 1);
  for (const f of failed) {
    const problem = await page.textContent(`#problems .problem[data-path="${f.path}"]`);
    assert.match(problem, /failed/);
    assert.ok(problem.includes(f.error), problem);
  }
  const counts = await page.textContent('#session-counts');
  assert.ok(counts.includes(`${manifest.counts.completed} of ${manifest.counts.planned} files captured · ${manifest.counts.failed} failed`), counts);
  assert.ok(counts.includes(fmtNs(folderTotal(''))), counts);
  await page.screenshot({ path: join(OUT, '01-session.png') });

  // Root → Synth: folder totals are sums of committed files; shares of parent and session.
  const root = await rowData(page, '#folder-list li');
  assert.equal(root.length, 1);
  assert.equal(Number(root[0].totalNs), folderTotal('Synth'));
  await page.click('#folder-list li[data-path="Synth"]');
  await page.waitForSelector('#folder-list li[data-path="Synth/Algebra"]');
  const synthTotal = folderTotal('Synth');
  for (const r of await rowData(page, '#folder-list li')) {
    assert.equal(Number(r.totalNs), folderTotal(r.path), r.path);
    const share = folderTotal(r.path) / synthTotal;
    assert.ok(r.text.includes(`${(share * 100).toFixed(1)}% of parent`), r.text);
    assert.ok(r.text.includes(`${(share * 100).toFixed(1)}% of session`), r.text);
  }
  // The non-BMP file name is there.
  assert.ok(await page.$('#folder-list li[data-path="Synth/Unicode"]'));

  // Into a nested folder, then a file.
  const nested = manifest.files.find((f) => f.status === 'ok' && f.path.split('/').length === 4);
  const folderPath = nested.path.split('/').slice(0, 3).join('/');
  await page.click(`#folder-list li[data-path="${folderPath.split('/').slice(0, 2).join('/')}"]`);
  await page.click(`#folder-list li[data-path="${folderPath}"]`);
  await page.waitForSelector(`#folder-list li[data-path="${nested.path}"]`);
  const crumbs = await page.textContent('#crumbs');
  assert.equal(crumbs, `session/${folderPath}`);
  const fileRow = (await rowData(page, `#folder-list li[data-path="${nested.path}"]`))[0];
  assert.equal(Number(fileRow.totalNs), fileTime(nested));
  assert.ok(fileRow.text.includes(fmtNs(fileTime(nested))));
  await page.screenshot({ path: join(OUT, '02-folder.png') });

  await page.click(`#folder-list li[data-path="${nested.path}"]`);
  await page.waitForFunction((p) => document.querySelector('#file-title').textContent === p, nested.path);
  const info = JSON.parse(leanscope('info', '--json', join(session, nested.recording)));
  assert.equal(Number(await page.getAttribute('#file-facts', 'data-events')), info.events);
  const facts = await page.textContent('#file-facts');
  assert.ok(facts.includes(`elapsed ${fmtNs(info.elapsedNs)}`), facts);
  assert.ok(facts.includes(`traced ${fmtNs(info.tracedNs)}`), facts);

  // Declarations of the file, slowest first, as index.jsonl has them.
  await page.waitForSelector('#list li[data-kind="declaration"]');
  const declRows = await rowData(page, '#list li[data-kind="declaration"]');
  const expectedDecls = index.filter((r) => r.kind === 'declaration' && r.path === nested.path)
    .sort((a, b) => b.durationMs - a.durationMs);
  assert.equal(declRows.filter((r) => r.totalNs !== '').length, expectedDecls.length);
  assert.equal(info.declarationsWithTime, expectedDecls.length);
  for (let i = 0; i < expectedDecls.length; i++) {
    assert.equal(declRows[i].name, expectedDecls[i].name);
    assert.equal(Number(declRows[i].totalNs), msToNs(expectedDecls[i].durationMs));
    assert.equal(Number(declRows[i].selfNs), msToNs(expectedDecls[i].selfMs));
    assert.ok(declRows[i].text.includes(fmtNs(msToNs(expectedDecls[i].durationMs))));
  }
  await page.waitForSelector('#source[data-bars="ready"]');
  await page.screenshot({ path: join(OUT, '03-file.png') });

  // The slowest declaration.
  await page.click('#list li[data-kind="declaration"]');
  await page.waitForSelector('#details [data-kind="declaration"]');
  const d = (await rowData(page, '#details > [data-kind="declaration"]'))[0];
  assert.equal(Number(d.totalNs), msToNs(expectedDecls[0].durationMs));
  assert.equal(Number(d.selfNs), msToNs(expectedDecls[0].selfMs));
  const detailsText = await page.textContent('#details');
  assert.ok(detailsText.includes(fmtNs(msToNs(expectedDecls[0].durationMs))));
  assert.ok(detailsText.includes('Contributing operations'));
  assert.ok(await page.$('.line.in-decl'), 'the declaration is highlighted in the source view');
  await page.screenshot({ path: join(OUT, '04-declaration.png') });

  // One of its tactics, checked against the index's tactic row.
  const tacticRows = await rowData(page, '#details .tactics li');
  assert.ok(tacticRows.length > 0);
  const expectedTactics = index.filter((r) => r.kind === 'tactic' && r.path === nested.path && r.declaration === expectedDecls[0].name);
  assert.equal(tacticRows.length, expectedTactics.length);
  await page.click('#details .tactics li');
  await page.waitForSelector('#details > [data-kind="tactic"]');
  const t = (await rowData(page, '#details > [data-kind="tactic"]'))[0];
  const tacticName = (await page.textContent('#details h3'));
  const match = expectedTactics.find((r) => r.name === tacticName && msToNs(r.durationMs) === Number(t.totalNs));
  assert.ok(match, `tactic ${tacticName} ${t.totalNs} is in the index`);
  assert.equal(Number(t.selfNs), msToNs(match.selfMs));
  assert.ok((await page.textContent('#details')).includes(match.attribution), 'range kind shown');
  await page.screenshot({ path: join(OUT, '05-tactic.png') });

  // Its source line: the line's bar and the line details agree.
  await page.click('#details a.ev >> nth=-1');
  await page.waitForSelector('#details > [data-kind="line"]');
  const line = (await rowData(page, '#details > [data-kind="line"]'))[0];
  assert.equal(Number(line.line), match.line - 1);
  await page.waitForSelector('#source[data-bars="ready"]');
  const bar = (await rowData(page, `#source .line[data-line="${match.line - 1}"]`))[0];
  assert.equal(bar.totalNs, line.totalNs);
  assert.equal(bar.selfNs, line.selfNs);
  assert.ok(Number(line.totalNs) >= msToNs(match.durationMs), 'a line holds at least its tactic');
  await page.screenshot({ path: join(OUT, '06-line.png') });

  // Session-wide tactic ranking from the index, filtered.
  await page.click('#crumbs a[data-node="0"]');
  await page.click('#tab-tactics');
  await page.fill('#filter', 'omega');
  await page.waitForFunction(() => document.querySelector('#list-scope').textContent.includes('tactics in the session'));
  await page.waitForFunction(() => [...document.querySelectorAll('#list li')].every((li) => li.dataset.name.includes('omega')));
  const ranked = await rowData(page, '#list li');
  const expectedRanked = index.filter((r) => r.kind === 'tactic' && r.name.toLowerCase().includes('omega'))
    .sort((a, b) => b.durationMs - a.durationMs);
  assert.equal(ranked.length, Math.min(500, expectedRanked.length));
  assert.equal(Number(ranked[0].durationMs), expectedRanked[0].durationMs);
  await page.screenshot({ path: join(OUT, '07-ranking.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a timeline click selects the slice and the source view follows', async () => {
  const file = manifest.files.find((f) => f.status === 'ok');
  const page = await openViewer(`${view.url}#node=0&file=${file.id}&tab=declarations`);
  await page.waitForFunction(() => window.__leanscope.timeline.layout && window.__leanscope.timeline.layout.rects.length > 0);
  // Zoom in on the first declaration so slices are wide.
  await page.click('#list li[data-kind="declaration"]');
  await page.waitForFunction(() => window.__leanscope.timeline.layout && window.__leanscope.state.sel);
  await page.evaluate(() => window.__leanscope.redrawTimeline());
  const target = await page.evaluate(() => {
    const a = window.__leanscope.timeline.layout.rects;
    let best = null;
    const plot = document.querySelector('#timeline').clientWidth - 110;
    for (let k = 0; k < a.length; k += 6) {
      const x0 = Math.max(a[k + 1], 0);
      const x1 = Math.min(a[k + 2], plot);
      // A slice drawn on its own, on a row in view, as wide as can be.
      if (a[k + 4] === 1 && a[k] >= 1 && a[k] <= 6 && (!best || x1 - x0 > best.w)) {
        best = { row: a[k], x: (x0 + x1) / 2, w: x1 - x0, event: a[k + 3] };
      }
    }
    return best;
  });
  assert.ok(target && target.w > 4, JSON.stringify(target));
  const box = await page.locator('#timeline').boundingBox();
  await page.mouse.click(box.x + 110 + Math.max(target.x, 1), box.y + 18 + target.row * 16 + 8);
  await page.waitForFunction((e) => {
    const d = document.querySelector('#details > [data-kind="event"]');
    return d && Number(d.dataset.event) === e;
  }, target.event);
  const ev = await page.evaluate((e) => window.__leanscope.call('event', window.__leanscope.state.file, e), target.event);
  assert.ok(ev.range, 'the clicked event has a source range');
  const selectedLines = await page.$$eval('#source .line.selected', (els) => els.map((e) => Number(e.dataset.line)));
  assert.ok(selectedLines.includes(ev.range.startLine), `${selectedLines} includes ${ev.range.startLine}`);
  const detail = await page.textContent('#details');
  assert.ok(detail.includes(fmtNs(ev.inclusiveNs)));
  assert.ok(detail.includes(ev.rangeKind));
  await page.screenshot({ path: join(OUT, '08-timeline-selection.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a deep link reopens the same selection', async () => {
  const page = await openViewer(view.url);
  const file = manifest.files.find((f) => f.status === 'ok' && f.path.split('/').length === 4);
  await page.evaluate(async (k) => { location.hash = `#node=0&file=${k}&tab=declarations`; }, file.id);
  await page.waitForFunction((p) => document.querySelector('#file-title').textContent === p, file.path);
  await page.click('#list li[data-kind="declaration"] >> nth=1');
  await page.waitForSelector('#details > [data-kind="declaration"]');
  const chosen = (await rowData(page, '#details > [data-kind="declaration"]'))[0];
  const url = page.url();
  assert.match(url, /sel=decl%3A\d+|sel=decl:\d+/);
  await page.close();
  const again = await openViewer(url);
  await again.waitForSelector('#details > [data-kind="declaration"]');
  const reopened = (await rowData(again, '#details > [data-kind="declaration"]'))[0];
  assert.equal(reopened.index, chosen.index);
  assert.equal(reopened.totalNs, chosen.totalNs);
  assert.equal(await again.textContent('#file-title'), file.path);
  assert.deepEqual(again.errors, []);
  await again.close();
});

test('the folder view the server put in the page is painted first, then the worker\'s is the same', async () => {
  for (const url of [view.url, null]) {
    let server = null;
    if (url === null) {
      const pub = join(dir, 'published-first-view');
      leanscope('publish', session, '-o', pub);
      server = await staticServer(pub);
    }
    try {
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(url || server.url);
      await page.waitForFunction(() => window.__leanscope && window.__leanscope.firstView);
      const first = await page.evaluate(() => window.__leanscope.firstView);
      await page.evaluate(() => window.__leanscope.ready);
      const after = await page.evaluate(() => window.__leanscope.firstViewSnapshot());
      assert.deepEqual(after, first);
      const rows = await rowData(page, '#folder-list li');
      assert.equal(Number(rows[0].totalNs), folderTotal('Synth'));
      assert.equal(await page.textContent('#session-status'), 'partial');
      // And it works as before.
      await page.click('#folder-list li[data-path="Synth"]');
      await page.waitForSelector('#folder-list li[data-path="Synth/Algebra"]');
      assert.deepEqual(errors, []);
      await page.close();
    } finally {
      if (server) server.stop();
    }
  }
  // A link to somewhere else opens there without the first view.
  const page = await openViewer(`${view.url}#node=1`);
  assert.equal(await page.evaluate(() => window.__leanscope.firstView), undefined);
  await page.close();
});

function raw(url, { method = 'GET', path, headers = {} }) {
  const u = new URL(url);
  return new Promise((ok, fail) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers: { Host: u.host, ...headers } }, (res) => {
      res.resume();
      res.on('end', () => ok(res));
    });
    req.on('error', fail);
    req.end();
  });
}

test('leanscope view refuses requests without the token, from other origins, or out of the session', async () => {
  const u = new URL(view.url);
  const token = u.pathname.split('/')[1];
  const ok = await raw(view.url, { path: `/${token}/data/session.json` });
  assert.equal(ok.statusCode, 200);
  assert.match(ok.headers['content-security-policy'], /script-src 'self' 'wasm-unsafe-eval'/);
  assert.match(ok.headers['content-security-policy'], /worker-src blob:/);
  assert.equal((await raw(view.url, { path: '/data/session.json' })).statusCode, 403);
  assert.equal((await raw(view.url, { path: `/${token.slice(1)}x/data/session.json` })).statusCode, 403);
  assert.equal((await raw(view.url, { path: `/${token}/data/session.json`, headers: { Origin: 'http://evil.example' } })).statusCode, 403);
  assert.equal((await raw(view.url, { path: `/${token}/data/session.json`, headers: { Host: 'evil.example' } })).statusCode, 403);
  assert.equal((await raw(view.url, { path: `/${token}/data/../../../etc/passwd` })).statusCode, 400);
  assert.equal((await raw(view.url, { path: `/${token}/data/%2e%2e/%2e%2e/etc/passwd` })).statusCode, 400);
  assert.equal((await raw(view.url, { path: `/${token}/data/session.json`, method: 'POST' })).statusCode, 405);
  assert.equal((await raw(view.url, { path: `/${token}/data/session.json`, method: 'HEAD' })).statusCode, 200);
});

test('the published copy works from a plain static server', async () => {
  const pub = join(dir, 'published');
  leanscope('publish', session, '-o', pub);
  const server = await staticServer(pub);
  try {
    const page = await openViewer(server.url);
    assert.equal(await page.textContent('#session-status'), 'partial');
    const root = await rowData(page, '#folder-list li');
    assert.equal(Number(root[0].totalNs), folderTotal('Synth'));
    const file = manifest.files.find((f) => f.status === 'error');
    await page.evaluate((k) => { location.hash = `#node=0&file=${k}&tab=declarations`; }, file.id);
    await page.waitForFunction((p) => document.querySelector('#file-title').textContent === p, file.path);
    const facts = await page.textContent('#file-facts');
    assert.ok(facts.includes('status error (1 errors)'), facts);
    await page.screenshot({ path: join(OUT, '09-published.png') });
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    server.stop();
  }
});

test('a lone recording opens through leanscope view', async () => {
  const rec = join(dir, 'lone.lsrec');
  leanscope('synth', '--events', '5000', '--threads', '2', '--seed', '9', '-o', rec);
  const info = JSON.parse(leanscope('info', '--json', rec));
  const v = await startView(rec);
  try {
    const page = await openViewer(v.url);
    await page.waitForFunction(() => document.querySelector('#file-facts').dataset.events);
    assert.equal(Number(await page.getAttribute('#file-facts', 'data-events')), info.events);
    await page.waitForSelector('#list li[data-kind="declaration"]');
    const rows = await rowData(page, '#list li[data-kind="declaration"]');
    assert.equal(rows.filter((r) => r.totalNs !== '').length, info.declarationsWithTime);
    const root = await rowData(page, '#folder-list li');
    assert.equal(Number(root[0].totalNs), info.tracedNs, 'a synthetic recording has no elapsed time: traced time is used');
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    v.stop();
  }
});

test('a file\'s long tactic list shows its slowest 500, and a deep link reaches any tactic', async () => {
  const rec = join(dir, 'many-tactics.lsrec');
  leanscope('synth', '--events', '20000', '--threads', '2', '--seed', '9', '-o', rec);
  const query = JSON.parse(leanscope('query', rec, '--kind', 'tactic', '--all', '--json'));
  assert.ok(query.matched > 500, `${query.matched} tactics`);
  const v = await startView(rec);
  try {
    const page = await openViewer(`${v.url}#node=0&file=0&tab=tactics`);
    await page.waitForFunction(() => document.querySelector('#list-scope').textContent.includes('listed'));
    assert.match(await page.textContent('#list-scope'),
      new RegExp(`^${query.matched} of ${query.matched} tactics in .*, the first 500 listed$`));
    const rows = await rowData(page, '#list li[data-kind="tactic"]');
    assert.equal(rows.length, 500);
    assert.deepEqual(rows.map((r) => Number(r.totalNs)),
      query.rows.slice(0, 500).map((r) => Math.round(r.durationMs * 1e6)));
    // A tactic that is not among them: its link opens it.
    const listed = new Set(rows.map((r) => Number(r.index)));
    const other = [...Array(query.matched).keys()].find((n) => !listed.has(n));
    await page.evaluate((n) => { location.hash = `#node=0&file=0&tab=tactics&sel=tactic:${n}`; }, other);
    await page.waitForSelector(`#details > [data-kind="tactic"][data-index="${other}"]`);
    const shown = (await rowData(page, '#details > [data-kind="tactic"]'))[0];
    const label = await page.textContent('#details > [data-kind="tactic"] h3');
    assert.ok(query.rows.some((r) => r.name === label && Math.round(r.durationMs * 1e6) === Number(shown.totalNs)),
      `${label}: ${shown.totalNs} ns`);
    // A tactic that is not there is named, not ignored.
    await page.evaluate((n) => { location.hash = `#node=0&file=0&tab=tactics&sel=tactic:${n}`; }, query.matched);
    await page.waitForFunction(() => document.querySelector('#banner').textContent.includes('has no tactic'));
    await page.evaluate(() => { location.hash = '#node=0&file=0&tab=tactics&sel=tactic:x'; });
    await page.waitForFunction(() => document.querySelector('#banner').textContent.includes('"tactic:x" is not a kind and a number'));
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    v.stop();
  }
});

test('another profiler\'s file opens through leanscope view, imported in memory', async () => {
  const rec = join(dir, 'for-chrome.lsrec');
  const trace = join(dir, 'trace.json');
  leanscope('synth', '--events', '3000', '--threads', '2', '--seed', '11', '-o', rec);
  leanscope('export', rec, '--format', 'chrome', '-o', trace);
  // What `leanscope import` makes of the same file.
  const imported = join(dir, 'imported.lsrec');
  leanscope('import', trace, '-o', imported);
  const info = JSON.parse(leanscope('info', '--json', imported));
  const before = readdirSync(dir).sort();
  const v = await startView(trace);
  try {
    const page = await openViewer(v.url);
    await page.waitForFunction(() => document.querySelector('#file-facts').dataset.events);
    assert.equal(Number(await page.getAttribute('#file-facts', 'data-events')), info.events);
    assert.match(await page.textContent('#file-facts'), /imported/);
    const rows = await rowData(page, '#folder-list li');
    assert.equal(Number(rows[0].totalNs), info.tracedNs);
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    v.stop();
  }
  assert.deepEqual(readdirSync(dir).sort(), before, 'nothing was written next to the trace');
});

test('a damaged recording and a torn index are reported, not hidden', async () => {
  const broken = join(dir, 'broken');
  leanscope('synth-session', '-o', broken, '--files', '3', '--events', '500', '--fail-every', '0', '--error-every', '0', '--status', 'running');
  const m = JSON.parse(readFileSync(join(broken, 'session.json'), 'utf8'));
  const victim = join(broken, m.files[1].recording);
  truncateSync(victim, Math.floor(statSync(victim).size / 2));
  appendFileSync(join(broken, 'index.jsonl'), '{"kind":"declaration","name":"half');
  const v = await startView(broken);
  try {
    const page = await openViewer(v.url);
    assert.equal(await page.textContent('#session-status'), 'interrupted');
    // The torn row lies past the manifest's committed index bytes: named, then ignored.
  await page.waitForFunction(() => /ignored the last \d+ bytes of index\.jsonl/.test(document.querySelector('#banner').textContent));
    await page.evaluate((k) => { location.hash = `#node=0&file=${k}`; }, m.files[1].id);
    await page.waitForFunction(() => /Cannot open the recording: .*truncated/.test(document.querySelector('#banner').textContent));
    await page.screenshot({ path: join(OUT, '10-errors.png') });
    await page.close();
  } finally {
    v.stop();
  }
});

test('a recording whose source text does not match its SHA-256 is refused', async () => {
  // The browser hashes the source while the events decode; a mismatch is
  // refused with the error the native reader gives.
  const rec = join(dir, 'tampered.lsrec');
  leanscope('synth', '--events', '2000', '--threads', '2', '--seed', '4', '-o', rec);
  const bytes = readFileSync(rec);
  const at = bytes.indexOf('import Std');
  assert.ok(at > 0);
  bytes.write('import Xtd', at);
  writeFileSync(rec, bytes);
  const info = spawnSync(leanscopeBin(), ['info', rec], { encoding: 'utf8' });
  assert.notEqual(info.status, 0);
  assert.match(info.stderr, /the embedded source text does not match its SHA-256/);
  const v = await startView(rec);
  try {
    const page = await browser.newPage();
    await page.goto(v.url);
    await page.waitForFunction(() => /Cannot open .*: invalid recording: the embedded source text does not match its SHA-256/
      .test(document.querySelector('#banner').textContent), null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => window.__leanscope.fileLoads.length), 0);
    await page.close();
  } finally {
    v.stop();
  }
});

test('embedded: selections post reveal requests and host messages select', async () => {
  const init = () => {
    window.__posted = [];
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m) });
  };
  const page = await openViewer(view.url, init);
  const file = manifest.files.find((f) => f.status === 'ok');
  await page.waitForFunction(() => window.__posted.some((m) => m.type === 'leanscope.ready'));
  const decl = index.find((r) => r.kind === 'declaration' && r.path === file.path);
  // The host puts the cursor on a declaration's line.
  await page.evaluate(([p, line]) => window.postMessage({ type: 'leanscope.select', path: p, line }, '*'), [file.path, decl.line]);
  await page.waitForSelector('#details > [data-kind="declaration"]');
  assert.equal(await page.textContent('#file-title'), file.path);
  const shown = (await rowData(page, '#details > [data-kind="declaration"]'))[0];
  assert.equal(Number(shown.totalNs), msToNs(decl.durationMs));
  const posted = await page.evaluate(() => window.__posted.filter((m) => m.type === 'leanscope.revealRange'));
  assert.ok(posted.length >= 1);
  const last = posted[posted.length - 1];
  assert.equal(last.path, file.path);
  assert.equal(last.declaration, decl.name);
  assert.equal(last.range.startLine, decl.line - 1);
  await page.close();
});

test('light theme follows VS Code theme variables', async () => {
  const page = await openViewer(view.url);
  // VS Code puts its theme's colours on <html> as --vscode-* variables.
  await page.evaluate(() => document.documentElement.style.setProperty('--vscode-editor-background', 'rgb(1, 2, 3)'));
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(1, 2, 3)');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(OUT, '11-dark.png') });
  await page.close();
});

