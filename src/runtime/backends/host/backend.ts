/**
 * The `unsafe_host` backend: each snippet runs in a fresh `node` child process on this machine,
 * with no isolation beyond a separate process. For development only (`dev` profile), and only
 * after an explicit opt-in.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolexecError } from '../../../model/index.js';
import { runtimeError } from '../../core/errors.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../gateway/stream-connection.js';
import { nodeGuestArgs } from '../../guest/node-guest.js';
import { runGuestSession, type GuestExit } from '../../guest/session.js';
import { DEFAULT_TIMEOUT_MS, effectiveMaxOutputBytes, effectiveTimeoutMs, validateRequest } from '../../core/request.js';
import { RunRecord } from '../../core/run-record.js';
import type { ExecuteRequest, ExecuteResult, NodeGuestBackendOptions, RuntimeBackend } from '../../core/types.js';

/** Options of {@link createUnsafeHostBackend}. */
export interface UnsafeHostBackendOptions extends NodeGuestBackendOptions {
  /**
   * Accept every request without the per-request opt-in (`metadata.unsafeOptIn === true`).
   * @defaultValue false
   */
  optIn?: boolean;
  /** The node binary. @defaultValue process.execPath */
  nodePath?: string;
  /**
   * The child's entire environment. The host's environment is never inherited (no secrets,
   * and no `NODE_EXTRA_CA_CERTS`/`NODE_OPTIONS` surprises). @defaultValue {} (empty)
   */
  env?: Record<string, string>;
  /** Where the per-run working directories are created. @defaultValue os.tmpdir() */
  tempDir?: string;
}

interface ResolvedOptions {
  optIn: boolean;
  nodePath: string;
  defaultTimeoutMs: number;
  defaultMaxOutputBytes: number;
  env: Record<string, string>;
  nodeFlags: readonly string[];
  maxMessageBytes: number;
  tempDir: string;
}

function resolveOptions(options: UnsafeHostBackendOptions): ResolvedOptions {
  return {
    optIn: options.optIn === true,
    nodePath: options.nodePath ?? process.execPath,
    defaultTimeoutMs: options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    defaultMaxOutputBytes: options.defaultMaxOutputBytes ?? 1024 * 1024,
    env: { ...options.env },
    nodeFlags: [...(options.nodeFlags ?? [])],
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    tempDir: options.tempDir ?? tmpdir(),
  };
}

/** Failures of a run its caller or its clock stopped: kept as they are when close() comes after. */
const STOPPED_BY_CALLER: ReadonlySet<string> = new Set(['ABORTED', 'TIMEOUT']);

/** Kills the child's whole process group (it leads one: spawned `detached`). */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is already gone
  }
}

/**
 * Runs snippets in a child `node` process on the host.
 *
 * @remarks
 * Per run: a fresh temp working directory (removed afterwards), `process.execPath` started with an
 * **empty environment** (or exactly `options.env`) as the leader of its own process group, the
 * node guest speaking the gateway protocol over stdio, and the request's gateway wrapped with
 * `createTracingGateway` for `maxToolCalls` / `maxChainSteps`. The timeout (default 30 s),
 * an abort, or output beyond `maxOutputBytes` (default 1 MiB) kill the whole process group, so
 * processes the snippet started die too — unless one leaves the group (`spawn(..., { detached:
 * true })`, `setsid`): this backend runs the snippet as your user with no sandbox, so it cannot
 * hold such a process; use a container backend for code you do not trust.
 *
 * `limits.memoryBytes` becomes `--max-old-space-size`: a cap on the V8 heap only (not buffers,
 * WASM memory or child processes), so `limitsEnforced.memory` stays `false` — a Buffer loop is not
 * stopped by it — and `backend.details.heapLimitBytes` records the heap cap. CPU, pids and disk
 * limits are not enforced here either (`false`); use a container backend for real memory caps.
 *
 * Requires `metadata.unsafeOptIn === true` (the boolean) on each request, or `optIn: true` on the
 * backend; otherwise `BACKEND_DENIED`.
 */
export class UnsafeHostBackend implements RuntimeBackend {
  readonly kind = 'unsafe_host' as const;
  readonly readiness = 'prod' as const;
  /** Calls `request.onStart` once the guest process is spawned and the snippet is sent. */
  readonly reportsStart = true;
  readonly #options: ResolvedOptions;
  readonly #children = new Set<ChildProcess>();
  /** Children {@link UnsafeHostBackend.close} killed during their run. */
  readonly #closedOn = new WeakSet<ChildProcess>();

  constructor(options: UnsafeHostBackendOptions = {}) {
    this.#options = resolveOptions(options);
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const run = new RunRecord({ kind: this.kind, readiness: this.readiness, details: { mode: 'subprocess' } });
    try {
      validateRequest(request);
    } catch (err) {
      throw run.fail(err);
    }
    if (!this.#options.optIn && request.metadata?.unsafeOptIn !== true) {
      throw runtimeError(
        'BACKEND_DENIED',
        'backend denied by policy: the unsafe host backend requires explicit opt-in (metadata.unsafeOptIn === true)',
        { result: run.partial(), details: { backend: this.kind } },
      );
    }
    const code = run.prepareSnippet(request);
    const traced = run.traceGateway(request);
    const memoryBytes = request.limits?.memoryBytes;
    const timeoutMs = effectiveTimeoutMs(request, this.#options.defaultTimeoutMs);
    const maxOutputBytes = effectiveMaxOutputBytes(request, this.#options.defaultMaxOutputBytes);
    // A heap cap is not a memory cap (Buffers, WASM memory and child processes escape it), so
    // `memory` stays false; the heap cap is reported in the details instead.
    const heapCapped = memoryBytes !== undefined && memoryBytes > 0;
    run.backend.details = { mode: 'subprocess', timeoutMs, maxOutputBytes, ...(heapCapped ? { heapLimitBytes: memoryBytes } : {}) };

    let workDir: string | undefined;
    let child: ChildProcess | undefined;
    try {
      workDir = await mkdtemp(join(this.#options.tempDir, 'toolexec-unsafe-'));
      const args = nodeGuestArgs({
        mode: 'file',
        nodeFlags: this.#options.nodeFlags,
        ...(heapCapped ? { memoryBytes } : {}),
      });
      const spawned = spawn(this.#options.nodePath, args, {
        cwd: workDir,
        env: { ...this.#options.env },
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
      child = spawned;
      this.#children.add(spawned);
      const exited = new Promise<GuestExit>((resolve) => {
        spawned.once('exit', (exitCode, signal) => resolve({ code: exitCode, signal }));
        spawned.once('error', (error) => resolve({ code: null, signal: null, error }));
      });
      spawned.stdin.on('error', () => undefined);
      const outcome = await runGuestSession({
        stdin: spawned.stdin,
        stdout: spawned.stdout,
        stderr: spawned.stderr,
        code,
        gateway: traced,
        timeoutMs,
        maxOutputBytes,
        maxMessageBytes: this.#options.maxMessageBytes,
        ...(request.onStart === undefined ? {} : { onStart: request.onStart }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        terminate: () => killGroup(spawned),
        exited,
      });
      if (outcome.failure !== undefined && this.#closedOn.has(spawned) && !STOPPED_BY_CALLER.has(outcome.failure.code)) {
        // killed by close(), not by its snippet: the backend went away, as in the other sandboxes
        outcome.failure = {
          code: 'RUNTIME_UNAVAILABLE',
          message: `runtime unavailable: the ${this.kind} backend was closed during the run`,
        };
      }
      return run.settle(outcome, request);
    } catch (err) {
      if (ToolexecError.isInstance(err)) throw err;
      throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
        result: run.partial(),
      });
    } finally {
      if (child !== undefined) {
        killGroup(child);
        this.#children.delete(child);
      }
      if (workDir !== undefined) await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** Kills every child still running (their runs fail with `RUNTIME_UNAVAILABLE`). Idempotent. */
  async close(): Promise<void> {
    for (const child of this.#children) {
      this.#closedOn.add(child);
      killGroup(child);
    }
    this.#children.clear();
  }
}

/** Creates an {@link UnsafeHostBackend}. */
export function createUnsafeHostBackend(options: UnsafeHostBackendOptions = {}): UnsafeHostBackend {
  return new UnsafeHostBackend(options);
}
