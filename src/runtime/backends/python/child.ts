/**
 * One Pyodide child process on the host side: started, waited on until it is `ready`, then lent to
 * one run at a time (see `session.ts`), and killed (its process group) when it is done for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { noop, onAbort } from '../../../model/internal.js';
import { runtimeError } from '../../core/errors.js';
import { settlesWithin } from '../../core/stopping.js';
import type { GuestExit } from '../../guest/session.js';
import type { ChildCommand } from './sandbox.js';

const STDERR_TAIL_CHARS = 4000;

/** A started child. */
export class PythonChild {
  readonly process: ChildProcess;
  /** Settles when the process is gone. */
  readonly exited: Promise<GuestExit>;
  /** Runs this child served. */
  runs = 0;
  /** The memory cap this child was started with. */
  readonly memoryBytes: number;
  /** How long Pyodide took to load in the child, in milliseconds. */
  bootMs = 0;
  #stderrTail = '';
  #gone = false;
  /** The processes under bubblewrap (its PID namespace's init and the node it runs), found once ready. */
  #tree: number[] = [];

  private constructor(process: ChildProcess, memoryBytes: number) {
    this.process = process;
    this.memoryBytes = memoryBytes;
    this.exited = new Promise<GuestExit>((resolve) => {
      process.once('error', (error) => {
        this.#gone = true;
        resolve({ code: null, signal: null, error });
      });
      process.once('exit', (code, signal) => {
        this.#gone = true;
        resolve({ code, signal });
      });
    });
    process.stderr?.setEncoding('utf8');
    process.stderr?.on('data', (chunk: string) => {
      this.#stderrTail = (this.#stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    // a child that dies while the host writes to it must not crash the host
    process.stdin?.on('error', () => undefined);
  }

  /** The process id. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** True once the process has exited. */
  get gone(): boolean {
    return this.#gone;
  }

  /** Resolves once the process and everything that ran under it are gone (polled, at most `ms`). */
  async whollyGone(ms: number): Promise<void> {
    await settlesWithin(this.exited, ms);
    const until = performance.now() + ms;
    while (this.#tree.some(running) && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** The last of what the child wrote to stderr (node's own messages). */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /**
   * Starts a child and waits for its `ready` line (at most `startupTimeoutMs`); `signal` (the pool
   * closing) kills it at once.
   * @throws `RUNTIME_UNAVAILABLE` with the child's stderr when it dies or is late; `RESOURCE_LIMIT`
   * when Pyodide did not fit in the memory cap. A child that failed is wholly gone first.
   */
  static async start(command: ChildCommand, memoryBytes: number, startupTimeoutMs: number, signal?: AbortSignal): Promise<PythonChild> {
    const child = new PythonChild(
      spawn(command.command, command.args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: {} }),
      memoryBytes,
    );
    const stop = () => child.kill();
    let unlisten = noop;
    if (signal?.aborted === true) stop();
    else if (signal !== undefined) unlisten = onAbort(signal, stop);
    const stdout = child.process.stdout as NonNullable<ChildProcess['stdout']>;
    const ready = new Promise<number>((resolve, reject) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const newline = text.indexOf('\n');
        if (newline === -1) return;
        stdout.off('data', onData);
        try {
          const message = JSON.parse(text.slice(0, newline)) as { type?: unknown; bootMs?: unknown };
          if (message.type === 'ready') resolve(typeof message.bootMs === 'number' ? message.bootMs : 0);
          else reject(new Error(`unexpected first message ${text.slice(0, 200)}`));
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      };
      stdout.on('data', onData);
      void child.exited.then(() => reject(new Error('the process exited before it was ready')));
    });
    ready.catch(() => undefined);
    const inTime = await settlesWithin(ready, startupTimeoutMs);
    unlisten();
    try {
      if (!inTime) throw new Error(`not ready within ${startupTimeoutMs} ms`);
      child.bootMs = await ready;
      if (child.pid !== undefined) child.#tree = descendantsOf(child.pid);
      return child;
    } catch (err) {
      child.kill();
      await child.whollyGone(1000);
      const stderr = child.stderrTail.trim();
      if (/memory|OOM|RangeError: WebAssembly/i.test(stderr)) {
        throw runtimeError(
          'RESOURCE_LIMIT',
          `resource limit exceeded: memory (Pyodide does not start within ${memoryBytes} bytes; it needs about 32 MiB)`,
          { cause: err, details: { limit: 'memory', memoryBytes, phase: 'startup' } },
        );
      }
      throw runtimeError(
        'RUNTIME_UNAVAILABLE',
        `runtime unavailable: the Python sandbox did not start: ${(err as Error).message}${stderr === '' ? '' : `: ${stderr.slice(-1000)}`}`,
        { cause: err, details: { language: 'python', stderrTail: stderr.slice(-2000) } },
      );
    }
  }

  /**
   * Kills the child's process group and every process under bubblewrap (they live in their own
   * session and PID namespace). Idempotent.
   */
  kill(): void {
    // a child killed before it was ready: the processes under bubblewrap, found now
    if (this.#tree.length === 0 && !this.#gone && this.process.pid !== undefined) this.#tree = descendantsOf(this.process.pid);
    for (const pid of this.#tree) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (this.#gone) return;
    const pid = this.process.pid;
    try {
      if (pid !== undefined) process.kill(-pid, 'SIGKILL');
    } catch {
      try {
        this.process.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/** True while `pid` runs (a zombie has finished). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** The processes descending from `root` (Linux: read from /proc; elsewhere none). @internal */
export function descendantsOf(root: number): number[] {
  const parents = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended meanwhile
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift() as number;
    for (const [pid, ppid] of parents) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}
