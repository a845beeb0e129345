// The MCP server definition provider (extension/src/mcp.ts) with the vscode stand-in: it is
// registered only where VS Code has the MCP API (1.101+), provides one `leanscope mcp` per
// workspace folder with the folder's settings, and says when the settings change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createVscodeStub, extensionModule, makeContext, disposeContext, EXTENSION } from './helpers.mjs';

const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION, 'package.json'), 'utf8'));

/** The stand-in with the MCP API of VS Code 1.101 added. */
function withMcpApi(options) {
  const { vscode, test: t } = createVscodeStub(options);
  const registered = [];
  vscode.lm = {
    registerMcpServerDefinitionProvider(id, provider) {
      registered.push({ id, provider });
      return new vscode.Disposable(() => { registered.splice(registered.findIndex((r) => r.id === id), 1); });
    },
  };
  vscode.McpStdioServerDefinition = class {
    constructor(label, command, args, env, version) { Object.assign(this, { label, command, args, env, version }); }
  };
  return { vscode, t, registered };
}

test('without the MCP API (VS Code before 1.101, code-server 1.100) nothing is registered', () => {
  const { vscode } = createVscodeStub({ workspaceFolders: ['/work/project'] });
  const mcp = extensionModule('mcp', vscode);
  assert.equal(mcp.registerMcpServer(makeContext(vscode, EXTENSION)), undefined);
});

test('with the MCP API, one leanscope mcp per workspace folder, with the folder\'s lakePath', async () => {
  const { vscode, t, registered } = withMcpApi({
    workspaceFolders: ['/work/alpha', '/work/beta'],
    settings: { 'leanscope.lakePath': '/opt/elan/bin/lake' },
  });
  const mcp = extensionModule('mcp', vscode);
  const context = makeContext(vscode, EXTENSION);
  const disposable = mcp.registerMcpServer(context);
  assert.ok(disposable);
  context.subscriptions.push(disposable);
  assert.deepEqual(registered.map((r) => r.id), [mcp.MCP_PROVIDER_ID]);
  assert.deepEqual(manifest.contributes.mcpServerDefinitionProviders.map((p) => p.id), [mcp.MCP_PROVIDER_ID]);

  const defs = await registered[0].provider.provideMcpServerDefinitions();
  assert.deepEqual(defs.map((d) => d.label), ['leanscope (alpha)', 'leanscope (beta)']);
  assert.ok(defs[0].command.endsWith(path.join('bin', 'leanscope')), defs[0].command);
  assert.deepEqual(defs[0].args, ['mcp', '--root', '/work/alpha', '--lake', '/opt/elan/bin/lake']);
  assert.equal(defs[1].cwd.fsPath, '/work/beta');
  assert.equal(defs[0].version, manifest.version);

  // A change of lakePath tells VS Code to ask again; without it, no --lake.
  let changes = 0;
  registered[0].provider.onDidChangeMcpServerDefinitions(() => { changes++; });
  t.setSetting('leanscope.lakePath', '');
  assert.equal(changes, 1);
  const again = await registered[0].provider.provideMcpServerDefinitions();
  assert.deepEqual(again[0].args, ['mcp', '--root', '/work/alpha']);
  t.setSetting('leanscope.annotations.style', 'bars');
  assert.equal(changes, 1, 'other settings do not matter');

  await disposeContext(context);
  assert.deepEqual(registered, [], 'disposing unregisters the provider');
});
