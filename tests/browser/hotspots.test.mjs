// Hot spots in the viewer: a session captured with `leanscope profile
// --project` of the demo project through the fake toolchain, opened with
// `leanscope view` in headless Chromium. The Hot spots tab of a file and of
// the session, the sandwich, the flame graph (of a file and of a folder's
// merged recordings), a session captured before hot spots were indexed, and
// the host's entry points. Numbers are checked against the session's
// `hotspot` index rows, which the capture wrote from recording::hotspots
// natively.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ROOT, OUT, leanscope, leanscopeBin, tempDir, startView, staticServer, launchBrowser, fakeLean,
} from './helpers.mjs';

let dir; let session; let manifest; let index; let view; let browser;

const msToNs = (ms) => Math.round(ms * 1e6);
/** Index rows hold milliseconds to the microsecond. */
const close = (ns, ms, what) => assert.ok(Math.abs(ns - msToNs(ms)) <= 1000, `${what}: ${ns} ns against ${ms} ms`);

before(async () => {
  dir = tempDir('hotspots');
  const project = join(dir, 'demo');
  cpSync(join(ROOT, 'fixtures/projects/demo'), project, { recursive: true });
  rmSync(join(project, 'Demo/Huge.lean'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const name of ['lake', 'lean']) symlinkSync(fakeLean(), join(bin, name));
  session = join(dir, 'session');
  const run = spawnSync(leanscopeBin(), ['profile', '--project', project, '-o', session], {
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${bin}:/usr/bin:/bin`,
      HOME: dir,
      LEANSCOPE_FAKE_FIXTURES: join(ROOT, 'fixtures/lean-output'),
      LEANSCOPE_FAKE_DELAY_SCALE: '0',
    },
  });
  assert.equal(run.stdout.trim(), session, run.stderr);
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
  await page.evaluate(() => window.__leanscope.ready);
  page.errors = errors;
  return page;
}

async function rowData(page, selector) {
  return page.$$eval(selector, (els) => els.map((e) => ({ ...e.dataset, text: e.textContent })));
}

const hotRowsOf = (path) => index.filter((r) => r.kind === 'hotspot' && r.path === path);
const label = (r) => (r.name ? `${r.class} ${r.name}` : r.class);

async function openClean(page) {
  await page.click('#folder-list li[data-path="Demo"]');
  await page.waitForSelector('#folder-list li[data-path="Demo/Clean.lean"]');
  await page.click('#folder-list li[data-path="Demo/Clean.lean"]');
  await page.waitForFunction(() => document.querySelector('#file-title').textContent === 'Demo/Clean.lean');
}

test("a file's Hot spots tab: the model's keys, the class filter, the sandwich and its occurrences", async () => {
  const page = await openViewer(view.url, () => {
    window.__posted = [];
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m) });
  });
  await openClean(page);
  await page.click('#tab-hotspots');
  await page.waitForSelector('#list li[data-kind="hotspot"]');
  const rows = await rowData(page, '#list li[data-kind="hotspot"]');
  const native = hotRowsOf('Demo/Clean.lean');
  assert.ok(native.length > 3 && native.length < 100, 'the file has all its keys in the index');
  assert.equal(rows.length, native.length);
  // Every key with its total, self and calls as the capture computed them.
  for (const n of native) {
    const r = rows.find((x) => x.label === label(n));
    assert.ok(r, label(n));
    close(Number(r.totalNs), n.durationMs, `${label(n)} total`);
    close(Number(r.selfNs), n.selfMs, `${label(n)} self`);
    assert.equal(Number(r.count), n.count, label(n));
  }
  const omega = rows.find((r) => r.label === 'Elab.step omega');
  assert.ok(omega, 'the Elab.step omega key');
  // Sorted by self, the slowest first; the sort select orders by total.
  for (let i = 1; i < rows.length; i++) assert.ok(Number(rows[i - 1].selfNs) >= Number(rows[i].selfNs));
  assert.equal(await page.inputValue('#sort'), 'self');
  await page.selectOption('#sort', 'total');
  await page.waitForFunction(() => {
    const t = [...document.querySelectorAll('#list li[data-kind="hotspot"]')].map((li) => Number(li.dataset.totalNs));
    return t.length > 1 && t.every((x, i) => i === 0 || t[i - 1] >= x);
  });
  await page.selectOption('#sort', 'self');

  // The class filter offers the classes present and narrows the rows.
  const classes = await page.$$eval('#hot-class option', (os) => os.map((o) => o.value));
  assert.ok(classes.includes('Elab.step') && classes.includes(''), classes.join(','));
  await page.selectOption('#hot-class', 'Elab.step');
  await page.waitForFunction(() => [...document.querySelectorAll('#list li[data-kind="hotspot"]')].every((li) => li.dataset.class === 'Elab.step'));
  const steps = await rowData(page, '#list li[data-kind="hotspot"]');
  assert.equal(steps.length, native.filter((n) => n.class === 'Elab.step').length);
  assert.ok(steps.length < rows.length);

  // A row expands into its callers by self time.
  const omegaRow = '#list li[data-kind="hotspot"][data-label="Elab.step omega"]';
  await page.click(`${omegaRow} .toggle`);
  await page.waitForSelector(`${omegaRow} .hot-tree li[data-label]`);

  // Selecting it: its sandwich, with callers, callees and its occurrences.
  await page.click(`${omegaRow} .name`);
  await page.waitForSelector('#details > [data-kind="hotspot"]');
  const shown = (await rowData(page, '#details > [data-kind="hotspot"]'))[0];
  assert.equal(shown.totalNs, omega.totalNs);
  const callers = await rowData(page, '#details .callers > li');
  assert.ok(callers.length >= 1 && callers[0].label, 'omega has a caller');
  assert.ok(await page.$('#details .callees'), 'the callees half');
  const occ = await rowData(page, '#details .occurrences li');
  assert.equal(occ.length, Number(omega.count), 'every omega is outermost: one occurrence per call');
  assert.ok(occ.every((o) => o.line !== ''), 'each occurrence has a line');
  await page.screenshot({ path: join(OUT, '20-hotspots-file.png') });

  // An occurrence selects its event and its line; the editor is asked to reveal it.
  await page.click('#details .occurrences li >> nth=0');
  await page.waitForFunction((l) => document.querySelector(`#source .line.selected[data-line="${l}"]`), occ[0].line);
  assert.equal(await page.evaluate(() => window.__leanscope.state.sel.kind), 'event');
  assert.equal(Number(await page.evaluate(() => window.__leanscope.state.sel.value)), Number(occ[0].event));
  const posted = await page.evaluate(() => window.__posted.filter((m) => m.type === 'leanscope.revealRange'));
  assert.equal(posted[posted.length - 1].range.startLine, Number(occ[0].line));
  assert.ok(await page.$('#details > [data-kind="hotspot"]'), 'the sandwich stays');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a big file's hot spots are built while the viewer is idle, and are the CLI's", async () => {
  // 200,000 events: several of the worker's slices of 65,536.
  const rec = join(dir, 'synth-200k.lsrec');
  leanscope('synth', '--seed', '3', '--events', '200000', '--threads', '3', '-o', rec);
  const cli = JSON.parse(leanscope('top', rec, '--json', '-', '--limit', '100000'));
  const big = await startView(rec);
  try {
    const page = await browser.newPage();
    await page.goto(big.url);
    await page.waitForFunction(() => window.__leanscope && window.__leanscope.fileLoads.length > 0
      && window.__leanscope.fileLoads[0].firstTimelineMs !== null);
    // No hot-spot request was made: the worker took in every event on its own.
    const k = await page.evaluate(() => window.__leanscope.state.file);
    await page.waitForFunction(async (file) => {
      const p = await window.__leanscope.call('hotSpotsPrepared', file);
      return p.taken === p.events && !p.finished;
    }, k, { polling: 50 });
    const prepared = await page.evaluate((file) => window.__leanscope.call('hotSpotsPrepared', file), k);
    assert.equal(prepared.events, 200000);
    await page.click('#tab-hotspots');
    await page.waitForSelector('#list li[data-kind="hotspot"]');
    assert.equal((await page.evaluate((file) => window.__leanscope.call('hotSpotsPrepared', file), k)).finished, true);
    const rows = await rowData(page, '#list li[data-kind="hotspot"]');
    assert.equal(rows.length, cli.rows.length);
    for (const [i, n] of cli.rows.entries()) {
      assert.equal(rows[i].label, n.key.label, `row ${i + 1}`);
      assert.equal(Number(rows[i].totalNs), n.total, `${n.key.label} total`);
      assert.equal(Number(rows[i].selfNs), n.self, `${n.key.label} self`);
      assert.equal(Number(rows[i].count), n.count, `${n.key.label} calls`);
    }
    await page.close();
  } finally {
    big.stop();
  }
});

test("a file's line bars are timed a slice at a time: the Hot spots tab asked for meanwhile is answered first", async () => {
  // Two files of 200,000 events: the second is loaded by hand, its line
  // bars asked for and, before they came, its hot spots.
  const session = join(dir, 'synth-session-200k');
  rmSync(session, { recursive: true, force: true });
  leanscope('synth-session', '-o', session, '--files', '2', '--events', '200000', '--threads', '3', '--seed', '5');
  const two = await startView(session);
  try {
    const page = await openViewer(two.url);
    const got = await page.evaluate(async () => {
      const L = window.__leanscope;
      await L.call('loadFile', 1);
      const order = [];
      const bars = L.call('lineBars', 1).then((b) => { order.push('line bars'); return b; });
      const hot = L.call('hotRows', 1, '', '', 'self', 100).then((h) => { order.push('hot spots'); return h; });
      const [b, h] = await Promise.all([bars, hot]);
      return { order, bars: b.bars.length, events: b.bars.reduce((n, bar) => n + bar[3], 0), hot: h.rows.length };
    });
    assert.deepEqual(got.order, ['hot spots', 'line bars']);
    assert.ok(got.hot > 1, `hot-spot rows: ${got.hot}`);
    assert.ok(got.bars > 100, `line bars: ${got.bars}`);
    // Every event with a range counted on its line once.
    assert.ok(got.events > 0 && got.events <= 200000, `events on the bars: ${got.events}`);
    await page.close();
  } finally {
    two.stop();
  }
});

test('the flame graph of a file: drawn, a tooltip with the key, click zooms, back resets', async () => {
  const page = await openViewer(view.url);
  await openClean(page);
  await page.click('#tl-mode-flame');
  await page.waitForFunction(() => window.__leanscope.flame.graph && window.__leanscope.flame.graph.n > 1);
  assert.equal(await page.isVisible('#timeline'), false);
  const painted = await page.evaluate(() => {
    const c = document.querySelector('#flame');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
    return n;
  });
  assert.ok(painted > 1000, `painted pixels: ${painted}`);
  // The widest node under the root: hover it, then click it.
  const target = await page.evaluate(() => {
    const g = window.__leanscope.flame.graph;
    const c = document.querySelector('#flame');
    for (let i = 0; i < g.n; i++) {
      if (g.depth[i] === 1) return { id: g.nodes[i * 6 + 1], x: ((g.x0[i] + g.x1[i]) / 2) * c.clientWidth, y: 17 * 1.5, key: g.keys[g.nodes[i * 6 + 2]][1] };
    }
    return null;
  });
  assert.ok(target);
  const box = await page.$eval('#flame', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top }; });
  await page.mouse.move(box.x + target.x, box.y + target.y);
  await page.waitForSelector('#flame-tip:not([hidden])');
  const tip = await page.textContent('#flame-tip');
  assert.ok(tip.startsWith(target.key), tip);
  assert.match(tip, /total .* self .* calls? .* of all/);
  await page.mouse.click(box.x + target.x, box.y + target.y);
  await page.waitForFunction((id) => window.__leanscope.flame.at === id && window.__leanscope.flame.graph.nodes[1] === id, target.id);
  assert.ok((await page.textContent('#flame-path')).includes(target.key));
  await page.click('#fl-back');
  await page.waitForFunction(() => window.__leanscope.flame.at === 0);
  // The class filter applies: only its keys are drawn.
  await page.click('#tab-hotspots');
  await page.waitForSelector('#list li[data-kind="hotspot"]');
  await page.selectOption('#hot-class', 'Elab.step');
  await page.waitForFunction(() => {
    const g = window.__leanscope.flame.graph;
    return Object.values(g.keys).every((k) => k[0] === 'Elab.step');
  });
  await page.screenshot({ path: join(OUT, '21-flame-file.png') });
  // Back to the timeline.
  await page.click('#tl-mode-timeline');
  assert.equal(await page.isVisible('#timeline'), true);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the session's Hot spots tab sums its files' index rows; a folder's flame graph merges its recordings", async () => {
  const page = await openViewer(view.url);
  await page.click('#tab-hotspots');
  await page.waitForFunction(() => document.querySelector('#list-scope').dataset.hotIndexed === 'true'
    && document.querySelectorAll('#list li[data-kind="hotspot"]').length > 0);
  const rows = await rowData(page, '#list li[data-kind="hotspot"]');
  const omegas = index.filter((r) => r.kind === 'hotspot' && r.class === 'Elab.step' && r.name === 'omega');
  assert.ok(omegas.length >= 2, 'omega occurs in several files');
  const omega = rows.find((r) => r.label === 'Elab.step omega');
  assert.equal(Number(omega.files), omegas.length);
  assert.equal(Number(omega.count), omegas.reduce((a, r) => a + r.count, 0));
  const sum = omegas.reduce((a, r) => a + msToNs(r.durationMs), 0);
  assert.ok(Math.abs(Number(omega.totalNs) - sum) <= 1000 * omegas.length, `${omega.totalNs} against ${sum}`);
  // Its files with the most of it, each opening the file.
  await page.click('#list li[data-kind="hotspot"][data-label="Elab.step omega"] .name');
  await page.waitForSelector('#details .top-files li');
  const top = await rowData(page, '#details .top-files li');
  const most = [...omegas].sort((a, b) => b.durationMs - a.durationMs)[0];
  assert.equal(top[0].path, most.path);
  // The class filter narrows the session's rows too.
  await page.selectOption('#hot-class', 'Elab.step');
  await page.waitForFunction(() => [...document.querySelectorAll('#list li[data-kind="hotspot"]')].every((li) => li.dataset.class === 'Elab.step'));
  await page.selectOption('#hot-class', '');
  // No file open: the flame graph merges the committed recordings.
  await page.click('#tl-mode-flame');
  await page.waitForFunction(() => window.__leanscope.flameMerge && window.__leanscope.flame.graph && window.__leanscope.flame.graph.n > 1);
  const merge = await page.evaluate(() => window.__leanscope.flameMerge);
  const committed = manifest.files.filter((f) => (f.status === 'ok' || f.status === 'error') && f.recording);
  assert.equal(merge.files, committed.length);
  assert.equal(merge.skipped, 0);
  await page.screenshot({ path: join(OUT, '22-hotspots-session.png') });
  // The top file opens from the sandwich.
  await page.click('#details .top-files li >> nth=0');
  await page.waitForFunction((p) => document.querySelector('#file-title').textContent === p, most.path);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a session captured before hot spots were indexed says so', async () => {
  const old = join(dir, 'old-session');
  cpSync(session, old, { recursive: true });
  const kept = index.filter((r) => r.kind !== 'hotspot').map((r) => `${JSON.stringify(r)}\n`).join('');
  writeFileSync(join(old, 'index.jsonl'), kept);
  const m = { ...manifest, indexBytes: Buffer.byteLength(kept) };
  writeFileSync(join(old, 'session.json'), JSON.stringify(m));
  const v = await startView(old);
  try {
    const page = await openViewer(v.url);
    await page.click('#tab-hotspots');
    await page.waitForFunction(() => document.querySelector('#list-scope').dataset.hotIndexed === 'false'
      && /captured before hot spots were indexed/.test(document.querySelector('#list-scope').textContent));
    assert.equal(await page.$$eval('#list li[data-kind="hotspot"]', (l) => l.length), 0);
    // A file still has its hot spots, from its recording.
    await openClean(page);
    await page.waitForSelector('#list li[data-kind="hotspot"]');
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    v.stop();
  }
});

test('the host opens the Hot spots tab (config view) and the flame graph (leanscope.show)', async () => {
  const pub = join(dir, 'published');
  leanscope('publish', session, '-o', pub);
  const html = readFileSync(join(pub, 'index.html'), 'utf8');
  const re = /(<script type="application\/json" id="leanscope-config">)(.*?)(<\/script>)/s;
  const config = JSON.parse(html.match(re)[2]);
  writeFileSync(join(pub, 'index.html'), html.replace(re, (_, a, __, c) => `${a}${JSON.stringify({ ...config, view: 'hotspots' })}${c}`));
  const server = await staticServer(pub);
  try {
    const page = await openViewer(server.url);
    await page.waitForFunction(() => document.querySelector('#tab-hotspots').getAttribute('aria-selected') === 'true');
    await page.waitForSelector('#list li[data-kind="hotspot"]');
    assert.equal(await page.isVisible('#hot-class'), true);
    await page.evaluate(() => window.postMessage({ type: 'leanscope.show', view: 'flame' }, '*'));
    await page.waitForFunction(() => document.querySelector('#tl-mode-flame').getAttribute('aria-pressed') === 'true'
      && window.__leanscope.flame.graph && window.__leanscope.flame.graph.n > 1);
    await page.evaluate(() => window.postMessage({ type: 'leanscope.show', view: 'nothing' }, '*'));
    await page.waitForFunction(() => /leanscope.show: there is no view "nothing"/.test(document.querySelector('#banner').textContent));
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    server.stop();
  }
});
