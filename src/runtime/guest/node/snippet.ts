/**
 * Runs the node guest's one snippet: compiles it as the body of an async function, awaits its
 * value and reports the outcome (`result` or `failed`) exactly once.
 */
import { Script, constants } from 'node:vm';
import type {
  GuestFailureReport,
  GuestOutcomeMessage,
  GuestPendingCall,
  GuestResultMessage,
  GuestStartMessage,
} from '../../gateway/codec.js';
import { JSONParse, sliceOf } from '../shared/primordials.js';
import { resultJson } from '../shared/result.js';

/** The file name the snippet's frames carry (the host keeps only those frames). */
const SNIPPET_FILE = 'toolexec-snippet.js';
/** The longest stack a report carries, in characters. */
const MAX_STACK_CHARS = 4096;

/** What a run reports through. */
export interface SnippetHost {
  /** Sends the one outcome message and ends the guest. */
  finish(message: GuestOutcomeMessage): void;
  /** The request id of a failed tool call's error (see the tools bridge). */
  requestIdOf(error: unknown): string | undefined;
  /** The tool calls not answered yet (see the tools bridge). */
  pendingCalls(): GuestPendingCall[];
}

/** A thrown value seen as an object with optional error fields. */
type Thrown = { name?: unknown; message?: unknown; code?: unknown; stack?: unknown; limit?: unknown } | null;

/** Reports the snippet's failures and runs it. */
export class SnippetRun {
  readonly #host: SnippetHost;
  #codeLines = 1;

  constructor(host: SnippetHost) {
    this.#host = host;
  }

  #clampLine(line: number): number {
    return Math.min(Math.max(line, 1), this.#codeLines);
  }

  /** The snippet line and column an error points at, from its stack. */
  #locate(error: Thrown, syntax: boolean): { line?: number; column?: number } {
    const stack = error !== null && typeof error.stack === 'string' ? error.stack : '';
    if (syntax) {
      // a SyntaxError's stack starts with `file:line`, the source line and a caret under the column
      const m = /^[^\n]*toolexec-snippet\.js:(\d+)\n([^\n]*)\n([^\n^]*)\^/.exec(stack);
      if (m !== null) return { line: this.#clampLine(Number(m[1])), column: (m[3] ?? '').length + 1 };
    }
    const m = /toolexec-snippet\.js:(\d+):(\d+)/.exec(stack);
    if (m !== null) return { line: this.#clampLine(Number(m[1])), column: Number(m[2]) };
    return {};
  }

  /** Reports `error` as the run's failure. */
  fail(error: unknown, syntax = false): void {
    const isObject = error !== null && typeof error === 'object';
    const thrown = (isObject ? error : null) as Thrown;
    const report: GuestFailureReport = {
      name: thrown !== null && typeof thrown.name === 'string' ? thrown.name : 'Error',
      message: thrown !== null && typeof thrown.message === 'string' ? thrown.message : String(error),
      ...this.#locate(thrown, syntax),
    };
    if (syntax) report.phase = 'compile';
    if (thrown !== null && typeof thrown.code === 'string') report.code = thrown.code;
    const requestId = this.#host.requestIdOf(error);
    if (requestId !== undefined) report.requestId = requestId;
    if (thrown !== null && typeof thrown.stack === 'string') report.stack = sliceOf(thrown.stack, 0, MAX_STACK_CHARS);
    if (error instanceof RangeError && /call stack size/i.test(error.message)) report.limit = 'stack';
    else if (thrown !== null && !(error instanceof Error) && typeof thrown.limit === 'string') {
      report.limit = thrown.limit as GuestFailureReport['limit'];
    }
    this.#host.finish({ type: 'failed', error: report });
  }

  /** Compiles and runs the snippet of `message`, then reports its value or its failure. */
  async start(message: Partial<GuestStartMessage>): Promise<void> {
    const code = typeof message.code === 'string' ? message.code : '';
    const maxResultBytes = typeof message.maxResultBytes === 'number' ? message.maxResultBytes : Infinity;
    this.#codeLines = code.split('\n').length;
    let snippet: () => Promise<unknown>;
    try {
      const script = new Script(`(async function () {\n${code}\n})`, {
        filename: SNIPPET_FILE,
        lineOffset: -1,
        // unsafe means unsafe: `await import('node:fs')` works where the host allows it (Node >= 20.12)
        ...(constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER === undefined
          ? {}
          : { importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }),
      });
      snippet = script.runInThisContext() as () => Promise<unknown>;
    } catch (error) {
      this.fail(error, true);
      return;
    }
    let value: unknown;
    try {
      value = await snippet();
    } catch (error) {
      this.fail(error);
      return;
    }
    let text: string | null | undefined;
    try {
      text = resultJson(value, maxResultBytes);
    } catch (error) {
      this.fail({ name: 'TypeError', message: `the result is not JSON-serializable: ${(error as Error).message}` });
      return;
    }
    if (text === null || (text !== undefined && Buffer.byteLength(text) > maxResultBytes)) {
      this.fail({ name: 'RangeError', message: `the result is larger than ${maxResultBytes} bytes`, limit: 'result' });
      return;
    }
    const result: GuestResultMessage = text === undefined ? { type: 'result' } : { type: 'result', value: JSONParse(text) as unknown };
    // calls the snippet started and never awaited (a missing `await`?): the host reports them
    const pending = this.#host.pendingCalls();
    if (pending.length > 0) result.pending = pending;
    this.#host.finish(result);
  }
}
