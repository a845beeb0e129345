// The extension on each platform, tested here in Node with Windows-style
// inputs: paths and `file:` URIs (drive letters in either case, `%3A`,
// backslashes, UNC), paths a recording made on another OS names mapped to
// this machine's files, the Windows sidecar (`leanscope.exe`), the manifest's
// extensionKind for remote windows, and the universal VSIX (no sidecar):
// the viewer still opens recordings, and capturing says it needs a
// platform build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  BUNDLE, createVscodeStub, disposeContext, EXTENSION, extensionModule, loadWithStub, makeContext, packagedSidecar,
} from './helpers.mjs';

const { vscode } = createVscodeStub();
const paths = extensionModule('paths', vscode);
const sidecar = extensionModule('sidecar', vscode);

test('Windows paths: drive letters in either case, / or \\, compare as VS Code\'s fsPath does', () => {
  const { normalizeFsPath, samePath, isInside } = paths;
  assert.equal(normalizeFsPath('C:\\Users\\Me\\demo\\Demo\\Clean.lean', 'win32'), 'c:\\Users\\Me\\demo\\Demo\\Clean.lean');
  assert.equal(normalizeFsPath('C:/Users/Me/demo/./Demo/../Demo/Clean.lean', 'win32'), 'c:\\Users\\Me\\demo\\Demo\\Clean.lean');
  assert.equal(normalizeFsPath('/home/me/demo//Demo/Clean.lean', 'linux'), '/home/me/demo/Demo/Clean.lean');
  assert.ok(samePath('C:\\Users\\Me\\Demo\\A.lean', 'c:/users/me/demo/a.lean', 'win32'));
  assert.ok(!samePath('C:\\Users\\Me\\Demo\\A.lean', 'D:\\Users\\Me\\Demo\\A.lean', 'win32'));
  assert.ok(!samePath('/home/me/Demo/A.lean', '/home/me/demo/A.lean', 'linux'), 'Linux file names are case-sensitive');
  assert.ok(isInside('c:\\work\\Demo\\A.lean', 'C:\\Work', 'win32'));
  assert.ok(isInside('C:/work/Demo/A.lean', 'c:\\work\\', 'win32'));
  assert.ok(!isInside('C:\\work2\\A.lean', 'C:\\work', 'win32'), 'a sibling whose name starts the same');
  assert.ok(!isInside('D:\\work\\A.lean', 'C:\\work', 'win32'), 'another drive');
  assert.ok(!isInside('C:\\work', 'C:\\work', 'win32'), 'the folder itself');
  assert.ok(isInside('/home/me/demo/A.lean', '/home/me/demo', 'linux'));
  assert.ok(!isInside('/home/me/demo2/A.lean', '/home/me/demo', 'linux'));
});

test('file: URIs to paths, as VS Code\'s Uri.fsPath gives them on Windows and elsewhere', () => {
  const { fsPathOfFileUri } = paths;
  assert.equal(fsPathOfFileUri('file:///c%3A/Users/me/demo/Demo/Clean.lean', 'win32'), 'c:\\Users\\me\\demo\\Demo\\Clean.lean');
  assert.equal(fsPathOfFileUri('file:///C:/Users/me/My%20Proofs/A.lean', 'win32'), 'c:\\Users\\me\\My Proofs\\A.lean');
  assert.equal(fsPathOfFileUri('file:///c%3A/Users/me/Caf%C3%A9.lean', 'win32'), 'c:\\Users\\me\\Café.lean');
  assert.equal(fsPathOfFileUri('file://server/share/demo/A.lean', 'win32'), '\\\\server\\share\\demo\\A.lean');
  assert.equal(fsPathOfFileUri('file:///home/me/demo/A.lean', 'linux'), '/home/me/demo/A.lean');
  assert.equal(fsPathOfFileUri('file:///Users/me/My%20Proofs/A.lean', 'darwin'), '/Users/me/My Proofs/A.lean');
  assert.throws(() => fsPathOfFileUri('vscode-remote://ssh-remote+box/home/me/A.lean', 'linux'), /not a file: URI/);
  // The same file named by the URI and by a path compares equal.
  assert.ok(paths.samePath(fsPathOfFileUri('file:///c%3A/Work/Demo/A.lean', 'win32'), 'C:\\work\\demo\\a.lean', 'win32'));
});

test('project-relative paths (/ or \\) resolve inside the project, and nothing climbs out', () => {
  const { resolveInside } = paths;
  assert.equal(resolveInside('C:\\Work\\demo', 'Demo/Clean.lean', 'win32'), 'c:\\Work\\demo\\Demo\\Clean.lean');
  assert.equal(resolveInside('C:\\Work\\demo', 'Demo\\Clean.lean', 'win32'), 'c:\\Work\\demo\\Demo\\Clean.lean');
  assert.equal(resolveInside('/home/me/demo', 'Demo\\Clean.lean', 'linux'), '/home/me/demo/Demo/Clean.lean');
  assert.equal(resolveInside('/home/me/demo', './Demo/Clean.lean', 'linux'), '/home/me/demo/Demo/Clean.lean');
  for (const bad of ['../secret.lean', 'Demo/../../x.lean', 'Demo\\..\\..\\x.lean', 'C:\\Windows\\win.ini', 'C:/x', 'c:x.lean', '/etc/passwd', '\\\\server\\share\\x', '']) {
    assert.equal(resolveInside('C:\\Work\\demo', bad, 'win32'), undefined, bad);
    assert.equal(resolveInside('/home/me/demo', bad, 'linux'), undefined, bad);
  }
});

test('a source path from another OS is looked for by its tail under the project', () => {
  const { sourceCandidates } = paths;
  // A recording made on Windows, opened on Linux.
  const onLinux = sourceCandidates('C:\\Users\\me\\demo\\Demo\\Clean.lean', ['/home/u/demo'], 'linux');
  assert.equal(onLinux[0], '/home/u/demo/Users/me/demo/Demo/Clean.lean', 'the longest tail first');
  assert.ok(onLinux.indexOf('/home/u/demo/Demo/Clean.lean') < onLinux.indexOf('/home/u/demo/Clean.lean'));
  assert.ok(!onLinux.some((c) => c.includes('C:') || c.includes('\\')), onLinux.join('\n'));
  // A recording made on Linux, opened on Windows; and a portable one (relative, /).
  const onWindows = sourceCandidates('/home/me/demo/Demo/Clean.lean', ['C:\\Work\\demo'], 'win32');
  assert.ok(onWindows.includes('c:\\Work\\demo\\Demo\\Clean.lean'), onWindows.join('\n'));
  assert.deepEqual(sourceCandidates('Demo/Clean.lean', ['C:\\Work\\demo', 'd:\\other'], 'win32'),
    ['c:\\Work\\demo\\Demo\\Clean.lean', 'd:\\other\\Demo\\Clean.lean']);
  // A path absolute here is tried as it is first; one from this drive in another case is the same file.
  const here = sourceCandidates('C:\\Work\\demo\\Demo\\Clean.lean', ['c:\\work\\demo'], 'win32');
  assert.equal(here[0], 'c:\\Work\\demo\\Demo\\Clean.lean');
  assert.equal(new Set(here.map((c) => c.toLowerCase())).size, here.length, 'no path twice');
  assert.deepEqual(sourceCandidates('../outside.lean', ['/home/u/demo'], 'linux'), []);
});

test('findSource: a Windows-made recording\'s source is found in this checkout of the project', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-platforms-'));
  try {
    const project = path.join(dir, 'demo');
    fs.mkdirSync(path.join(project, 'Demo'), { recursive: true });
    fs.mkdirSync(path.join(project, '.leanscope', 'recordings'), { recursive: true });
    fs.writeFileSync(path.join(project, 'Demo', 'Clean.lean'), 'theorem t : True := trivial\n');
    fs.writeFileSync(path.join(project, 'Clean.lean'), '-- another file of the same name\n');
    const stub = createVscodeStub({ workspaceFolders: [] });
    const { findSource } = extensionModule('sources', stub.vscode);
    const rec = path.join(project, '.leanscope', 'recordings', 'Clean-1.lsrec');
    assert.equal(findSource(rec, 'C:\\Users\\me\\demo\\Demo\\Clean.lean')?.fsPath, path.join(project, 'Demo', 'Clean.lean'));
    assert.equal(findSource(rec, 'Demo/Clean.lean')?.fsPath, path.join(project, 'Demo', 'Clean.lean'));
    assert.equal(findSource(rec, 'Demo\\Clean.lean')?.fsPath, path.join(project, 'Demo', 'Clean.lean'));
    assert.equal(findSource(rec, 'C:\\Users\\me\\demo\\Demo\\Missing.lean'), undefined);
    assert.equal(findSource(rec, '../../etc/passwd'), undefined);
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});

test('the sidecar on Windows is bin\\leanscope.exe; a setting without .exe means the .exe', () => {
  const { resolveSidecarBinary, bundledSidecar } = sidecar;
  const ext = 'C:\\Users\\me\\.vscode\\extensions\\leanscope.leanscope-0.1.0-win32-x64';
  assert.equal(bundledSidecar(ext, 'win32'), `${ext}\\bin\\leanscope.exe`);
  assert.equal(resolveSidecarBinary('', ext, 'win32'), `${ext}\\bin\\leanscope.exe`);
  assert.equal(resolveSidecarBinary(' C:\\tools\\leanscope ', ext, 'win32'), 'C:\\tools\\leanscope.exe');
  assert.equal(resolveSidecarBinary('C:\\tools\\leanscope.exe', ext, 'win32'), 'C:\\tools\\leanscope.exe');
  assert.equal(resolveSidecarBinary('', '/home/me/.vscode/extensions/leanscope', 'linux'), '/home/me/.vscode/extensions/leanscope/bin/leanscope');
  assert.equal(resolveSidecarBinary('/opt/leanscope', '/ext', 'darwin'), '/opt/leanscope');
});

test('the manifest: the extension runs on the workspace side of a remote window', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(EXTENSION, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.extensionKind, ['workspace']);
});

test('without a bundled sidecar, the message says capturing needs a platform build, and how to get one', () => {
  const { noBundledSidecarMessage, PLATFORM_BUILDS } = sidecar;
  const m = noBundledSidecarMessage('C:\\ext\\bin\\leanscope.exe', 'win32', 'arm64');
  assert.match(m, /^This leanscope extension has no leanscope binary \(the universal build has none; looked for C:\\ext\\bin\\leanscope\.exe\)\./);
  assert.match(m, /capturing \(Profile File, Profile Folder, Profile Project, profile on save, Compare Revisions\) and editor annotations need a platform build of leanscope/);
  assert.match(m, /install the extension's win32-arm64 build/);
  assert.match(m, /set "leanscope\.sidecarPath" to the binary/);
  assert.match(noBundledSidecarMessage('/ext/bin/leanscope', 'freebsd', 'x64'), /leanscope has no build for freebsd-x64: build leanscope from its repository/);
  assert.deepEqual([...PLATFORM_BUILDS].sort(), ['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'win32-arm64', 'win32-x64']);
});

test('the universal VSIX: the viewer opens a recording, and Profile File says capturing needs a platform build', async () => {
  if (!fs.existsSync(BUNDLE)) throw new Error(`no ${BUNDLE}: run scripts/build-extension first`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leanscope-universal-'));
  // The extension as the universal VSIX installs it: no bin/.
  const ext = path.join(dir, 'ext');
  fs.mkdirSync(ext);
  for (const f of ['package.json', 'dist', 'media']) fs.cpSync(path.join(EXTENSION, f), path.join(ext, f), { recursive: true });
  const project = path.join(dir, 'demo');
  fs.cpSync(path.join(EXTENSION, '..', 'fixtures/projects/demo'), project, { recursive: true });
  const rec = path.join(dir, 'synth.lsrec');
  const made = spawnSync(packagedSidecar(), ['synth', '--events', '200', '-o', rec], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const { vscode: api, test: t } = createVscodeStub({ workspaceFolders: [project] });
  const extension = loadWithStub(BUNDLE, api);
  const context = makeContext(api, ext);
  const activated = extension.activate(context);
  try {
    const opened = await t.commands.get('leanscope.openRecording')(api.Uri.file(rec));
    assert.deepEqual(opened, { kind: 'recording', file: rec });
    assert.equal(t.panels.length, 1, 'the viewer is shown');
    assert.deepEqual(t.log.errors, []);
    assert.match(t.log.infos.at(-1), /synth\.lsrec is shown in the viewer; editor annotations need a platform build of leanscope/);
    const lean = path.join(project, 'Demo', 'Clean.lean');
    await t.commands.get('leanscope.profileFile')(api.Uri.file(lean));
    assert.match(t.log.errors.at(-1), /^leanscope: profiling Clean\.lean failed: This leanscope extension has no leanscope binary \(the universal build has none; looked for .*bin\/leanscope\)\. .*capturing .* need a platform build of leanscope: install the extension's linux-x64 build|leanscope has no build for/);
    assert.equal(activated.sidecar.pid, undefined, 'no sidecar started');
  } finally {
    await extension.deactivate();
    await disposeContext(context);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
