// A session captured the way users capture one — `leanscope profile
// --project` on the demo project, through the fake toolchain replaying
// Lean's recorded output — opened with `leanscope view` in headless
// Chromium. Every number the viewer shows is checked against what
// `leanscope query` prints for the same session.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ROOT, OUT, leanscope, leanscopeBin, tempDir, startView, launchBrowser, fmtNs, fakeLean,
} from './helpers.mjs';

let dir; let session; let manifest; let view; let browser;

const msToNs = (ms) => Math.round(ms * 1e6);
const query = (...args) => JSON.parse(leanscope('query', session, '--json', '--limit', '1000', ...args));

before(async () => {
  dir = tempDir('captured');
  const project = join(dir, 'demo');
  cpSync(join(ROOT, 'fixtures/projects/demo'), project, { recursive: true });
  // The 200,000-node file is the capture benchmark's; it adds nothing here.
  rmSync(join(project, 'Demo/Huge.lean'));
  // A file the fake toolchain has no recorded output for: it fails, and the
  // viewer lists the failure (the demo's own files all have one).
  writeFileSync(join(project, 'Unrecorded.lean'), 'theorem unrecorded : True := trivial\n');
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
  view = await startView(session);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (view) view.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function rowData(page, selector) {
  return page.$$eval(selector, (els) => els.map((e) => ({ ...e.dataset, text: e.textContent })));
}

test('a captured project session shows what leanscope query reports', async () => {
  // Unrecorded.lean has no recorded output: it fails, the rest (the demo's root module too) is captured.
  assert.equal(manifest.status, 'partial');
  assert.deepEqual(manifest.counts, { planned: 8, completed: 7, failed: 1 });

  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(view.url);
  await page.waitForFunction(() => document.querySelectorAll('#folder-list li').length > 0);
  assert.equal(await page.textContent('#session-status'), 'partial');
  const failed = await page.textContent('#problems .problem[data-path="Unrecorded.lean"]');
  assert.match(failed, /failed/);

  // Folders: the viewer's totals are the sums query computes.
  const folders = query('--kind', 'folder').rows;
  const demo = folders.find((r) => r.path === 'Demo');
  const root = await rowData(page, '#folder-list li[data-path="Demo"]');
  assert.equal(Number(root[0].totalNs), msToNs(demo.durationMs));
  await page.click('#folder-list li[data-path="Demo"]');
  await page.waitForSelector('#folder-list li[data-path="Demo/Clean.lean"]');

  // Files: each row's time is query's file row.
  const files = query('--kind', 'file', '--path', 'Demo').rows;
  assert.equal(files.length, 6);
  for (const f of files) {
    const r = (await rowData(page, `#folder-list li[data-path="${f.path}"]`))[0];
    assert.equal(Number(r.totalNs), msToNs(f.durationMs), f.path);
    assert.ok(r.text.includes(fmtNs(msToNs(f.durationMs))), r.text);
  }

  // Into Clean.lean: its declarations, slowest first, as query ranks them.
  await page.click('#folder-list li[data-path="Demo/Clean.lean"]');
  await page.waitForFunction(() => document.querySelector('#file-title').textContent === 'Demo/Clean.lean');
  await page.waitForSelector('#list li[data-kind="declaration"]');
  const decls = query('--kind', 'declaration', '--path', 'Demo/Clean.lean').rows;
  assert.ok(decls.length >= 4);

  // Where its time went: the account `leanscope info` prints, number for number.
  const clean = manifest.files.find((f) => f.path === 'Demo/Clean.lean');
  const account = JSON.parse(leanscope('info', '--json', join(session, clean.recording))).timeAccount;
  assert.ok(account.categories.length > 0, 'the fake prints a cumulative block');
  const shownAccount = await page.$eval('#file-account', (e) => ({ ...e.dataset, text: e.textContent }));
  for (const k of ['fileNs', 'tracedNs', 'untracedNs', 'overrunNs', 'categoriesNs']) {
    assert.equal(Number(shownAccount[k]), account[k], k);
  }
  assert.equal(shownAccount.basis, account.basis);
  assert.equal(shownAccount.importsNs, account.importsNs === null ? '' : String(account.importsNs));
  assert.equal(Number(shownAccount.categories), account.categories.length);
  assert.ok(shownAccount.text.includes(`traced elaboration ${fmtNs(account.tracedNs)}`), shownAccount.text);
  const top = [...account.categories].sort((a, b) => b.ns - a.ns)[0];
  assert.ok(shownAccount.text.includes(`${top.category} ${fmtNs(top.ns)}`), shownAccount.text);
  const shown = (await rowData(page, '#list li[data-kind="declaration"]')).filter((r) => r.totalNs !== '');
  assert.deepEqual(shown.map((r) => r.name), decls.map((r) => r.name));
  for (let i = 0; i < decls.length; i++) {
    assert.equal(Number(shown[i].totalNs), msToNs(decls[i].durationMs), decls[i].name);
    assert.equal(Number(shown[i].selfNs), msToNs(decls[i].selfMs), decls[i].name);
  }

  // The slowest declaration, then its slowest tactic, which query lists too.
  await page.click('#list li[data-kind="declaration"]');
  await page.waitForSelector('#details > [data-kind="declaration"]');
  const tactics = query('--kind', 'tactic', '--path', 'Demo/Clean.lean').rows
    .filter((r) => r.declaration === decls[0].name);
  assert.ok(tactics.length > 0, `${decls[0].name} has tactics`);
  const tacticRows = await rowData(page, '#details .tactics li');
  assert.equal(tacticRows.length, tactics.length);
  await page.click('#details .tactics li');
  await page.waitForSelector('#details > [data-kind="tactic"]');
  const t = (await rowData(page, '#details > [data-kind="tactic"]'))[0];
  // The viewer shows the tactic's source text; the index folds its whitespace.
  const name = (await page.textContent('#details h3')).replace(/\s+/g, ' ');
  const match = tactics.find((r) => r.name === name && msToNs(r.durationMs) === Number(t.totalNs));
  assert.ok(match, `tactic ${name} (${t.totalNs} ns) is one of query's rows`);
  assert.ok((await page.textContent('#details')).includes(match.attribution), 'its range kind is shown');

  // Its source line carries a bar holding at least the tactic's time.
  await page.click('#details a.ev >> nth=-1');
  await page.waitForSelector('#details > [data-kind="line"]');
  const line = (await rowData(page, '#details > [data-kind="line"]'))[0];
  assert.equal(Number(line.line), match.line - 1);
  assert.ok(Number(line.totalNs) >= msToNs(match.durationMs));
  const source = readFileSync(join(dir, 'demo/Demo/Clean.lean'), 'utf8').split('\n');
  const shownLine = await page.textContent(`#source .line[data-line="${match.line - 1}"] .text`);
  assert.equal(shownLine.trimEnd(), source[match.line - 1].trimEnd());
  await page.screenshot({ path: join(OUT, '12-captured-session.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('query on the captured session agrees with the manifest', () => {
  const files = query('--kind', 'file').rows;
  const committed = manifest.files.filter((f) => f.status === 'ok' || f.status === 'error');
  assert.equal(files.length, committed.length);
  for (const f of committed) {
    const row = files.find((r) => r.path === f.path);
    assert.ok(row, f.path);
    // Lean's elapsed time, else (a file with errors: no profile) the traced time.
    assert.equal(row.durationMs, f.elapsedMs ?? f.tracedMs, f.path);
  }
  // The files of the folder capture are named as Lean names modules.
  assert.ok(committed.some((f) => f.module === 'Demo.Clean'));
  assert.ok(committed.some((f) => f.elapsedMs === undefined && f.tracedMs > 0), 'Broken.lean has only a traced time');
  assert.ok(execFileSync(leanscopeBin(), ['info', join(session, committed[0].recording)], { encoding: 'utf8' }).length > 0);
});
