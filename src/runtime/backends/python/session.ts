/**
 * The host side of one Python run on a pooled child: sends `start`, serves the run's gateway on
 * the child's stdio (the same server and codec every guest uses), captures output under the cap,
 * and turns the child's report, the clock, an abort or the child's death into one outcome.
 */
import { PassThrough } from 'node:stream';
import { failureFromReport, memoryFailure, outputFailure, timeoutFailure, type RunFailure } from '../../core/failure.js';
import { FirstSettlement } from '../../core/first-settlement.js';
import { OutputCapture } from '../../core/output-capture.js';
import { abortedFailure, watchDeadline } from '../../core/stopping.js';
import { noop } from '../../../model/internal.js';
import type { ToolGateway } from '../../core/types.js';
import { serveGateway } from '../../gateway/server.js';
import { createStreamConnection } from '../../gateway/stream-connection.js';
import type { WireMessage } from '../../gateway/codec.js';
import { resultLimitReport, type PythonStartMessage } from '../../guest/python/messages.js';
import type { PythonChild } from './child.js';

/** One run's parameters. */
export interface PythonRunSpec {
  code: string;
  gateway: ToolGateway;
  timeoutMs: number;
  /** How long after `timeoutMs` a child that did not stop itself is killed. */
  killGraceMs: number;
  maxOutputBytes: number;
  maxMessageBytes: number;
  memoryBytes: number;
  signal?: AbortSignal;
  /** Called when the run's clock starts (after the run's own deadline is set, so it fires first). */
  onStart?: () => void;
  /** True once the backend is closing: a child that dies then was killed by the close, not by its snippet. */
  closed?: () => boolean;
}

/** What one run produced, in the shape `RunRecord.settle` takes. */
export interface PythonRunOutcome {
  stdout: string;
  stderr: string;
  hasValue: boolean;
  value?: unknown;
  failure?: RunFailure;
  /** True when the child can serve another run. */
  reusable: boolean;
  /** True when the host killed the child. */
  killed: boolean;
}

type Settlement =
  | { kind: 'result'; json: unknown }
  | { kind: 'failed'; report: unknown; fatal: boolean }
  | { kind: 'output' }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'ended' };

const MAX_REMEMBERED_ERRORS = 1000;
/** Failures after which a child is replaced rather than reused. */
const STOPPED_BY_LIMIT: ReadonlySet<string> = new Set(['TIMEOUT', 'RESOURCE_LIMIT', 'ABORTED']);

/** Keeps only the snippet's frames of a Python traceback (the prelude's are never there). */
function pythonStack(stack: string): string | undefined {
  return stack === '' ? undefined : stack.trimEnd();
}

/** The value's JSON text as the child sends it, in parts (see `PythonResultMessage`), under the result cap. */
class ResultParts {
  readonly #parts: string[] = [];
  #length = 0;
  readonly #maxBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /**
   * Adds the `json` of a `result_part` or `result`; false once the text is longer than the cap (a
   * UTF-16 unit is at least one byte of UTF-8, so it is over the cap in bytes too; the child checks
   * the exact size before it sends).
   */
  add(json: unknown): boolean {
    if (typeof json === 'string') {
      this.#parts.push(json);
      this.#length += json.length;
    }
    return this.#maxBytes <= 0 || this.#length <= this.#maxBytes;
  }

  /** The value's JSON text; `undefined` when none came (a run without a value). */
  get text(): string | undefined {
    return this.#parts.length === 0 ? undefined : this.#parts.join('');
  }
}

/** Runs one snippet on `child`. Never rejects. */
export async function runOnChild(child: PythonChild, spec: PythonRunSpec): Promise<PythonRunOutcome> {
  const proc = child.process;
  const stdout = proc.stdout as NonNullable<typeof proc.stdout>;
  const stdin = proc.stdin as NonNullable<typeof proc.stdin>;
  // a run's own pair of streams over the child's stdio: closing the run's connection leaves the child's pipes open
  const input = new PassThrough();
  const output = new PassThrough();
  const forwardIn = (chunk: Buffer) => input.write(chunk);
  const forwardOut = (chunk: Buffer) => stdin.write(chunk);
  stdout.on('data', forwardIn);
  output.on('data', forwardOut);

  const capture = new OutputCapture(spec.maxOutputBytes);
  const gatewayErrors = new Map<string, unknown>();
  const first = new FirstSettlement<Settlement>();
  const finish = (settlement: Settlement) => first.offer(settlement);
  // the value's JSON is capped at the message cap: by default 8 MiB, the JavaScript sandbox's `maxResultBytes`
  const maxResultBytes = spec.maxMessageBytes;
  const result = new ResultParts(maxResultBytes);
  const connection = createStreamConnection(input, output, { maxMessageBytes: spec.maxMessageBytes });
  const server = serveGateway(spec.gateway, connection, {
    cancellableRequests: false,
    onMessage: (message: WireMessage) => {
      if (!capture.addMessage(message)) finish({ kind: 'output' });
      else if (message.type === 'result_part' || message.type === 'result') {
        if (!result.add(message.json)) finish({ kind: 'failed', report: resultLimitReport(maxResultBytes), fatal: true });
        else if (message.type === 'result') finish({ kind: 'result', json: result.text });
      } else if (message.type === 'failed') finish({ kind: 'failed', report: message.error, fatal: message.fatal === true });
    },
    onRequestError: (id, error) => {
      gatewayErrors.set(id, error);
      if (gatewayErrors.size > MAX_REMEMBERED_ERRORS) {
        const oldest = gatewayErrors.keys().next().value;
        if (oldest !== undefined) gatewayErrors.delete(oldest);
      }
    },
  });
  // The child stops itself at `timeoutMs` (its interrupt buffer); the host kills it after the grace.
  // The host's clock starts before the caller's (`onStart`): a caller whose own clock has the same
  // timeout (the code executor) finds the run past its deadline here when it aborts, and the run
  // fails with the timeout, as in the other sandboxes.
  let stopGrace = noop;
  const stopWatching = watchDeadline(spec.signal, spec.timeoutMs, (kind) => {
    if (kind === 'aborted') {
      finish({ kind });
      return;
    }
    // past the deadline: a caller's abort now is the timeout too
    stopGrace = watchDeadline(spec.signal, spec.killGraceMs, () => finish({ kind: 'timeout' }));
  });
  const stopClocks = () => {
    stopWatching();
    stopGrace();
  };
  void child.exited.then(() => finish({ kind: 'ended' }));
  try {
    spec.onStart?.();
  } catch {
    // the caller's hook cannot stop the run
  }

  const start: PythonStartMessage = {
    type: 'start',
    code: spec.code,
    timeoutMs: spec.timeoutMs,
    maxOutputBytes: spec.maxOutputBytes,
    maxResultBytes,
    maxMessageBytes: spec.maxMessageBytes,
  };
  stdin.write(`${JSON.stringify(start)}\n`);

  const settlement = await first.promise;
  stopClocks();
  const settled = settlement.kind === 'result' || (settlement.kind === 'failed' && !settlement.fatal);
  if (!settled) child.kill();
  stdout.off('data', forwardIn);
  await server.close();
  output.off('data', forwardOut);

  const outcome: PythonRunOutcome = {
    stdout: capture.stdout,
    stderr: capture.stderr,
    hasValue: false,
    reusable: settled,
    killed: !settled,
  };
  switch (settlement.kind) {
    case 'result':
      if (typeof settlement.json === 'string') {
        try {
          outcome.value = JSON.parse(settlement.json) as unknown;
          outcome.hasValue = true;
        } catch (err) {
          outcome.failure = { code: 'PROTOCOL', message: 'the Python sandbox sent a value that is not JSON', cause: err };
          outcome.reusable = false;
        }
      }
      break;
    case 'failed': {
      outcome.failure = failureFromReport(settlement.report, {
        gatewayErrors,
        timeoutMs: spec.timeoutMs,
        maxOutputBytes: spec.maxOutputBytes,
        memoryBytes: spec.memoryBytes,
        formatStack: pythonStack,
      });
      // a run stopped by a limit (time, memory, output, stack) leaves the interpreter in whatever
      // state it was: start afresh; a failed tool call or an exception is an ordinary end
      if (settlement.fatal || STOPPED_BY_LIMIT.has(outcome.failure.code)) outcome.reusable = false;
      break;
    }
    case 'output':
      outcome.failure = outputFailure(spec.maxOutputBytes);
      break;
    case 'timeout':
      outcome.failure = timeoutFailure(spec.timeoutMs, { killed: true });
      break;
    case 'aborted':
      outcome.failure = abortedFailure(spec.signal as AbortSignal);
      break;
    case 'ended': {
      const exit = await child.exited;
      const tail = child.stderrTail;
      outcome.failure = /memory|OOM/i.test(tail)
        ? memoryFailure(spec.memoryBytes, `the snippet needed more than ${spec.memoryBytes} bytes: out of memory`, {
            exitCode: exit.code,
            signal: exit.signal,
          })
        : spec.closed?.() === true
          ? { code: 'RUNTIME_UNAVAILABLE', message: 'runtime unavailable: the python backend was closed during the run' }
          : {
              code: 'CODE_EXECUTION',
              message: `the Python sandbox process ended without a result (${exit.signal ?? `exit code ${exit.code ?? '?'}`})`,
              details: { exitCode: exit.code, signal: exit.signal, stderrTail: tail.slice(-2000) },
            };
      break;
    }
  }
  return outcome;
}
