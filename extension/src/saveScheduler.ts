// When on-save captures run: a save waits out a debounce, a newer save of
// the same file cancels its running capture (and waits for it to stop), at
// most one capture runs per file and at most `maxConcurrent` in all; the
// rest wait in the order they were saved.
import { CancellationToken, CancellationTokenSource } from 'vscode-jsonrpc/node';

export interface SchedulerOptions {
  delayMs: number;
  maxConcurrent: number;
}

/** What runs and waits, for the status bar. */
export interface SchedulerState { running: string[]; waiting: string[] }

export class SaveScheduler {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly running = new Map<string, CancellationTokenSource>();
  private readonly queue: string[] = [];
  private disposed = false;

  /** `run(key, token)` captures `key`; `changed` is told each time what runs
   * and waits changes. */
  constructor(private readonly run: (key: string, token: CancellationToken) => Promise<void>,
    private readonly options: () => SchedulerOptions,
    private readonly changed: (state: SchedulerState) => void = () => undefined) {}

  /** `key` was saved: its running capture is cancelled now, and a new one
   * starts after the debounce (restarted by every save). */
  saved(key: string): void {
    if (this.disposed) return;
    const running = this.running.get(key);
    if (running && !running.token.isCancellationRequested) running.cancel();
    const i = this.queue.indexOf(key);
    if (i >= 0) this.queue.splice(i, 1);
    const timer = this.timers.get(key);
    if (timer) clearTimeout(timer);
    this.timers.set(key, setTimeout(() => {
      this.timers.delete(key);
      this.queue.push(key);
      this.pump();
    }, this.options().delayMs));
    this.report();
  }

  state(): SchedulerState {
    return { running: [...this.running.keys()], waiting: [...new Set([...this.queue, ...this.timers.keys()])] };
  }

  private pump(): void {
    const max = Math.max(1, this.options().maxConcurrent);
    for (let i = 0; i < this.queue.length && this.running.size < max;) {
      const key = this.queue[i];
      // One per file: a cancelled capture of it is still stopping.
      if (this.running.has(key)) { i++; continue; }
      this.queue.splice(i, 1);
      this.start(key);
    }
    this.report();
  }

  private start(key: string): void {
    const cts = new CancellationTokenSource();
    this.running.set(key, cts);
    const done = (): void => {
      if (this.running.get(key) === cts) this.running.delete(key);
      cts.dispose();
      if (!this.disposed) this.pump();
    };
    this.run(key, cts.token).then(done, done);
  }

  private report(): void { this.changed(this.state()); }

  /** Cancels every running capture and forgets the waiting ones. */
  dispose(): void {
    this.disposed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.queue.length = 0;
    for (const cts of this.running.values()) cts.cancel();
  }
}
