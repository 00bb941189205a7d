/**
 * The options of the Python (Pyodide) backend and their defaults, resolved once.
 */
import { availableParallelism } from 'node:os';
import { OptionReader, optionError } from '../../core/option-reader.js';
import { resolvePooledOptions, type ResolvedPooledSandboxOptions } from '../../core/pooled-sandbox.js';
import { WASM32_MAX_MEMORY_BYTES } from '../wasm/options.js';
import type { PythonBackendOptions } from './option-types.js';

export type { PythonBackendOptions };

/** Default memory cap of a Python run: 512 MiB (the interpreter starts in about 32 MiB of linear memory from the snapshot; real snippets need more). */
export const DEFAULT_PYTHON_MEMORY_BYTES = 512 * 1024 * 1024;

/** Highest memory cap a request may ask for: 2 GiB. */
export const DEFAULT_PYTHON_MAX_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;

/** Where bubblewrap is looked for. */
export const DEFAULT_BUBBLEWRAP_PATH = '/usr/bin/bwrap';

const MAX_POOL_SIZE = 16;

/** {@link PythonBackendOptions} with every default applied. */
export interface ResolvedPythonOptions extends ResolvedPooledSandboxOptions {
  startupTimeoutMs: number;
  maxRunsPerChild: number;
  snapshot: boolean;
  bubblewrapPath: string;
  pyodideDir: string | undefined;
}

function text(read: OptionReader<PythonBackendOptions>, name: 'bubblewrapPath' | 'pyodideDir'): string | undefined {
  const value = read.raw(name);
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw read.error(name, 'must be a non-empty string', value);
  return value;
}

/**
 * Applies the defaults of {@link PythonBackendOptions}.
 * @throws `CONFIGURATION` naming the first option out of range.
 */
export function resolvePythonOptions(options: PythonBackendOptions = {}): ResolvedPythonOptions {
  if (options === null || typeof options !== 'object') throw optionError('python', 'options', 'must be an object', options);
  const read = new OptionReader('python', options);
  return {
    ...resolvePooledOptions(read, {
      poolSize: Math.max(1, Math.min(4, Math.floor(availableParallelism() / 2))),
      maxPoolSize: MAX_POOL_SIZE,
      memoryBytes: DEFAULT_PYTHON_MEMORY_BYTES,
      maxMemoryBytes: DEFAULT_PYTHON_MAX_MEMORY_BYTES,
      memoryBytesBound: WASM32_MAX_MEMORY_BYTES,
      killGraceMs: 1000,
    }),
    startupTimeoutMs: read.integerUpTo('startupTimeoutMs', 60_000),
    maxRunsPerChild: read.integerUpTo('maxRunsPerChild', 100),
    snapshot: read.boolean('snapshot', true),
    bubblewrapPath: text(read, 'bubblewrapPath') ?? DEFAULT_BUBBLEWRAP_PATH,
    pyodideDir: text(read, 'pyodideDir'),
  };
}
