/**
 * The component worker's run message (host → worker on the pool's control port). The run's own
 * MessagePort carries gateway requests (JSON text) and replies, and the outcome, as for the wasm
 * worker's runs.
 */
import type { MessagePort } from 'node:worker_threads';

/** Host → worker: instantiate a transpiled component afresh and call its `run` export once. */
export interface ComponentRunMessage {
  type: 'component';
  /** The run's sequence number on this worker (never 0). */
  seq: number;
  /** The run's own channel. */
  port: MessagePort;
  /** Counts the replies the host posted on `port`: a guest blocked in a host call sleeps on it. */
  replyCell: Int32Array;
  /** sha256 of the component (the key of the worker's cache of `instantiate` functions). */
  hash: string;
  /** The body of a function that returns jco's `instantiate` (see the host's transpile.ts). */
  js: string;
  /** The compiled core modules, by file name. */
  modules: Record<string, object>;
  /** The JSON text passed to `run`. */
  inputJson: string;
  /** Each linear memory's cap, in bytes (to tell a memory bomb from another trap). */
  memoryBytes: number;
  /** Largest `run` result, in UTF-8 bytes. */
  maxResultBytes: number;
  /** Largest gateway request, in bytes. */
  maxMessageBytes: number;
}
