// scripts/vsix-check.mjs, the check scripts/package-extension runs on each
// VSIX it writes: its header reader on the real binaries this checkout has
// (the host's leanscope and fake-lean, and any cross-built ones under
// target/<triple>/), on wrong inputs, and on VSIXs written here (right and
// wrong ones); and, when LEANSCOPE_VSIX names a packaged VSIX, on that.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import {
  checkVsix, checkVsixBytes, crc32, readExecutableHeader, readZip, targetOfName, TARGETS, VsixError,
} from '../../scripts/vsix-check.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The first 4 KiB of a file (enough for every header read here). */
function head(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(4096);
    return buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0));
  } finally { fs.closeSync(fd); }
}

const HOST = { x64: 'x86-64', arm64: 'arm64' }[process.arch];

/** Built binaries of this checkout: [file, format, arch] for each found. */
function builtBinaries() {
  const found = [];
  const target = path.join(REPO, 'target');
  for (const profile of ['debug', 'release']) {
    for (const name of ['leanscope', 'fake-lean']) {
      const f = path.join(target, profile, name);
      if (fs.existsSync(f)) found.push([f, process.platform === 'darwin' ? 'Mach-O 64' : 'ELF64', HOST]);
    }
  }
  const cross = [
    ['x86_64-unknown-linux-gnu', '', 'ELF64', 'x86-64'],
    ['aarch64-unknown-linux-gnu', '', 'ELF64', 'arm64'],
    ['x86_64-pc-windows-gnu', '.exe', 'PE32+', 'x86-64'],
    ['aarch64-apple-darwin', '', 'Mach-O 64', 'arm64'],
    ['x86_64-apple-darwin', '', 'Mach-O 64', 'x86-64'],
  ];
  for (const [triple, ext, format, arch] of cross) {
    for (const profile of ['debug', 'release']) {
      for (const name of ['leanscope', 'fake-lean']) {
        const f = path.join(target, triple, profile, name + ext);
        if (fs.existsSync(f)) found.push([f, format, arch]);
      }
    }
  }
  return found;
}

test('the header reader names the format and architecture of the binaries built here', () => {
  const found = builtBinaries();
  // CI builds the host's leanscope and fake-lean before the extension tests.
  assert.ok(found.some(([f]) => !f.includes(`${path.sep}target${path.sep}x86_64-`) && !f.includes(`${path.sep}target${path.sep}aarch64-`)),
    'no host build of leanscope or fake-lean under target/ (cargo build -p leanscope -p fake-toolchain)');
  for (const [file, format, arch] of found) {
    assert.deepEqual(readExecutableHeader(head(file), file), { format, arch }, file);
  }
});

/** A minimal PE32+ header: MZ, e_lfanew, PE signature, machine, optional header magic. */
function pe({ machine = 0x8664, magic = 0x20b, lfanew = 0x80 } = {}) {
  const b = Buffer.alloc(0x200);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(lfanew, 0x3c);
  b.writeUInt32LE(0x00004550, lfanew);
  b.writeUInt16LE(machine, lfanew + 4);
  b.writeUInt16LE(0xf0, lfanew + 20);
  b.writeUInt16LE(magic, lfanew + 24);
  return b;
}
function elf({ cls = 2, machine = 0x3e } = {}) {
  const b = Buffer.alloc(64);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, cls, 1, 1]).copy(b);
  b.writeUInt16LE(2, 16);
  b.writeUInt16LE(machine, 18);
  return b;
}
function macho({ cpu = 0x0100000c, magic = 0xfeedfacf } = {}) {
  const b = Buffer.alloc(32);
  b.writeUInt32LE(magic, 0);
  b.writeUInt32LE(cpu, 4);
  return b;
}

test('the header reader tells each format and architecture apart', () => {
  assert.deepEqual(readExecutableHeader(pe()), { format: 'PE32+', arch: 'x86-64' });
  assert.deepEqual(readExecutableHeader(pe({ machine: 0xaa64 })), { format: 'PE32+', arch: 'arm64' });
  assert.deepEqual(readExecutableHeader(pe({ machine: 0x14c, magic: 0x10b })), { format: 'PE32', arch: 'x86' });
  assert.deepEqual(readExecutableHeader(elf({ machine: 0xb7 })), { format: 'ELF64', arch: 'arm64' });
  assert.deepEqual(readExecutableHeader(elf({ cls: 1, machine: 0x28 })), { format: 'ELF32', arch: 'arm' });
  assert.deepEqual(readExecutableHeader(macho({ cpu: 0x01000007 })), { format: 'Mach-O 64', arch: 'x86-64' });
  assert.deepEqual(readExecutableHeader(macho()), { format: 'Mach-O 64', arch: 'arm64' });
  assert.equal(readExecutableHeader(Buffer.from('cafebabe00000002', 'hex')).format, 'Mach-O universal');
  assert.equal(readExecutableHeader(elf({ machine: 0xf3 })).arch, 'ELF machine 0xf3');
});

test('the header reader refuses what is not an executable, naming why', () => {
  const cases = [
    [Buffer.alloc(0), /ends after 0 bytes/],
    [Buffer.from('#!/bin/sh\nexec leanscope "$@"\n'), /a script/],
    [Buffer.from('PK\x03\x04 not a binary'), /not an executable \(first bytes 504b0304/],
    [elf().subarray(0, 10), /ends after 10 bytes/],
    [elf({ cls: 7 }), /ELF class 7/],
    [pe().subarray(0, 0x50), /ends after 80 bytes/],
    [pe({ lfanew: 0x40 }).fill(0, 0x40, 0x44), /does not point at a PE signature/],
    [pe({ magic: 0x107 }), /magic 0x107/],
  ];
  for (const [buf, why] of cases) {
    assert.throws(() => readExecutableHeader(buf, 'input'), (e) => e instanceof VsixError && why.test(e.message), String(why));
  }
});

/** A zip of `files` ([name, bytes, mode?]): stored or deflated, Unix modes. */
function zip(files, { deflate = true } = {}) {
  const locals = [];
  const central = [];
  let offset = 0;
  for (const [name, data, mode = 0o644] of files) {
    const n = Buffer.from(name);
    const body = deflate ? zlib.deflateRawSync(data) : data;
    const l = Buffer.alloc(30);
    l.writeUInt32LE(0x04034b50, 0);
    l.writeUInt16LE(20, 4);
    l.writeUInt16LE(deflate ? 8 : 0, 8);
    l.writeUInt32LE(crc32(data), 14);
    l.writeUInt32LE(body.length, 18);
    l.writeUInt32LE(data.length, 22);
    l.writeUInt16LE(n.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE((3 << 8) | 20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(deflate ? 8 : 0, 10);
    c.writeUInt32LE(crc32(data), 16);
    c.writeUInt32LE(body.length, 20);
    c.writeUInt32LE(data.length, 24);
    c.writeUInt16LE(n.length, 28);
    c.writeUInt32LE(((0o100000 | mode) << 16) >>> 0, 38);
    c.writeUInt32LE(offset, 42);
    locals.push(l, n, body);
    central.push(c, n);
    offset += l.length + n.length + body.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

const manifest = (target) => Buffer.from(`<?xml version="1.0"?><PackageManifest><Metadata><Identity Id="leanscope" Version="0.1.0" Publisher="leanscope"${target ? ` TargetPlatform="${target}"` : ''}/></Metadata></PackageManifest>`);
const common = [['extension/package.json', Buffer.from('{"name":"leanscope"}')], ['extension/dist/extension.js', Buffer.from('module.exports={}')]];
const vsix = (target, bins, opts) => zip([['extension.vsixmanifest', manifest(target)], ...common, ...bins], opts);

test('a VSIX is checked against its target: the right binary passes', () => {
  const ok = [
    ['linux-x64', [['extension/bin/leanscope', elf(), 0o755]]],
    ['linux-arm64', [['extension/bin/leanscope', elf({ machine: 0xb7 }), 0o755]]],
    ['darwin-arm64', [['extension/bin/leanscope', macho(), 0o755]]],
    ['darwin-x64', [['extension/bin/leanscope', macho({ cpu: 0x01000007 }), 0o755]]],
    ['win32-x64', [['extension/bin/leanscope.exe', pe()]]],
    ['win32-arm64', [['extension/bin/leanscope.exe', pe()]]],
    [undefined, []],
  ];
  for (const [target, bins] of ok) {
    for (const deflate of [true, false]) {
      const r = checkVsixBytes(vsix(target, bins, { deflate }), `${target}.vsix`, target ?? 'universal');
      assert.equal(r.target, target ?? 'universal');
    }
  }
  assert.deepEqual(Object.keys(TARGETS).sort(), ['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'universal', 'win32-arm64', 'win32-x64']);
});

test('a VSIX is checked against its target: each wrong one fails, naming the mismatch', () => {
  const bad = [
    ['win32-x64', [['extension/bin/leanscope.exe', elf()]], /is ELF64 x86-64; win32-x64 needs PE32\+ x86-64/],
    ['win32-arm64', [['extension/bin/leanscope.exe', pe({ machine: 0xaa64 })]], /is PE32\+ arm64; win32-arm64 needs PE32\+ x86-64/],
    ['win32-x64', [['extension/bin/leanscope', pe(), 0o755]], /extension\/bin\/leanscope in bin\//],
    ['linux-arm64', [['extension/bin/leanscope', elf(), 0o755]], /is ELF64 x86-64; linux-arm64 needs ELF64 arm64/],
    ['linux-x64', [['extension/bin/leanscope', elf(), 0o644]], /not executable in the zip/],
    ['linux-x64', [], /no extension\/bin\/leanscope, the linux-x64 sidecar/],
    ['darwin-x64', [['extension/bin/leanscope', macho(), 0o755]], /is Mach-O 64 arm64; darwin-x64 needs Mach-O 64 x86-64/],
    ['darwin-arm64', [['extension/bin/leanscope', Buffer.from('cafebabe000000020000', 'hex'), 0o755]], /is Mach-O universal/],
    ['darwin-arm64', [['extension/bin/leanscope', Buffer.from('#!/bin/sh\n'), 0o755]], /a script/],
    [undefined, [['extension/bin/leanscope', elf(), 0o755]], /universal VSIX must hold no sidecar/],
    ['web', [], /target platform web is none leanscope builds/],
  ];
  for (const [target, bins, why] of bad) {
    assert.throws(() => checkVsixBytes(vsix(target, bins), 'x.vsix'), (e) => e instanceof VsixError && why.test(e.message), String(why));
  }
  assert.throws(() => checkVsixBytes(vsix('linux-x64', [['extension/bin/leanscope', elf(), 0o755]]), 'x.vsix', 'win32-x64'),
    /the name says win32-x64, the manifest says linux-x64/);
});

test('damaged zips are refused with a named error', () => {
  const good = vsix('linux-x64', [['extension/bin/leanscope', elf(), 0o755]]);
  assert.throws(() => readZip(Buffer.from('not a zip at all, just some text'), 'z'), /no end of central directory/);
  assert.throws(() => readZip(Buffer.alloc(5), 'z'), /too short for a zip/);
  const flipped = Buffer.from(good);
  // Corrupt a byte of the first entry's data (after its 30-byte local header and name).
  flipped[30 + 'extension.vsixmanifest'.length + 2] ^= 0xff;
  assert.throws(() => checkVsixBytes(flipped, 'z'), (e) => e instanceof VsixError && /does not inflate|fails its CRC|bytes, its directory says/.test(e.message));
  assert.throws(() => checkVsixBytes(zip(common), 'z'), /no extension.vsixmanifest/);
});

test('file names name their target', () => {
  assert.equal(targetOfName('out/leanscope-win32-arm64-0.1.0.vsix'), 'win32-arm64');
  assert.equal(targetOfName('/x/leanscope-universal-0.1.0.vsix'), 'universal');
  assert.equal(targetOfName('leanscope-0.1.0.vsix'), undefined);
});

const VSIX = process.env.LEANSCOPE_VSIX;
test('the packaged VSIX passes the check', { skip: VSIX ? false : 'LEANSCOPE_VSIX is not set (run npm run package, or scripts/test)' }, () => {
  const r = checkVsix(VSIX);
  assert.ok(targetOfName(VSIX), `${VSIX} does not name its target`);
  assert.equal(r.target, targetOfName(VSIX));
});

test('every VSIX in out/ passes the check (after scripts/package-extension --all)', () => {
  const out = path.join(REPO, 'out');
  const files = fs.existsSync(out) ? fs.readdirSync(out).filter((f) => f.endsWith('.vsix')) : [];
  for (const f of files) checkVsix(path.join(out, f));
});
