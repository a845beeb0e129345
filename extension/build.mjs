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

// The viewer: its page, stylesheet and every script module (all of
// viewer-wasm/www's .html, .css and .js: a new module is copied without
// being listed) and the wasm with its glue (viewer-wasm/pkg, built by
// scripts/build-viewer).
const repo = path.resolve(here, '..');
const viewerOut = path.join(here, 'media/viewer');
const pageFiles = fs.readdirSync(path.join(repo, 'viewer-wasm/www')).filter((f) => /\.(html|css|js)$/.test(f)).sort();
const sources = [
  ['viewer-wasm/www', pageFiles],
  ['viewer-wasm/pkg', ['viewer_wasm.js', 'viewer_wasm_bg.wasm']],
];
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
