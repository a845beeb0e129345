// Bundles the extension (src/extension.ts and vscode-jsonrpc) into
// dist/extension.js; `vscode` stays external (VS Code provides it).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';

const here = path.dirname(fileURLToPath(import.meta.url));
await build({
  entryPoints: [path.join(here, 'src/extension.ts')],
  outfile: path.join(here, 'dist/extension.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['vscode'],
  sourcemap: false,
  minify: process.argv.includes('--minify'),
  logLevel: 'warning',
});

// The viewer (the same files as the leanscope binary embeds, see
// sidecar/build.rs): its page, stylesheet and worker from viewer-wasm/www;
// the page's script bundled into one module (viewer.js, from www's ES
// modules) and the wasm with its glue from viewer-wasm/pkg, both made by
// scripts/build-viewer. Keep extension/src/viewer.ts's VIEWER_FILES in step.
const repo = path.resolve(here, '..');
const viewerOut = path.join(here, 'media/viewer');
const sources = [
  ['viewer-wasm/www', ['index.html', 'viewer.css', 'worker.js']],
  ['viewer-wasm/pkg', ['viewer.js', 'viewer_wasm.js', 'viewer_wasm_bg.wasm']],
];
const bundle = path.join(repo, 'viewer-wasm/pkg/viewer.js');
if (fs.existsSync(bundle)) {
  const www = path.join(repo, 'viewer-wasm/www');
  const newer = fs.readdirSync(www)
    .filter((f) => f.endsWith('.js') && f !== 'worker.js' && fs.statSync(path.join(www, f)).mtimeMs > fs.statSync(bundle).mtimeMs);
  if (newer.length) console.warn(`extension build: viewer-wasm/pkg/viewer.js is older than viewer-wasm/www/${newer.join(', ')}; run scripts/build-viewer to bundle them again`);
}
fs.rmSync(viewerOut, { recursive: true, force: true });
fs.mkdirSync(viewerOut, { recursive: true });
for (const [dir, files] of sources) {
  for (const f of files) {
    const from = path.join(repo, dir, f);
    if (!fs.existsSync(from)) {
      console.error(`extension build: ${from} is missing${dir.endsWith('pkg') ? ' (run scripts/build-viewer)' : ''}`);
      process.exit(1);
    }
    fs.copyFileSync(from, path.join(viewerOut, f));
  }
}
