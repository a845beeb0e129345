// `leanscope mcp` through the official TypeScript MCP client (@modelcontextprotocol/sdk) over
// stdio, against the real binary and the fake toolchain on a copy of the demo project. The
// Python tests (test_mcp.py) cover the rest; this one makes sure both reference clients work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const REPO = process.env.LEANSCOPE_REPO
  ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TARGET = process.env.CARGO_TARGET_DIR ?? path.join(REPO, 'target');

function world() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-mcp-ts-'));
  const project = path.join(dir, 'demo');
  fs.cpSync(path.join(REPO, 'fixtures/projects/demo'), project, { recursive: true });
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  for (const name of ['lake', 'lean']) fs.symlinkSync(path.join(TARGET, 'debug/fake-lean'), path.join(bin, name));
  const env = {
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: dir,
    LEANSCOPE_FAKE_FIXTURES: path.join(REPO, 'fixtures/lean-output'),
    LEANSCOPE_FAKE_DELAY_SCALE: '0',
  };
  return { dir, project, env };
}

test('the TypeScript client lists the tools and profiles a declaration that uses an earlier one', async () => {
  const w = world();
  const transport = new StdioClientTransport({
    command: path.join(TARGET, 'debug/leanscope'),
    args: ['mcp'],
    cwd: w.project,
    env: w.env,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'leanscope-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(),
      ['compare', 'hot_spots', 'profile_declaration', 'profile_file', 'query', 'revisions']);
    const pd = tools.find((t) => t.name === 'profile_declaration');
    assert.deepEqual([...pd.inputSchema.required].sort(), ['declaration', 'file']);

    const progress = [];
    const r = await client.callTool(
      { name: 'profile_declaration', arguments: { file: 'Demo/Clean.lean', declaration: 'double_add' } },
      undefined,
      { onprogress: (p) => progress.push(p.message) },
    );
    assert.equal(r.isError, false, r.content[0].text);
    const d = r.structuredContent;
    assert.equal(d.declaration.name, 'Demo.Clean.double_add');
    assert.deepEqual([d.declaration.line, d.declaration.endLine], [7, 9]);
    assert.ok(d.tactics.rows.some((t) => t.tactic === 'unfold double'));
    assert.ok(fs.existsSync(d.recording));
    assert.ok(progress.some((m) => m?.startsWith('Starting Lean on Demo.Clean')), JSON.stringify(progress));

    const bad = await client.callTool({ name: 'query', arguments: { source: 42 } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /bad arguments for query: invalid type: integer `42`, expected a string/);

    const { resources } = await client.listResources();
    const read = await client.readResource({ uri: resources[0].uri });
    assert.equal(JSON.parse(read.contents[0].text).module, 'Demo.Clean');
  } finally {
    await client.close();
    fs.rmSync(w.dir, { recursive: true, force: true });
  }
});
