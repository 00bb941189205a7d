import { layerErrors } from '../model/internal.js';
import { createLocalBackend, type BackendRegistry, type LocalBackend } from '../backend/index.js';
import type { LocalHandler, LocalRegistry } from './types.js';

const errors = layerErrors('run');

/**
 * A local handler store, optionally pre-filled (`{ name: handler }` or `[name, handler]` pairs): a
 * {@link LocalBackend} named `local`, the one store of local tools. Register more with
 * `registerHandler(name, handler)`; the runner sees them at the next call.
 *
 * @throws `INVALID_ARGUMENT` for an empty name or a handler that is not a function.
 */
export function createLocalRegistry(handlers?: Record<string, LocalHandler> | Iterable<readonly [string, LocalHandler]>): LocalBackend {
  const store = createLocalBackend('local');
  if (handlers === undefined || handlers === null) return store;
  const entries = isIterable(handlers) ? handlers : Object.entries(handlers);
  for (const [name, handler] of entries) {
    if (typeof handler !== 'function') throw errors.invalidArgument(`local handler "${String(name)}"`, 'must be a function');
    store.registerHandler(name, handler);
  }
  return store;
}

/**
 * Where the runner finds local handlers: its `local` option, then its `backends` registry
 * (`backend:tool` names). A {@link LocalRegistry} (anything with a `get` function, except a
 * record holding a tool named `get` among others) is used as is; a plain record is read live
 * through its own properties only, so `toString` or `__proto__` never resolve to a handler.
 *
 * @internal
 */
export function localRegistryOf(
  local: LocalRegistry | Record<string, LocalHandler> | undefined,
  backends: BackendRegistry | undefined,
): LocalRegistry | undefined {
  const own = local === undefined || local === null ? undefined : toLocalRegistry(local);
  if (backends === undefined) return own;
  const bridged = backends.localRegistry() as LocalRegistry;
  return own === undefined ? bridged : layered(own, bridged);
}

function toLocalRegistry(local: LocalRegistry | Record<string, LocalHandler>): LocalRegistry {
  return isRegistry(local) ? (local as LocalRegistry) : new RecordRegistry(local as Record<string, LocalHandler>);
}

/**
 * A registry has a `get` function. A plain object whose own `get` sits beside other handlers is a
 * record that happens to hold a tool named `get` (`{ get: …, echo: … }`), not a registry; a plain
 * object whose only own key is `get` is read as a registry literal (`{ get: (name) => … }`).
 */
function isRegistry(local: object): boolean {
  if (typeof (local as { get?: unknown }).get !== 'function') return false;
  if (!Object.hasOwn(local, 'get')) return true;
  const proto: unknown = Object.getPrototypeOf(local);
  if (proto !== Object.prototype && proto !== null) return true;
  return Object.keys(local).length === 1;
}

/** The first registry's handler for a name, else the second's. */
function layered(first: LocalRegistry, second: LocalRegistry): LocalRegistry {
  return {
    get(name: string): LocalHandler | undefined {
      const handler = first.get(name);
      return typeof handler === 'function' ? handler : second.get(name);
    },
  };
}

/**
 * A plain record read live, own properties only. The last handler found is remembered with its
 * name: while the record still holds that same function under that name, the own-property check
 * (which costs more than the rest of the lookup) is not repeated.
 */
class RecordRegistry implements LocalRegistry {
  readonly #record: Record<string, LocalHandler>;
  #lastName: string | undefined;
  #last: LocalHandler | undefined;

  constructor(record: Record<string, LocalHandler>) {
    this.#record = record;
    this.#lastName = undefined;
    this.#last = undefined;
  }

  get(name: string): LocalHandler | undefined {
    const value = this.#record[name];
    if (value === this.#last && value !== undefined && name === this.#lastName) return value;
    return this.#own(name, value);
  }

  /** `value` (read as `record[name]`) when it is the record's own property, remembered when it is a function. */
  #own(name: string, value: LocalHandler | undefined): LocalHandler | undefined {
    if (!Object.hasOwn(this.#record, name)) return undefined;
    if (typeof value === 'function') {
      this.#lastName = name;
      this.#last = value;
    }
    return value;
  }
}

function isIterable(value: unknown): value is Iterable<readonly [string, LocalHandler]> {
  return typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}
