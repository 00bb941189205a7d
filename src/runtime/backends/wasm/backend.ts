/**
 * The `wasm` runtime backend: JavaScript snippets in QuickJS compiled to WebAssembly, one fresh VM
 * per run, on a small pool of worker threads; raw WASI modules under `node:wasi` on the same pool.
 */
import { runtimeError } from '../../core/errors.js';
import { checkPooledRequest, runMemoryBytes } from '../../core/pooled-sandbox.js';
import {
  checkSourceSize,
  effectiveMaxOutputBytes,
  effectiveQueueTimeoutMs,
  effectiveTimeoutMs,
  validateRequest,
} from '../../core/request.js';
import { RunRecord } from '../../core/run-record.js';
import type { ExecuteRequest, ExecuteResult, RuntimeBackend } from '../../core/types.js';
import { quickjsModule, wasmWorkerPath } from './engine.js';
import { WASM32_MAX_MEMORY_BYTES, resolveWasmOptions, type ResolvedWasmOptions, type WasmBackendOptions } from './options.js';
import { WorkerPool, type WorkerPoolStats } from './pool.js';
import { defaultSpinSlots, ReplySpinSlots } from './reply-spin.js';
import { capModuleMemory, wasiModuleBytes, WASM_PAGE_BYTES } from './wasi-module.js';
import { closeNullFd, nullFd } from './null-fd.js';
import { wasmApi, type CompiledWasmModule } from './webassembly.js';
import { runOnWorker } from './worker-run.js';
import { ComponentRunner, hasComponent } from './component/index.js';

/**
 * Runs snippets in QuickJS compiled to WebAssembly (quickjs-wasi), off the main thread.
 *
 * @remarks
 * **Isolation.** Each run gets a fresh QuickJS VM with its own linear memory, in a pooled
 * `worker_thread`. The snippet sees only `tools` (six async methods; values cross as JSON text, so
 * no host object ever enters the VM), `console`, `__out` and run-scoped timers (`setTimeout`,
 * `setInterval` and their `clear*`, which die with the run): no `process`, `require`, `import` of
 * host modules, filesystem, network, environment or `WebAssembly`. Tampering with prototypes or
 * `tools` inside the VM only changes the VM. Every security profile gets this same sandbox (the
 * profile is recorded in `backend.details`).
 *
 * **Failures** follow the sandbox surface: `CODE_EXECUTION` with the snippet's 1-based
 * `line`/`column` and a snippet-only `stack`; an uncaught failed `tools.*` call → that call's code,
 * with the line of the call; an unhandled rejection or an exception in a timer callback fails the
 * run (as in node); a `TIMEOUT` of a snippet idling on a promise says what it was waiting on
 * (`details.waiting`, and a `hint` when nothing could ever settle it).
 *
 * **Limits that hold.**
 * - Wall clock (`timeoutMs`, default 30 s, counted from the snippet's start) → `TIMEOUT`:
 *   QuickJS's interrupt handler stops the VM; if a long builtin starves the handler, the worker is
 *   terminated after `killGraceMs` and replaced. A runaway snippet holds its worker until its own
 *   deadline, never longer.
 * - Queue (`queueTimeoutMs`, default 30 s): the wait for a free worker, bounded separately →
 *   `TIMEOUT` with `details.phase: 'queue'` (the snippet never started).
 * - Ceilings: a request's `timeoutMs` / `queueTimeoutMs` above `maxTimeoutMs` (10 min) or
 *   `limits.memoryBytes` above `maxMemoryBytes` (1 GiB) → `INVALID_LIMITS`, before it queues.
 * - Source (`maxSourceBytes`, default 1 MiB) → `LIMIT_EXCEEDED` (`limit: 'sourceBytes'`), at once.
 * - Memory (`limits.memoryBytes`, default 64 MiB): the QuickJS allocator's cap → `RESOURCE_LIMIT`
 *   `memory` (an out-of-memory error the snippet did not catch); each worker's V8 heap is capped too.
 * - Stack: QuickJS's stack guard (512 KiB, about 2,000 nested calls) → `RESOURCE_LIMIT` `stack`
 *   when the snippet does not catch the RangeError; recursion inside a builtin (serializing a
 *   100k-deep object) that exhausts the worker's native stack first ends the run the same way.
 * - Output (`limits.maxOutputBytes`, default 1 MiB, stdout + stderr) → `RESOURCE_LIMIT` `output`,
 *   the run stops at once; the result's JSON is capped at `maxResultBytes` (8 MiB) →
 *   `RESOURCE_LIMIT` `result`, measured before it is serialized (a huge value never runs the VM out
 *   of memory on its way out).
 * - Tool calls (`maxToolCalls`, `maxChainSteps`) → `LIMIT_EXCEEDED`, via the tracing gateway.
 * - `limitsEnforced`: timeout, toolCalls, chainSteps and memory are `true`; cpu, pids and disk are
 *   `false` (a single-threaded VM cannot spawn anything, but CPU time is not metered separately
 *   from the wall clock).
 *
 * **Raw WASI.** When `metadata.wasm_module` (bytes or base64) or `metadata.wasm_module_b64` is set,
 * the module runs under `node:wasi` (preview1) in a worker instead: no preopens, empty args and env,
 * empty stdin, stdout/stderr captured under the output cap, `proc_raise` disabled, and its memory
 * section rewritten so linear memory cannot grow past `limits.memoryBytes`. The wall clock
 * terminates the worker (WebAssembly cannot be interrupted). `request.code` is still required but
 * ignored; the result's readiness is `beta`; the value is `{ exitCode: 0 }`, a non-zero exit is
 * `CODE_EXECUTION` with `details.exitCode`. A module that is not bytes/base64, lacks the magic, does
 * not compile, imports anything but `wasi_snapshot_preview1` functions, or does not export `_start`
 * and `memory` is `INVALID_ARGUMENT`. Tool calls are not available on this path.
 *
 * **Components.** When `metadata.wasm_component` (bytes or base64) is set, the WebAssembly component
 * of the world `toolexec:sandbox/guest` (`wit/toolexec-sandbox.wit`) runs instead, on its own pool
 * of workers started on first use: transpiled by the optional peer `@bytecodealliance/jco`
 * (`RUNTIME_UNAVAILABLE` naming it when absent) once per content hash, instantiated fresh per run,
 * `run` called with the JSON text of `metadata.input` (`null` when absent); `code` may be empty. An
 * `ok` string is parsed as JSON into `value` (kept as a string when it is not JSON), `err(message)`
 * is `CODE_EXECUTION` with that message. `call-tool` / `search-tools` block the guest while the
 * run's gateway answers (counted, traced, limited as a snippet's calls). WASI and every import but
 * `toolexec:sandbox/host` are refused (`INVALID_ARGUMENT`). Each linear memory is capped at
 * `limits.memoryBytes` (`RESOURCE_LIMIT` `memory` when a trap happens at the cap), the wall clock
 * terminates the worker, and the result's text is capped at `min(maxOutputBytes, maxResultBytes)`
 * (`RESOURCE_LIMIT` `output`). Readiness `beta`. See docs/guests.md.
 */
export class WasmBackend implements RuntimeBackend {
  readonly kind = 'wasm' as const;
  readonly readiness = 'prod' as const;
  /** Calls `request.onStart` when the run gets its worker (its clock starts then). */
  readonly reportsStart = true;
  readonly #options: ResolvedWasmOptions;
  readonly #pool: WorkerPool;
  #closed = false;
  #usedNullFd = false;
  #components: ComponentRunner | undefined;

  constructor(options: WasmBackendOptions = {}) {
    this.#options = resolveWasmOptions(options);
    const slots = this.#options.replySpinMs > 0 ? defaultSpinSlots(this.#options.poolSize) : 0;
    const spin = slots > 0 ? new ReplySpinSlots(slots) : undefined;
    const replySpin = spin === undefined ? undefined : { slots: spin.buffer, ms: this.#options.replySpinMs };
    this.#pool = new WorkerPool(this.#options.poolSize, async () => ({
      script: wasmWorkerPath(),
      workerData: {
        quickjs: await quickjsModule(),
        replySpin,
        spare: { memoryBytes: this.#options.defaultMemoryBytes, maxStackBytes: this.#options.maxStackBytes },
      },
      heapBytes: this.#options.workerHeapBytes,
      startupTimeoutMs: this.#options.workerStartupTimeoutMs,
      ...(spin === undefined ? {} : { onGone: (threadId: number) => spin.release(threadId) }),
    }));
  }

  /** Worker counters (live, idle, busy, starting, queued runs, started, replaced). */
  get stats(): WorkerPoolStats {
    return this.#pool.stats;
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const run = new RunRecord({ kind: this.kind, readiness: this.readiness, details: { engine: 'quickjs-wasi' } });
    if (hasComponent(request?.metadata) && !this.#closed) {
      this.#components ??= new ComponentRunner(this.#options);
      return this.#components.execute(request);
    }
    let module: Uint8Array | undefined;
    try {
      validateRequest(request);
      if (this.#closed) {
        throw runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the wasm backend is closed', {
          details: { backend: this.kind },
        });
      }
      checkPooledRequest(request, this.#options, false);
      module = wasiModuleBytes(request.metadata, this.#options.maxModuleBytes);
      if (module === undefined) checkSourceSize(request.code, this.#options.maxSourceBytes);
    } catch (err) {
      throw run.fail(err);
    }
    if (module !== undefined) return this.#executeWasi(request, module, run);

    const code = run.prepareSnippet(request);
    const traced = run.traceGateway(request);
    const timeoutMs = effectiveTimeoutMs(request, this.#options.defaultTimeoutMs);
    const maxOutputBytes = effectiveMaxOutputBytes(request, this.#options.defaultMaxOutputBytes);
    const memoryBytes = this.#memoryBytes(request);
    run.limitsEnforced.memory = true;
    run.backend.details = {
      engine: 'quickjs-wasi',
      timeoutMs,
      maxOutputBytes,
      memoryBytes,
      maxStackBytes: this.#options.maxStackBytes,
      ...(request.profile === undefined ? {} : { profile: request.profile }),
    };

    const outcome = await runOnWorker(this.#pool, {
      kind: 'js',
      payload: {
        code,
        timeoutMs,
        maxOutputBytes,
        memoryBytes,
        maxStackBytes: this.#options.maxStackBytes,
        maxResultBytes: this.#options.maxResultBytes,
        maxMessageBytes: this.#options.maxMessageBytes,
      },
      gateway: traced,
      timeoutMs,
      queueTimeoutMs: effectiveQueueTimeoutMs(request, this.#options.queueTimeoutMs),
      ...(request.onStart === undefined ? {} : { onStart: request.onStart }),
      maxOutputBytes,
      memoryBytes,
      killGraceMs: this.#options.killGraceMs,
      interruptible: true,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    const version = outcome.versions?.quickjs;
    if (version !== undefined) run.backend.details.engineVersion = version;
    return run.settle(outcome, request);
  }

  /** Terminates every worker; later runs fail with `RUNTIME_UNAVAILABLE`. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([this.#pool.close(), this.#components?.close()]);
    if (this.#usedNullFd) closeNullFd(this);
  }

  async #executeWasi(request: ExecuteRequest, bytes: Uint8Array, run: RunRecord): Promise<ExecuteResult> {
    run.backend.readiness = 'beta';
    run.backend.details = { engine: 'node:wasi', wasi: 'preview1' };
    const timeoutMs = effectiveTimeoutMs(request, this.#options.defaultTimeoutMs);
    const maxOutputBytes = effectiveMaxOutputBytes(request, this.#options.defaultMaxOutputBytes);
    const memoryBytes = this.#memoryBytes(request);
    let module: CompiledWasmModule;
    let capped: ReturnType<typeof capModuleMemory>;
    let fd: number;
    try {
      capped = capModuleMemory(bytes, memoryBytes);
      try {
        module = await wasmApi.compile(capped.bytes);
      } catch (err) {
        throw runtimeError(
          'INVALID_ARGUMENT',
          `invalid WASI module: it does not compile: ${err instanceof Error ? err.message : String(err)}`,
          {
            cause: err,
            details: { field: 'metadata.wasm_module' },
          },
        );
      }
      checkWasiShape(module);
      this.#usedNullFd = true;
      try {
        fd = nullFd(this);
      } catch (err) {
        throw runtimeError(
          'RUNTIME_UNAVAILABLE',
          `runtime unavailable: cannot open the null device for WASI stdio: ${err instanceof Error ? err.message : String(err)}`,
          {
            cause: err,
          },
        );
      }
    } catch (err) {
      throw run.fail(err);
    }
    // A WASI module has no gateway at all: tool calls and chain steps are trivially within limits.
    Object.assign(run.limitsEnforced, { timeout: true, toolCalls: true, chainSteps: true, memory: capped.enforced });
    const details: Record<string, unknown> = {
      engine: 'node:wasi',
      wasi: 'preview1',
      timeoutMs,
      maxOutputBytes,
      memoryBytes: capped.capPages * WASM_PAGE_BYTES,
      maxMemoryBytes: capped.maxMemoryBytes,
      ...(request.profile === undefined ? {} : { profile: request.profile }),
    };
    run.backend.details = details;
    const outcome = await runOnWorker(this.#pool, {
      kind: 'wasi',
      payload: { module, maxOutputBytes, nullFd: fd },
      timeoutMs,
      queueTimeoutMs: effectiveQueueTimeoutMs(request, this.#options.queueTimeoutMs),
      ...(request.onStart === undefined ? {} : { onStart: request.onStart }),
      maxOutputBytes,
      memoryBytes: capped.capPages * WASM_PAGE_BYTES,
      killGraceMs: this.#options.killGraceMs,
      interruptible: false,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (typeof outcome.info.memoryBytesUsed === 'number') details.memoryBytesUsed = outcome.info.memoryBytesUsed;
    if (outcome.failure === undefined) {
      outcome.hasValue = true;
      outcome.value = { exitCode: typeof outcome.info.exitCode === 'number' ? outcome.info.exitCode : 0 };
    }
    return run.settle(outcome);
  }

  #memoryBytes(request: ExecuteRequest): number {
    return Math.min(runMemoryBytes(request, this.#options), WASM32_MAX_MEMORY_BYTES - 1);
  }
}

/** A WASI command: every import a `wasi_snapshot_preview1` function, `_start` and `memory` exported. */
function checkWasiShape(module: CompiledWasmModule): void {
  for (const entry of wasmApi.Module.imports(module)) {
    if (entry.module !== 'wasi_snapshot_preview1' || entry.kind !== 'function') {
      throw runtimeError(
        'INVALID_ARGUMENT',
        `invalid WASI module: it imports ${entry.kind} ${entry.module}.${entry.name}; the sandbox provides only wasi_snapshot_preview1 functions`,
        { details: { field: 'metadata.wasm_module', import: `${entry.module}.${entry.name}` } },
      );
    }
  }
  const exports = new Map(wasmApi.Module.exports(module).map((entry) => [entry.name, entry.kind]));
  if (exports.get('_start') !== 'function' || exports.get('memory') !== 'memory') {
    throw runtimeError('INVALID_ARGUMENT', 'invalid WASI module: a WASI command must export a `_start` function and its `memory`', {
      details: { field: 'metadata.wasm_module' },
    });
  }
}

/** Creates a {@link WasmBackend}. @throws `CONFIGURATION` for an out-of-range option. */
export function createWasmBackend(options: WasmBackendOptions = {}): WasmBackend {
  return new WasmBackend(options);
}
