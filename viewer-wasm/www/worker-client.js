// The connection to the viewer's worker, which streams and decodes all
// data with the WebAssembly model and answers with view models. The worker
// is started from a Blob URL made of wasm-bindgen's glue (viewer_wasm.js)
// and worker.js; `call(op, ...args)` asks it one question (see worker.js
// for the operations).
import { showBanner } from './banner.js';

let worker = null;
let nextId = 1;
const pending = new Map();
let onProgress = () => {};

// Requests made before the worker answered `init` (clicks on a first
// view the server rendered) wait for it, in order.
let workerStarted;
let workerFailed;
const workerReady = new Promise((resolve, reject) => { workerStarted = resolve; workerFailed = reject; });
workerReady.catch(() => {}); // reported where the start failed

function post(op, args) {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject, op });
    worker.postMessage({ id, op, args });
  });
}

/** Asks the worker `op` (once it started); resolves with its answer. */
export function call(op, ...args) {
  return workerReady.then(() => post(op, args));
}

function onWorkerMessage(e) {
  const m = e.data;
  const p = pending.get(m.id);
  if (!p) return;
  if (m.progress) { onProgress(m.progress); return; }
  pending.delete(m.id);
  if (m.error !== undefined) p.reject(new Error(m.error));
  else if (m.json !== undefined) p.resolve(JSON.parse(m.json));
  else p.resolve(m.value);
}

/** Starts the worker on the page's configuration: its files come from
 *  `config.assets` (else from beside this module), its data from
 *  `config.session`. `progress` receives a load's progress reports. A
 *  failure is thrown, and the calls waiting for the worker fail with it. */
export async function startWorker(config, progress) {
  try {
    onProgress = progress;
    const base = config.assets ? new URL(config.assets, document.baseURI).href : import.meta.url;
    // The wasm downloads and compiles while the worker's code arrives; the
    // compiled module is handed to the worker.
    const wasmUrl = new URL('viewer_wasm_bg.wasm', base).href;
    const wasmModule = compileWasm(wasmUrl);
    const [glue, code] = await Promise.all(['viewer_wasm.js', 'worker.js'].map(async (f) => {
      const url = new URL(f, base).href;
      const res = await fetch(url);
      if (!res.ok) throw new Error(`cannot load ${url}: HTTP ${res.status}`);
      return res.text();
    }));
    const blob = new Blob([glue, '\n', code], { type: 'text/javascript' });
    worker = new Worker(URL.createObjectURL(blob));
    worker.onmessage = onWorkerMessage;
    worker.onerror = (e) => showBanner(`The viewer's worker failed: ${e.message}`, true);
    // The session's manifest is fetched while the wasm instantiates.
    const session = config.session ? new URL(config.session, document.baseURI).href : null;
    await post('init', [await wasmModule, session, config.readerWorker !== false]);
    workerStarted();
  } catch (e) {
    workerFailed(e);
    throw e;
  }
}

async function compileWasm(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`cannot load ${url}: HTTP ${res.status}`);
  if (WebAssembly.compileStreaming && (res.headers.get('content-type') || '').startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(res);
  }
  return WebAssembly.compile(await res.arrayBuffer());
}
