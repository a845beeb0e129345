#!/usr/bin/env node
// Checks VSIXs as scripts/package-extension writes them: each is read as a
// zip (no unzip needed), its target platform taken from
// extension.vsixmanifest, and the sidecar in it checked by its header:
// PE32+ x86-64 for win32-x64 and win32-arm64 (Windows 11 on ARM runs the x64
// binary emulated), Mach-O 64-bit arm64 / x86-64 for darwin-arm64 /
// darwin-x64, ELF 64-bit aarch64 / x86-64 for linux-arm64 / linux-x64, and
// no sidecar at all in the universal VSIX. Also the size budget.
//
//   node scripts/vsix-check.mjs out/*.vsix     one line per VSIX; exit 1 on a mismatch
//
// The functions are exported for tests/extension/vsix-check.test.mjs.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

/** The size budget of a VSIX (issue 6; scripts/package-extension). */
export const MAX_VSIX_BYTES = 15 * 1024 * 1024;
/** The largest entry inflated from a VSIX (a sidecar is well below it). */
export const MAX_ENTRY_BYTES = 64 * 1024 * 1024;
/** The most entries a VSIX's central directory may list. */
export const MAX_ENTRIES = 10_000;

/** What the sidecar of each target must be. `binary` is its path in the
 * VSIX; the universal VSIX has none. */
export const TARGETS = {
  'linux-x64': { binary: 'extension/bin/leanscope', format: 'ELF64', arch: 'x86-64' },
  'linux-arm64': { binary: 'extension/bin/leanscope', format: 'ELF64', arch: 'arm64' },
  'darwin-arm64': { binary: 'extension/bin/leanscope', format: 'Mach-O 64', arch: 'arm64' },
  'darwin-x64': { binary: 'extension/bin/leanscope', format: 'Mach-O 64', arch: 'x86-64' },
  'win32-x64': { binary: 'extension/bin/leanscope.exe', format: 'PE32+', arch: 'x86-64' },
  'win32-arm64': { binary: 'extension/bin/leanscope.exe', format: 'PE32+', arch: 'x86-64' },
  universal: { binary: null },
};

export class VsixError extends Error {}

const ELF_MACHINES = { 0x3e: 'x86-64', 0xb7: 'arm64', 0x03: 'x86', 0x28: 'arm' };
const PE_MACHINES = { 0x8664: 'x86-64', 0xaa64: 'arm64', 0x014c: 'x86', 0x01c4: 'arm' };
const MACHO_CPUS = { 0x01000007: 'x86-64', 0x0100000c: 'arm64', 0x7: 'x86', 0xc: 'arm' };

function need(buf, end, what) {
  if (buf.length < end) throw new VsixError(`${what}: the file ends after ${buf.length} bytes, before its header does (${end} bytes)`);
}

/** The format and architecture of an executable from its first bytes:
 * `{ format: 'ELF64' | 'ELF32' | 'PE32+' | 'PE32' | 'Mach-O 64' | 'Mach-O 32' | 'Mach-O universal', arch }`.
 * Throws a VsixError naming what is wrong for anything else. */
export function readExecutableHeader(buf, what = 'the file') {
  need(buf, 4, what);
  if (buf[0] === 0x7f && buf[1] === 0x45 && buf[2] === 0x4c && buf[3] === 0x46) {
    need(buf, 20, what);
    const cls = buf[4];
    if (cls !== 1 && cls !== 2) throw new VsixError(`${what}: ELF class ${cls} is neither 32- nor 64-bit`);
    if (buf[5] !== 1 && buf[5] !== 2) throw new VsixError(`${what}: ELF data encoding ${buf[5]} is neither little- nor big-endian`);
    const machine = buf[5] === 1 ? buf.readUInt16LE(18) : buf.readUInt16BE(18);
    return { format: cls === 2 ? 'ELF64' : 'ELF32', arch: ELF_MACHINES[machine] ?? `ELF machine 0x${machine.toString(16)}` };
  }
  if (buf[0] === 0x4d && buf[1] === 0x5a) {
    need(buf, 0x40, what);
    const pe = buf.readUInt32LE(0x3c);
    need(buf, pe + 26, what);
    if (buf.readUInt32LE(pe) !== 0x00004550) throw new VsixError(`${what}: an MZ header whose e_lfanew (0x${pe.toString(16)}) does not point at a PE signature`);
    const machine = buf.readUInt16LE(pe + 4);
    const optionalSize = buf.readUInt16LE(pe + 20);
    if (optionalSize < 2) throw new VsixError(`${what}: a PE file without an optional header (an object file, not an executable)`);
    const magic = buf.readUInt16LE(pe + 24);
    const format = magic === 0x20b ? 'PE32+' : magic === 0x10b ? 'PE32' : null;
    if (!format) throw new VsixError(`${what}: PE optional header magic 0x${magic.toString(16)} is neither PE32 nor PE32+`);
    return { format, arch: PE_MACHINES[machine] ?? `PE machine 0x${machine.toString(16)}` };
  }
  const be = buf.readUInt32BE(0);
  if (be === 0xcafebabe || be === 0xcafebabf) {
    need(buf, 8, what);
    return { format: 'Mach-O universal', arch: `${buf.readUInt32BE(4)} architectures` };
  }
  const le = buf.readUInt32LE(0);
  if (le === 0xfeedfacf || le === 0xfeedface) {
    need(buf, 8, what);
    const cpu = buf.readUInt32LE(4);
    return { format: le === 0xfeedfacf ? 'Mach-O 64' : 'Mach-O 32', arch: MACHO_CPUS[cpu] ?? `Mach-O cputype 0x${cpu.toString(16)}` };
  }
  if (buf[0] === 0x23 && buf[1] === 0x21) throw new VsixError(`${what}: a script (#!), not an executable`);
  throw new VsixError(`${what}: not an executable (first bytes ${buf.subarray(0, 4).toString('hex')}: neither ELF, PE nor Mach-O)`);
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** The CRC-32 zip uses (also for tests that write zips). */
export function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The entries of a zip held in `buf`: `{ name, mode, read() }` by name,
 * from its central directory (zip64 and encryption are refused: a VSIX
 * within budget needs neither). `mode` is the Unix mode when the zip keeps
 * one (0 otherwise); `read()` inflates the entry and checks its CRC. */
export function readZip(buf, what = 'the zip') {
  const minEnd = 22;
  if (buf.length < minEnd) throw new VsixError(`${what}: ${buf.length} bytes is too short for a zip`);
  let eocd = -1;
  for (let i = buf.length - minEnd; i >= Math.max(0, buf.length - minEnd - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new VsixError(`${what}: not a zip (no end of central directory record)`);
  const count = buf.readUInt16LE(eocd + 10);
  const cdSize = buf.readUInt32LE(eocd + 12);
  const cdStart = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdStart === 0xffffffff) throw new VsixError(`${what}: a zip64 archive, which no VSIX within budget needs`);
  if (count > MAX_ENTRIES) throw new VsixError(`${what}: ${count} entries, over the limit of ${MAX_ENTRIES}`);
  if (cdStart + cdSize > eocd) throw new VsixError(`${what}: the central directory (${cdStart}+${cdSize}) runs past its end record (${eocd})`);
  const entries = new Map();
  let p = cdStart;
  for (let k = 0; k < count; k++) {
    if (p + 46 > eocd || buf.readUInt32LE(p) !== 0x02014b50) throw new VsixError(`${what}: central directory entry ${k + 1} of ${count} is damaged`);
    const madeBy = buf.readUInt16LE(p + 4) >> 8;
    const flags = buf.readUInt16LE(p + 8);
    const method = buf.readUInt16LE(p + 10);
    const crc = buf.readUInt32LE(p + 16);
    const compressed = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const external = buf.readUInt32LE(p + 38);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    p += 46 + nameLen + extraLen + commentLen;
    const mode = madeBy === 3 ? (external >>> 16) & 0o7777 : 0;
    const read = () => {
      if (flags & 1) throw new VsixError(`${what}: ${name} is encrypted`);
      if (size > MAX_ENTRY_BYTES) throw new VsixError(`${what}: ${name} is ${size} bytes, over the limit of ${MAX_ENTRY_BYTES}`);
      if (local + 30 > buf.length || buf.readUInt32LE(local) !== 0x04034b50) throw new VsixError(`${what}: the local header of ${name} is damaged`);
      const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
      if (start + compressed > buf.length) throw new VsixError(`${what}: ${name}'s data runs past the end of the zip`);
      const raw = buf.subarray(start, start + compressed);
      let data;
      if (method === 0) data = raw;
      else if (method === 8) {
        try { data = zlib.inflateRawSync(raw, { maxOutputLength: MAX_ENTRY_BYTES }); } catch (e) { throw new VsixError(`${what}: ${name} does not inflate: ${e.message}`); }
      } else throw new VsixError(`${what}: ${name} uses compression method ${method} (only stored and deflated are read)`);
      if (data.length !== size) throw new VsixError(`${what}: ${name} is ${data.length} bytes, its directory says ${size}`);
      if (crc32(data) !== crc) throw new VsixError(`${what}: ${name} fails its CRC check`);
      return data;
    };
    entries.set(name, { name, mode, read });
  }
  return entries;
}

/** The target platform a VSIX declares (`TargetPlatform` in
 * extension.vsixmanifest), or `universal` when it declares none. */
export function vsixTarget(entries, what) {
  const manifest = entries.get('extension.vsixmanifest');
  if (!manifest) throw new VsixError(`${what}: no extension.vsixmanifest (not a VSIX)`);
  const m = manifest.read().toString('utf8').match(/TargetPlatform="([^"]*)"/);
  return m ? m[1] : 'universal';
}

/** Checks one VSIX (its bytes) and returns `{ target, binary, format, arch }`;
 * throws a VsixError naming the first mismatch. `expected`: the target its
 * file name says, checked against the manifest's. */
export function checkVsixBytes(buf, what, expected) {
  if (buf.length > MAX_VSIX_BYTES) throw new VsixError(`${what}: ${buf.length} bytes, over the budget of ${MAX_VSIX_BYTES}`);
  const entries = readZip(buf, what);
  const target = vsixTarget(entries, what);
  const want = TARGETS[target];
  if (!want) throw new VsixError(`${what}: target platform ${target} is none leanscope builds (${Object.keys(TARGETS).join(', ')})`);
  if (expected && expected !== target) throw new VsixError(`${what}: the name says ${expected}, the manifest says ${target}`);
  const sidecars = [...entries.keys()].filter((n) => n.startsWith('extension/bin/') && !n.endsWith('/'));
  if (!want.binary) {
    if (sidecars.length) throw new VsixError(`${what}: the universal VSIX must hold no sidecar, but has ${sidecars.join(', ')}`);
    return { target, binary: null };
  }
  const other = sidecars.filter((n) => n !== want.binary);
  if (other.length) throw new VsixError(`${what}: ${other.join(', ')} in bin/, where ${target} has only ${want.binary}`);
  const entry = entries.get(want.binary);
  if (!entry) throw new VsixError(`${what}: no ${want.binary}, the ${target} sidecar`);
  const head = readExecutableHeader(entry.read(), `${what}: ${want.binary}`);
  if (head.format !== want.format || head.arch !== want.arch) {
    throw new VsixError(`${what}: ${want.binary} is ${head.format} ${head.arch}; ${target} needs ${want.format} ${want.arch}`);
  }
  if (!target.startsWith('win32') && !(entry.mode & 0o111)) {
    throw new VsixError(`${what}: ${want.binary} is not executable in the zip (mode ${entry.mode.toString(8)})`);
  }
  return { target, binary: want.binary, ...head };
}

/** The target a VSIX's file name names (`leanscope-<target>-<version>.vsix`), if any. */
export function targetOfName(file) {
  const m = path.basename(file).match(/^leanscope-(.+)-\d+\.\d+\.\d+[^/]*\.vsix$/);
  return m && TARGETS[m[1]] ? m[1] : undefined;
}

export function checkVsix(file) {
  return checkVsixBytes(fs.readFileSync(file), file, targetOfName(file));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = process.argv.slice(2);
  if (!files.length) {
    console.error('usage: node scripts/vsix-check.mjs VSIX...');
    process.exit(2);
  }
  let failed = 0;
  for (const f of files) {
    try {
      const r = checkVsix(f);
      const size = fs.statSync(f).size;
      console.error(`vsix-check: ${f}: ${r.target}, ${r.binary ? `${r.binary} ${r.format} ${r.arch}` : 'no sidecar'}, ${size} bytes`);
    } catch (e) {
      if (!(e instanceof VsixError)) throw e;
      console.error(`vsix-check: ${e.message}`);
      failed++;
    }
  }
  process.exit(failed ? 1 : 0);
}
