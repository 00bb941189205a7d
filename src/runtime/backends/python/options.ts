/**
 * The options of the Python (Pyodide) backend and their defaults, resolved once.
 */
import { availableParallelism } from 'node:os';
import { DEFAULT_TIMEOUT_MS } from '../../../model/internal.js';
import { optionError } from '../../core/option-reader.js';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_MAX_SOURCE_BYTES, DEFAULT_MAX_TIMEOUT_MS } from '../../core/request.js';

/** Default memory cap of a Python run: 512 MiB (Pyodide needs about 160 MiB to start). */
export const DEFAULT_PYTHON_MEMORY_BYTES = 512 * 1024 * 1024;

/** Highest memory cap a request may ask for: 2 GiB. */
export const DEFAULT_PYTHON_MAX_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;

/** Where bubblewrap is looked for. */
export const DEFAULT_BUBBLEWRAP_PATH = '/usr/bin/bwrap';

const MAX_POOL_SIZE = 16;
/** wasm32's largest linear memory. */
const WASM32_MAX_BYTES = 4 * 1024 * 1024 * 1024;

/** Options of {@link createPythonBackend}. */
export interface PythonBackendOptions {
  /** Child processes kept warm, each running one snippet at a time. @defaultValue half the cores, 1 to 4 */
  poolSize?: number;
  /** How long a run may wait for a free child before it fails (`TIMEOUT`, `details.phase: 'queue'`). @defaultValue 30000 */
  queueTimeoutMs?: number;
  /** Wall-clock limit of a run whose request has none, in milliseconds. @defaultValue 30000 */
  defaultTimeoutMs?: number;
  /** Highest `timeoutMs` / `queueTimeoutMs` a request may ask for (`INVALID_LIMITS` above). @defaultValue 600000 */
  maxTimeoutMs?: number;
  /** Memory cap of a run whose request has no `limits.memoryBytes`: the interpreter's linear memory maximum. @defaultValue 512 MiB */
  defaultMemoryBytes?: number;
  /** Highest `limits.memoryBytes` a request may ask for (`INVALID_LIMITS` above). @defaultValue 2 GiB */
  maxMemoryBytes?: number;
  /** stdout + stderr cap of a run whose request has none. @defaultValue 1 MiB */
  defaultMaxOutputBytes?: number;
  /** Largest snippet source, in UTF-8 bytes (`LIMIT_EXCEEDED`, `limit: 'sourceBytes'`). @defaultValue 1 MiB */
  maxSourceBytes?: number;
  /** Largest message between host and child (a tool result, the snippet's value). @defaultValue 8 MiB */
  maxMessageBytes?: number;
  /** How long after its deadline a child that did not stop itself is killed, in milliseconds. @defaultValue 1000 */
  killGraceMs?: number;
  /** How long a new child may take to load Pyodide, in milliseconds. @defaultValue 60000 */
  startupTimeoutMs?: number;
  /** Runs one child serves before it is replaced by a fresh one. @defaultValue 100 */
  maxRunsPerChild?: number;
  /** Start children from a memory snapshot made once per backend (false: every child starts cold). @defaultValue true */
  snapshot?: boolean;
  /** The bubblewrap binary. @defaultValue '/usr/bin/bwrap' */
  bubblewrapPath?: string;
  /** The Pyodide package's directory. @defaultValue resolved from the `pyodide` package */
  pyodideDir?: string;
}

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
