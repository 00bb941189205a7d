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

const registry = globalThis as unknown as Record<symbol, { trace?: unknown; metrics?: unknown } | undefined>;

/**
 * True when a tracer provider or a meter provider is registered with the API: the one check the
 * hot path makes (a global read, no allocation). False when the API is not installed.
 */
export function otelRegistered(): boolean {
  if (otel === undefined) return false;
  const globals = registry[GLOBAL_KEY];
  return globals !== undefined && (globals.trace !== undefined || globals.metrics !== undefined);
}

/** True when a tracer provider is registered (see {@link otelRegistered}). */
export function tracingRegistered(): boolean {
  return otel !== undefined && registry[GLOBAL_KEY]?.trace !== undefined;
}

/** True when a meter provider is registered (see {@link otelRegistered}). */
export function metricsRegistered(): boolean {
  return otel !== undefined && registry[GLOBAL_KEY]?.metrics !== undefined;
}
