// The worker's reading of response bodies (viewer-wasm/www/worker.js,
// `streamInto`) in a real Chromium worker: a fetched body is read into one
// reused buffer (a BYOB reader), a body the browser cannot read that way
// falls back to a plain reader, and both hand on every byte, in order.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir, staticServer, launchBrowser } from './helpers.mjs';

let dir; let server; let browser;
const SIZE = 5 * (1 << 20) + 12345;
/** Byte `i` of the test file. */
const byteAt = (i) => (i * 7 + (i >> 11)) & 0xff;

before(async () => {
  dir = tempDir('stream-test');
  const bytes = Buffer.alloc(SIZE);
  for (let i = 0; i < SIZE; i++) bytes[i] = byteAt(i);
  writeFileSync(join(dir, 'data.bin'), bytes);
  server = await staticServer(dir);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.stop();
});

/** Runs `streamInto` from worker.js in a worker on a `which` body; returns
 *  what it saw: the byte count, the bytes out of place, the pieces, the
 *  distinct sizes of the buffers they came in, the last progress. */
async function readInWorker(which) {
  const page = await browser.newPage();
  await page.goto(`${server.url}nothing`);
  const code = readFileSync(join(ROOT, 'viewer-wasm', 'www', 'worker.js'), 'utf8');
  const result = await page.evaluate(async ([src, kind, url, byteAtSrc]) => {
    const probe = `
      self.onmessage = async () => {
        const res = ${kind === 'fetch'
          ? 'await fetch(URL_)'
          // A body made from a plain (not byte) stream: no BYOB reader.
          : `new Response(new ReadableStream({ async start(c) {
              const b = new Uint8Array(await (await fetch(URL_)).arrayBuffer());
              for (let i = 0; i < b.length; i += 100000) c.enqueue(b.slice(i, i + 100000));
              c.close();
            } }))`};
        const byteAt = ${byteAtSrc};
        let at = 0, wrong = 0, pieces = 0, progressBytes = 0;
        const buffers = new Set();
        const total = await streamInto(res, (chunk) => {
          pieces++;
          buffers.add(chunk.buffer.byteLength);
          for (const b of chunk) if (b !== byteAt(at++)) wrong++;
          return pieces;
        }, (bytes) => { progressBytes = bytes; });
        postMessage({ total, wrong, pieces, progressBytes, buffers: [...buffers] });
      };`;
    const blob = new Blob([`const URL_ = ${JSON.stringify(url)};\n`, src, probe], { type: 'text/javascript' });
    const w = new Worker(URL.createObjectURL(blob));
    const out = await new Promise((ok, fail) => {
      w.onmessage = (e) => ok(e.data);
      w.onerror = (e) => fail(new Error(e.message));
      w.postMessage(0);
    });
    w.terminate();
    return out;
  }, [code, which, `${server.url}data.bin`, byteAt.toString()]);
  await page.close();
  return result;
}

test('a fetched body is read into one reused buffer and every byte arrives', async () => {
  const r = await readInWorker('fetch');
  assert.equal(r.total, SIZE);
  assert.equal(r.progressBytes, SIZE);
  assert.equal(r.wrong, 0);
  // One 2 MiB buffer, handed back and forth: every piece lies in it.
  assert.deepEqual(r.buffers, [1 << 21]);
  assert.ok(r.pieces >= 3, `5 MB in pieces of at most 2 MiB, got ${r.pieces}`);
});

test('a body that cannot be read into a buffer of ours falls back to a plain reader', async () => {
  const r = await readInWorker('plain');
  assert.equal(r.total, SIZE);
  assert.equal(r.progressBytes, SIZE);
  assert.equal(r.wrong, 0);
  assert.equal(r.pieces, Math.ceil(SIZE / 100000));
  assert.ok(!r.buffers.includes(1 << 21), `no 2 MiB buffer on the plain path: ${r.buffers}`);
});
