/**
 * How a facade hands its telemetry configuration (redaction paths, event sink) to the runner it
 * creates, without a public runner option: a symbol-keyed field of the runner options.
 *
 * @internal
 * @module
 */
import { defaultTelemetryConfig, type TelemetryConfig } from './telemetry.js';
import type { RunnerOptions } from './types.js';

export type { TelemetryConfig };

const TELEMETRY_CONFIG = Symbol('toolexec.telemetryConfig');

/** `options` carrying `config` for the runner made from them. */
export function withTelemetryConfig(options: RunnerOptions, config: TelemetryConfig): RunnerOptions {
  return Object.assign({ ...options }, { [TELEMETRY_CONFIG]: config });
}

/** The configuration `options` carry, or the defaults (default redaction, no listeners). */
export function telemetryConfigOf(options: RunnerOptions): TelemetryConfig {
  return (options as { [TELEMETRY_CONFIG]?: TelemetryConfig })[TELEMETRY_CONFIG] ?? defaultTelemetryConfig();
}
