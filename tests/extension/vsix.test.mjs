// The VSIX `npm run package` wrote (path in LEANSCOPE_VSIX; scripts/test
// packages first): unzipped and checked like VS Code would install it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';

const VSIX = process.env.LEANSCOPE_VSIX;
const MAX_VSIX_BYTES = 15 * 1024 * 1024;
/** The viewer's files in media/viewer (extension/build.mjs copies them):
 *  page, stylesheet and worker from viewer-wasm/www; the page's script
 *  bundled into one module, and the wasm with its glue, from
 *  viewer-wasm/pkg. Nothing else: not the modules the bundle is made of. */
const VIEWER_FILES = ['index.html', 'viewer.css', 'viewer.js', 'worker.js', 'viewer_wasm.js', 'viewer_wasm_bg.wasm'];

test('the linux-x64 VSIX: manifest, bundle, viewer, executable sidecar, size', { skip: VSIX ? false : 'LEANSCOPE_VSIX is not set (run npm run package, or scripts/test)' }, () => {
  const size = fs.statSync(VSIX).size;
  assert.ok(size < MAX_VSIX_BYTES, `${VSIX} is ${size} bytes, budget ${MAX_VSIX_BYTES}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-vsix-'));
  try {
    execFileSync('unzip', ['-q', VSIX, '-d', dir]);
    const vsixManifest = fs.readFileSync(path.join(dir, 'extension.vsixmanifest'), 'utf8');
    assert.match(vsixManifest, /TargetPlatform="linux-x64"/);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'extension/package.json'), 'utf8'));
    assert.equal(pkg.name, 'leanscope');
    assert.equal(pkg.publisher, 'leanscope');
    assert.equal(pkg.main, './dist/extension.js');
    assert.equal(pkg.engines.vscode, '^1.90.0');
    assert.deepEqual(pkg.activationEvents, ['onLanguage:lean4', 'workspaceContains:lean-toolchain']);
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    const files = execFileSync('unzip', ['-Z1', VSIX], { encoding: 'utf8' }).trim().split('\n');
    for (const f of ['extension/dist/extension.js', 'extension/bin/leanscope', 'extension/media/host.js', 'extension/media/heat-4.svg']) {
      assert.ok(files.includes(f), `${f} is not in the VSIX`);
    }
    const viewer = files.filter((f) => f.startsWith('extension/media/viewer/')).map((f) => f.slice('extension/media/viewer/'.length));
    assert.deepEqual(viewer.sort(), [...VIEWER_FILES].sort());
    assert.ok(!files.some((f) => f.startsWith('extension/src/') || f.endsWith('.ts') || f.includes('node_modules')), files.join('\n'));
    // The bundle needs nothing but `vscode` and Node's own modules.
    const bundle = fs.readFileSync(path.join(dir, 'extension/dist/extension.js'), 'utf8');
    const required = new Set([...bundle.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
    for (const r of required) assert.ok(r === 'vscode' || r.startsWith('node:') || ['child_process', 'fs', 'path', 'os', 'crypto', 'net', 'util', 'events', 'stream', 'url'].includes(r), `bundle requires ${r}`);
    // The sidecar is there, executable (zip keeps the mode), and runs.
    const sidecar = path.join(dir, 'extension/bin/leanscope');
    assert.ok(fs.statSync(sidecar).mode & 0o111, 'bin/leanscope is not executable');
    const v = spawnSync(sidecar, ['--version'], { encoding: 'utf8' });
    assert.equal(v.status, 0, v.stderr);
    assert.match(v.stdout, /^leanscope \d+\.\d+\.\d+/);
    assert.equal(spawnSync(sidecar, ['serve', '--help']).status, 0, 'the packaged sidecar has serve');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
