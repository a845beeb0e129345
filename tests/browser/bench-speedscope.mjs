// speedscope's import time of leanscope's exports: the Chrome trace and
// the speedscope export of synthetic recordings of 100k, 300k and 1M
// events (3 threads), each loaded once in speedscope (npm `speedscope`,
// served locally, headless Chromium). The time is the one speedscope logs
// itself (`console.time('import')`); a load counts as drawn when it ended
// without a warning and its flame chart's canvas is there. The Chrome
// trace's import time must grow no faster than linearly (its time per
// event at 1M at most 1.5 times that at 100k) and it must draw at 1M.
//
// Run: node tests/browser/bench-speedscope.mjs [EVENTS…]
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { leanscope, tempDir } from './helpers.mjs';
import { serveSpeedscope, launchForSpeedscope, loadInSpeedscope } from './speedscope.mjs';

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
if (sizes.length === 0) sizes.push(100000, 300000, 1000000);
const work = tempDir('bench-speedscope');
const site = await serveSpeedscope();
const browser = await launchForSpeedscope();
const rows = [];
try {
  for (const events of sizes) {
    const rec = join(work, `synth-${events}.lsrec`);
    leanscope('synth', '--events', String(events), '--threads', '3', '--out', rec);
    const row = { events };
    for (const [format, file] of [['chrome', `s${events}.trace.json`], ['speedscope', `s${events}.speedscope.json`]]) {
      leanscope('export', rec, '--format', format, '--out', join(site.dir, file));
      const { page, importMs, warnings } = await loadInSpeedscope(browser, site.url, file);
      const drawn = warnings.length === 0 && (await page.$('canvas')) !== null;
      await page.close();
      rmSync(join(site.dir, file));
      row[format] = { importMs, drawn, warnings: warnings.length };
      console.log(`${events} events, ${format}: import ${(importMs / 1000).toFixed(2)} s, ${drawn ? 'drawn' : `NOT drawn (${warnings.length} warnings: ${warnings[0]})`}`);
    }
    rows.push(row);
  }
} finally {
  await browser.close();
  site.stop();
  rmSync(work, { recursive: true, force: true });
}
console.log('\nevents     Chrome trace import   speedscope import');
for (const r of rows) {
  const f = (x) => `${(x.importMs / 1000).toFixed(2)} s (${(x.importMs * 1e3 / r.events).toFixed(1)} µs/event)`;
  console.log(`${String(r.events).padEnd(10)} ${f(r.chrome).padEnd(30)} ${f(r.speedscope)}`);
}
const first = rows[0]; const last = rows[rows.length - 1];
const growth = (last.chrome.importMs / last.events) / (first.chrome.importMs / first.events);
const linear = growth <= 1.5;
const drawn = rows.every((r) => r.chrome.drawn && r.speedscope.drawn);
console.log(`Chrome import time per event grows ${growth.toFixed(2)}x from ${first.events} to ${last.events} events: ${linear ? 'no faster than linear' : 'FASTER than linear'}; ${drawn ? 'every load drew' : 'a load did NOT draw'}`);
if (!linear || !drawn) process.exitCode = 1;
