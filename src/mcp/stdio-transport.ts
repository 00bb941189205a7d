import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { serverEnvironment } from './environment.js';
import { JsonRpcLineReader } from './jsonrpc-lines.js';
import { TailBuffer, signalProcessTree, trackProcessTree, untrackProcessTree } from './process-tree.js';

/** Default of {@link StdioProcessTransportOptions.stderrTailBytes}. */
export const DEFAULT_STDERR_TAIL_BYTES = 8192;
/** Default of {@link StdioProcessTransportOptions.killGraceMs}. */
export const DEFAULT_KILL_GRACE_MS = 2000;

// After the leader exits, how long to wait for its stdout/stderr to drain before reporting close.
const DRAIN_AFTER_EXIT_MS = 200;

// After the server's stdout ends or its stdin breaks, how long to wait for it to exit (its exit
// status explains the loss best) before the connection is reported lost with the process alive.
const EXIT_AFTER_PIPE_LOSS_MS = 200;

/** Options of {@link StdioProcessTransport}. */
export interface StdioProcessTransportOptions {
  /** The executable to spawn (looked up on `PATH`; no shell). */
  command: string;
  /** Its command-line arguments. */
  args?: readonly string[];
  /** Added to the default safe environment ({@link serverEnvironment}). */
  env?: Record<string, string>;
  /** Working directory of the process; a missing one fails `start()`. @defaultValue the current directory */
  cwd?: string;
  /** @defaultValue 8192 */
  stderrTailBytes?: number;
  /** @defaultValue 2000 */
  killGraceMs?: number;
  /** Receives stderr text as it arrives. */
  onStderr?: (text: string) => void;
}

/** How a server process ended. */
export interface ProcessExit {
  /** The exit code; `null` when the process was killed by a signal or never started. */
  code: number | null;
  /** The signal that ended the process; `null` when it exited by itself or never started. */
  signal: NodeJS.Signals | null;
}

/**
 * An MCP client transport over a child process's stdin/stdout that owns the whole process tree.
 *
 * @remarks
 * Unlike the SDK's `StdioClientTransport`, the server is spawned as the leader of its own process
 * group and `close()` signals the group (SIGTERM, then SIGKILL after `killGraceMs`), so servers
 * started through `npx`, `uvx` or a shell leave no orphans. Its environment is the safe default
 * plus `env`, never the whole host environment. The last `stderrTailBytes` of stderr are kept for
 * error messages. The process does not keep the host's event loop alive while idle, and is killed
 * if the host exits without closing it.
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: StdioProcessTransportOptions;
  readonly #reader = new JsonRpcLineReader();
  readonly #deliver = (message: JSONRPCMessage): void => this.onmessage?.(message);
  // A line that is not JSON-RPC (a stray console.log): report it and keep reading.
  readonly #badLine = (error: Error): void => this.onerror?.(error);
  readonly #stderr: TailBuffer;
  #child: ChildProcess | undefined;
  #exit: ProcessExit | undefined;
  #exited: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #closeReported = false;
  #drain: Promise<void> | undefined;
  #closedBy: Error | undefined;
  /** Set when a pipe of a server still running broke: the connection is reported lost after a grace. */
  #pipeLossTimer: NodeJS.Timeout | undefined;

  constructor(options: StdioProcessTransportOptions) {
    this.#options = options;
    this.#stderr = new TailBuffer(options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES);
  }

  /** The server's process ID once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the server exited, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  /** Why this side closed the connection (a message over the size bound), when it did. */
  get closedBy(): Error | undefined {
    return this.#closedBy;
  }

  /** The end of the server's stderr, trimmed. */
  get stderrTail(): string {
    return this.#stderr.text();
  }

  async start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('StdioProcessTransport already started');
    const { command, args = [], env, cwd } = this.#options;
    const child = spawn(command, [...args], {
      env: serverEnvironment(env),
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      // POSIX: the server leads a new process group (and session), so the group can be signalled.
      detached: process.platform !== 'win32',
      windowsHide: true,
      shell: false,
    });
    this.#child = child;
    await new Promise<void>((resolve, reject) => {
      const onSpawn = (): void => {
        child.off('error', onError);
        resolve();
      };
      const onError = (error: Error): void => {
        child.off('spawn', onSpawn);
        reject(error);
      };
      child.once('spawn', onSpawn);
      child.once('error', onError);
    }).catch((error: unknown) => {
      this.#exit = { code: null, signal: null };
      this.#reportClose();
      // Node reports a missing working directory as a missing command; say which it is.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && cwd !== undefined && !existsSync(cwd)) {
        throw new Error(`working directory ${cwd} does not exist`, { cause: error });
      }
      throw error;
    });
    const pid = child.pid!;
    trackProcessTree(pid);
    this.#exited = this.#watch(child, pid);
    // An idle server must not keep the host alive; in-flight requests hold their own timers.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as Socket | null)?.unref?.();
  }

  #watch(child: ChildProcess, pid: number): Promise<void> {
    child.on('error', (error) => this.onerror?.(error));
    // A server that closed its stdin (EPIPE on the next write) or its stdout (EOF) while it keeps
    // running can no longer be spoken to: the connection is lost as if it had exited.
    child.stdin?.on('error', (error) => {
      this.onerror?.(error);
      this.#pipeLost(undefined);
    });
    child.stdout?.on('error', (error) => this.onerror?.(error));
    child.stdout?.once('end', () => this.#pipeLost(new Error('the server closed its stdout while still running')));
    child.stderr?.on('error', () => undefined);
    child.stdout?.on('data', (chunk: Buffer) => this.#onStdout(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr.append(chunk);
      this.#options.onStderr?.(chunk.toString('utf8'));
    });
    const drained = Promise.all(
      [child.stdout, child.stderr].map(
        (stream) =>
          new Promise<void>((resolve) =>
            stream === null || stream.readableEnded || stream.destroyed ? resolve() : stream.once('close', resolve),
          ),
      ),
    );
    return new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        // Anything else in the group is an orphan now; ask it to stop (close() finishes the job).
        if (this.#closing === undefined) signalProcessTree(pid, 'SIGTERM');
        const settle = (): void => {
          clearTimeout(timer);
          this.#reportClose();
          resolve();
        };
        const timer = setTimeout(settle, DRAIN_AFTER_EXIT_MS);
        void drained.then(settle);
      });
    });
  }

  #onStdout(chunk: Buffer): void {
    // Closed for an oversized message: the rest of it (and whatever follows) is not read.
    if (this.#closedBy !== undefined) return;
    const overflow = this.#reader.push(chunk, this.#deliver, this.#badLine);
    if (overflow !== undefined) {
      this.#closedBy = overflow;
      this.onerror?.(overflow);
      void this.close();
    }
  }

  /**
   * The server's stdin or stdout broke: unless it exits meanwhile (or is being closed), the
   * connection is reported closed, with `why` as the last transport error (none: already reported).
   */
  #pipeLost(why: Error | undefined): void {
    if (this.#closing !== undefined || this.#exit !== undefined || this.#closeReported || this.#pipeLossTimer !== undefined) return;
    this.#pipeLossTimer = setTimeout(() => {
      this.#pipeLossTimer = undefined;
      if (this.#closing !== undefined || this.#exit !== undefined || this.#closeReported) return;
      if (why !== undefined) this.onerror?.(why);
      this.#reportClose();
    }, EXIT_AFTER_PIPE_LOSS_MS);
    this.#pipeLossTimer.unref();
  }

  #reportClose(): void {
    clearTimeout(this.#pipeLossTimer);
    this.#pipeLossTimer = undefined;
    if (this.#closeReported) return;
    this.#closeReported = true;
    this.#reader.clear();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin == null || this.#exit !== undefined || this.#closing !== undefined || this.#closeReported || !stdin.writable) {
      throw new Error('Not connected');
    }
    if (this.#drain !== undefined) await this.#drain;
    if (!stdin.write(serializeMessage(message)) && this.#drain === undefined) {
      // One shared wait for every writer, so a burst of requests adds one listener, not thousands.
      this.#drain = new Promise<void>((resolve) => {
        const done = (): void => {
          stdin.off('drain', done);
          stdin.off('close', done);
          this.#drain = undefined;
          resolve();
        };
        stdin.on('drain', done);
        stdin.on('close', done);
      });
    }
  }

  /** Ends the server's process tree: stdin closed and SIGTERM to the group, SIGKILL after the grace. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const child = this.#child;
    const pid = child?.pid;
    if (child === undefined || pid === undefined) {
      this.#reportClose();
      return;
    }
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    signalProcessTree(pid, 'SIGTERM');
    if (this.#exit === undefined) {
      const graceful = await waitFor(this.#exited, this.#options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
      if (!graceful) signalProcessTree(pid, 'SIGKILL');
    }
    // Whatever of the group outlived SIGTERM (children that ignore it) is killed now. The group
    // got the same grace as its leader took to exit.
    signalProcessTree(pid, 'SIGKILL');
    await waitFor(this.#exited, this.#options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    untrackProcessTree(pid);
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdin?.destroy();
    this.#reportClose();
  }
}

async function waitFor(promise: Promise<void> | undefined, timeoutMs: number): Promise<boolean> {
  if (promise === undefined) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, false);
  });
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
