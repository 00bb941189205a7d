/**
 * What a hostile or careless caller hands a public function, and the one check every fuzzed entry
 * point must pass: it returns or throws a ToolexecError (synchronous functions), or, for a function
 * that returns a promise, never throws synchronously and settles in time with a value or a
 * ToolexecError. Async iterables are drained the same way.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { ToolexecError } from '../../src/model/index.js';

/** Runs per property: bounded so that the whole suite stays well under a minute on 2 cores (`FUZZ_RUNS` overrides). */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);

/** The keys the library reads from options, tools, backends, schemas and requests. */
const KEYS = [
  'signal',
  'timeoutMs',
  'deadline',
  'onProgress',
  'idempotencyKey',
  'retry',
  'maxAttempts',
  'code',
  'language',
  'profile',
  'metadata',
  'limits',
  'gateway',
  'name',
  'namespace',
  'version',
  'description',
  'tags',
  'inputSchema',
  'outputSchema',
  'annotations',
  'kind',
  'local',
  'mcp',
  'provider',
  'serverName',
  'providerId',
  'toolId',
  'args',
  'usePrevious',
  'argsFrom',
  'stopOnError',
  'type',
  'properties',
  'required',
  'items',
  '$ref',
  'id',
  'level',
  'limit',
  'tools',
  'index',
  'docs',
  'runner',
  'summary',
  'examples',
] as const;

function throwing(what: string): () => never {
  return () => {
    throw new Error(`hostile ${what}`);
  };
}

/** An object whose `toString`, `valueOf` and `Symbol.toPrimitive` throw. */
function primitiveBomb(): object {
  return { toString: throwing('toString'), valueOf: throwing('valueOf'), [Symbol.toPrimitive]: throwing('toPrimitive') };
}

/** An object whose getter for `key` (and for every listed key when `key` is undefined) throws. */
function getterBomb(key?: string): object {
  const target: Record<string, unknown> = {};
  for (const k of key === undefined ? KEYS : [key]) Object.defineProperty(target, k, { get: throwing(`getter ${k}`), enumerable: true });
  return target;
}

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/** A proxy every trap of which throws. */
function trapBomb(): object {
  const trap = throwing('trap');
  return new Proxy(
    {},
    {
      get: trap,
      has: trap,
      ownKeys: trap,
      getOwnPropertyDescriptor: trap,
      getPrototypeOf: trap,
      set: trap,
      defineProperty: trap,
      deleteProperty: trap,
      isExtensible: trap,
      preventExtensions: trap,
      setPrototypeOf: trap,
    },
  );
}

/** A string of 5 MB: where an options object belongs it must be refused at once, not spread. */
export const HUGE_STRING = 'x'.repeat(5 * 1024 * 1024);

/**
 * A hostile value as plain data, made real by {@link materialize} inside the property: fast-check
 * itself inspects and prints the values it generates, and a revoked proxy or a throwing getter
 * would break it rather than the code under test.
 */
export class Hostile {
  constructor(
    readonly kind:
      'nullProto' | 'primitiveBomb' | 'getterBomb' | 'allGetters' | 'revoked' | 'trapBomb' | 'huge' | 'invalidDate' | 'symbol' | 'function',
    readonly key?: string,
  ) {}

  toJSON(): string {
    return `<${this.kind}${this.key === undefined ? '' : ` ${this.key}`}>`;
  }
}

function make(marker: Hostile): unknown {
  switch (marker.kind) {
    case 'nullProto':
      return Object.create(null) as object;
    case 'primitiveBomb':
      return primitiveBomb();
    case 'getterBomb':
      return getterBomb(marker.key);
    case 'allGetters':
      return getterBomb();
    case 'revoked':
      return revokedProxy();
    case 'trapBomb':
      return trapBomb();
    case 'huge':
      return HUGE_STRING;
    case 'invalidDate':
      return new Date(Number.NaN);
    case 'symbol':
      return Symbol('hostile');
    case 'function':
      return () => undefined;
  }
}

/** The real values behind a generated one: markers become hostile objects, containers are copied. */
export function materialize(value: unknown, depth = 0): unknown {
  if (value instanceof Hostile) return make(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => materialize(item, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const copy = Object.create(proto) as Record<string, unknown>;
  for (const key of Object.keys(value)) copy[key] = materialize((value as Record<string, unknown>)[key], depth + 1);
  return copy;
}

const special: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .constantFrom('nullProto', 'primitiveBomb', 'allGetters', 'revoked', 'trapBomb', 'huge', 'invalidDate', 'symbol', 'function')
    .map((kind) => new Hostile(kind as Hostile['kind'])),
  fc.constantFrom(...KEYS).map((key) => new Hostile('getterBomb', key)),
  fc.constantFrom(Number.NaN, -1, 0, -0, Infinity, -Infinity, 1e308, Number.MAX_SAFE_INTEGER + 2, 0.5, -1e-9),
  fc.constantFrom(new Date(0), 10n, '', ' ', '\u0000', '__proto__', 'constructor', 'a:b', 'ns:name:1.0.0'),
);

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, maxDepth: 2 }) },
  { weight: 3, arbitrary: special },
  { weight: 1, arbitrary: fc.string() },
);

/**
 * Any value a caller could pass: plain data, wrong types, and hostile objects (also nested under
 * the keys the library reads). Generated as data: call {@link materialize} on it in the property.
 */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: leaf },
  { weight: 2, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), leaf, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.array(leaf, { maxLength: 3 }) },
  {
    weight: 1,
    arbitrary: fc.dictionary(fc.constantFrom(...KEYS), fc.dictionary(fc.constantFrom(...KEYS), leaf, { maxKeys: 3 }), { maxKeys: 3 }),
  },
);

/** How long a fuzzed call may take to settle before it counts as a hang. */
const SETTLE_MS = 5_000;

function isLibraryError(err: unknown): boolean {
  return ToolexecError.isInstance(err);
}

function describeFailure(label: string, how: string, err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : typeof err;
  return `${label} ${how}: ${text.slice(0, 300)}`;
}

async function settle<T>(promise: PromiseLike<T>, label: string): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label} did not settle within ${SETTLE_MS} ms`)), SETTLE_MS);
  });
  try {
    return { ok: true, value: await Promise.race([promise, hang]) };
  } catch (error) {
    if (error instanceof Error && error.message.startsWith(`${label} did not settle`)) throw error;
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}

/** A synchronous public function: it returns, or throws a ToolexecError. */
export function expectSyncContract(label: string, call: () => unknown): void {
  try {
    call();
  } catch (err) {
    expect(isLibraryError(err), describeFailure(label, 'threw a non-ToolexecError', err)).toBe(true);
  }
}

/** A function returning a promise: never a synchronous throw; it settles in time, with a value or a ToolexecError. */
export async function expectAsyncContract(label: string, call: () => unknown): Promise<void> {
  let out: unknown;
  try {
    out = call();
  } catch (err) {
    expect.fail(describeFailure(label, 'threw synchronously', err));
  }
  expect(out, `${label} returned no promise`).toBeInstanceOf(Promise);
  const outcome = await settle(out as Promise<unknown>, label);
  if (!outcome.ok)
    expect(isLibraryError(outcome.error), describeFailure(label, 'rejected with a non-ToolexecError', outcome.error)).toBe(true);
}

/** A function returning an async iterable: creating it never throws; iterating it yields or throws a ToolexecError, in time. */
export async function expectStreamContract(label: string, call: () => unknown): Promise<void> {
  let out: unknown;
  try {
    out = call();
  } catch (err) {
    expect.fail(describeFailure(label, 'threw synchronously', err));
  }
  const iterator = (out as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  for (let i = 0; i < 20; i++) {
    const outcome = await settle(iterator.next(), label);
    if (!outcome.ok) {
      expect(isLibraryError(outcome.error), describeFailure(label, 'failed with a non-ToolexecError', outcome.error)).toBe(true);
      return;
    }
    if (outcome.value.done === true) return;
  }
  await iterator.return?.();
}
