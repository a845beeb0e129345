// A profiled revision run in the browser: a real Git repository (two
// commits), `leanscope revisions run --profile` through the fake toolchain
// in its sandbox, then `leanscope view WORKSPACE` in headless Chromium: it
// opens on the Diff tab, whose rows are the report's declaration diff.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ROOT, OUT, leanscopeBin, tempDir, startView, launchBrowser, fmtNs, fakeLean,
} from './helpers.mjs';

let dir; let ws; let report; let browser;

const theorem = (name, ms) => `theorem ${name} : True := by\n  trivial -- leanscope-fake: cost ${ms}ms\n\n`;

before(async () => {
  dir = tempDir('revisions');
  // The toolchain: the fake as lake and lean, its fixtures beside (the
  // sandbox clears the environment).
  const tc = join(dir, 'toolchain');
  mkdirSync(join(tc, 'bin'), { recursive: true });
  for (const n of ['lake', 'lean']) symlinkSync(fakeLean(), join(tc, 'bin', n));
  mkdirSync(join(tc, 'fixtures/lean-output'), { recursive: true });
  copyFileSync(join(ROOT, 'fixtures/lean-output/toolchains.json'), join(tc, 'fixtures/lean-output/toolchains.json'));

  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'Demo'), { recursive: true });
  const git = (...a) => execFileSync('git', ['-C', repo, ...a], { encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'test@example.invalid');
  git('config', 'user.name', 'test');
  writeFileSync(join(repo, 'lakefile.toml'), 'name = "demo"\ndefaultTargets = ["Demo"]\n\n[[lean_lib]]\nname = "Demo"\n');
  writeFileSync(join(repo, 'lean-toolchain'), 'leanprover/lean4:v4.18.0\n');
  writeFileSync(join(repo, 'Demo/A.lean'), theorem('slow', 40) + theorem('quick', 60));
  writeFileSync(join(repo, 'Demo/R.lean'), theorem('gone', 20));
  git('add', '-A');
  git('commit', '-qm', 'base');
  git('checkout', '-qb', 'feature');
  writeFileSync(join(repo, 'Demo/A.lean'), theorem('slow', 240) + theorem('quick', 20));
  unlinkSync(join(repo, 'Demo/R.lean'));
  writeFileSync(join(repo, 'Demo/N.lean'), theorem('fresh', 30));
  git('add', '-A');
  git('commit', '-qm', 'feature');

  ws = join(dir, 'ws');
  const r = spawnSync(leanscopeBin(), ['revisions', 'run', '--repo', repo, '--base', 'main', '--head', 'feature',
    '--workspace', ws, '--profile'], {
    encoding: 'utf8', env: { PATH: `${join(tc, 'bin')}:/usr/bin:/bin`, HOME: dir },
  });
  assert.equal(r.status, 0, r.stderr);
  report = JSON.parse(readFileSync(join(ws, 'report.json'), 'utf8'));
  assert.equal(report.state, 'complete');
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('view WORKSPACE opens the Diff tab on the two sides, rows as in the report', async () => {
  const v = await startView(ws);
  try {
    assert.match(v.url, /\/#tab=diff$/);
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(v.url);
    await page.waitForSelector('#list li[data-kind="diff"]');
    assert.equal(await page.getAttribute('#tab-diff', 'aria-selected'), 'true', 'the Diff tab is open');
    const d = report.profile.declarations;
    const tab = await page.textContent('#tab-diff');
    // One regression (slow) and one improvement (quick).
    assert.equal(tab, 'Diff ▲1 ▼1');
    const shown = await page.$$eval('#list li[data-kind="diff"]', (els) => els.map((e) => ({ ...e.dataset, text: e.textContent })));
    const slow = d.matched.find((m) => m.name === 'slow');
    assert.equal(slow.change_ns, 200e6);
    assert.equal(shown[0].name, 'slow', 'largest increase first');
    assert.equal(shown[0].status, 'regression');
    assert.equal(Number(shown[0].delta), slow.change_ns);
    assert.ok(shown[0].text.includes(`+${fmtNs(slow.change_ns)}`), shown[0].text);
    const byName = Object.fromEntries(shown.map((s) => [`${s.file}:${s.name}`, s.status]));
    assert.equal(byName['Demo/A.lean:quick'], 'improvement');
    assert.equal(byName['Demo/N.lean:fresh'], 'new');
    assert.equal(byName['Demo/R.lean:gone'], 'missing');
    assert.equal(shown.length, d.counts.matched + d.counts.new + d.counts.removed + 2 * d.counts.renamed);
    await page.screenshot({ path: join(OUT, '20-revisions-diff.png') });
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    v.stop();
  }
});
