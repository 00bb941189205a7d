/**
 * The options of the Python (Pyodide) backend and their defaults, resolved once.
 */
import { availableParallelism } from 'node:os';
import { DEFAULT_TIMEOUT_MS } from '../../../model/internal.js';
import { optionError } from '../../core/option-reader.js';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_MAX_SOURCE_BYTES, DEFAULT_MAX_TIMEOUT_MS } from '../../core/request.js';
import type { PythonBackendOptions } from './option-types.js';

export type { PythonBackendOptions };

/** Default memory cap of a Python run: 512 MiB (the interpreter starts in about 32 MiB of linear memory from the snapshot; real snippets need more). */
export const DEFAULT_PYTHON_MEMORY_BYTES = 512 * 1024 * 1024;

/** Highest memory cap a request may ask for: 2 GiB. */
export const DEFAULT_PYTHON_MAX_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;

/** Where bubblewrap is looked for. */
export const DEFAULT_BUBBLEWRAP_PATH = '/usr/bin/bwrap';

const MAX_POOL_SIZE = 16;
/** wasm32's largest linear memory. */
const WASM32_MAX_BYTES = 4 * 1024 * 1024 * 1024;

/** {@link PythonBackendOptions} with every default applied. */
export interface ResolvedPythonOptions {
  poolSize: number;
  queueTimeoutMs: number;
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  defaultMemoryBytes: number;
  maxMemoryBytes: number;
  defaultMaxOutputBytes: number;
  maxSourceBytes: number;
  maxMessageBytes: number;
  killGraceMs: number;
  startupTimeoutMs: number;
  maxRunsPerChild: number;
  snapshot: boolean;
  bubblewrapPath: string;
  pyodideDir: string | undefined;
}

function positiveInteger(name: string, value: number | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > max) {
    throw optionError('python', name, `must be an integer between 1 and ${max}`, value);
  }
  return value;
}

function text(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw optionError('python', name, 'must be a non-empty string', value);
  return value;
}

/**
 * Applies the defaults of {@link PythonBackendOptions}.
 * @throws `CONFIGURATION` naming the first option out of range.
 */
export function resolvePythonOptions(options: PythonBackendOptions = {}): ResolvedPythonOptions {
  if (options === null || typeof options !== 'object') throw optionError('python', 'options', 'must be an object', options);
  const maxTimeoutMs = positiveInteger('maxTimeoutMs', options.maxTimeoutMs, DEFAULT_MAX_TIMEOUT_MS);
  const maxMemoryBytes = positiveInteger('maxMemoryBytes', options.maxMemoryBytes, DEFAULT_PYTHON_MAX_MEMORY_BYTES, WASM32_MAX_BYTES);
  if (options.snapshot !== undefined && typeof options.snapshot !== 'boolean') {
    throw optionError('python', 'snapshot', 'must be a boolean', options.snapshot);
  }
  const pool = Math.max(1, Math.min(4, Math.floor(availableParallelism() / 2)));
  return {
    poolSize: positiveInteger('poolSize', options.poolSize, pool, MAX_POOL_SIZE),
    queueTimeoutMs: positiveInteger('queueTimeoutMs', options.queueTimeoutMs, Math.min(DEFAULT_TIMEOUT_MS, maxTimeoutMs), maxTimeoutMs),
    defaultTimeoutMs: positiveInteger(
      'defaultTimeoutMs',
      options.defaultTimeoutMs,
      Math.min(DEFAULT_TIMEOUT_MS, maxTimeoutMs),
      maxTimeoutMs,
    ),
    maxTimeoutMs,
    defaultMemoryBytes: positiveInteger(
      'defaultMemoryBytes',
      options.defaultMemoryBytes,
      Math.min(DEFAULT_PYTHON_MEMORY_BYTES, maxMemoryBytes),
      maxMemoryBytes,
    ),
    maxMemoryBytes,
    defaultMaxOutputBytes: positiveInteger('defaultMaxOutputBytes', options.defaultMaxOutputBytes, DEFAULT_MAX_OUTPUT_BYTES),
    maxSourceBytes: positiveInteger('maxSourceBytes', options.maxSourceBytes, DEFAULT_MAX_SOURCE_BYTES),
    maxMessageBytes: positiveInteger('maxMessageBytes', options.maxMessageBytes, 8 * 1024 * 1024),
    killGraceMs: positiveInteger('killGraceMs', options.killGraceMs, 1000),
    startupTimeoutMs: positiveInteger('startupTimeoutMs', options.startupTimeoutMs, 60_000),
    maxRunsPerChild: positiveInteger('maxRunsPerChild', options.maxRunsPerChild, 100),
    snapshot: options.snapshot ?? true,
    bubblewrapPath: text('bubblewrapPath', options.bubblewrapPath) ?? DEFAULT_BUBBLEWRAP_PATH,
    pyodideDir: text('pyodideDir', options.pyodideDir),
  };
}
