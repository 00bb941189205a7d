/**
 * The host side of one run on a pooled wasm worker: takes a worker, opens the run's own
 * MessagePort (gateway protocol + output + the outcome), enforces the wall clock, the abort signal
 * and the output cap, and gives the worker back, or kills and replaces it when it cannot stop.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { ToolexecError } from '../../../model/index.js';
import { noop } from '../../../model/internal.js';
import { abortedFailure, settlesWithin, watchDeadline } from '../../core/stopping.js';
import { serveGateway, type GatewayServer } from '../../gateway/server.js';
import { createMessagePortConnection, type MessagePortLike } from '../../gateway/message-port-connection.js';
import type { WireMessage } from '../../gateway/wire.js';
import type { ToolGateway } from '../../core/types.js';
import { failureFromReport, memoryFailure, outputFailure, timeoutFailure, type RunFailure } from '../../core/failure.js';
import type { WorkerPool } from './pool.js';
import type { PoolWorker, WorkerDeath } from './pool-worker.js';
import { OutputCapture } from '../../core/output-capture.js';
import { FirstSettlement } from '../../core/first-settlement.js';

/** One run to do on a worker. */
export interface WorkerRunSpec {
  /** `js`: a snippet in a fresh QuickJS VM; `wasi`: a raw WASI module; `component`: a component (its own pool). */
  kind: 'js' | 'wasi' | 'component';
  /** The run message's fields (besides `type`, `seq`, `port`). */
  payload: Record<string, unknown>;
  /** The gateway served on the run's port (js runs). */
  gateway?: ToolGateway;
  /** The run's wall clock, counted from when it gets a worker. */
  timeoutMs: number;
  /** The longest wait for a free worker (`TIMEOUT` with `details.phase: 'queue'`). */
  queueTimeoutMs: number;
  /** Called once the run has a worker and its clock starts. */
  onStart?: () => void;
  maxOutputBytes: number;
  memoryBytes: number;
  killGraceMs: number;
  /**
   * True when the worker can stop the run itself (QuickJS's interrupt handler): a cancelled run
   * gets `killGraceMs` to stop before its worker is terminated. False (WASI): terminate at once.
   */
  interruptible: boolean;
  signal?: AbortSignal;
}

/** What a run produced. */
export interface WorkerRunOutcome {
  stdout: string;
  stderr: string;
  /** True when the run produced a value (`value` may still be `null`). */
  hasValue: boolean;
  value?: unknown;
  failure?: RunFailure;
  /** The tool calls the guest reported still pending when the snippet returned (unchecked). */
  pending?: unknown;
  /** Extra facts from the worker (WASI: `exitCode`, `memoryBytes`). */
  info: Record<string, unknown>;
  /** The engine versions of the worker that ran it. */
  versions?: Record<string, string>;
  /** True when the worker had to be terminated to stop this run. */
  killed: boolean;
}

/** How long a worker that reported its run's outcome may take to report itself idle. */
const IDLE_AFTER_OUTCOME_MS = 2_000;

type Settlement =
  | { kind: 'result'; message: WireMessage }
  | { kind: 'failed'; report: unknown }
  | { kind: 'output' }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'died'; death: WorkerDeath }
  | { kind: 'error'; error: unknown };

function deathFailure(death: WorkerDeath, memoryBytes: number): RunFailure {
  const error = death.error;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return { ...memoryFailure(memoryBytes, 'the sandbox worker ran out of memory'), cause: error };
  }
  const why = error instanceof Error ? error.message : `it exited with code ${death.exitCode ?? '?'}`;
  return {
    code: 'RUNTIME_UNAVAILABLE',
    message: `runtime unavailable: the wasm sandbox worker stopped unexpectedly (${why})`,
    ...(error === undefined ? {} : { cause: error }),
  };
}

/** What an idle snippet was waiting on when it timed out (from the worker's last report). */
function waitingOf(report: unknown): Record<string, unknown> {
  const waiting = (report as { waiting?: unknown } | null | undefined)?.waiting;
  if (waiting === null || typeof waiting !== 'object') return {};
  const { toolCalls, timers } = waiting as { toolCalls?: unknown; timers?: unknown };
  if (typeof toolCalls !== 'number' || typeof timers !== 'number') return {};
  return {
    waiting: { toolCalls, timers },
    ...(toolCalls === 0 && timers === 0 ? { hint: 'the snippet was awaiting a promise that nothing could settle' } : {}),
  };
}

/**
 * Runs `spec` on a worker from `pool`. Never rejects: every failure is in `outcome.failure`.
 *
 * @remarks
 * The wait for a worker is bounded by `queueTimeoutMs` (and the caller's signal); the wall clock
 * starts when the run has its worker, so time spent queued behind other runs never counts against
 * a snippet's own deadline. On a timeout, an abort or output beyond the cap,
 * the run is cancelled (shared cell + message) and gets `killGraceMs` to stop and flush its last
 * output; a worker that does not stop in time (a long builtin starving the interrupt handler, a
 * WASI module in a loop) is terminated and replaced. In-flight gateway calls are aborted. After a
 * run that reported its outcome, the outcome is returned at once and the worker goes back to the
 * pool when it reports itself idle (replaced if it does not within 2 s).
 */
export async function runOnWorker(pool: WorkerPool, spec: WorkerRunSpec): Promise<WorkerRunOutcome> {
  const capture = new OutputCapture(spec.maxOutputBytes);
  const gatewayErrors = new Map<string, unknown>();
  const first = new FirstSettlement<Settlement>();
  const finish = (settlement: Settlement) => first.offer(settlement);
  let sawTerminal!: () => void;
  const terminal = new Promise<void>((resolve) => {
    sawTerminal = resolve;
  });
  const info: Record<string, unknown> = {};
  let lastReport: unknown;

  let stopWatching = noop;
  let worker: PoolWorker | undefined;
  try {
    worker = await pool.acquire(spec.signal, spec.queueTimeoutMs);
  } catch (error) {
    finish({ kind: 'error', error });
  }
  if (worker !== undefined) {
    // the snippet's own clock starts now, with its worker
    stopWatching = watchDeadline(spec.signal, spec.timeoutMs, (kind) => finish({ kind }));
    if (spec.onStart !== undefined && !first.settled) {
      try {
        spec.onStart();
      } catch {
        // the caller's hook cannot stop the run
      }
    }
  }

  let server: GatewayServer | undefined;
  let port: MessagePort | undefined;
  let seq = 0;
  let idle: Promise<void> | undefined;
  let unsubscribe: () => void = () => undefined;
  let sawDeath!: () => void;
  const death = new Promise<void>((resolve) => {
    sawDeath = resolve;
  });
  if (worker !== undefined && !first.settled) {
    const running = worker;
    seq = running.nextSeq();
    idle = running.whenIdle(seq);
    const channel = new MessageChannel();
    port = channel.port1;
    // Counts the replies posted to the worker: a worker waiting on a tool call sleeps on it (a futex
    // wake) and takes the reply off the port at once, instead of a trip through its event loop.
    const replyCell = new Int32Array(new SharedArrayBuffer(4));
    const replyPort = channel.port1;
    const notifyingPort: MessagePortLike = {
      postMessage(value) {
        replyPort.postMessage(value);
        Atomics.add(replyCell, 0, 1);
        Atomics.notify(replyCell, 0);
      },
      on: (event: 'message' | 'close', listener: (value: unknown) => void) => replyPort.on(event, listener),
      off: (event: 'message' | 'close', listener: (value: unknown) => void) => replyPort.off(event, listener),
      close: () => replyPort.close(),
    };
    const onMessage = (message: WireMessage) => {
      if (!capture.addMessage(message)) finish({ kind: 'output' });
      else if (message.type === 'result' || message.type === 'failed') {
        sawTerminal();
        if (message.type === 'result') finish({ kind: 'result', message });
        else {
          lastReport = message.error;
          finish({ kind: 'failed', report: message.error });
        }
      }
    };
    if (spec.gateway !== undefined) {
      const maxMessageBytes = spec.payload.maxMessageBytes;
      const connection = createMessagePortConnection(notifyingPort, {
        encoding: 'json',
        ...(typeof maxMessageBytes === 'number' ? { maxMessageBytes } : {}),
      });
      server = serveGateway(spec.gateway, connection, {
        // the guest never cancels a single call; the run's end (server close) aborts them all
        cancellableRequests: false,
        onMessage,
        onRequestError: (id, error) => {
          gatewayErrors.set(id, error);
        },
      });
    } else {
      channel.port1.on('message', (message: unknown) => {
        if (message !== null && typeof message === 'object') onMessage(message as WireMessage);
      });
    }
    unsubscribe = running.onDeath((gone) => {
      sawDeath();
      finish({ kind: 'died', death: gone });
    });
    try {
      running.post({ type: spec.kind, seq, port: channel.port2, replyCell, ...spec.payload }, [channel.port2]);
    } catch (error) {
      finish({ kind: 'error', error });
    }
  }

  const settlement = await first.promise;
  stopWatching();

  let killed = false;
  if (worker !== undefined) {
    const running = worker;
    const finished = settlement.kind === 'result' || settlement.kind === 'failed';
    let healthy = !running.dead && settlement.kind !== 'died' && settlement.kind !== 'error';
    if (healthy && !finished && seq !== 0) {
      // timeout, abort or output cap: stop the run, let it flush what it printed
      running.cancel(seq);
      healthy = spec.interruptible && (await settlesWithin(Promise.race([terminal, death]), spec.killGraceMs)) && !running.dead;
    }
    if (server !== undefined) await server.close();
    else port?.close();
    // The worker goes back to the pool once it reports itself idle, or is replaced.
    const giveBack = async (): Promise<boolean> => {
      let ok = healthy;
      if (ok && idle !== undefined) ok = await settlesWithin(idle, finished ? IDLE_AFTER_OUTCOME_MS : spec.killGraceMs);
      unsubscribe();
      if (ok && !running.dead) pool.release(running);
      else pool.discard(running);
      return !ok || running.dead;
    };
    // A run that reported its outcome is over for its caller: the worker's idle report, which can
    // arrive a millisecond after the outcome on a busy machine, is awaited in the background.
    if (finished && healthy) void giveBack().catch(noop);
    else killed = await giveBack();
  }

  const outcome: WorkerRunOutcome = { stdout: capture.stdout, stderr: capture.stderr, hasValue: false, info, killed };
  if (worker !== undefined && Object.keys(worker.versions).length > 0) outcome.versions = worker.versions;
  const context = { gatewayErrors, timeoutMs: spec.timeoutMs, maxOutputBytes: spec.maxOutputBytes, memoryBytes: spec.memoryBytes };
  switch (settlement.kind) {
    case 'result': {
      const message = settlement.message;
      if (typeof message.json === 'string') {
        try {
          outcome.value = JSON.parse(message.json) as unknown;
          outcome.hasValue = true;
        } catch (error) {
          outcome.failure = { code: 'CODE_EXECUTION', message: 'the result is not valid JSON', cause: error };
        }
      }
      if (message.pending !== undefined) outcome.pending = message.pending;
      if (typeof message.exitCode === 'number') info.exitCode = message.exitCode;
      if (typeof message.memoryBytes === 'number') info.memoryBytesUsed = message.memoryBytes;
      break;
    }
    case 'failed':
      outcome.failure = failureFromReport(settlement.report, context);
      break;
    case 'output':
      outcome.failure = outputFailure(spec.maxOutputBytes);
      break;
    case 'timeout':
      outcome.failure = timeoutFailure(spec.timeoutMs, { ...(killed ? { killed: true } : {}), ...waitingOf(lastReport) });
      break;
    case 'aborted':
      outcome.failure = abortedFailure(spec.signal as AbortSignal);
      break;
    case 'died':
      outcome.failure = pool.closed
        ? { code: 'RUNTIME_UNAVAILABLE', message: 'runtime unavailable: the wasm backend was closed during the run' }
        : deathFailure(settlement.death, spec.memoryBytes);
      break;
    case 'error': {
      const { error } = settlement;
      if (ToolexecError.isInstance(error)) {
        outcome.failure = {
          code: error.code,
          message: error.message,
          cause: error,
          ...(error.details === undefined ? {} : { details: error.details }),
        };
      } else {
        const reason = error instanceof Error ? error.message : String(error);
        outcome.failure = { code: 'RUNTIME_UNAVAILABLE', message: `runtime unavailable: ${reason}`, cause: error };
      }
      break;
    }
  }
  return outcome;
}
