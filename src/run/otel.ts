/**
 * `@opentelemetry/api`, loaded once if it is installed: an optional peer dependency. Without it
 * every function here answers "off" and the library never tries again.
 *
 * @internal
 * @module
 */
import { createRequire } from 'node:module';
import type * as OtelModule from '@opentelemetry/api';

/** `@opentelemetry/api` as the library uses it. */
export type OtelApi = typeof OtelModule;

/** Where every copy of API v1 keeps its registered globals (`trace`, `metrics`, `context`, ...). */
const GLOBAL_KEY = Symbol.for('opentelemetry.js.api.1');

function load(): OtelApi | undefined {
  try {
    return createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
  } catch {
    return undefined;
  }
}

/** The API, or `undefined` when `@opentelemetry/api` is not installed. */
export const otel: OtelApi | undefined = load();

type Globals = { trace?: unknown; metrics?: unknown };
const registry = globalThis as unknown as Record<symbol, Globals | undefined>;

/**
 * The API's global container, once it exists (the API creates it on the first registration and
 * never replaces it). Read through a module variable: a symbol-keyed read of `globalThis` costs
 * ~20 ns, a large share of a ~70 ns call.
 */
let globals: Globals | undefined = otel === undefined ? undefined : registry[GLOBAL_KEY];
/** True while {@link globals} may still appear without our noticing (the watch below could not be set). */
let unwatched = false;

if (otel !== undefined && globals === undefined) {
  // Nothing registered yet: learn of the container when the API first stores it. The accessor
  // reads `undefined` until then and turns itself back into the plain data property the API
  // writes, so the API (any copy of v1) sees exactly what it would without it.
  try {
    Object.defineProperty(globalThis, GLOBAL_KEY, {
      configurable: true,
      enumerable: false,
      get: () => undefined,
      set: (value: Globals | undefined) => {
        Object.defineProperty(globalThis, GLOBAL_KEY, { value, writable: true, configurable: true, enumerable: true });
        globals = value;
      },
    });
  } catch {
    unwatched = true;
  }
}

function current(): Globals | undefined {
  if (globals === undefined && unwatched) globals = registry[GLOBAL_KEY];
  return globals;
}

/**
 * True when a tracer provider or a meter provider is registered with the API: the one check the
 * hot path makes (module-variable reads, no allocation). False when the API is not installed.
 */
export function otelRegistered(): boolean {
  const g = globals ?? (unwatched ? current() : undefined);
  return g !== undefined && (g.trace !== undefined || g.metrics !== undefined);
}

/** True when a tracer provider is registered (see {@link otelRegistered}). */
export function tracingRegistered(): boolean {
  return current()?.trace !== undefined;
}

/** True when a meter provider is registered (see {@link otelRegistered}). */
export function metricsRegistered(): boolean {
  return current()?.metrics !== undefined;
}
