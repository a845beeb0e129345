// The worker's reading of response bodies (viewer-wasm/www/worker.js,
// `streamInto` and `readElsewhere`) in a real Chromium worker: a fetched body
// is read into one reused buffer (a BYOB reader), a body the browser cannot
// read that way falls back to a plain reader, a recording's body is read by
// the reader worker and handed over in its few buffers, and all hand on
// every byte, in order; failures are reported.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
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
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs worker.js with `probe` (worker code whose `onmessage` posts one
 *  answer) in a worker of a page on the test server; returns the answer. */
async function runInWorker(probe) {
  const page = await browser.newPage();
  await page.goto(`${server.url}nothing`);
  const code = readFileSync(join(ROOT, 'viewer-wasm', 'www', 'worker.js'), 'utf8');
  const result = await page.evaluate(async ([src, probeSrc]) => {
    const blob = new Blob([src, probeSrc], { type: 'text/javascript' });
    const w = new Worker(URL.createObjectURL(blob));
    const out = await new Promise((ok, fail) => {
      w.onmessage = (e) => ok(e.data);
      w.onerror = (e) => fail(new Error(e.message));
      w.postMessage(0);
    });
    w.terminate();
    return out;
  }, [code, probe]);
  await page.close();
  return result;
}

/** Runs `streamInto` from worker.js in a worker on a `which` body; returns
 *  what it saw: the byte count, the bytes out of place, the pieces, the
 *  distinct sizes of the buffers they came in, the last progress. */
function readInWorker(which) {
  const url = JSON.stringify(`${server.url}data.bin`);
  return runInWorker(`
    self.onmessage = async () => {
      const res = ${which === 'fetch'
        ? `await fetch(${url})`
        // A body made from a plain (not byte) stream: no BYOB reader.
        : `new Response(new ReadableStream({ async start(c) {
            const b = new Uint8Array(await (await fetch(${url})).arrayBuffer());
            for (let i = 0; i < b.length; i += 100000) c.enqueue(b.slice(i, i + 100000));
            c.close();
          } }))`};
      const byteAt = ${byteAt.toString()};
      let at = 0, wrong = 0, pieces = 0, progressBytes = 0;
      const buffers = new Set();
      const total = await streamInto(res, (chunk) => {
        pieces++;
        buffers.add(chunk.buffer.byteLength);
        for (const b of chunk) if (b !== byteAt(at++)) wrong++;
        return pieces;
      }, (bytes) => { progressBytes = bytes; });
      postMessage({ total, wrong, pieces, progressBytes, buffers: [...buffers] });
    };`);
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

/** Runs `readElsewhere` from worker.js in a worker: reads `names` one after
 *  another (the push of name `i` throws once `throwAt[i]` bytes came),
 *  reporting for each what arrived or the error. */
function readThroughReader(names, throwAt = [], { base = server.url, before = '' } = {}) {
  return runInWorker(`
    self.onmessage = async () => {
      ${before}
      const byteAt = ${byteAt.toString()};
      const limits = ${JSON.stringify(throwAt)};
      const out = [];
      for (const [i, url] of ${JSON.stringify(names.map((n) => `${base}${n}`))}.entries()) {
        const limit = limits[i] ?? Infinity;
        let at = 0, wrong = 0, pieces = 0, length = null;
        const sizes = new Set();
        try {
          await readElsewhere(url, (n) => { length = n; }, (chunk) => {
            if (at >= limit) throw new Error('the decoder refused the bytes');
            pieces++;
            sizes.add(chunk.buffer.byteLength);
            for (const b of chunk) if (b !== byteAt(at++)) wrong++;
          });
          out.push({ total: at, wrong, pieces, length, sizes: [...sizes], reader: reader !== false });
        } catch (e) {
          out.push({ error: e.message, total: at });
        }
      }
      postMessage(out);
    };`);
}

test('a recording read by the reader worker arrives whole, in its 2 MiB buffers', async () => {
  const [r, again] = await readThroughReader(['data.bin', 'data.bin']);
  for (const x of [r, again]) {
    assert.equal(x.total, SIZE);
    assert.equal(x.length, SIZE);
    assert.equal(x.wrong, 0);
    assert.deepEqual(x.sizes, [1 << 21]);
    assert.ok(x.pieces >= 3, `5 MB in pieces of at most 2 MiB, got ${x.pieces}`);
  }
});

test('the reader reports a failed fetch and stops when the bytes are refused, then reads on', async () => {
  const [missing, refused, whole] = await readThroughReader(['no-such.bin', 'data.bin', 'data.bin'], [null, 3 << 20]);
  assert.match(missing.error, /cannot fetch .*no-such\.bin: HTTP 404/);
  assert.equal(refused.error, 'the decoder refused the bytes');
  assert.ok(refused.total >= 3 << 20 && refused.total < SIZE, `${refused.total}`);
  // The next read gets its own bytes, all of them, none of the stopped
  // one's.
  assert.equal(whole.error, undefined);
  assert.equal(whole.total, SIZE);
  assert.equal(whole.wrong, 0);
});

/** A server whose first answer for each path is 404, like VS Code's
 *  webview to a nested worker's fetch, and later ones the file. */
function firstRefusingServer() {
  const asked = new Set();
  const srv = createServer((req, res) => {
    if (!asked.has(req.url)) { asked.add(req.url); res.writeHead(404, { 'Access-Control-Allow-Origin': '*' }); res.end(); return; }
    const bytes = readFileSync(join(dir, 'data.bin'));
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length, 'Access-Control-Allow-Origin': '*' });
    res.end(bytes);
  });
  return new Promise((ok) => srv.listen(0, '127.0.0.1', () => ok({ url: `http://127.0.0.1:${srv.address().port}/`, srv })));
}

test('a reader whose fetch is refused before any byte is dropped: this worker reads, then and after', async () => {
  const flaky = await firstRefusingServer();
  try {
    const [first, second] = await readThroughReader(['a.bin', 'b.bin'], [], { base: flaky.url });
    assert.equal(first.error, undefined);
    assert.equal(first.total, SIZE);
    assert.equal(first.length, SIZE);
    assert.equal(first.wrong, 0);
    assert.equal(first.reader, false, 'the reader is dropped');
    // b.bin is fetched by this worker now: its refusal is reported, not
    // tried again elsewhere.
    assert.match(second.error, /cannot fetch .*b\.bin: HTTP 404/);
    // A fresh viewer's reader, answered: it reads.
    const [third] = await readThroughReader(['b.bin'], [], { base: flaky.url });
    assert.equal(third.total, SIZE);
    assert.equal(third.wrong, 0);
    assert.equal(third.reader, true);
  } finally {
    flaky.srv.close();
  }
});

test('readerWorker false (the host\'s word): recordings are read on the viewer\'s worker', async () => {
  const [r] = await readThroughReader(['data.bin'], [], { before: 'stopReader();' });
  assert.equal(r.reader, false);
  assert.equal(r.total, SIZE);
  assert.equal(r.wrong, 0);
  assert.deepEqual(r.sizes, [1 << 21], 'read into its reused 2 MiB buffer');
});
