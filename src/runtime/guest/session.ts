/**
 * The host side of one node-guest run over any pair of byte streams: sends the snippet, serves the
 * gateway, captures output under a byte cap, and turns the guest's report, the clock, an abort or
 * the guest's death into one outcome. Backends own only the process (spawn, kill, cleanup).
 */
import type { Readable, Writable } from 'node:stream';
import { ToolexecError } from '../../model/index.js';
import { abortedFailure, settlesWithin, watchDeadline } from '../core/stopping.js';
import { failureFromReport, type RunFailure } from '../core/failure.js';
import { createStreamConnection, DEFAULT_MAX_MESSAGE_BYTES } from '../gateway/stream-connection.js';
import { serveGateway } from '../gateway/server.js';
import type { GuestProgramMessage, GuestStartMessage, WireMessage } from '../gateway/codec.js';
import type { ToolGateway } from '../core/types.js';
import { OutputCapture } from '../core/output-capture.js';
import { FirstSettlement } from '../core/first-settlement.js';

/** How the guest process ended. */
export interface GuestExit {
  /** The exit code; `null` when the process was killed by a signal or never started. */
  code: number | null;
  /** The signal that ended the process (`SIGKILL`, ...); `null` when it exited by itself. */
  signal: string | null;
  /** A spawn error, when the process never started. */
  error?: unknown;
}

/** Options of {@link runGuestSession}. */
export interface GuestSessionOptions {
  /** The guest's stdin. */
  stdin: Writable;
  /** The guest's stdout (the protocol channel). */
  stdout: Readable;
  /** The guest's raw stderr (node's own messages), captured as stderr text. */
  stderr?: Readable;
  /** The prepared JavaScript snippet. */
  code: string;
  /** When set, sent first as `{type:'program', source}` (the stdin loader bootstrap). */
  program?: string;
  /** The gateway the snippet reaches (already wrapped for the run's limits). */
  gateway: ToolGateway;
  /** Wall-clock limit of the run in milliseconds (`TIMEOUT`). */
  timeoutMs: number;
  /** Cap on captured stdout + stderr, in bytes (`RESOURCE_LIMIT`, `limit: 'output'`). */
  maxOutputBytes: number;
  /** Largest gateway protocol message, in bytes. @defaultValue 8 MiB */
  maxMessageBytes?: number;
  /**
   * The run's memory cap in bytes, when the backend holds one: a guest's memory report then says
   * `the snippet needed more than N bytes` (else `more than its memory cap`).
   */
  memoryBytes?: number;
  /** Cancels the run (`ABORTED`). */
  signal?: AbortSignal;
  /**
   * Called once, when the snippet starts: the guest's process (container) is running and the run's
   * clock (`timeoutMs`) starts. A throwing hook does not stop the run.
   */
  onStart?: () => void;
  /** Kills the guest now (its whole process group / container). Called exactly once. */
  terminate: () => void;
  /** Settles when the guest process is gone (awaited only to explain a guest that died without a report). */
  exited: Promise<GuestExit>;
  /** How long to wait for trailing output after the process exits. @defaultValue 100 */
  exitGraceMs?: number;
}

/** A failure, ready for `runtimeError(code, message, { cause, details, result })`. */
export type GuestFailure = RunFailure;

/** What one run produced. */
export interface GuestSessionOutcome {
  /** The snippet's captured stdout (within `maxOutputBytes`). */
  stdout: string;
  /** The captured stderr: the snippet's and node's own. */
  stderr: string;
  /** True when the snippet produced a value (`value` may still be `null`). */
  hasValue: boolean;
  /** The snippet's value, when `hasValue`. */
  value?: unknown;
  /** Why the run failed; absent for a successful run. */
  failure?: GuestFailure;
  /** The tool calls the guest reported still pending when the snippet returned (unchecked). */
  pending?: unknown;
  /** How the guest process ended, when that was observed before the outcome. */
  exit?: GuestExit;
  /** Milliseconds from the start message to the outcome. */
  durationMs: number;
}

type Settlement =
  | { kind: 'result'; hasValue: boolean; value: unknown; pending: unknown }
  | { kind: 'failed'; report: unknown }
  | { kind: 'output' }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'ended' }
  | { kind: 'error'; error: unknown };

const MAX_REMEMBERED_ERRORS = 1000;
const TAIL_CHARS = 2000;

function snippetStack(stack: unknown): string | undefined {
  if (typeof stack !== 'string' || stack === '') return undefined;
  const lines = stack.split('\n');
  const kept = lines.filter((line, i) => i === 0 || line.includes('toolexec-snippet.js'));
  return kept.join('\n').replaceAll('toolexec-snippet.js', 'snippet');
}

/** Maps a guest that ended without a report. */
function failureFromExit(exit: GuestExit | undefined, stderr: string): GuestFailure {
  const tail = stderr.length > TAIL_CHARS ? stderr.slice(-TAIL_CHARS) : stderr;
  if (/heap out of memory|Reached heap limit|Allocation failed/i.test(stderr)) {
    return {
      code: 'RESOURCE_LIMIT',
      message: 'resource limit exceeded: memory (JavaScript heap)',
      details: { limit: 'memory', exitCode: exit?.code ?? null, signal: exit?.signal ?? null },
    };
  }
  if (exit?.error !== undefined) {
    return { code: 'RUNTIME_UNAVAILABLE', message: 'runtime unavailable: the guest process could not start', cause: exit.error };
  }
  const how =
    exit === undefined
      ? 'closed its output'
      : exit.signal !== null
        ? `was killed by ${exit.signal}`
        : `exited with code ${exit.code ?? '?'}`;
  const trimmed = tail.trim();
  return {
    code: 'CODE_EXECUTION',
    message: `the snippet's process ${how} without a result${trimmed === '' ? '' : `: ${trimmed}`}`,
    details: { exitCode: exit?.code ?? null, signal: exit?.signal ?? null, stderrTail: tail },
  };
}

/**
 * Runs one snippet in a node guest whose stdio the caller has already set up.
 *
 * @remarks
 * Settles on the first of: the guest's `result` / `failed` message, output beyond
 * `maxOutputBytes` (`RESOURCE_LIMIT`, `limit: 'output'`), `timeoutMs` (`TIMEOUT`), an abort
 * (`ABORTED`), or the guest ending without a report (`CODE_EXECUTION` with the stderr tail, or
 * `RESOURCE_LIMIT` `memory` for a V8 heap failure). Then it calls `terminate`, aborts in-flight
 * gateway calls and closes the channel; only for a guest that died without a report does it wait
 * (briefly) for the exit status and the rest of stderr. Never rejects.
 *
 * A failure the snippet did not catch that came from a `tools.*` call is reported with that
 * call's error code, and `cause` is the gateway's original error.
 */
export async function runGuestSession(options: GuestSessionOptions): Promise<GuestSessionOutcome> {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const capture = new OutputCapture(options.maxOutputBytes);
  const gatewayErrors = new Map<string, unknown>();
  const connection = createStreamConnection(options.stdout, options.stdin, { maxMessageBytes });
  const start = performance.now();

  const first = new FirstSettlement<Settlement>();
  const finish = (settlement: Settlement) => first.offer(settlement);

  const onMessage = (message: WireMessage) => {
    if (!capture.addMessage(message)) finish({ kind: 'output' });
    else if (message.type === 'result')
      finish({ kind: 'result', hasValue: Object.hasOwn(message, 'value'), value: message.value, pending: message.pending });
    else if (message.type === 'failed') finish({ kind: 'failed', report: message.error });
  };
  const server = serveGateway(options.gateway, connection, {
    onMessage,
    // raw text on the protocol channel (a write that bypassed the capture) is the snippet's stdout
    // (one item per read of raw text, whatever its line count: counted by bytes, never per line)
    onMalformed: (_error, text, bytes) => {
      if (!capture.add('stdout', text, bytes)) finish({ kind: 'output' });
    },
    onRequestError: (id, error) => {
      gatewayErrors.set(id, error);
      if (gatewayErrors.size > MAX_REMEMBERED_ERRORS) {
        const oldest = gatewayErrors.keys().next().value;
        if (oldest !== undefined) gatewayErrors.delete(oldest);
      }
    },
  });

  const onStderr = (chunk: string) => {
    if (!capture.add('stderr', chunk)) finish({ kind: 'output' });
  };
  options.stderr?.setEncoding('utf8');
  options.stderr?.on('data', onStderr);
  const stderrEnded =
    options.stderr === undefined
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          options.stderr?.once('end', resolve);
          options.stderr?.once('close', resolve);
          options.stderr?.once('error', () => resolve());
        });

  const stopWatching = watchDeadline(options.signal, options.timeoutMs, (kind) => finish({ kind }));
  try {
    options.onStart?.();
  } catch {
    // the caller's hook cannot stop the run
  }

  let exit: GuestExit | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  void options.exited.then((value) => {
    exit = value;
    if (value.error !== undefined) finish({ kind: 'ended' });
    else graceTimer = setTimeout(() => finish({ kind: 'ended' }), options.exitGraceMs ?? 100);
  });
  void server.done.then(() => finish({ kind: 'ended' }));

  try {
    if (options.program !== undefined) await connection.send({ type: 'program', source: options.program } satisfies GuestProgramMessage);
    await connection.send({
      type: 'start',
      code: options.code,
      maxResultBytes: Math.max(0, maxMessageBytes - 1024),
      maxMessageBytes,
    } satisfies GuestStartMessage);
  } catch (err) {
    if (ToolexecError.isInstance(err) && err.code === 'PROTOCOL') finish({ kind: 'error', error: err });
    // otherwise the guest is already gone: its end is noticed above
  }

  const settlement = await first.promise;
  const durationMs = performance.now() - start;
  stopWatching();
  try {
    options.terminate();
  } catch {
    // already gone
  }
  await server.close();
  if (graceTimer !== undefined) clearTimeout(graceTimer);
  if (settlement.kind === 'ended') {
    // a crash report needs the exit status and the last of stderr; otherwise the killed guest
    // finishes dying on its own (its exit is still observed by the caller's listener)
    if (exit === undefined && (await settlesWithin(options.exited, 2000))) exit = await options.exited;
    await settlesWithin(stderrEnded, 200);
  }
  options.stderr?.off('data', onStderr);

  const outcome: GuestSessionOutcome = {
    stdout: capture.stdout,
    stderr: capture.stderr,
    hasValue: false,
    durationMs,
    ...(exit === undefined ? {} : { exit }),
  };
  switch (settlement.kind) {
    case 'result':
      outcome.hasValue = settlement.hasValue;
      if (settlement.hasValue) outcome.value = settlement.value;
      if (settlement.pending !== undefined) outcome.pending = settlement.pending;
      break;
    case 'failed':
      outcome.failure = failureFromReport(settlement.report, {
        gatewayErrors,
        timeoutMs: options.timeoutMs,
        maxOutputBytes: options.maxOutputBytes,
        ...(options.memoryBytes !== undefined && options.memoryBytes > 0 ? { memoryBytes: options.memoryBytes } : {}),
        formatStack: snippetStack,
      });
      break;
    case 'output':
      outcome.failure = {
        code: 'RESOURCE_LIMIT',
        message: `resource limit exceeded: output over ${options.maxOutputBytes} bytes`,
        details: { limit: 'output', maxOutputBytes: options.maxOutputBytes },
      };
      break;
    case 'timeout':
      outcome.failure = {
        code: 'TIMEOUT',
        message: `execution timeout: the snippet ran longer than ${options.timeoutMs}ms`,
        details: { timeoutMs: options.timeoutMs },
      };
      break;
    case 'aborted':
      outcome.failure = abortedFailure(options.signal as AbortSignal);
      break;
    case 'error': {
      const error = settlement.error as ToolexecError;
      outcome.failure = { code: error.code, message: error.message, cause: error, ...(error.details ? { details: error.details } : {}) };
      break;
    }
    case 'ended':
      outcome.failure = failureFromExit(exit, capture.stderr);
      break;
  }
  return outcome;
}
