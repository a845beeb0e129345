// The viewer's load, profiled: `leanscope view RECORDING` in Chromium, the
// V8 CPU profiles of the page and of its workers (each attached over the
// DevTools protocol before it runs a line) from navigation until the
// recording is ready for queries; one discarded warm-up and three
// repeats, folded like perf's stacks (`frame;frame count`, one sample a
// line's count in nanoseconds of CPU).
//
//   node scripts/hot_paths/viewer.mjs LEANSCOPE RECORDING OUT_DIR EVENTS
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

process.env.LEANSCOPE_BIN = process.argv[2];
const [, , , recording, outDir, events] = process.argv;
const { launchBrowser, startView, waitInPage } = await import('../../tests/browser/helpers.mjs');

const SAMPLING_US = 1000; // 1 kHz, like perf's 999 Hz

/** Profiles one load; returns { ms, folded: Map(stack → samples) }. */
async function profiledLoad(context, url) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const workers = []; // { sessionId, send }
  const pending = new Map();
  let next = 1;
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    const done = pending.get(`${e.sessionId}:${m.id}`);
    if (done) { pending.delete(`${e.sessionId}:${m.id}`); done(m); }
  });
  const sendTo = (sessionId, method, params = {}) => new Promise((ok, fail) => {
    const id = next++;
    pending.set(`${sessionId}:${id}`, (m) => (m.error ? fail(new Error(`${method}: ${m.error.message}`)) : ok(m.result)));
    cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(fail);
  });
  cdp.on('Target.attachedToTarget', async ({ sessionId, targetInfo }) => {
    if (targetInfo.type !== 'worker') return;
    const w = { sessionId, name: targetInfo.url };
    workers.push(w);
    await sendTo(sessionId, 'Profiler.enable');
    await sendTo(sessionId, 'Profiler.setSamplingInterval', { interval: SAMPLING_US });
    await sendTo(sessionId, 'Profiler.start');
    await sendTo(sessionId, 'Runtime.runIfWaitingForDebugger');
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false });
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: SAMPLING_US });
  await cdp.send('Profiler.start');
  await page.goto(url);
  await waitInPage(page, () => window.__leanscope && window.__leanscope.fileLoads.length > 0, 600000);
  const load = await page.evaluate(() => window.__leanscope.fileLoads[0]);
  const folded = new Map();
  fold((await cdp.send('Profiler.stop')).profile, 'page', folded);
  for (const w of workers) {
    try {
      fold((await sendTo(w.sessionId, 'Profiler.stop')).profile, 'worker', folded);
    } catch { /* a worker that ended before the load did */ }
  }
  await page.close();
  return { ms: load.ms, events: load.events, folded };
}

/** Adds a V8 CPU profile's samples to `folded`, stacks rooted at `thread`. */
function fold(profile, thread, folded) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const stackOf = new Map();
  const stack = (id) => {
    if (stackOf.has(id)) return stackOf.get(id);
    const frames = [];
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at).callFrame;
      if (f.functionName === '(root)') continue;
      const where = f.url ? ` (${f.url.split('/').pop()}:${f.lineNumber + 1})` : '';
      // Rust symbols as in perf's stacks: without their hash suffix.
      const name = (f.functionName || '(anonymous)').replace(/::h[0-9a-f]{16}$/, '');
      frames.push(`${name}${where}`.replaceAll(';', ','));
    }
    const s = [thread, ...frames.reverse()].join(';');
    stackOf.set(id, s);
    return s;
  };
  // Weighed in nanoseconds, like perf's cpu-clock samples: each sample by
  // the time since the one before it. Idle time is no work.
  profile.samples.forEach((id, i) => {
    if (byId.get(id).callFrame.functionName === '(idle)') return;
    const s = stack(id);
    folded.set(s, (folded.get(s) || 0) + Math.round(profile.timeDeltas[i] * 1000));
  });
}

const context = await launchBrowser();
const view = await startView(recording);
try {
  await profiledLoad(context, view.url); // warm-up, discarded
  const walls = [];
  for (let i = 1; i <= 3; i++) {
    const r = await profiledLoad(context, view.url);
    if (String(r.events) !== String(events)) throw new Error(`the viewer loaded ${r.events} events, not ${events}`);
    walls.push(r.ms / 1000);
    writeFileSync(join(outDir, `run${i}.folded`), [...r.folded].map(([s, n]) => `${s} ${n}`).join('\n') + '\n');
  }
  writeFileSync(join(outDir, 'walls'), walls.map((w) => w.toFixed(3)).join('\n') + '\n');
} finally {
  view.stop();
  await context.close();
}
