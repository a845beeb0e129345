// The diff view: `leanscope view CANDIDATE --baseline BASELINE` in headless
// Chromium, every row checked against `leanscope compare --json` for the
// same pair; a row opens its declaration in the candidate; the published
// copy carries the diff too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  OUT, leanscope, leanscopeBin, tempDir, launchBrowser, staticServer, startView, fmtNs,
} from './helpers.mjs';

let dir; let baseline; let candidate; let expected; let browser;

before(async () => {
  dir = tempDir('diff');
  baseline = join(dir, 'baseline');
  candidate = join(dir, 'candidate');
  // Same files and declarations, different times: regressions and improvements.
  leanscope('synth-session', '-o', baseline, '--files', '6', '--events', '400', '--seed', '1', '--fail-every', '0');
  leanscope('synth-session', '-o', candidate, '--files', '6', '--events', '400', '--seed', '2', '--fail-every', '0');
  const cmp = spawnSync(leanscopeBin(), ['compare', baseline, candidate, '--metric', 'total_ns',
    '--relative-tolerance-bps', '1000', '--json', '-'], { encoding: 'utf8' });
  assert.equal(cmp.status, 1, 'the pair has regressions');
  expected = JSON.parse(cmp.stdout);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function openDiff(url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => document.querySelectorAll('#folder-list li').length > 0);
  await page.waitForSelector('#tab-diff:not([hidden])');
  page.errors = errors;
  return page;
}

const rows = (page) => page.$$eval('#list li[data-kind="diff"]', (els) => els.map((e) => ({ ...e.dataset, text: e.textContent })));

test('the diff view lists what leanscope compare reports, largest increase first', async () => {
  const v = await startView(candidate, ['--baseline', baseline, '--relative-tolerance-bps', '1000']);
  try {
    const page = await openDiff(v.url);
    const count = (s) => expected.matched.filter((r) => r.status === s).length;
    const tab = await page.textContent('#tab-diff');
    assert.equal(tab, `Diff ▲${count('regression')} ▼${count('improvement')}`);
    assert.ok(count('regression') > 0 && count('improvement') > 0);
    await page.click('#tab-diff');
    await page.waitForSelector('#list li[data-kind="diff"]');
    const shown = await rows(page);
    const all = [
      ...expected.matched.map((r) => ({ ...r, delta: r.delta })),
      ...expected.new.map((r) => ({ key: r.key, status: 'new', baseline: null, candidate: r.value, delta: r.value })),
      ...expected.missing.map((r) => ({ key: r.key, status: 'missing', baseline: r.value, candidate: null, delta: -r.value })),
    ].sort((a, b) => b.delta - a.delta || a.key.name.localeCompare(b.key.name));
    assert.equal(shown.length, all.length);
    for (let i = 0; i < all.length; i++) {
      const want = all[i];
      const got = shown[i];
      assert.equal(got.name, want.key.name);
      assert.equal(got.file, want.key.file);
      assert.equal(got.status, want.status);
      assert.equal(Number(got.delta), want.delta);
      assert.equal(got.baseline, want.baseline === null ? '' : String(want.baseline));
      assert.equal(got.candidate, want.candidate === null ? '' : String(want.candidate));
    }
    // The top row is a regression and says by how much.
    const top = expected.matched.find((r) => r.key.name === shown[0].name && r.key.file === shown[0].file);
    assert.equal(top.status, 'regression');
    assert.ok(shown[0].text.includes(`+${fmtNs(top.delta)} (+${(top.change_bps / 100).toFixed(1)}%)`), shown[0].text);
    assert.ok(shown[0].text.includes(`baseline ${fmtNs(top.baseline)}`));
    assert.ok(shown[0].text.includes(`candidate ${fmtNs(top.candidate)}`));
    await page.screenshot({ path: join(OUT, '13-diff.png') });

    // Filtered to one file, then a row opens its declaration in the candidate.
    await page.fill('#filter', top.key.file);
    await page.waitForFunction((f) => [...document.querySelectorAll('#list li[data-kind="diff"]')].every((li) => li.dataset.file === f), top.key.file);
    const filtered = await rows(page);
    assert.equal(filtered.length, all.filter((r) => r.key.file === top.key.file).length);
    await page.click('#list li[data-kind="diff"]');
    await page.waitForFunction((p) => document.querySelector('#file-title').textContent === p, top.key.file);
    await page.waitForSelector('#details > [data-kind="declaration"]');
    assert.ok((await page.textContent('#details h3')).endsWith(top.key.name));
    const d = await page.$eval('#details > [data-kind="declaration"]', (e) => ({ ...e.dataset }));
    assert.equal(Number(d.totalNs), top.candidate, 'the candidate\'s time of the declaration');

    // A deep link to the diff tab reopens it.
    const link = page.url();
    assert.match(link, /tab=diff/);
    const again = await browser.newPage();
    await again.goto(link);
    await again.waitForSelector('#list li[data-kind="diff"]');
    assert.equal(await again.getAttribute('#tab-diff', 'aria-selected'), 'true');
    await again.close();
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    v.stop();
  }
});

test('without --baseline there is no diff tab and no diff document', async () => {
  const v = await startView(candidate);
  try {
    const page = await browser.newPage();
    await page.goto(v.url);
    await page.waitForFunction(() => document.querySelectorAll('#folder-list li').length > 0);
    assert.equal(await page.isHidden('#tab-diff'), true);
    const res = await page.evaluate(async () => (await fetch('diff.json')).status);
    assert.equal(res, 404);
    await page.close();
  } finally {
    v.stop();
  }
});

test('a baseline that cannot be read is refused before serving', () => {
  const r = spawnSync(leanscopeBin(), ['view', candidate, '--baseline', join(dir, 'nothing'), '--no-open'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /cannot compare with the baseline/);
  assert.match(r.stderr, /cannot read .*nothing: No such file or directory/);
  assert.doesNotMatch(r.stderr, /os error 2.*os error 2/, 'the cause is said once');
});

test('publish --baseline carries the diff view to a static host', async () => {
  const out = join(dir, 'site');
  leanscope('publish', candidate, '-o', out, '--baseline', baseline);
  const doc = JSON.parse(readFileSync(join(out, 'diff.json'), 'utf8'));
  assert.equal(doc.comparison.matched.length, expected.matched.length);
  const server = await staticServer(out);
  try {
    const page = await openDiff(server.url);
    await page.click('#tab-diff');
    await page.waitForSelector('#list li[data-kind="diff"]');
    assert.equal((await rows(page)).length, expected.matched.length + expected.new.length + expected.missing.length);
    await page.close();
  } finally {
    server.stop();
  }
});
