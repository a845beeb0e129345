// Shared by the extension tests: the bundled extension loaded with the
// `vscode` stand-in, the real sidecar, the fake toolchain and a copy of the
// demo project.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const require = createRequire(import.meta.url);
const { createVscodeStub, loadWithStub, makeContext, disposeContext } = require('./vscode-stub.cjs');

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const EXTENSION = path.join(REPO, 'extension');
export const BUNDLE = path.join(EXTENSION, 'dist/extension.js');
export const PACKAGED_SIDECAR = path.join(EXTENSION, 'bin/leanscope');

function targetDirs() {
  const dirs = [];
  if (process.env.CARGO_TARGET_DIR) dirs.push(path.resolve(REPO, process.env.CARGO_TARGET_DIR));
  dirs.push(path.join(REPO, 'target'));
  return dirs;
}

/** The sidecar the extension ships (extension/bin/leanscope, put there by
 * scripts/build-extension or npm run package). It must answer `serve`. */
export function packagedSidecar() {
  if (!fs.existsSync(PACKAGED_SIDECAR)) {
    throw new Error(`no sidecar at ${PACKAGED_SIDECAR}: run scripts/build-extension (or npm run package) first`);
  }
  const r = spawnSync(PACKAGED_SIDECAR, ['serve', '--help'], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(`${PACKAGED_SIDECAR} has no working "serve" subcommand (status ${r.status}): ${(r.stderr || '').trim()}`);
  }
  return PACKAGED_SIDECAR;
}

/** The fake lake/lean binary of the fake-toolchain crate. */
export function fakeLean() {
  const env = process.env.LEANSCOPE_FAKE_LEAN;
  if (env) return env;
  for (const dir of targetDirs()) {
    for (const profile of ['debug', 'release']) {
      const p = path.join(dir, profile, 'fake-lean');
      if (fs.existsSync(p)) return p;
    }
  }
  throw new Error('no fake-lean binary: cargo build -p fake-toolchain (or set LEANSCOPE_FAKE_LEAN)');
}

/** A temp dir with a copy of fixtures/projects/demo and a bin/ with the
 * fake `lake` and `lean`; sets the environment the sidecar inherits. */
export function makeWorld({ delayScale = '0', pidfile = false } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-ext-'));
  const project = path.join(dir, 'demo');
  fs.cpSync(path.join(REPO, 'fixtures/projects/demo'), project, { recursive: true });
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const fake = fakeLean();
  for (const name of ['lake', 'lean']) fs.symlinkSync(fake, path.join(bin, name));
  process.env.PATH = `${bin}:/usr/bin:/bin`;
  process.env.HOME = dir;
  process.env.LEANSCOPE_FAKE_FIXTURES = path.join(REPO, 'fixtures/lean-output');
  process.env.LEANSCOPE_FAKE_DELAY_SCALE = delayScale;
  const pids = path.join(dir, 'pids');
  if (pidfile) process.env.LEANSCOPE_FAKE_PIDFILE = pids;
  else delete process.env.LEANSCOPE_FAKE_PIDFILE;
  return {
    dir, project, bin, pids,
    file: (rel) => path.join(project, rel),
    recordings: () => {
      const d = path.join(project, '.leanscope/recordings');
      return fs.existsSync(d) ? fs.readdirSync(d) : [];
    },
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Each module of extension/src bundled on its own (by esbuild, as
 * extension/build.mjs bundles the extension), in a folder removed at exit. */
let modulesDir;
const bundledModules = new Map();

/** The module `extension/src/<name>.ts` (e.g. `format`,
 * `commands/profileFile`) loaded against the `vscode` stand-in `vscode`. */
export function extensionModule(name, vscode) {
  let file = bundledModules.get(name);
  if (!file) {
    if (!modulesDir) {
      modulesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-ext-modules-'));
      process.on('exit', () => fs.rmSync(modulesDir, { recursive: true, force: true }));
    }
    file = path.join(modulesDir, `${name.replace(/\//g, '-')}.cjs`);
    buildSync({
      entryPoints: [path.join(EXTENSION, 'src', `${name}.ts`)], outfile: file,
      bundle: true, platform: 'node', target: 'node20', format: 'cjs', external: ['vscode'], logLevel: 'warning',
    });
    bundledModules.set(name, file);
  }
  return loadWithStub(file, vscode);
}

/** Activates the bundled extension against a fresh stand-in; `module(name)`
 * loads a module of extension/src against the same stand-in. */
export function activateExtension({ settings = {}, trusted = true, workspaceFolders = [], stubOptions = {} } = {}) {
  const { vscode, test } = createVscodeStub({ settings, trusted, workspaceFolders, ...stubOptions });
  const ext = loadWithStub(BUNDLE, vscode);
  const context = makeContext(vscode, EXTENSION);
  const api = ext.activate(context);
  return {
    vscode, test, ext, context, api,
    module: (name) => extensionModule(name, vscode),
    async dispose() { await ext.deactivate(); await disposeContext(context); },
  };
}

export function isAlive(pid) {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

export async function waitFor(what, fn, timeoutMs = 20000) {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { createVscodeStub, loadWithStub, makeContext, disposeContext };

/** A session's manifest as leanscope's readers see it (`recording::session::
 *  load_manifest`): `session.json`, with the file changes of its
 *  `session.journal` (an unfinished session's, whose `session.json` is only
 *  the last checkpoint) applied when the journal extends this very
 *  `session.json`; a last line cut short is ignored. */
export function sessionManifest(dir) {
  const base = fs.readFileSync(path.join(dir, 'session.json'));
  const m = JSON.parse(base.toString('utf8'));
  let journal;
  try { journal = fs.readFileSync(path.join(dir, 'session.journal'), 'utf8'); } catch { return m; }
  const { createHash } = require('node:crypto');
  const sha = (s) => createHash('sha256').update(s).digest('hex');
  const lines = journal.split('\n');
  lines.pop(); // after the last newline: empty, or a line cut short
  let changed = false;
  for (const [k, line] of lines.entries()) {
    const json = line.slice(17);
    if (line.slice(0, 16) !== sha(json).slice(0, 16)) {
      if (k === lines.length - 1 && k > 0) break; // the last line, cut short by a kill
      throw new Error(`session.journal line ${k + 1} is damaged`);
    }
    const v = JSON.parse(json);
    if (k === 0) {
      if (v.base !== sha(base)) return m; // predates this checkpoint
      continue;
    }
    m.files[v.file.id] = v.file;
    m.indexBytes = v.indexBytes;
    m.nextCapture = Math.max(m.nextCapture, v.nextCapture);
    changed = true;
  }
  if (changed) {
    const committed = (f) => f.status === 'ok' || f.status === 'error';
    m.counts = {
      planned: m.files.length,
      completed: m.files.filter(committed).length,
      failed: m.files.filter((f) => f.status === 'failed').length,
    };
  }
  return m;
}
