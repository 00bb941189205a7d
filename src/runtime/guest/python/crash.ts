/**
 * A fatal error of the Pyodide interpreter in the child (a wasm trap such as an out-of-bounds
 * access, the engine's own stack overflowing): Pyodide then writes a stack dump to the standard
 * output the snippet's `print` goes to. That dump is the interpreter's, not the snippet's, so once
 * the fatal error begins it is kept here (bounded) instead of being sent as output, and the run's
 * failure is classified from the error: a memory or stack limit, or a crash.
 */
import type { GuestFailureReport } from '../../gateway/codec.js';
import { wasm } from '../wasm/webassembly.js';

/** What a run stopped by a limit says, whatever the interpreter said: the JavaScript sandbox's messages (docs/limits.md). */
export const LIMIT_TEXT = { memory: 'out of memory', stack: 'Maximum call stack size exceeded' } as const;

/** The most of the dump kept while it is written, in UTF-16 units. */
const DUMP_KEEP_CHARS = 16 * 1024;
/** The most of the dump reported (the snippet's frames), as the Docker guest bounds a stack. */
const DUMP_REPORT_CHARS = 4096;
/** A frame of the snippet in the dump (`  File "<snippet>", line 3 in f`). */
const SNIPPET_FRAME = /^ {2}File "<snippet>", line \d+ in \S+$/;

interface PyodideInternals {
  fatal_error?: (error: unknown) => never;
}

/** Output the interpreter writes once it has failed fatally. */
export class FatalDump {
  #fatal = false;
  #text = '';

  /** True once Pyodide's fatal error handler was entered (the interpreter is done for). */
  get fatal(): boolean {
    return this.#fatal;
  }

  /**
   * Wraps Pyodide's fatal error handler (`pyodide._api.fatal_error`, which every path of a fatal
   * error goes through before it writes its dump) so that what follows is kept here.
   */
  watch(api: unknown): void {
    const internals = api as PyodideInternals | undefined;
    const handler = internals?.fatal_error;
    if (internals === undefined || typeof handler !== 'function') return;
    internals.fatal_error = (error: unknown) => {
      this.#fatal = true;
      return handler(error);
    };
  }

  /** Keeps `text` (written after the fatal error) up to the bound. */
  add(text: string): void {
    if (this.#text.length < DUMP_KEEP_CHARS) this.#text += text.slice(0, DUMP_KEEP_CHARS - this.#text.length);
  }

  /** The dump's header and the snippet's frames, printable and bounded; `undefined` when it has none. */
  snippetStack(): string | undefined {
    const lines = this.#text.split('\n').map((line) => line.replace(/[^\t\x20-\x7e\u00a0-\uffff]/g, ''));
    const frames = lines.filter((line) => SNIPPET_FRAME.test(line));
    if (frames.length === 0) return undefined;
    return ['Stack (most recent call first):', ...frames].join('\n').slice(0, DUMP_REPORT_CHARS);
  }
}

/**
 * The report of a run whose interpreter call threw: the memory limit (an allocation the
 * interpreter could not survive), the stack limit (the engine's stack overflowed: C recursion,
 * `json.dumps` of a value thousands of levels deep) or, after a fatal error, a crash
 * (`RuntimeError: the Python interpreter crashed: wasm trap: ...`) with the snippet's frames of the
 * dump as its stack. A wasm trap's "memory access out of bounds" is a bad pointer, not the cap.
 */
export function interpreterFailure(err: unknown, dump: FatalDump): GuestFailureReport {
  const message = err instanceof Error ? err.message : String(err);
  if (/memory(?! access out of bounds)|OOM|Aborted/i.test(message))
    return { name: 'MemoryError', message: LIMIT_TEXT.memory, limit: 'memory' };
  if (err instanceof RangeError && /call stack/i.test(message)) return { name: 'RangeError', message: LIMIT_TEXT.stack, limit: 'stack' };
  if (!dump.fatal) return { name: 'Error', message };
  const trap = err instanceof wasm.RuntimeError ? 'wasm trap' : err instanceof Error ? err.name : 'Error';
  const report: GuestFailureReport = {
    name: 'RuntimeError',
    message: `the Python interpreter crashed: ${trap}: ${message.split('\n')[0] ?? ''}`,
  };
  const stack = dump.snippetStack();
  if (stack !== undefined) report.stack = stack;
  return report;
}
