/**
 * The component worker: a pooled worker_thread that runs WebAssembly components for the `wasm`
 * backend, one run at a time, each in a fresh instance ({@link runComponent}). Bundled into
 * `component-worker.mjs`; the backend's component pool starts it from that file with an empty
 * environment. It imports no WASI shim: a component gets the host interface and nothing else.
 *
 * Control (`parentPort`): runs in, `ready` once, then `idle` after each run out. A run cannot be
 * interrupted (WebAssembly has no preemption): the host terminates the worker at the deadline.
 */
import { parentPort } from 'node:worker_threads';
import type { ComponentRunMessage } from './messages.js';
import { runComponent } from './run.js';

const port = parentPort;
if (port === null) throw new Error('the component worker runs in a worker thread only');

const onIdle = (seq: number) => port.postMessage({ type: 'idle', seq });

port.on('message', (message: ComponentRunMessage | null) => {
  if (message === null || typeof message !== 'object' || message.type !== 'component') return;
  runComponent(message, onIdle);
});

port.postMessage({ type: 'ready', versions: { node: process.versions.node } });
