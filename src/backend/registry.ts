import type { ToolexecError } from '../model/index.js';
import { guardCall, textOf } from '../model/internal.js';
import { callDeadline, handedOptions, readCallOptions, settleUnder } from './call-deadline.js';
import { backendDisabled, backendFailure, backendNotFound, errors } from './failures.js';
import { parseBackendToolId } from './tool-id.js';
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
    if (this.#backends.has(name)) {
      throw errors('BACKEND_EXISTS', `backend already registered: ${name}`, { details: { backend: name } });
    }
    this.#backends.set(name, backend);
    this.#sorted = undefined;
  }

  /**
   * Removes a backend and stops it (a failing `stop` is ignored). The backend is gone
   * from the registry at once; the promise settles when `stop` has. True when it existed.
   */
  async unregister(name: string): Promise<boolean> {
    const backend = this.#backends.get(name);
    if (backend === undefined) return false;
    this.#backends.delete(name);
    this.#sorted = undefined;
    try {
      await backend.stop?.();
    } catch {
      // The backend is gone either way; its failure to stop has nowhere to go.
    }
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

  /** The backends whose `kind` is exactly `kind`, sorted by name. */
  listByKind(kind: string): Backend[] {
    return this.#all()
      .filter(([, backend]) => backend.kind === kind)
      .map(([, backend]) => backend);
  }

  /** The backend names (as registered), sorted. */
  names(): string[] {
    return this.#all().map(([name]) => name);
  }

  /**
   * Starts the enabled backends in name order; stops at the first failure and rejects with it.
   */
  async startAll(options?: BackendCallOptions): Promise<void> {
    for (const backend of this.listEnabled()) {
      try {
        await backend.start?.(options);
      } catch (err) {
        throw backendFailure(err, `start ${backend.name} failed`, { backend: backend.name, op: 'start' });
      }
    }
  }

  /**
   * Stops every backend (enabled or not) in name order. A failure does not leave the
   * rest running: all are stopped, then the first failure is the rejection.
   */
  async stopAll(): Promise<void> {
    let first: ToolexecError | undefined;
    for (const backend of this.list()) {
      try {
        await backend.stop?.();
      } catch (err) {
        first ??= backendFailure(err, `stop ${backend.name} failed`, { backend: backend.name, op: 'stop' });
      }
    }
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
        return (args, ctx) => this.execute(target.backend, target.tool, args, callOptionsOf(ctx));
      },
    };
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

/** What a backend is told of a call the runner dispatched: its signal, and its deadline and idempotency key when it has them. */
function callOptionsOf(ctx: Parameters<BridgedHandler>[1]): BackendCallOptions {
  const options: BackendCallOptions = { signal: ctx.signal };
  const { deadline, idempotencyKey } = ctx;
  if (deadline !== undefined) options.deadline = deadline;
  if (idempotencyKey !== undefined) options.idempotencyKey = idempotencyKey;
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

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Creates an empty {@link BackendRegistry}. */
export function createBackendRegistry(): BackendRegistry {
  return new BackendRegistry();
}
