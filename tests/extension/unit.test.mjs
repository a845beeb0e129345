// Unit tests of the extension against the `vscode` stand-in (no sidecar
// needed): the manifest, command registration, settings, formatting, the
// webview page, and the guards of Profile File.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { activateExtension, createVscodeStub, extensionModule, EXTENSION } from './helpers.mjs';

const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION, 'package.json'), 'utf8'));

// Context keys the manifest may use (VS Code's built-in ones).
const CONTEXT_KEYS = new Set([
  'resourceExtname', 'resourceFilename', 'resourceLangId', 'resourceScheme', 'explorerResourceIsFolder',
  'isWorkspaceTrusted', 'editorLangId', 'workspaceFolderCount', 'false', 'true',
]);

/** Parses a when-clause (the subset VS Code documents: `!`, `&&`, `||`,
 * `==`, `!=`, parentheses) and returns the keys it reads; throws on bad syntax. */
function parseWhen(src) {
  const tokens = src.match(/\s*(==|!=|&&|\|\||!|\(|\)|[^\s()!=&|]+)/g)?.map((t) => t.trim()) ?? [];
  if (tokens.join('').replace(/\s/g, '') !== src.replace(/\s/g, '')) throw new Error(`cannot tokenize ${src}`);
  let i = 0;
  const keys = [];
  const peek = () => tokens[i];
  const take = (t) => { if (tokens[i] !== t) throw new Error(`expected ${t} at ${i} in ${src}`); i++; };
  const isOp = (t) => ['==', '!=', '&&', '||', '!', '(', ')'].includes(t);
  function primary() {
    if (peek() === '(') { take('('); or(); take(')'); return; }
    const key = tokens[i++];
    if (key === undefined || isOp(key)) throw new Error(`expected a context key at ${i - 1} in ${src}`);
    keys.push(key);
    if (peek() === '==' || peek() === '!=') {
      i++;
      const v = tokens[i++];
      if (v === undefined || isOp(v)) throw new Error(`expected a value after a comparison in ${src}`);
    }
  }
  function unary() { if (peek() === '!') { i++; unary(); } else primary(); }
  function and() { unary(); while (peek() === '&&') { i++; unary(); } }
  function or() { and(); while (peek() === '||') { i++; and(); } }
  or();
  if (i !== tokens.length) throw new Error(`trailing tokens in ${src}`);
  return keys;
}

/** Evaluates a when-clause (the same subset) in `ctx`: a key alone is
 * truthy, `==`/`!=` compare as VS Code does (values as strings). */
function evalWhen(src, ctx) {
  parseWhen(src); // syntax first
  const tokens = src.match(/\s*(==|!=|&&|\|\||!|\(|\)|[^\s()!=&|]+)/g).map((t) => t.trim());
  let i = 0;
  const value = (k) => (k === 'true' ? true : k === 'false' ? false : ctx[k]);
  function primary() {
    if (tokens[i] === '(') { i++; const v = or(); i++; return v; }
    const key = tokens[i++];
    if (tokens[i] === '==' || tokens[i] === '!=') {
      const op = tokens[i++];
      const want = tokens[i++];
      const eq = String(value(key)) === want;
      return op === '==' ? eq : !eq;
    }
    return !!value(key);
  }
  function unary() { if (tokens[i] === '!') { i++; return !unary(); } return primary(); }
  function and() { let v = unary(); while (tokens[i] === '&&') { i++; const r = unary(); v = v && r; } return v; }
  function or() { let v = and(); while (tokens[i] === '||') { i++; const r = and(); v = v || r; } return v; }
  return or();
}

/** The commands a menu shows in context `ctx`. */
function shown(menu, ctx) {
  return manifest.contributes.menus[menu].filter((m) => !m.when || evalWhen(m.when, ctx)).map((m) => m.command);
}

test('when-clause evaluator follows VS Code on the subset the manifest uses', () => {
  assert.equal(evalWhen('a && !b', { a: true, b: false }), true);
  assert.equal(evalWhen('a && !b', { a: true, b: true }), false);
  assert.equal(evalWhen('x == .lean || n != 0', { x: '.txt', n: 0 }), false);
  assert.equal(evalWhen('x == .lean || n != 0', { x: '.txt', n: 2 }), true);
  assert.equal(evalWhen('(a || b) && c', { b: true, c: true }), true);
  assert.equal(evalWhen('false', {}), false);
});

test('menus: Profile Folder on folders in the Explorer, Profile Project in the Command Palette', () => {
  const folder = { explorerResourceIsFolder: true, resourceScheme: 'file', resourceExtname: '', resourceFilename: 'Demo', isWorkspaceTrusted: true };
  const leanFile = { explorerResourceIsFolder: false, resourceScheme: 'file', resourceExtname: '.lean', resourceFilename: 'Clean.lean', isWorkspaceTrusted: true };
  const remoteFolder = { ...folder, resourceScheme: 'vscode-vfs' };
  assert.deepEqual(shown('explorer/context', folder), ['leanscope.profileFolder']);
  assert.deepEqual(shown('explorer/context', leanFile), ['leanscope.profileFile']);
  assert.deepEqual(shown('explorer/context', remoteFolder), [], 'only local folders can be captured');
  assert.deepEqual(shown('explorer/context', { resourceScheme: 'file', resourceFilename: 'session.json', resourceExtname: '.json' }), ['leanscope.openRecording', 'leanscope.compareWithBaseline']);
  // Compare with Baseline: a local recording, or a session through its manifest.
  assert.deepEqual(shown('explorer/context', { resourceScheme: 'file', resourceFilename: 'Clean.lsrec', resourceExtname: '.lsrec' }), ['leanscope.openRecording', 'leanscope.compareWithBaseline']);
  assert.deepEqual(shown('explorer/context', { resourceScheme: 'vscode-vfs', resourceFilename: 'Clean.lsrec', resourceExtname: '.lsrec' }), ['leanscope.openRecording']);
  assert.deepEqual(shown('explorer/context', { resourceScheme: 'file', resourceFilename: 'summary.json', resourceExtname: '.json' }), []);
  // Command Palette: hidden entries are those whose clause is false there.
  const palette = (ctx) => {
    const hidden = new Set(manifest.contributes.menus.commandPalette.filter((m) => m.when && !evalWhen(m.when, ctx)).map((m) => m.command));
    return ['leanscope.profileFolder', 'leanscope.profileProject'].filter((c) => !hidden.has(c));
  };
  assert.deepEqual(palette({ workspaceFolderCount: 1, resourceScheme: 'file', resourceExtname: '.lean' }), ['leanscope.profileFolder', 'leanscope.profileProject']);
  assert.deepEqual(palette({ workspaceFolderCount: 1, resourceScheme: 'file', resourceExtname: '.md' }), ['leanscope.profileFolder', 'leanscope.profileProject'], 'Profile Folder then asks for the folder');
  assert.deepEqual(palette({ workspaceFolderCount: 0 }), ['leanscope.profileFolder'], 'no project to find; a folder can be picked');
  assert.deepEqual(palette({ workspaceFolderCount: 0, resourceScheme: 'file', resourceExtname: '.lean' }), ['leanscope.profileFolder', 'leanscope.profileProject'], 'a lone .lean file');
  // Trust is the commands' enablement, in every menu at once.
  for (const id of ['leanscope.profileFolder', 'leanscope.profileProject']) {
    const cmd = manifest.contributes.commands.find((c) => c.command === id);
    assert.equal(evalWhen(cmd.enablement, { isWorkspaceTrusted: false }), false, id);
    assert.equal(evalWhen(cmd.enablement, { isWorkspaceTrusted: true }), true, id);
  }
});

test('when-clause parser accepts good clauses and rejects broken ones', () => {
  assert.deepEqual(parseWhen('resourceExtname == .lean && !explorerResourceIsFolder'), ['resourceExtname', 'explorerResourceIsFolder']);
  assert.throws(() => parseWhen('resourceExtname == '));
  assert.throws(() => parseWhen('a && && b'));
  assert.throws(() => parseWhen('(a || b'));
});

test('manifest: commands, menus and when-clauses are consistent', () => {
  const c = manifest.contributes;
  const ids = new Set(c.commands.map((x) => x.command));
  assert.equal(ids.size, c.commands.length, 'duplicate command ids');
  for (const cmd of c.commands) {
    assert.equal(cmd.category, 'leanscope', cmd.command);
    assert.match(cmd.command, /^leanscope\.[a-zA-Z]+$/);
    assert.ok(cmd.title.length > 0);
    if (cmd.enablement) for (const k of parseWhen(cmd.enablement)) assert.ok(CONTEXT_KEYS.has(k), `unknown key ${k}`);
  }
  for (const [menu, items] of Object.entries(c.menus)) {
    for (const item of items) {
      assert.ok(ids.has(item.command), `${menu} names unknown command ${item.command}`);
      if (item.when) for (const k of parseWhen(item.when)) assert.ok(CONTEXT_KEYS.has(k), `${menu}: unknown context key ${k}`);
    }
  }
  // The editor title button: .lean files, trusted workspaces, with an icon.
  const title = c.menus['editor/title'].find((m) => m.command === 'leanscope.profileFile');
  assert.equal(title.when, 'resourceExtname == .lean && isWorkspaceTrusted');
  assert.equal(title.group, 'navigation');
  assert.equal(c.commands.find((x) => x.command === 'leanscope.profileFile').icon, '$(pulse)');
  // Explorer: a .lean file and folders.
  assert.ok(c.menus['explorer/context'].some((m) => m.command === 'leanscope.profileFile' && /resourceExtname == \.lean/.test(m.when)));
  assert.ok(c.menus['explorer/context'].some((m) => m.command === 'leanscope.profileFolder' && m.when === 'explorerResourceIsFolder && resourceScheme == file'));
  // Capture commands need trust; viewing does not.
  for (const id of ['leanscope.profileFile', 'leanscope.profileFolder', 'leanscope.profileProject']) {
    assert.equal(c.commands.find((x) => x.command === id).enablement, 'isWorkspaceTrusted', id);
  }
  for (const id of ['leanscope.openRecording', 'leanscope.showViewer', 'leanscope.showHotSpots', 'leanscope.toggleAnnotations', 'leanscope.clear', 'leanscope.compareWithBaseline']) {
    assert.equal(c.commands.find((x) => x.command === id).enablement, undefined, id);
  }
  assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
  assert.equal(manifest.main, './dist/extension.js');
  assert.ok(manifest.activationEvents.includes('onLanguage:lean4'));
});

test('manifest: settings have types and defaults of their type', () => {
  const props = manifest.contributes.configuration.properties;
  const expected = {
    'leanscope.thresholdMs': ['number', 10], 'leanscope.lakePath': ['string', ''], 'leanscope.outputDirectory': ['string', ''],
    'leanscope.timeoutSeconds': ['number', 0], 'leanscope.annotations.style': ['string', 'bars'],
    'leanscope.annotations.codeLens': ['boolean', true], 'leanscope.sidecarPath': ['string', ''],
    'leanscope.compare.metric': ['string', 'total_ns'], 'leanscope.compare.absoluteToleranceMs': ['number', 0],
    'leanscope.compare.relativeTolerancePercent': ['number', 0],
    'leanscope.profile.repeat': ['integer', 1], 'leanscope.profile.warmup': ['integer', 1],
    'leanscope.measure': ['string', 'time'], 'leanscope.thresholdHeartbeats': ['integer', 1000000],
    'leanscope.profile.onSave': ['boolean', false], 'leanscope.profile.onSaveDelayMs': ['integer', 1000],
    'leanscope.profile.onSaveMaxConcurrent': ['integer', 2],
    'leanscope.headroom.warnPercent': ['number', 80], 'leanscope.headroom.problems': ['boolean', true],
    'leanscope.headroom.bumpHints': ['boolean', true], 'leanscope.headroom.bumpNotNeededBelowPercent': ['number', 50],
  };
  assert.deepEqual(Object.keys(props).sort(), Object.keys(expected).sort());
  for (const [k, [type, dflt]] of Object.entries(expected)) {
    assert.equal(props[k].type, type, k);
    assert.equal(props[k].default, dflt, k);
    assert.ok(props[k].markdownDescription, k);
  }
  assert.deepEqual(props['leanscope.annotations.style'].enum, ['bars', 'text', 'gutter']);
  // No capture backend to choose: the sidecar has one, stock.
  assert.equal(props['leanscope.captureBackend'], undefined);
  const rpc = JSON.parse(fs.readFileSync(path.join(EXTENSION, '../schemas/rpc/serve.schema.json'), 'utf8'));
  // The metrics offered are exactly those leanscope/compare accepts.
  assert.deepEqual(props['leanscope.compare.metric'].enum, rpc.$defs.compareParams.properties.metric.enum);
  assert.equal(props['leanscope.compare.absoluteToleranceMs'].minimum, 0);
  assert.equal(props['leanscope.compare.relativeTolerancePercent'].minimum, 0);
  // Repeats within the sidecar's limits (captureFolderParams).
  const folder = rpc.$defs.captureFolderParams.properties;
  for (const [k, rpcKey] of [['leanscope.profile.repeat', 'repeat'], ['leanscope.profile.warmup', 'warmup']]) {
    assert.equal(props[k].minimum, folder[rpcKey].minimum, k);
    assert.equal(props[k].maximum, folder[rpcKey].maximum, k);
  }
});

test('compare settings: the metric, ms as ns and percent as basis points', async () => {
  const x = activateExtension();
  try {
    const { compareSettings } = x.module('settings');
    const { compareCounts, compareSummary } = x.module('compare');
    assert.deepEqual(compareSettings(), { metric: 'total_ns', absoluteTolerance: 0, relativeToleranceBps: 0 });
    x.test.settings['leanscope.compare.metric'] = 'self_ns';
    x.test.settings['leanscope.compare.absoluteToleranceMs'] = 2.5;
    x.test.settings['leanscope.compare.relativeTolerancePercent'] = 1.25;
    assert.deepEqual(compareSettings(), { metric: 'self_ns', absoluteTolerance: 2_500_000, relativeToleranceBps: 125 });
    x.test.settings['leanscope.compare.absoluteToleranceMs'] = 0.0000004; // rounds to 0 ns
    x.test.settings['leanscope.compare.relativeTolerancePercent'] = 33.333;
    assert.deepEqual(compareSettings(), { metric: 'self_ns', absoluteTolerance: 0, relativeToleranceBps: 3333 });
    // Milliseconds mean nothing for a count: the absolute tolerance is a time.
    x.test.settings['leanscope.compare.metric'] = 'calls';
    x.test.settings['leanscope.compare.absoluteToleranceMs'] = 3;
    assert.deepEqual(compareSettings(), { metric: 'calls', absoluteTolerance: 0, relativeToleranceBps: 3333 });
    // Negative or non-numbers count as 0; an empty metric is the default.
    x.test.settings['leanscope.compare.metric'] = ' ';
    x.test.settings['leanscope.compare.absoluteToleranceMs'] = -5;
    x.test.settings['leanscope.compare.relativeTolerancePercent'] = '10';
    assert.deepEqual(compareSettings(), { metric: 'total_ns', absoluteTolerance: 0, relativeToleranceBps: 0 });
    // The summary line counts rows by status.
    const doc = { comparison: { metric: 'total_ns', matched: [{ status: 'regression' }, { status: 'regression' }, { status: 'improvement' }, { status: 'unchanged' }], new: [{}], missing: [] } };
    const counts = compareCounts(doc);
    assert.deepEqual(counts, { regressions: 2, improvements: 1, unchanged: 1, new: 1, missing: 0 });
    assert.equal(compareSummary(counts, 'total_ns'), '2 regressions, 1 improvement, 1 new, 0 missing (metric total_ns)');
  } finally { await x.dispose(); }
});

test('Compare with Baseline: asks for the candidate when nothing is shown, refuses what the viewer cannot show', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-cmp-'));
  const x = activateExtension({ workspaceFolders: [dir] });
  try {
    // Nothing shown or captured: the candidate dialog; cancelling it does nothing.
    x.test.answerDialogs(undefined);
    assert.equal(await x.test.commands.get('leanscope.compareWithBaseline')(), undefined);
    assert.equal(x.test.log.dialogs.length, 1);
    assert.ok(x.test.log.dialogs[0].canSelectFolders && x.test.log.dialogs[0].canSelectFiles);
    assert.deepEqual(x.test.log.dialogs[0].filters['leanscope recordings'], ['lsrec']);
    // A folder that is not a session cannot be the candidate.
    x.test.answerDialogs([x.vscode.Uri.file(dir)]);
    assert.equal(await x.test.commands.get('leanscope.compareWithBaseline')(), undefined);
    assert.match(x.test.log.errors.at(-1), /neither a recording \(\.lsrec\) nor a session folder/);
    // From the Explorer, the item is the candidate: a .lean file is refused before any dialog.
    fs.writeFileSync(path.join(dir, 'A.lean'), 'def a := 1\n');
    assert.equal(await x.test.commands.get('leanscope.compareWithBaseline')(x.vscode.Uri.file(path.join(dir, 'A.lean'))), undefined);
    assert.match(x.test.log.errors.at(-1), /A\.lean is neither a recording/);
    assert.equal(x.test.log.dialogs.length, 2);
    // A session's manifest is its session; the baseline dialog starts in the project's .leanscope/ and cancelling it does nothing.
    fs.writeFileSync(path.join(dir, 'lean-toolchain'), 'leanprover/lean4:v4.19.0\n');
    const session = path.join(dir, '.leanscope', 'sessions', 'S');
    fs.mkdirSync(session, { recursive: true });
    fs.writeFileSync(path.join(session, 'session.json'), '{}');
    x.test.answerDialogs(undefined);
    assert.equal(await x.test.commands.get('leanscope.compareWithBaseline')(x.vscode.Uri.file(path.join(session, 'session.json'))), undefined);
    const baselineDialog = x.test.log.dialogs.at(-1);
    assert.equal(baselineDialog.defaultUri.fsPath, path.join(dir, '.leanscope'));
    assert.deepEqual(baselineDialog.filters['Recordings, sessions and profiles'], ['lsrec', 'json', 'trace', 'folded', 'txt']);
    assert.ok(baselineDialog.canSelectFolders);
    assert.equal(x.test.panels.length, 0, 'no viewer before there is a comparison');
    assert.equal(x.api.sidecar.pid, undefined, 'no sidecar was needed');
  } finally { await x.dispose(); fs.rmSync(dir, { recursive: true, force: true }); }
});

test('activation registers exactly the manifest commands and starts no sidecar', async () => {
  const x = activateExtension();
  try {
    const registered = [...x.test.commands.keys()].sort();
    const declared = manifest.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual(registered, declared);
    assert.deepEqual([...x.ext.COMMANDS].sort(), declared);
    assert.equal(x.api.sidecar.pid, undefined, 'the sidecar starts on first use, not at activation');
    assert.equal(x.test.statusItems.length, 3);
    assert.equal(x.test.statusItems[0].command, 'leanscope.showViewer');
    assert.equal(x.test.statusItems[0].visible, false);
    assert.equal(x.test.statusItems[1].id, 'leanscope.trust');
    assert.equal(x.test.statusItems[1].visible, false, 'a trusted workspace needs no hint');
    assert.equal(x.test.statusItems[2].id, 'leanscope.onSave');
    assert.equal(x.test.statusItems[2].visible, false, 'no on-save capture runs');
    assert.ok(x.test.log.output.some((l) => l.includes(`sidecar ${path.join(EXTENSION, 'bin/leanscope')}`)), x.test.log.output.join('\n'));
  } finally { await x.dispose(); }
});

test('capture parameters come from the settings', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-ws-'));
  const x = activateExtension({
    workspaceFolders: [ws],
    settings: { 'leanscope.thresholdMs': 25, 'leanscope.lakePath': '/opt/elan/bin/lake', 'leanscope.timeoutSeconds': 90.7, 'leanscope.outputDirectory': 'profiles' },
  });
  try {
    const file = x.vscode.Uri.file(path.join(ws, 'Demo/Clean.lean'));
    const { captureParams, folderCaptureParams } = x.module('settings');
    const p = captureParams(file, new Date('2026-01-02T03:04:05.678Z'));
    assert.deepEqual(p, {
      uri: file.toString(), thresholdMs: 25, lake: '/opt/elan/bin/lake', timeoutSeconds: 90,
      output: path.join(ws, 'profiles', 'Clean-20260102T030405Z.lsrec'),
    });
    // A folder or project capture takes the same settings, and its session
    // goes under the output directory too.
    const now = new Date('2026-01-02T03:04:05.678Z');
    const folder = x.vscode.Uri.file(path.join(ws, 'Demo'));
    assert.deepEqual(folderCaptureParams(folder, ws, false, now), {
      folder: folder.fsPath, thresholdMs: 25, lake: '/opt/elan/bin/lake', timeoutSeconds: 90,
      output: path.join(ws, 'profiles', 'Demo-20260102T030405Z'),
    });
    x.test.settings['leanscope.outputDirectory'] = '';
    assert.deepEqual(folderCaptureParams(x.vscode.Uri.file(ws), ws, true, now), {
      folder: ws, project: true, thresholdMs: 25, lake: '/opt/elan/bin/lake', timeoutSeconds: 90,
      output: path.join(ws, '.leanscope', 'sessions', `${path.basename(ws)}-20260102T030405Z`),
    });
    x.test.settings['leanscope.lakePath'] = '  ';
    x.test.settings['leanscope.timeoutSeconds'] = 0;
    delete x.test.settings['leanscope.thresholdMs'];
    assert.deepEqual(captureParams(file), { uri: file.toString(), thresholdMs: 10 });
  } finally { await x.dispose(); fs.rmSync(ws, { recursive: true, force: true }); }
});

test('lake beside the Lean 4 extension: the setting wins, else lean4.envPathExtensions, elan\'s bin, PATH; without it, leanscope\'s own search', async () => {
  const { chooseLake } = extensionModule('leanExtension', createVscodeStub({}).vscode);
  const executables = new Set(['/ext/a/lake', '/home/u/.elan/bin/lake', '/usr/bin/lake', '/ws/rel/lake', 'C:\\tools\\lean\\lake.exe']);
  const base = {
    setting: '', leanExtension: true, envPathExtensions: ['/ext/none', '/ext/a'], folder: '/ws',
    pathVar: '/usr/local/bin:/usr/bin', home: '/home/u', platform: 'linux', isExecutable: (p) => executables.has(p),
  };
  // An explicit leanscope.lakePath wins over everything.
  assert.deepEqual(chooseLake({ ...base, setting: '/opt/lake' }), { lake: '/opt/lake', from: 'the setting leanscope.lakePath' });
  // The Lean extension's lean4.envPathExtensions, in order, before elan and PATH.
  assert.deepEqual(chooseLake(base), { lake: '/ext/a/lake', from: "the Lean 4 extension's lean4.envPathExtensions" });
  // A relative entry is resolved against the workspace folder.
  assert.equal(chooseLake({ ...base, envPathExtensions: ['rel'] }).lake, '/ws/rel/lake');
  // None there: ~/.elan/bin (which the Lean extension puts before PATH), then PATH.
  assert.deepEqual(chooseLake({ ...base, envPathExtensions: [] }), { lake: '/home/u/.elan/bin/lake', from: "elan's bin, as the Lean 4 extension adds it to PATH" });
  assert.equal(chooseLake({ ...base, envPathExtensions: 'not a list', home: '/nohome' }).lake, '/usr/bin/lake');
  // elan's bin already on PATH keeps its place there.
  assert.equal(chooseLake({ ...base, envPathExtensions: [], pathVar: '/usr/bin:/home/u/.elan/bin' }).lake, '/usr/bin/lake');
  // The Lean extension's PATH has no lake: the sidecar searches, as today.
  assert.deepEqual(chooseLake({ ...base, envPathExtensions: [], home: '/nohome', pathVar: '/nowhere' }),
    { from: "leanscope's own search (PATH, then elan): the Lean 4 extension's PATH has no lake" });
  // Without the Lean extension, its setting is not read: today's rule.
  assert.deepEqual(chooseLake({ ...base, leanExtension: false }), { from: "leanscope's own search (PATH, then elan)" });
  // Windows: lake.exe, `;` between PATH entries.
  assert.equal(chooseLake({ ...base, platform: 'win32', envPathExtensions: ['C:\\tools\\lean'], pathVar: 'C:\\Windows', home: 'C:\\Users\\u' }).lake, 'C:\\tools\\lean\\lake.exe');
});

test('capture parameters beside the Lean 4 extension: its envPathExtensions\' lake, unless leanscope.lakePath is set; without it, no lake is sent', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-ws-'));
  const tools = path.join(ws, 'lean-tools');
  fs.mkdirSync(tools);
  fs.writeFileSync(path.join(tools, 'lake'), '#!/bin/sh\n', { mode: 0o755 });
  const lean4 = { 'leanprover.lean4': { packageJSON: { name: 'lean4', publisher: 'leanprover', version: '0.0.239' }, exports: {} } };
  const with4 = activateExtension({ workspaceFolders: [ws], settings: { 'lean4.envPathExtensions': ['lean-tools'] }, stubOptions: { extensions: lean4 } });
  try {
    const file = with4.vscode.Uri.file(path.join(ws, 'Demo/Clean.lean'));
    const { captureParams, folderCaptureParams } = with4.module('settings');
    assert.equal(captureParams(file).lake, path.join(tools, 'lake'));
    assert.equal(folderCaptureParams(with4.vscode.Uri.file(path.join(ws, 'Demo')), ws, false).lake, path.join(tools, 'lake'));
    // The MCP server definition gets the same --lake.
    const { mcpServerSpecs } = with4.module('mcp');
    assert.deepEqual(mcpServerSpecs(EXTENSION)[0].args.slice(-2), ['--lake', path.join(tools, 'lake')]);
    // The setting wins.
    with4.test.settings['leanscope.lakePath'] = '/opt/elan/bin/lake';
    assert.equal(captureParams(file).lake, '/opt/elan/bin/lake');
  } finally { await with4.dispose(); }
  const without = activateExtension({ workspaceFolders: [ws], settings: { 'lean4.envPathExtensions': ['lean-tools'] } });
  try {
    const file = without.vscode.Uri.file(path.join(ws, 'Demo/Clean.lean'));
    assert.equal(without.module('settings').captureParams(file).lake, undefined, 'no Lean extension: the sidecar finds lake as today');
  } finally { await without.dispose(); fs.rmSync(ws, { recursive: true, force: true }); }
});

test('the heat mark: a gutter icon; beside the Lean 4 extension, a border at the line\'s left (the glyph margin would merge both extensions\' icons)', async () => {
  const heat = (x) => x.test.decorationTypes.map((t) => t.options).filter((o) => o.overviewRulerLane === x.vscode.OverviewRulerLane.Right);
  const alone = activateExtension();
  try {
    const types = heat(alone);
    assert.equal(types.length, 4);
    for (const [i, o] of types.entries()) {
      assert.match(o.gutterIconPath.fsPath, new RegExp(`media/heat-${i + 1}\\.svg$`));
      assert.equal(o.isWholeLine, undefined);
    }
  } finally { await alone.dispose(); }
  const lean4 = { 'leanprover.lean4': { packageJSON: { name: 'lean4', publisher: 'leanprover', version: '0.0.239' }, exports: {} } };
  const beside = activateExtension({ stubOptions: { extensions: lean4 } });
  try {
    const types = heat(beside);
    assert.equal(types.length, 4);
    for (const [i, o] of types.entries()) {
      assert.equal(o.gutterIconPath, undefined, 'nothing in the glyph margin');
      assert.deepEqual([o.isWholeLine, o.borderStyle, o.borderWidth], [true, 'solid', '0 0 0 3px']);
      assert.equal(o.borderColor, o.overviewRulerColor);
      assert.equal(o.borderColor, `rgba(230, 120, 0, ${(0.25 * (i + 1)).toFixed(2)})`);
    }
  } finally { await beside.dispose(); }
});

test('menus: leanscope\'s commands in the Lean 4 extension\'s ∀ menu (lean4.titlebar), for Lean files only', () => {
  const items = manifest.contributes.menus['lean4.titlebar'];
  assert.deepEqual(items.map((m) => m.command), ['leanscope.profileFile', 'leanscope.profileFolder', 'leanscope.profileProject',
    'leanscope.showViewer', 'leanscope.showHotSpots', 'leanscope.toggleAnnotations']);
  const lean = { resourceLangId: 'lean4', resourceExtname: '.lean', isWorkspaceTrusted: true };
  assert.deepEqual(shown('lean4.titlebar', lean), items.map((m) => m.command));
  assert.deepEqual(shown('lean4.titlebar', { resourceLangId: 'markdown', resourceExtname: '.md', isWorkspaceTrusted: true }), []);
  // Restricted Mode: the viewing commands only.
  assert.deepEqual(shown('lean4.titlebar', { ...lean, isWorkspaceTrusted: false }), ['leanscope.showViewer', 'leanscope.showHotSpots', 'leanscope.toggleAnnotations']);
  // One group of their own, after the Lean extension's groups (1_setup … 9_setupError).
  assert.ok(items.every((m) => /^z_leanscope@\d+$/.test(m.group)), JSON.stringify(items));
});

test('sidecar path: the setting, else bin/leanscope in the extension', async () => {
  const x = activateExtension();
  try {
    const { resolveSidecarBinary } = x.module('sidecar');
    assert.equal(resolveSidecarBinary('', '/ext'), '/ext/bin/leanscope');
    assert.equal(resolveSidecarBinary(' /usr/local/bin/leanscope ', '/ext'), '/usr/local/bin/leanscope');
  } finally { await x.dispose(); }
  const y = activateExtension({ settings: { 'leanscope.sidecarPath': '/nonexistent/leanscope' } });
  try {
    await assert.rejects(y.api.sidecar.connect(), /The leanscope sidecar was not found at \/nonexistent\/leanscope\. Set "leanscope\.sidecarPath"/);
  } finally { await y.dispose(); }
});

test('the sidecar\'s stderr is logged in whole lines, however the pipe cuts it', async () => {
  const x = activateExtension();
  try {
    const { LineSplitter } = x.module('sidecar');
    const s = new LineSplitter();
    // eprintln! writes each piece of its format separately.
    assert.deepEqual(s.push('leanscope serve: session capture '), []);
    assert.deepEqual(s.push('0'), []);
    assert.deepEqual(s.push(' of Demo (stock backend)\nleanscope serve: re'), ['leanscope serve: session capture 0 of Demo (stock backend)']);
    assert.deepEqual(s.push('ady\r\n\nlast'), ['leanscope serve: ready', '']);
    assert.deepEqual(s.flush(), ['last']);
    assert.deepEqual(s.flush(), []);
  } finally { await x.dispose(); }
});

test('the project of a file or folder: nearest lean-toolchain, else nearest lakefile', async () => {
  const x = activateExtension();
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-proj-'));
  try {
    const find = x.module('sessions').findProjectRoot;
    fs.mkdirSync(path.join(ws, 'p/sub/Deep'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'p/lean-toolchain'), 'leanprover/lean4:v4.22.0\n');
    fs.writeFileSync(path.join(ws, 'p/sub/lakefile.toml'), '');
    fs.writeFileSync(path.join(ws, 'p/sub/Deep/A.lean'), '');
    // lean-toolchain wins over a nearer lakefile.
    assert.equal(find(path.join(ws, 'p/sub/Deep/A.lean')), path.join(ws, 'p'));
    assert.equal(find(path.join(ws, 'p/sub/Deep')), path.join(ws, 'p'));
    assert.equal(find(path.join(ws, 'p')), path.join(ws, 'p'));
    // Without one, the nearest lakefile.
    fs.rmSync(path.join(ws, 'p/lean-toolchain'));
    assert.equal(find(path.join(ws, 'p/sub/Deep/A.lean')), path.join(ws, 'p/sub'));
    fs.writeFileSync(path.join(ws, 'p/lakefile.lean'), '');
    assert.equal(find(path.join(ws, 'p/sub/Deep')), path.join(ws, 'p/sub'));
    // A directory named like the marker is not one.
    fs.rmSync(path.join(ws, 'p/sub/lakefile.toml'));
    fs.mkdirSync(path.join(ws, 'p/sub/lean-toolchain'));
    assert.equal(find(path.join(ws, 'p/sub/Deep')), path.join(ws, 'p'));
    fs.rmSync(path.join(ws, 'p/lakefile.lean'));
    assert.equal(find(path.join(ws, 'p/sub/Deep')), undefined);
  } finally { await x.dispose(); fs.rmSync(ws, { recursive: true, force: true }); }
});

test('folder progress reads "3/7 path" from the sidecar\'s per-file messages', async () => {
  const x = activateExtension();
  try {
    const { FolderProgress } = x.module('sessions');
    const p = new FolderProgress();
    assert.deepEqual(p.update('7 files to capture'), { message: '0/7 files' });
    assert.deepEqual(p.update('Capturing Mathlib/Foo.lean'), { message: '1/7 Mathlib/Foo.lean' });
    assert.deepEqual(p.update('[1/7] Mathlib/Foo.lean: ok', 14), { message: '1/7 Mathlib/Foo.lean: ok', increment: 14 });
    assert.deepEqual(p.update('Capturing Mathlib/Bar.lean'), { message: '2/7 Mathlib/Bar.lean' });
    assert.deepEqual(p.update('[2/7] Mathlib/Bar.lean: failed', 28), { message: '2/7 Mathlib/Bar.lean: failed', increment: 14 });
    assert.deepEqual(p.update('Capturing Mathlib/Baz.lean'), { message: '3/7 Mathlib/Baz.lean' });
    assert.deepEqual(p.update('[3/7] Mathlib/Baz.lean: error', 42), { message: '3/7 Mathlib/Baz.lean: error', increment: 14 });
    assert.deepEqual(p.update('[3/7] Mathlib/Baz.lean: error', 42), { message: '3/7 Mathlib/Baz.lean: error' }, 'no increment twice');
    assert.equal(p.update(undefined), undefined);
    assert.deepEqual(p.update('something else'), { message: 'something else' });
    const q = new FolderProgress();
    assert.deepEqual(q.update('1 file to capture'), { message: '0/1 files' });
    assert.deepEqual(q.update('Capturing A.lean'), { message: '1/1 A.lean' });
  } finally { await x.dispose(); }
});

test('Profile Folder and Profile Project: trust, a local folder, a Lean project, unsaved files', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-ws-'));
  fs.mkdirSync(path.join(ws, 'proj/Sub'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'proj/lean-toolchain'), 'leanprover/lean4:v4.22.0\n');
  const lean = path.join(ws, 'proj/Sub/A.lean');
  fs.writeFileSync(lean, 'theorem a : True := trivial\n');
  fs.mkdirSync(path.join(ws, 'loose'));
  const untrusted = activateExtension({ trusted: false, workspaceFolders: [path.join(ws, 'proj')] });
  try {
    assert.equal(await untrusted.test.commands.get('leanscope.profileFolder')(untrusted.vscode.Uri.file(path.join(ws, 'proj/Sub'))), undefined);
    assert.equal(await untrusted.test.commands.get('leanscope.profileProject')(), undefined);
    assert.equal(untrusted.test.log.errors.length, 2);
    for (const e of untrusted.test.log.errors) assert.match(e, /needs a trusted workspace/);
    assert.equal(untrusted.api.sidecar.pid, undefined, 'no sidecar started');
    const hint = untrusted.test.statusItems.find((i) => i.id === 'leanscope.trust');
    assert.equal(hint.visible, true);
    assert.equal(hint.command, 'workbench.trust.manage');
    assert.match(hint.text, /trust the workspace to profile/);
    assert.equal(untrusted.test.log.progress.length, 0);
  } finally { await untrusted.dispose(); }
  const x = activateExtension({ settings: { 'leanscope.sidecarPath': '/nonexistent/leanscope' } });
  try {
    const run = (id, ...a) => x.test.commands.get(id)(...a);
    // No folder and no Lean file: a folder is asked for; none picked, nothing happens.
    const errors = x.test.log.errors.length;
    assert.equal(await run('leanscope.profileFolder'), undefined);
    assert.equal(x.test.log.dialogs.at(-1).canSelectFolders, true);
    assert.equal(x.test.log.errors.length, errors, 'no error for a dialog dismissed');
    await run('leanscope.profileFolder', x.vscode.Uri.file(path.join(ws, 'missing')));
    assert.equal(x.test.log.errors.at(-1), `leanscope: ${path.join(ws, 'missing')} is not a local folder.`);
    await run('leanscope.profileFolder', x.vscode.Uri.file(path.join(ws, 'loose')));
    assert.match(x.test.log.errors.at(-1), /loose is not inside a Lean project \(no lean-toolchain, lakefile\.toml or lakefile\.lean in it or above it\)\.$/);
    await run('leanscope.profileProject');
    assert.equal(x.test.log.errors.at(-1), 'leanscope: open a Lean project folder or a .lean file to profile its project.');
    assert.equal(x.test.log.progress.length, 0, 'no capture started');
    // An unsaved file in the folder: asked first; declining captures nothing.
    const ed = await x.test.openEditor(lean);
    x.test.edit(ed.document, 'theorem a : True := by trivial\n');
    x.test.answerDialogs(undefined);
    assert.equal(await run('leanscope.profileFolder', x.vscode.Uri.file(path.join(ws, 'proj'))), undefined);
    assert.equal(x.test.log.modal.at(-1), '1 file has unsaved changes (Sub/A.lean). Lean profiles the files on disk: save them first?');
    assert.equal(fs.readFileSync(lean, 'utf8'), 'theorem a : True := trivial\n');
    assert.equal(x.test.log.progress.length, 0);
    // Profile Project from the active editor's file: saved, then the capture
    // is tried on the project (and fails here for want of a sidecar).
    x.test.answerDialogs('Save and Profile');
    assert.equal(await run('leanscope.profileProject'), undefined);
    assert.equal(fs.readFileSync(lean, 'utf8'), 'theorem a : True := by trivial\n', 'saved first');
    assert.equal(x.test.lastProgress().options.title, 'leanscope: profiling project proj');
    assert.equal(x.test.lastProgress().options.cancellable, true);
    assert.match(x.test.log.errors.at(-1), /^leanscope: profiling project proj failed: The leanscope sidecar was not found at \/nonexistent\/leanscope/);
    assert.ok(x.test.log.output.some((l) => l.includes(`capture project proj {"project":true,"thresholdMs":10,"output":"${path.join(ws, 'proj/.leanscope/sessions/proj-')}`)), x.test.log.output.join('\n'));
    // A .lean file (an editor title menu, such as the Lean 4 extension's ∀
    // menu, passes the editor's file): its folder is profiled.
    await run('leanscope.profileFolder', x.vscode.Uri.file(lean));
    assert.match(x.test.log.errors.at(-1), new RegExp(`^leanscope: profiling folder ${path.basename(path.dirname(lean))} failed: `));
    assert.equal(x.test.statusItems[0].visible, false, 'no capture, nothing in the status bar');
  } finally { await x.dispose(); fs.rmSync(ws, { recursive: true, force: true }); }
});

test('changing leanscope.sidecarPath switches the sidecar for the next request', async () => {
  const x = activateExtension({ settings: { 'leanscope.sidecarPath': '/nonexistent/one' } });
  try {
    await assert.rejects(x.api.sidecar.connect(), /not found at \/nonexistent\/one\./);
    x.test.setSetting('leanscope.sidecarPath', '/nonexistent/two');
    await assert.rejects(x.api.sidecar.connect(), /not found at \/nonexistent\/two\./);
    x.test.setSetting('leanscope.sidecarPath', '');
    assert.equal(x.api.sidecar.binary, path.join(EXTENSION, 'bin/leanscope'));
    assert.ok(x.test.log.output.some((l) => l.includes('sidecar binary changed: /nonexistent/one → /nonexistent/two')));
  } finally { await x.dispose(); }
});

test('times and shares read as the CodeLens shows them (as the CLI and the viewer write them)', async () => {
  const x = activateExtension();
  try {
    const { formatNs, lensTitle, formatShare } = x.module('format');
    assert.equal(formatNs(1_240_000_000), '1.240 s');
    assert.equal(formatNs(310_000_000), '310.0 ms');
    assert.equal(formatNs(12_345_678), '12.3 ms');
    assert.equal(formatNs(6_238_000), '6.2 ms');
    assert.equal(formatNs(850_000), '850 µs');
    assert.equal(formatNs(999), '999 ns');
    // The self time in the unit of the total, with that unit's decimals.
    assert.equal(lensTitle(1_240_000_000, 310_000_000, 0.38), '1.240 s · self 0.310 s · 38% of file');
    assert.equal(lensTitle(1_240_000_000, null, null), '1.240 s');
    assert.equal(formatShare(0.001), '<1%');
    assert.equal(formatShare(0), '0%');
    assert.equal(formatShare(null), null);
  } finally { await x.dispose(); }
});

test('the editor writes every value of fixtures/format/values.json as the CLI and the viewer do', () => {
  const { vscode } = createVscodeStub({});
  const { formatValue, formatNs, formatHeartbeats } = extensionModule('format', vscode);
  const { cases } = JSON.parse(fs.readFileSync(path.join(EXTENSION, '../fixtures/format/values.json'), 'utf8'));
  assert.ok(cases.length > 20);
  for (const c of cases) {
    const what = JSON.stringify(c);
    assert.equal(formatValue(c.value, c.measure, c.scale), c.text, what);
    // Times and heartbeats have their own shorthands; an untimed count has formatValue only.
    if (c.scale === undefined && c.measure !== 'untimed') assert.equal((c.measure === 'heartbeats' ? formatHeartbeats : formatNs)(c.value), c.text, what);
  }
});

test('line annotations: bars proportional to the longest line, heat by quarter, hover table', async () => {
  const x = activateExtension();
  try {
    const op = { class: 'Elab.step', label: 'omega `x`', kind: 'tactic', inclusiveNs: 8_000_000, selfNs: 2_000_000, thread: 0, range: null, rangeKind: 'matched' };
    const answer = {
      stale: false, sourceSha256: 'a'.repeat(64), fileNs: 100_000_000, shareBasis: 'elapsed',
      lines: [
        { line: 2, events: 1, totalNs: 8_000_000, selfNs: 2_000_000, share: 0.08, selfShare: 0.02, top: [op] },
        { line: 5, events: 2, totalNs: 2_000_000, selfNs: 2_000_000, share: 0.02, selfShare: 0.02, top: [] },
      ],
      declarations: [
        { index: 0, name: 'a', kind: 'theorem', range: { start: { line: 1, character: 0 }, end: { line: 3, character: 4 } }, selectionRange: { start: { line: 1, character: 8 }, end: { line: 1, character: 9 } }, generated: false, events: 3, totalNs: 8_000_000, selfNs: 0, share: 0.08, selfShare: 0 },
        { index: 1, name: 'b', kind: 'def', range: { start: { line: 7, character: 0 }, end: { line: 7, character: 9 } }, selectionRange: { start: { line: 7, character: 4 }, end: { line: 7, character: 5 } }, generated: false, events: 0, totalNs: null, selfNs: null, share: null, selfShare: null },
      ],
    };
    const c = x.module('annotations').computeAnnotations(answer);
    assert.deepEqual(c.lines.map((l) => [l.line, l.text, l.barPx, l.heat]), [[2, '8.0 ms (8%)', x.module('annotations').BAR_MAX_PX, 4], [5, '2.0 ms (2%)', 30, 1]]);
    assert.match(c.lines[0].hover, /line 3: 8\.0 ms inclusive · self 2\.0 ms · 8% of file · 1 event/);
    assert.match(c.lines[0].hover, /\| `` omega `x` `` \| Elab\.step · tactic \| 8\.0 ms \| 2\.0 ms \| 0 \| matched \|/);
    // A declaration with no recorded time gets no lens (no time is not zero).
    assert.deepEqual(c.lenses, [{ line: 1, endLine: 3, nameLine: 1, declaration: 'a', index: 0, title: '8.0 ms · self 0.0 ms · 8% of file', headroomHover: [], runHover: [] }]);
  } finally { await x.dispose(); }
});

test('a declaration\'s memory growth and, in a partial recording, its unfinished run show in its lens and hover', async () => {
  const x = activateExtension();
  try {
    const range = { start: { line: 1, character: 0 }, end: { line: 3, character: 4 } };
    const answer = {
      stale: false, sourceSha256: 'a'.repeat(64), fileNs: 100_000_000, shareBasis: 'traced', lines: [],
      partial: 'Lean did not finish within 2 s and was stopped',
      declarations: [
        { index: 0, name: 'big', kind: 'theorem', range, selectionRange: range, generated: false, events: 1, totalNs: 8_000_000, selfNs: 8_000_000, share: 0.08, selfShare: 0.08, memoryGrowthBytes: 300 * 1048576, inFlight: true },
      ],
    };
    const [lens] = x.module('annotations').computeAnnotations(answer).lenses;
    assert.match(lens.title, / · unfinished$/);
    assert.equal(lens.runHover[0], '**big** · memory: +300 MiB resident while it ran');
    assert.match(lens.runHover[1], /\*\*unfinished\*\*: Lean was stopped while running it \(Lean did not finish within 2 s and was stopped\)/);
    assert.equal(x.module('format').formatBytes(12.5 * 1048576), '12.5 MiB');
    // Over the runs of a repeated capture: the median growth with its spread.
    const over = x.module('annotations').runHover({ ...answer.declarations[0], inFlight: false, memoryGrowthBytes: 25 * 1048576,
      memorySpread: { runs: 4, median: 25 * 1048576, min: 10 * 1048576, max: 40 * 1048576 } });
    assert.deepEqual(over, ['**big** · memory: +25.0 MiB resident while it ran (median of 4 runs · min–max 10.0 MiB–40.0 MiB)']);
  } finally { await x.dispose(); }
});

test('a recording measured in heartbeats reads in heartbeats in the editor, never in a time', async () => {
  const x = activateExtension();
  try {
    const { formatHeartbeats, formatValue, lensTitle } = x.module('format');
    assert.equal(formatHeartbeats(850), '850 hb');
    assert.equal(formatHeartbeats(12_400), '12.4 k hb');
    assert.equal(formatHeartbeats(3_210_000), '3.21 M hb');
    assert.equal(formatHeartbeats(150_000_000_000), '150 G hb');
    assert.equal(formatValue(12_400, 'time'), '12 µs');
    assert.equal(lensTitle(12_400, 3_100, 0.5, 'heartbeats'), '12.4 k hb · self 3.10 k hb · 50% of file');
    const op = { class: 'Elab.step', label: 'simp', kind: 'tactic', inclusiveNs: 52_000, selfNs: 4_000, thread: 0, range: null, rangeKind: 'exact' };
    const answer = {
      stale: false, sourceSha256: 'a'.repeat(64), measure: 'heartbeats', fileNs: 104_000, shareBasis: 'traced',
      lines: [{ line: 0, events: 1, totalNs: 52_000, selfNs: 4_000, share: 0.5, selfShare: 0.04, top: [op] }],
      declarations: [
        { index: 0, name: 't', kind: 'theorem', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 9 } }, selectionRange: { start: { line: 0, character: 8 }, end: { line: 0, character: 9 } }, generated: false, events: 1, totalNs: 52_000, selfNs: 4_000, share: 0.5, selfShare: 0.04 },
      ],
    };
    const c = x.module('annotations').computeAnnotations(answer);
    assert.equal(c.lines[0].text, '52.0 k hb (50%)');
    assert.match(c.lines[0].hover, /line 1: 52\.0 k hb inclusive · self 4\.00 k hb · 50% of file/);
    assert.match(c.lines[0].hover, /\| `simp` \| Elab\.step · tactic \| 52\.0 k hb \| 4\.00 k hb \| 0 \| exact \|/);
    assert.equal(c.lenses[0].title, '52.0 k hb · self 4.00 k hb · 50% of file');
    for (const text of [c.lines[0].text, c.lines[0].hover, c.lenses[0].title]) assert.doesNotMatch(text, /\b(ms|µs|ns|s)\b/);
  } finally { await x.dispose(); }
});

test('over the runs of a repeated capture: medians, min–max and IQR in hovers, the run count in lenses', async () => {
  const x = activateExtension();
  try {
    const { spreadText, runCount, lensTitle } = x.module('format');
    // Kept runs 30000 10000 50000 20000 → median 25000, q1 17500, q3 35000.
    const four = { runs: 4, median: 25_000, min: 10_000, max: 50_000, q1: 17_500, q3: 35_000 };
    assert.equal(spreadText(four, 'heartbeats'), 'median of 4 runs · min–max 10.0 k hb–50.0 k hb · IQR 17.5 k hb–35.0 k hb');
    assert.equal(spreadText({ ...four, median: 25_000_000, min: 10_000_000, max: 50_000_000, q1: 17_500_000, q3: 35_000_000 }),
      'median of 4 runs · min–max 10.0 ms–50.0 ms · IQR 17.5 ms–35.0 ms');
    // Three runs: no quartiles; a time only two of four runs have says so.
    assert.equal(spreadText({ runs: 3, median: 2_000, min: 1_000, max: 3_000 }, 'heartbeats'), 'median of 3 runs · min–max 1.00 k hb–3.00 k hb');
    assert.equal(spreadText({ runs: 2, median: 400, min: 300, max: 500 }, 'time', 4), 'median of 2 of 4 runs · min–max 300 ns–500 ns');
    assert.equal(runCount(1), '1 run');
    assert.equal(lensTitle(25_000, 22_500, 1, 'heartbeats', 4), 'median 25.0 k hb (4 runs) · self 22.5 k hb · 100% of file');
    const op = { class: 'Elab.command', label: 'theorem a', kind: 'command', inclusiveNs: 30_000, selfNs: 27_000, thread: 0, range: null, rangeKind: 'exact' };
    const range = { start: { line: 1, character: 0 }, end: { line: 2, character: 9 } };
    const answer = {
      stale: false, sourceSha256: 'a'.repeat(64), measure: 'heartbeats', fileNs: 25_000, shareBasis: 'traced',
      runs: 4, recording: '/s/files/0-Rep.A-2.lsrec', fileSpread: four,
      lines: [
        { line: 1, events: 1, totalNs: 25_000, selfNs: 22_500, share: 1, selfShare: 0.9, top: [op],
          spread: { total: four, self: { runs: 4, median: 22_500, min: 9_000, max: 45_000, q1: 15_750, q3: 31_500 } } },
        { line: 3, events: 0, totalNs: 400, selfNs: 400, share: 0.016, selfShare: 0.016, top: [],
          spread: { total: { runs: 2, median: 400, min: 300, max: 500 }, self: { runs: 2, median: 400, min: 300, max: 500 } } },
      ],
      declarations: [
        { index: 0, name: 'a', kind: 'theorem', range, selectionRange: range, generated: false, events: 1, totalNs: 25_000, selfNs: 22_500, share: 1, selfShare: 0.9,
          spread: { total: four, self: four } },
        { index: 1, name: 'b', kind: 'theorem', range, selectionRange: range, generated: false, events: 0, totalNs: 900, selfNs: 900, share: 0.036, selfShare: 0.036,
          spread: { total: { runs: 1, median: 900, min: 900, max: 900 }, self: { runs: 1, median: 900, min: 900, max: 900 } } },
      ],
    };
    const c = x.module('annotations').computeAnnotations(answer);
    assert.deepEqual(c.lines.map((l) => l.text), ['median 25.0 k hb (100%)', 'median 400 hb (2%)']);
    const hover = c.lines[0].hover;
    assert.match(hover, /line 2: 25\.0 k hb inclusive · self 22\.5 k hb · 100% of file · 1 event in the median run/);
    assert.match(hover, /inclusive: median of 4 runs · min–max 10\.0 k hb–50\.0 k hb · IQR 17\.5 k hb–35\.0 k hb/);
    assert.match(hover, /self: median of 4 runs · min–max 9\.00 k hb–45\.0 k hb · IQR 15\.8 k hb–31\.5 k hb/);
    assert.match(hover, /Operations of the median run:\n\n\| operation \|/);
    assert.match(hover, /\| `theorem a` \| Elab\.command · command \| 30\.0 k hb \| 27\.0 k hb \| 0 \| exact \|/);
    // A line only other runs recorded: no operations, 2 of the 4 runs.
    assert.match(c.lines[1].hover, /0 events in the median run\n\ninclusive: median of 2 of 4 runs · min–max 300 hb–500 hb$/m);
    assert.doesNotMatch(c.lines[1].hover, /\| operation \|/);
    assert.deepEqual(c.lenses.map((l) => l.title), [
      'median 25.0 k hb (4 runs) · self 22.5 k hb · 100% of file',
      'median 900 hb (1 of 4 runs) · self 900 hb · 4% of file',
    ]);
    for (const l of c.lines) assert.doesNotMatch(l.hover + l.text, /\b(ms|µs|ns|s)\b/);
    // A recording's answer reads exactly as before: no "median".
    const once = x.module('annotations').computeAnnotations({ ...answer, runs: undefined, recording: undefined, fileSpread: undefined,
      lines: answer.lines.map(({ spread, ...l }) => l), declarations: answer.declarations.map(({ spread, ...d }) => d) });
    assert.equal(once.lines[0].text, '25.0 k hb (100%)');
    assert.doesNotMatch(once.lines[0].hover, /median/);
    assert.equal(once.lenses[0].title, '25.0 k hb · self 22.5 k hb · 100% of file');
  } finally { await x.dispose(); }
});

test('Profile File repeats: leanscope.profile.repeat and warmup, within the limits, into a one-file session', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-ws-'));
  const x = activateExtension({ workspaceFolders: [ws], settings: { 'leanscope.thresholdMs': 25 } });
  try {
    const { profileSettings, repeatedFileParams } = x.module('settings');
    assert.deepEqual(profileSettings(), { repeat: 1, warmup: 1 });
    for (const [repeat, warmup, want] of [
      [4, 0, { repeat: 4, warmup: 0 }], [2.7, 3, { repeat: 2, warmup: 3 }], [0, -1, { repeat: 1, warmup: 0 }],
      [5000, 5000, { repeat: 1000, warmup: 1000 }], ['4', null, { repeat: 1, warmup: 1 }],
    ]) {
      x.test.settings['leanscope.profile.repeat'] = repeat;
      x.test.settings['leanscope.profile.warmup'] = warmup;
      assert.deepEqual(profileSettings(), want, `${repeat} ${warmup}`);
    }
    const file = x.vscode.Uri.file(path.join(ws, 'Demo/Clean.lean'));
    assert.deepEqual(repeatedFileParams(file, ws, 4, 1, new Date('2026-01-02T03:04:05.678Z')), {
      file: file.fsPath, repeat: 4, warmup: 1, thresholdMs: 25,
      output: path.join(ws, '.leanscope', 'sessions', 'Clean-20260102T030405Z'),
    });
  } finally { await x.dispose(); fs.rmSync(ws, { recursive: true, force: true }); }
});

test('the webview page: CSP with wasm-unsafe-eval and blob workers, nonce scripts, config block', async () => {
  const x = activateExtension();
  try {
    const template = fs.readFileSync(path.join(EXTENSION, 'media/viewer/index.html'), 'utf8');
    const { viewerHtml } = x.module('viewer');
    const html = viewerHtml(template, 'https://cdn.example', 'N0NCE', 'https://cdn.example/host.js',
      { assets: 'https://cdn.example/viewer/', recording: 'https://cdn.example/r/A.lsrec', recordingName: 'A</script>.lsrec' });
    const csp = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/)[1];
    assert.equal(csp, "default-src 'none'; script-src 'nonce-N0NCE' 'wasm-unsafe-eval'; worker-src blob:; connect-src https://cdn.example; style-src https://cdn.example; img-src https://cdn.example data:; font-src https://cdn.example; base-uri 'none'; form-action 'none'");
    const scripts = [...html.matchAll(/<script ([^>]*)>/g)].map((m) => m[1]);
    assert.deepEqual(scripts, [
      'type="application/json" id="leanscope-config"',
      'nonce="N0NCE" src="https://cdn.example/host.js" defer',
      'type="module" nonce="N0NCE" src="https://cdn.example/viewer/viewer.js"',
    ]);
    const config = JSON.parse(html.match(/id="leanscope-config">([^<]*)<\/script>/)[1]);
    assert.equal(config.recordingName, 'A</script>.lsrec', 'the name is escaped inside the block and parses back');
    assert.ok(html.includes('href="https://cdn.example/viewer/viewer.css"'));
    assert.throws(() => viewerHtml('<html></html>', 'a', 'b', 'c', { assets: 'd' }), /media\/viewer is out of date/);
  } finally { await x.dispose(); }
});

test('Profile File needs a trusted workspace and a .lean file, and asks to save a dirty one', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-ws-'));
  const lean = path.join(ws, 'A.lean');
  fs.writeFileSync(lean, 'theorem a : True := trivial\n');
  const untrusted = activateExtension({ trusted: false });
  try {
    const r = await untrusted.test.commands.get('leanscope.profileFile')(untrusted.vscode.Uri.file(lean));
    assert.equal(r, undefined);
    assert.match(untrusted.test.log.errors[0], /needs a trusted workspace/);
    assert.equal(untrusted.api.sidecar.pid, undefined, 'no sidecar started');
    const hint = untrusted.test.statusItems.find((i) => i.id === 'leanscope.trust');
    assert.equal(hint.visible, true);
    assert.equal(hint.command, 'workbench.trust.manage');
    assert.match(hint.text, /trust the workspace to profile/);
  } finally { await untrusted.dispose(); }
  const x = activateExtension({ settings: { 'leanscope.sidecarPath': '/nonexistent/leanscope' } });
  try {
    await x.test.commands.get('leanscope.profileFile')(x.vscode.Uri.file(path.join(ws, 'notes.txt')));
    assert.match(x.test.log.errors[0], /notes\.txt is not a local \.lean file/);
    const ed = await x.test.openEditor(lean);
    x.test.edit(ed.document, 'theorem a : True := by trivial\n');
    x.test.answerDialogs(undefined); // the user dismisses the dialog
    assert.equal(await x.test.commands.get('leanscope.profileFile')(), undefined);
    assert.match(x.test.log.modal[0], /A\.lean has unsaved changes\. Lean profiles the file on disk: save it first\?/);
    assert.equal(fs.readFileSync(lean, 'utf8'), 'theorem a : True := trivial\n', 'not saved');
    assert.equal(x.test.log.progress.length, 0, 'no capture started');
    x.test.answerDialogs('Save and Profile');
    await x.test.commands.get('leanscope.profileFile')();
    assert.equal(fs.readFileSync(lean, 'utf8'), 'theorem a : True := by trivial\n', 'saved first');
    assert.match(x.test.log.errors.at(-1), /profiling A\.lean failed: The leanscope sidecar was not found at \/nonexistent\/leanscope/);
  } finally { await x.dispose(); fs.rmSync(ws, { recursive: true, force: true }); }
});

test('Show Viewer before any capture says what to do', async () => {
  const x = activateExtension();
  try {
    assert.equal(await x.test.commands.get('leanscope.showViewer')(), undefined);
    assert.deepEqual(x.test.log.infos, ['leanscope: profile a file or open a recording first.']);
    assert.equal(x.test.panels.length, 0);
  } finally { await x.dispose(); }
});

test('Show Viewer, its module on its own: the argument, else what is shown, else the last capture', () => {
  const { vscode } = createVscodeStub({});
  const { showViewer } = extensionModule('commands/showViewer', vscode);
  const { CaptureHistory } = extensionModule('history', vscode);
  const shown = [];
  const viewer = { current: undefined, show: (target, select) => shown.push(select ? [target, select] : [target]) };
  const fromEditor = new Map();
  const annotations = { sourceOf: (uri) => fromEditor.get(uri.fsPath) };
  const services = { viewer, annotations, history: new CaptureHistory() };
  // A session asked for, and a declaration of a recording (as the CodeLens asks).
  assert.deepEqual(showViewer(services, { session: '/s/S' }), { kind: 'session', file: '/s/S/session.json' });
  const source = vscode.Uri.file('/p/A.lean');
  assert.deepEqual(showViewer(services, { recording: '/p/A.lsrec', source: source.toString(), declaration: 'a' }), { kind: 'recording', file: '/p/A.lsrec', source });
  assert.deepEqual(shown.at(-1)[1], { declaration: 'a' });
  // Nothing asked: the last capture, of a file, else of a session.
  services.history.sessionRecorded({ session: '/s/T' });
  assert.deepEqual(showViewer(services), { kind: 'session', file: '/s/T/session.json' });
  services.history.recorded({ recording: '/p/B.lsrec', source: vscode.Uri.file('/p/B.lean') });
  assert.deepEqual(showViewer(services), { kind: 'recording', file: '/p/B.lsrec', source: vscode.Uri.file('/p/B.lean') });
  // What the viewer shows comes before the last capture.
  viewer.current = { kind: 'session', file: '/s/U/session.json' };
  assert.equal(showViewer(services), viewer.current);
  assert.equal(shown.length, 5);
  // Cleared: nothing to show, and it says so.
  viewer.current = undefined;
  services.history.clear();
  assert.equal(showViewer(services), undefined);
});

test('Show Hot Spots: what Show Viewer shows, on the viewer\'s Hot spots tab; nothing asked of a viewer that shows nothing', () => {
  const { vscode } = createVscodeStub({});
  const { showHotSpots, HOT_SPOTS_VIEW } = extensionModule('commands/showHotSpots', vscode);
  const { CaptureHistory } = extensionModule('history', vscode);
  const shown = [];
  const posted = [];
  const viewer = { current: undefined, show: (target) => shown.push(target), post: (m) => posted.push(m) };
  const services = { viewer, annotations: { sourceOf: () => undefined }, history: new CaptureHistory() };
  assert.equal(showHotSpots(services), undefined);
  assert.deepEqual(posted, []);
  services.history.recorded({ recording: '/p/B.lsrec', source: vscode.Uri.file('/p/B.lean') });
  assert.deepEqual(showHotSpots(services), { kind: 'recording', file: '/p/B.lsrec', source: vscode.Uri.file('/p/B.lean') });
  assert.equal(shown.length, 1);
  assert.deepEqual(posted, [{ type: 'leanscope.show', view: 'hotspots' }]);
  assert.equal(HOT_SPOTS_VIEW, 'hotspots');
  // A session asked for.
  assert.deepEqual(showHotSpots(services, { session: '/s/S' }), { kind: 'session', file: '/s/S/session.json' });
  assert.equal(posted.length, 2);
});

test('a sidecar that exits before answering initialize gives its status and stderr', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-bad-'));
  const bad = path.join(dir, 'leanscope');
  fs.writeFileSync(bad, "#!/bin/sh\necho \"error: unrecognized subcommand 'serve'\" >&2\necho >&2\necho 'Usage: leanscope <COMMAND>' >&2\nexit 2\n", { mode: 0o755 });
  const lean = path.join(dir, 'A.lean');
  fs.writeFileSync(lean, 'theorem a : True := trivial\n');
  const x = activateExtension({ settings: { 'leanscope.sidecarPath': bad } });
  try {
    assert.equal(await x.test.commands.get('leanscope.profileFile')(x.vscode.Uri.file(lean)), undefined);
    assert.deepEqual(x.test.log.errors, [
      `leanscope: profiling A.lean failed: The leanscope sidecar ${bad} exited with status 2 before answering initialize: error: unrecognized subcommand 'serve' | Usage: leanscope <COMMAND>`,
    ]);
    assert.deepEqual(x.test.log.warnings, [], 'not reported as a death and restart');
  } finally { await x.dispose(); fs.rmSync(dir, { recursive: true, force: true }); }
});
