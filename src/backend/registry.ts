import { describeValue, guardCall, textOf } from '../model/internal.js';
import { callDeadline, handedOptions, raceUnder, readCallOptions, settleUnder } from './call-deadline.js';
import { backendDisabled, backendFailure, backendNotFound, errors } from './failures.js';
import { parseBackendToolId } from './tool-id.js';
import { BRIDGED_STREAM } from './bridged-stream.js';
import { readStopOptions, stopEach } from './stopping.js';
import type { Backend, BackendCallOptions, BridgedHandler, HandlerLookup } from './types.js';

/**
 * The set of backends, by unique name.
 *
 * @remarks
 * Every listing is sorted by name. Names must be non-empty and free of `:`, since they prefix
 * tool IDs (`name:tool`).
 */
export class BackendRegistry {
  readonly #backends = new Map<string, Backend>();
  /** The entries sorted by registered name, until the next change. */
  #sorted: Array<readonly [string, Backend]> | undefined;

  /**
   * Adds a backend.
   *
   * @throws `INVALID_ARGUMENT` for a missing backend, an empty name or a name with `:`;
   * `INVALID_BACKEND` for an object without the methods every backend has (`listTools`, `execute`)
   * or with an `executeStream`, `start` or `stop` that is not a function (`details.method` names it);
   * `BACKEND_EXISTS` when the name is taken.
   */
  register(backend: Backend): void {
    guardCall(errors, 'backend', () => this.#register(backend));
  }

  #register(backend: Backend): void {
    if (backend === null || typeof backend !== 'object') throw errors.invalidArgument('backend', 'is required');
    const name: unknown = backend.name;
    if (typeof name !== 'string' || name === '') throw errors.invalidArgument('backend name', 'is required');
    if (name.includes(':')) {
      throw errors.invalidArgument(`backend name "${name}"`, "must not contain ':'", { details: { backend: name } });
    }
    for (const method of ['listTools', 'execute', 'executeStream', 'start', 'stop'] as const) {
      const value: unknown = (backend as unknown as Record<string, unknown>)[method];
      const required = method === 'listTools' || method === 'execute';
      if (typeof value === 'function' || (!required && (value === undefined || value === null))) continue;
      throw errors('INVALID_BACKEND', `backend "${name}" is not a Backend: ${method} ${required ? 'is required' : 'must be a function'}`, {
        details: { backend: name, method },
      });
    }
    if (this.#backends.has(name)) {
      throw errors('BACKEND_EXISTS', `backend already registered: ${name}`, { details: { backend: name } });
    }
    this.#backends.set(name, backend);
    this.#sorted = undefined;
  }

  /**
   * Removes a backend and stops it (a failing `stop` is ignored). The backend is gone from the
   * registry at once; the promise settles when `stop` has, or when the wait for it is given up.
   * True when it existed.
   *
   * @remarks
   * `options.signal` and `options.deadline` bound the wait for `stop`, whether the backend listens
   * or not; without a deadline it is 10 s from the call (`DEFAULT_STOP_TIMEOUT_MS`). `stop` is
   * always called (with a signal already aborted when the caller's is), and is handed the signal
   * (one that also aborts at the deadline), the deadline and the key. When the signal aborts or the
   * deadline passes first, the promise rejects at once, the backend removed all the same.
   *
   * @throws `INVALID_ARGUMENT` for options that cannot be read (nothing is removed then), `ABORTED`
   * (`cause` = the signal's reason) or `TIMEOUT` when `stop` had not settled in time.
   */
  async unregister(name: string, options?: BackendCallOptions): Promise<boolean> {
    const read = readStopOptions(options);
    const backend = this.#backends.get(name);
    if (backend === undefined) return false;
    this.#backends.delete(name);
    this.#sorted = undefined;
    // the backend is gone either way: its failure to stop has nowhere to go
    await stopEach([[name, backend]], read);
    return true;
  }

  /** The backend named `name`, if any. */
  get(name: string): Backend | undefined {
    return this.#backends.get(name);
  }

  /** Every backend, sorted by name. */
  list(): Backend[] {
    return this.#all().map(([, backend]) => backend);
  }

  /**
   * The enabled backends, sorted by name.
   *
   * @throws `EXECUTION` naming the backend whose `enabled` getter throws (its error as `cause`).
   */
  listEnabled(): Backend[] {
    return this.#all()
      .filter(([name, backend]) => isEnabled(backend, name))
      .map(([, backend]) => backend);
  }

  /**
   * The backends whose `kind` is exactly `kind`, sorted by name.
   *
   * @throws `EXECUTION` naming the backend whose `kind` getter throws (its error as `cause`).
   */
  listByKind(kind: string): Backend[] {
    return this.#all()
      .filter(([name, backend]) => kindOf(backend, name) === kind)
      .map(([, backend]) => backend);
  }

  /** The backend names (as registered), sorted. */
  names(): string[] {
    return this.#all().map(([name]) => name);
  }

  /**
   * Starts the enabled backends in name order; stops at the first failure and rejects with it.
   *
   * @remarks
   * `options.signal` and `options.deadline` bound the whole operation, whether the backends listen
   * or not: when the signal aborts (or already has) or the deadline passes, it rejects at once,
   * without waiting for the `start` in flight and without starting the rest. Each `start` gets the
   * signal (one that also aborts at the deadline, when there is one), the deadline and the key.
   *
   * @throws `INVALID_ARGUMENT` for options that cannot be read, `ABORTED` (`cause` = the signal's
   * reason), `TIMEOUT`, or the first backend's failure (a library error as is, anything else as
   * `EXECUTION` naming the backend, with it as `cause`).
   */
  async startAll(options?: BackendCallOptions): Promise<void> {
    const read = readCallOptions(options);
    const stop = callDeadline(read);
    try {
      // each backend by the name it was registered under: a backend's own `name` is never read again;
      // `enabled` read when its turn comes, so one that throws stops the start there, not before the first
      for (const [name, backend] of this.#all()) {
        if (!isEnabled(backend, name)) continue;
        const details = { backend: name, op: 'start' };
        await raceUnder(
          stop,
          `start ${name}`,
          details,
          () => backend.start?.(stop === undefined ? options : handedOptions(read, stop)),
          (err) => backendFailure(err, `start ${name} failed`, details),
        );
      }
    } finally {
      stop?.dispose();
    }
  }

  /**
   * Stops every backend, enabled or not. A failure does not leave the rest running, nor does a
   * `stop` that never settles: every `stop` is called, then the first failure (in name order) is
   * the rejection.
   *
   * @remarks
   * The `stop` calls are made in name order, each without waiting for the one before, so stopping
   * takes as long as the slowest backend and a hung one delays no other. `options.signal` and
   * `options.deadline` bound the wait for all of them, whether the backends listen or not; without
   * a deadline it is 10 s from the call (`DEFAULT_STOP_TIMEOUT_MS`; pass a later `deadline` to wait
   * longer). Every `stop` is called even when the signal has already aborted, and is handed the
   * signal (one that also aborts at the deadline: a backend cuts its own work short then), the
   * deadline and the key. When the signal aborts or the deadline passes before every `stop` has
   * settled, the call rejects at once; the `stop` calls still running are not waited for.
   *
   * @throws `INVALID_ARGUMENT` for options that cannot be read (nothing is stopped then), `ABORTED`
   * (`cause` = the signal's reason) or `TIMEOUT` naming the first backend still stopping
   * (`details.backend`, with `details.running` listing every one), or the first backend's failure
   * (a library error as is, anything else as `EXECUTION` naming the backend, with it as `cause`).
   */
  async stopAll(options?: BackendCallOptions): Promise<void> {
    const read = readStopOptions(options);
    const first = (await stopEach(this.#all(), read)).find((failure) => failure !== undefined);
    if (first !== undefined) throw first;
  }

  /**
   * The registry as the runner's `local` option: any well-formed name `backend:tool` gives a
   * handler that calls {@link BackendRegistry.execute} on the backend registered under that name
   * at call time, with the call's signal, deadline and idempotency key. So the call fails with
   * `BACKEND_NOT_FOUND` when no backend has that name (it was never registered, or was
   * unregistered since the tool was indexed) and `BACKEND_DISABLED` when it is disabled; the runner
   * keeps those codes. A name without a backend part, or a malformed one, gives `undefined`, which
   * the runner reports as `local handler "<name>" not found`.
   *
   * When the backend registered under that name at lookup time implements
   * {@link Backend.executeStream}, the handler also carries a way to run the tool through it
   * (`bridged-stream.ts`): what the runner's `runStream` calls, so such a backend streams its
   * partial results as `chunk` events.
   */
  localRegistry(): HandlerLookup {
    return {
      get: (name: string): BridgedHandler | undefined => {
        let target: { backend: string; tool: string };
        try {
          target = parseBackendToolId(name);
        } catch {
          return undefined;
        }
        if (target.backend === '') return undefined;
        const handler: BridgedHandler = (args, ctx) => this.execute(target.backend, target.tool, args, callOptionsOf(ctx));
        // a getter that throws is the backend failing: its stream function reports it (EXECUTION)
        if (streamMethodOf(this.#backends.get(target.backend)) === undefined) return handler;
        return Object.assign(handler, {
          [BRIDGED_STREAM]: (args: Record<string, unknown>, ctx: Parameters<BridgedHandler>[1]) =>
            this.#executeStream(target.backend, target.tool, args, callOptionsOf(ctx)),
        });
      },
    };
  }

  /**
   * Runs `tool` through {@link Backend.executeStream} of the backend registered as `backendName`
   * now (through `execute`, as one value, when it no longer streams). The caller (the runner's
   * stream) stops the iteration under its own deadline and signal, which the backend is handed.
   *
   * @throws what {@link BackendRegistry.execute} throws before the call; `EXECUTION` naming the
   * backend for an `executeStream` that throws or returns something that is not an AsyncIterable.
   */
  #executeStream(
    backendName: string,
    tool: string,
    args: Record<string, unknown>,
    options: BackendCallOptions,
  ): AsyncIterable<unknown> | Promise<unknown> {
    const backend = this.#backends.get(backendName);
    if (backend === undefined) throw backendNotFound(backendName);
    if (!isEnabled(backend, backendName)) throw backendDisabled(backendName);
    const id = `${backendName}:${textOf(tool)}`;
    const details = { backend: backendName, tool: textOf(tool) };
    let open: unknown;
    try {
      open = (backend as unknown as Record<string, unknown>).executeStream;
    } catch (err) {
      throw backendFailure(err, `${id} failed`, details);
    }
    if (typeof open !== 'function') return this.execute(backendName, tool, args, options);
    const read = readCallOptions(options);
    let iterable: unknown;
    try {
      iterable = open.call(backend, tool, args, handedOptions(read, undefined));
    } catch (err) {
      throw backendFailure(err, `${id} failed`, details);
    }
    if (!isAsyncIterable(iterable)) {
      throw errors('EXECUTION', `${id} failed: executeStream returned ${describeValue(iterable)}, not an AsyncIterable`, { details });
    }
    return iterable;
  }

  /**
   * Runs `tool` on the backend registered as `backendName` at call time: what the runner calls
   * for a tool bound to that backend, and what the aggregator's `execute` calls.
   *
   * @remarks
   * The call stops when `options.signal` aborts or `options.deadline` passes, whether the backend
   * listens or not: it rejects at once and the backend's late result is dropped. With a deadline,
   * the backend's `options.signal` also aborts when the deadline passes. Nothing stays attached to
   * the caller's signal once the call has settled.
   *
   * @throws `BACKEND_NOT_FOUND`, `BACKEND_DISABLED`, `INVALID_ARGUMENT` for options that cannot be
   * read, `ABORTED` when the caller's signal aborts (`cause` is its reason), `TIMEOUT` when the
   * deadline passes, or the backend's own failure: a library error as it is, anything else (a
   * rejection, a synchronous throw, a throwing `enabled` getter) as `EXECUTION` with it as `cause`.
   */
  async execute(backendName: string, tool: string, args: Record<string, unknown>, options?: BackendCallOptions): Promise<unknown> {
    const backend = this.#backends.get(backendName);
    if (backend === undefined) throw backendNotFound(backendName);
    if (!isEnabled(backend, backendName)) throw backendDisabled(backendName);
    const id = `${backendName}:${textOf(tool)}`;
    const details = { backend: backendName, tool: textOf(tool) };
    const read = readCallOptions(options);
    const stop = callDeadline(read);
    return settleUnder(
      stop,
      id,
      details,
      () => backend.execute(tool, args, handedOptions(read, stop)),
      (err) => backendFailure(err, `${id} failed`, details),
    );
  }

  /** Every backend with its name, sorted by the name it was registered under (never read again from the backend). */
  #all(): ReadonlyArray<readonly [string, Backend]> {
    this.#sorted ??= [...this.#backends.entries()].sort(([a], [b]) => compareNames(a, b));
    return this.#sorted;
  }
}

/**
 * What a backend is told of a call the runner dispatched: its signal, and its deadline, idempotency
 * key and progress listener when it has them.
 */
function callOptionsOf(ctx: Parameters<BridgedHandler>[1]): BackendCallOptions {
  const options: BackendCallOptions = { signal: ctx.signal };
  const { deadline, idempotencyKey, onProgress } = ctx;
  if (deadline !== undefined) options.deadline = deadline;
  if (idempotencyKey !== undefined) options.idempotencyKey = idempotencyKey;
  if (typeof onProgress === 'function') options.onProgress = onProgress;
  return options;
}

/**
 * The enabled backends of `registry` with the names they were registered under, sorted by name.
 *
 * @throws `EXECUTION` naming the backend whose `enabled` getter throws.
 * @internal
 */
export function enabledBackends(registry: BackendRegistry): Array<readonly [string, Backend]> {
  const enabled: Array<readonly [string, Backend]> = [];
  for (const name of registry.names()) {
    const backend = registry.get(name);
    if (backend !== undefined && isEnabled(backend, name)) enabled.push([name, backend]);
  }
  return enabled;
}

/**
 * Whether `backend` (registered as `name`) is enabled, read once. A backend is the caller's own
 * object: an `enabled` getter that throws is that backend failing, `EXECUTION` naming it.
 */
function isEnabled(backend: Backend, name: string): boolean {
  try {
    return Boolean(backend.enabled);
  } catch (err) {
    throw backendFailure(err, `reading enabled of ${name} failed`, { backend: name, op: 'enabled' });
  }
}

/** The `kind` of `backend` (registered as `name`), read once; a throwing getter is EXECUTION naming it. */
function kindOf(backend: Backend, name: string): unknown {
  try {
    return backend.kind;
  } catch (err) {
    throw backendFailure(err, `reading kind of ${name} failed`, { backend: name, op: 'kind' });
  }
}

/**
 * What `backend` has as `executeStream`: `undefined` when it has no function there, the error
 * when reading it throws (the stream function then reports it).
 */
function streamMethodOf(backend: Backend | undefined): unknown {
  try {
    const open: unknown = (backend as unknown as Record<string, unknown> | undefined)?.executeStream;
    return typeof open === 'function' ? open : undefined;
  } catch (err) {
    return err ?? new Error('executeStream could not be read');
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Creates an empty {@link BackendRegistry}. */
export function createBackendRegistry(): BackendRegistry {
  return new BackendRegistry();
}
