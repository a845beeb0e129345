// Beside the official Lean 4 extension (`leanprover.lean4`): which `lake`
// a capture runs when that extension is installed.
//
// What the Lean extension does (vscode-lean4, read at release 0.0.239; see
// docs/vscode.md, "Beside the Lean 4 extension"): on activation it puts
// `~/.elan/bin` in front of its extension host's PATH unless PATH has it
// already (`vscode-lean4/src/extension.ts`, `addElanPathToPATH`), then the
// entries of its setting `lean4.envPathExtensions` in front of that
// (`vscode-lean4/src/utils/pathExtensionProvider.ts`, `vscode-lean4/src/config.ts`
// `envPathExtensions`), and starts `lake serve` by name from that PATH in
// the project folder (`vscode-lean4/src/leanclientsetup.ts`), where elan's
// proxy picks the toolchain the folder's `lean-toolchain` pins. Its exports
// (`vscode-lean4/src/exports.ts`: the client provider, project operations,
// the installer, its output channel) name no toolchain or `lake`, so
// leanscope follows the same rule instead of asking it.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { pathOf } from './paths';

/** The Lean 4 extension's id (its package.json: publisher `leanprover`,
 * name `lean4`). */
export const LEAN_EXTENSION_ID = 'leanprover.lean4';

/** Which `lake` a capture runs, and why: `lake` absent means the sidecar
 * looks for it itself (`PATH`, then elan's home), as without the Lean
 * extension. */
export interface LakeChoice { lake?: string; from: string }

/** What the choice depends on, read from VS Code and the process (a
 * parameter so that tests can give any). */
export interface LakeInputs {
  /** `leanscope.lakePath`, trimmed ('' when unset). */
  setting: string;
  /** Whether the Lean 4 extension is installed. */
  leanExtension: boolean;
  /** `lean4.envPathExtensions` as set. */
  envPathExtensions: unknown;
  /** The workspace folder relative entries are resolved against. */
  folder?: string;
  /** This process's PATH. */
  pathVar: string;
  home: string;
  platform: string;
  /** Whether `p` is a file this platform runs. */
  isExecutable(p: string): boolean;
}

/** Where the Lean extension's rule found `lake`: the first directory of
 * `lean4.envPathExtensions`, then `~/.elan/bin` (where PATH does not
 * already have it), then PATH, that holds an executable `lake` (`lake.exe`
 * on Windows). An explicit `leanscope.lakePath` wins; without the Lean
 * extension, or when its rule finds none, the sidecar's own search runs. */
export function chooseLake(i: LakeInputs): LakeChoice {
  if (i.setting) return { lake: i.setting, from: 'the setting leanscope.lakePath' };
  if (!i.leanExtension) return { from: "leanscope's own search (PATH, then elan)" };
  const p = pathOf(i.platform);
  const delimiter = i.platform === 'win32' ? ';' : ':';
  const name = i.platform === 'win32' ? 'lake.exe' : 'lake';
  const extensions = (Array.isArray(i.envPathExtensions) ? i.envPathExtensions : [])
    .filter((e): e is string => typeof e === 'string' && e.trim() !== '')
    .map((e) => (p.isAbsolute(e) || !i.folder ? e : p.resolve(i.folder, e)));
  const pathDirs = i.pathVar.split(delimiter).filter((d) => d !== '');
  const elanBin = p.join(i.home, '.elan', 'bin');
  const places: Array<[string, string]> = [
    ...extensions.map((d): [string, string] => [d, "the Lean 4 extension's lean4.envPathExtensions"]),
    ...(pathDirs.includes(elanBin) ? [] : [[elanBin, "elan's bin, as the Lean 4 extension adds it to PATH"] as [string, string]]),
    ...pathDirs.map((d): [string, string] => [d, 'PATH, as the Lean 4 extension searches it']),
  ];
  for (const [dir, why] of places) {
    const candidate = p.join(dir, name);
    if (i.isExecutable(candidate)) return { lake: candidate, from: why };
  }
  return { from: "leanscope's own search (PATH, then elan): the Lean 4 extension's PATH has no lake" };
}

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The `lake` for a capture of `near` (a file or folder; the first
 * workspace folder when absent), from the settings and the Lean extension. */
export function lakeFor(near?: vscode.Uri): LakeChoice {
  const folder = (near ? vscode.workspace.getWorkspaceFolder(near) : undefined) ?? vscode.workspace.workspaceFolders?.[0];
  const setting = (vscode.workspace.getConfiguration('leanscope', near).get<string>('lakePath', '') || '').trim();
  return chooseLake({
    setting,
    leanExtension: vscode.extensions?.getExtension(LEAN_EXTENSION_ID) !== undefined,
    envPathExtensions: vscode.workspace.getConfiguration('lean4', near).get<unknown>('envPathExtensions', []),
    folder: folder?.uri.fsPath,
    pathVar: process.env.PATH ?? '',
    home: os.homedir(),
    platform: process.platform,
    isExecutable,
  });
}

/** How the log and the status bar's tooltip say which `lake` ran. */
export function describeLake(c: LakeChoice): string {
  return c.lake ? `lake ${c.lake} (from ${c.from})` : `lake: ${c.from}`;
}
