/**
 * The wasm worker: a pooled worker_thread that runs snippets for the `wasm` runtime backend, each
 * JavaScript run in a fresh QuickJS VM ({@link JsRun}), each WASI module with node:wasi
 * ({@link runWasi}), one run at a time. Bundled into `wasm-worker.mjs`; the pool starts it from
 * that file.
 *
 * Control (`parentPort`): runs, cancels and `prepare` in ({@link WorkerControlMessage}); `ready`
 * once (a first VM already made), then `idle` after each run and `spare` each time a fresh VM is
 * ready for the next run (the pool prefers such a worker, so a run rarely waits for a VM). A cancel is also signalled through the shared cell
 * (`workerData.control[0] = seq`) that the interrupt handler polls, so a busy VM stops without
 * waiting for this thread's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { QuickJS } from 'quickjs-wasi';
import { layerErrors } from '../../../model/internal.js';
import { JsRun } from './js-run.js';
import type { IdleMessage, ReadyMessage, SpareMessage, WasmWorkerData, WorkerControlMessage } from './messages.js';
import { ReplyWait } from './reply-wait.js';
import { SandboxMaker, compilePrelude } from './sandbox.js';
import { runWasi } from './wasi-run.js';

const port = parentPort;
if (port === null) throw layerErrors('runtime')('RUNTIME_UNAVAILABLE', 'the wasm worker runs in a worker thread only');

// this thread's stdout/stderr are the host's: node:wasi's ExperimentalWarning stays out of them
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = function (warning: string | Error, ...rest: unknown[]) {
  const message: unknown = typeof warning === 'string' ? warning : (warning as { message?: unknown } | null)?.message;
  const text = typeof message === 'string' ? message : '';
  if (/WASI/.test(text)) return undefined;
  return (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
};

const data = workerData as WasmWorkerData;

/** The run in progress, if any (a WASI run cannot be cancelled from here: the pool terminates it). */
let current: { cancel(seq: number): void } | undefined;
/** The seq of the last run received (0: none yet). */
let lastSeq = 0;

const onIdle = (seq: number) => {
  current = undefined;
  port.postMessage({ type: 'idle', seq } satisfies IdleMessage);
};

// a first VM reports the engine's versions and compiles the prelude every run's VM loads
const probe = await QuickJS.create({ wasm: data.quickjs });
const versions = probe.versions;
const prelude = compilePrelude(probe);
probe.dispose();

const context = {
  sandboxes: new SandboxMaker(data.quickjs, prelude, () => port.postMessage({ type: 'spare', seq: lastSeq } satisfies SpareMessage)),
  replyWait: new ReplyWait(data.replySpin),
  cancelCell: new Int32Array(data.control),
  onIdle,
};

port.on('message', (message: WorkerControlMessage | null) => {
  if (message === null || typeof message !== 'object') return;
  switch (message.type) {
    case 'js': {
      lastSeq = message.seq;
      const run = new JsRun(message, context);
      current = run;
      void run.start();
      return;
    }
    case 'wasi':
      lastSeq = message.seq;
      current = { cancel: () => undefined };
      void runWasi(message, onIdle);
      return;
    case 'cancel':
      current?.cancel(message.seq);
      return;
    case 'prepare':
      void context.sandboxes.prepare(message.memoryBytes, message.maxStackBytes);
      return;
    default:
      return;
  }
});

// the first run finds a VM ready: the pool hands out a worker only after this message
if (data.spare !== undefined) await context.sandboxes.prepare(data.spare.memoryBytes, data.spare.maxStackBytes);
port.postMessage({ type: 'ready', versions } satisfies ReadyMessage);
