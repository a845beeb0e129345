// The client of `leanscope serve`: spawns the sidecar, initializes it,
// sends requests over vscode-jsonrpc, restarts it once if it dies.
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CancellationToken, CancellationTokenSource, createMessageConnection, MessageConnection,
  ProgressType, ResponseError, StreamMessageReader, StreamMessageWriter,
} from 'vscode-jsonrpc/node';

/** Times the sidecar is restarted after dying on its own. */
export const MAX_RESTARTS = 1;

export interface WorkDoneProgress {
  kind: 'begin' | 'report' | 'end';
  title?: string; message?: string; percentage?: number; cancellable?: boolean;
}

export interface SidecarOptions {
  /** The binary: the `leanscope.sidecarPath` setting, else `bin/leanscope`
   * inside the extension. */
  binary: string;
  /** The binary bundled with the extension (`bundledSidecar`): when it is
   * the one used and is missing, this is the universal VSIX, and the error
   * says that capturing needs a platform build. */
  bundled?: string;
  log: (line: string) => void;
  /** Told when the sidecar died: `restarting` says whether it comes back. */
  onDied: (message: string, restarting: boolean) => void;
  env?: NodeJS.ProcessEnv;
}

/** An error answer of the sidecar, with its code and `data.kind`. */
export class SidecarError extends Error {
  constructor(message: string, readonly code: number, readonly kind: string | undefined) { super(message); }
}

/** Cuts a stream's text into whole lines: a line written in several pieces
 * (or two lines in one chunk) is given once, whole. */
export class LineSplitter {
  private partial = '';
  /** The complete lines of `chunk` (with what came before it). */
  push(chunk: string): string[] {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    return parts;
  }
  /** What is left without a line end (at the stream's end). */
  flush(): string[] {
    const rest = this.partial;
    this.partial = '';
    return rest ? [rest] : [];
  }
}

/** The platforms a VSIX with a sidecar is built for (VS Code's names;
 * scripts/package-extension). Anywhere else, the universal VSIX. */
export const PLATFORM_BUILDS = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64', 'win32-x64', 'win32-arm64'];

/** VS Code's name of a platform (`win32-x64`, `darwin-arm64`, …). */
export function platformName(platform: string = process.platform, arch: string = process.arch): string {
  return `${platform}-${arch}`;
}

/** The sidecar bundled with the extension: `bin/leanscope`, or
 * `bin\leanscope.exe` on Windows. */
export function bundledSidecar(extensionPath: string, platform: string = process.platform): string {
  return platform === 'win32' ? path.win32.join(extensionPath, 'bin', 'leanscope.exe') : path.posix.join(extensionPath, 'bin', 'leanscope');
}

/** The sidecar to run: the `leanscope.sidecarPath` setting (on Windows a
 * path without an extension is taken as the `.exe`, as Windows runs it),
 * else the bundled one. */
export function resolveSidecarBinary(setting: string | undefined, extensionPath: string, platform: string = process.platform): string {
  const set = setting?.trim();
  if (set) return platform === 'win32' && path.win32.extname(set) === '' ? `${set}.exe` : set;
  return bundledSidecar(extensionPath, platform);
}

/** What to say when the bundled sidecar is missing: the universal VSIX,
 * which opens recordings and sessions in the viewer but cannot capture. */
export function noBundledSidecarMessage(binary: string, platform: string = process.platform, arch: string = process.arch): string {
  const name = platformName(platform, arch);
  const get = PLATFORM_BUILDS.includes(name)
    ? `install the extension's ${name} build (VS Code's Marketplace picks it for this machine; a release has it as leanscope-${name}-<version>.vsix), or `
    : `leanscope has no build for ${name}: `;
  return `This leanscope extension has no leanscope binary (the universal build has none; looked for ${binary}). `
    + 'Opening recordings and sessions in the viewer works without it, but capturing (Profile File, Profile Folder, Profile Project, '
    + `profile on save, Compare Revisions) and editor annotations need a platform build of leanscope: ${get}`
    + 'build leanscope from its repository (cargo build --release -p leanscope) and set "leanscope.sidecarPath" to the binary '
    + '(in a remote window, in the Remote settings).';
}

export class Sidecar {
  private proc: cp.ChildProcess | undefined;
  private connection: MessageConnection | undefined;
  private starting: Promise<MessageConnection> | undefined;
  private restarts = 0;
  private disposed = false;
  private progressTokens = 0;
  /** What `initialize` answered (capabilities.experimental.leanscope). */
  methods: string[] = [];
  serverVersion = '';

  constructor(private readonly opts: SidecarOptions) {}

  get pid(): number | undefined { return this.proc?.pid; }

  /** Starts the sidecar if needed and returns the initialized connection. */
  connect(): Promise<MessageConnection> {
    if (this.connection) return Promise.resolve(this.connection);
    if (!this.starting) {
      this.starting = this.start().finally(() => { this.starting = undefined; });
    }
    return this.starting;
  }

  private async start(): Promise<MessageConnection> {
    const binary = this.opts.binary;
    if (!fs.existsSync(binary)) {
      if (binary === this.opts.bundled) throw new SidecarError(noBundledSidecarMessage(binary), -1, 'noSidecar');
      throw new SidecarError(`The leanscope sidecar was not found at ${binary}. Set "leanscope.sidecarPath" or reinstall the extension.`, -1, 'noSidecar');
    }
    this.opts.log(`starting ${binary} serve --stdio`);
    const proc = cp.spawn(binary, ['serve', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'], env: this.opts.env ?? process.env });
    this.proc = proc;
    const spawnError = new Promise<never>((_, reject) => proc.once('error', (e) => reject(
      new SidecarError(`Cannot start the leanscope sidecar ${binary}: ${e.message}`, -1, 'cannotStart'))));
    spawnError.catch(() => undefined);
    let stderrTail = '';
    const stderrLines = new LineSplitter();
    const logStderr = (lines: string[]) => { for (const line of lines) if (line.length) this.opts.log(`[sidecar] ${line}`); };
    proc.stderr!.setEncoding('utf8');
    proc.stderr!.on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-4000);
      logStderr(stderrLines.push(chunk));
    });
    proc.stderr!.on('end', () => logStderr(stderrLines.flush()));
    // A dead sidecar must not crash the extension host with EPIPE.
    proc.stdin!.on('error', (e) => this.opts.log(`sidecar stdin: ${e.message}`));
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    conn.onError(([e]) => this.opts.log(`sidecar connection: ${e.message}`));
    conn.listen();
    let initialized = false;
    const exited = new Promise<never>((_, reject) => proc.once('exit', (code, signal) => {
      const how = signal ? `was killed by ${signal}` : `exited with status ${code}`;
      const tail = stderrTail.split(/\r?\n/).filter((l) => l.trim()).slice(-4).join(' | ');
      reject(new SidecarError(`The leanscope sidecar ${binary} ${how} before answering initialize${tail ? `: ${tail}` : ''}`, -1, 'cannotStart'));
    }));
    exited.catch(() => undefined);
    proc.once('exit', (code, signal) => {
      if (this.proc !== proc) return;
      this.proc = undefined;
      this.connection = undefined;
      conn.dispose();
      // A sidecar that never answered initialize is reported by the request
      // that started it (see below), not as a death.
      if (this.disposed || !initialized) return;
      const how = signal ? `was killed by ${signal}` : `exited with status ${code}`;
      const tail = stderrTail.trim().split('\n').slice(-3).join(' | ');
      const restarting = this.restarts < MAX_RESTARTS;
      const message = `The leanscope sidecar ${how}${tail ? ` (last output: ${tail})` : ''}. `
        + (restarting ? 'It is restarted for the next request.' : 'It will not be restarted again; reload the window to try again. See the "leanscope" output.');
      this.opts.log(message);
      if (restarting) this.restarts++;
      else this.broken = message;
      this.opts.onDied(message, restarting);
    });
    const init = conn.sendRequest('initialize', {
      processId: process.pid,
      clientInfo: { name: 'leanscope-vscode' },
      rootUri: null,
      capabilities: { window: { workDoneProgress: false } },
    }) as Promise<{ capabilities?: { experimental?: { leanscope?: { methods?: string[] } } }; serverInfo?: { version?: string } }>;
    init.catch(() => undefined);
    let result;
    try {
      result = await Promise.race([init, spawnError, exited]);
    } catch (e) {
      // A write to a sidecar that is going away fails first (EPIPE); its exit
      // status and stderr say why, so wait a moment for them.
      const why = await Promise.race([exited.then(() => e, (x) => x), new Promise((r) => setTimeout(() => r(e), 1000))]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      conn.dispose();
      const err = why instanceof SidecarError ? why
        : new SidecarError(`The leanscope sidecar ${binary} did not answer initialize: ${(why as Error).message}`, -1, 'cannotStart');
      this.opts.log(err.message);
      throw err;
    }
    initialized = true;
    conn.sendNotification('initialized', {}).catch((e: Error) => this.opts.log(`initialized: ${e.message}`));
    this.methods = result.capabilities?.experimental?.leanscope?.methods ?? [];
    this.serverVersion = result.serverInfo?.version ?? '';
    this.opts.log(`sidecar ${this.serverVersion} ready (pid ${proc.pid}); methods: ${this.methods.join(', ')}`);
    this.connection = conn;
    return conn;
  }

  private broken: string | undefined;

  /** Sends a request; a `$/cancelRequest` follows when `token` is cancelled.
   * `onProgress` receives the work-done progress of the request. */
  async request<R>(method: string, params: Record<string, unknown>, token?: CancellationToken,
    onProgress?: (p: WorkDoneProgress) => void): Promise<R> {
    if (this.broken) throw new SidecarError(this.broken, -1, 'sidecarDied');
    const conn = await this.connect();
    let sub: { dispose(): void } | undefined;
    const sent = { ...params };
    if (onProgress) {
      const progressToken = `leanscope-vscode/${++this.progressTokens}`;
      sent.workDoneToken = progressToken;
      sub = conn.onProgress(new ProgressType<WorkDoneProgress>(), progressToken, onProgress);
    }
    try {
      return await conn.sendRequest<R>(method, sent, token ?? new CancellationTokenSource().token);
    } catch (e) {
      if (e instanceof ResponseError) {
        const kind = e.data && typeof e.data === 'object' ? (e.data as { kind?: string }).kind : undefined;
        throw new SidecarError(e.message, e.code, kind);
      }
      throw e;
    } finally {
      // `end` may arrive just after the response; keep listening briefly.
      if (sub) setTimeout(() => sub!.dispose(), 500);
    }
  }

  get binary(): string { return this.opts.binary; }

  /** Uses another binary from the next request on (the
   * `leanscope.sidecarPath` setting changed): the running sidecar is shut
   * down, and the restart count starts again. */
  async useBinary(binary: string): Promise<void> {
    if (binary === this.opts.binary) return;
    this.opts.log(`sidecar binary changed: ${this.opts.binary} → ${binary}`);
    this.opts.binary = binary;
    this.restarts = 0;
    this.broken = undefined;
    const proc = this.proc;
    const conn = this.connection;
    this.proc = undefined;
    this.connection = undefined;
    await Sidecar.stop(proc, conn);
  }

  /** `shutdown` then `exit`; kills the process if it does not go. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Sidecar.stop(this.proc, this.connection);
  }

  private static async stop(proc: cp.ChildProcess | undefined, conn: MessageConnection | undefined): Promise<void> {
    if (!proc) return;
    try {
      if (conn) {
        await Promise.race([conn.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 2000))]);
        await conn.sendNotification('exit').catch(() => undefined);
      }
    } catch { /* it may be gone already */ }
    await new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      const t = setTimeout(() => { proc.kill('SIGKILL'); resolve(); }, 3000);
      proc.once('exit', () => { clearTimeout(t); resolve(); });
    });
    conn?.dispose();
  }
}
