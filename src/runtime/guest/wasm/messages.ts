/**
 * The wasm worker's control protocol with its pool (on the worker's `parentPort`), and the data
 * it starts with. Each run also gets its own MessagePort: gateway requests and replies cross it as
 * JSON text (relayed between the VM and the host without parsing), output and the outcome as
 * objects ({@link GuestOutputMessage}, {@link GuestOutcomeMessage}).
 */
import type { MessagePort } from 'node:worker_threads';
import type { GuestOutcomeMessage, GuestOutputMessage } from '../../gateway/codec.js';
import type { WasmModule } from './webassembly.js';

/** The worker's `workerData`. */
export interface WasmWorkerData {
  /** The compiled QuickJS engine. */
  quickjs: WasmModule;
  /** The cancel cell: the seq of a run to stop, polled by the interrupt handler. */
  control: SharedArrayBuffer;
  /**
   * Spin slots shared by the pool's workers (0: free, else the spinning worker's thread id) and
   * how long to spin for a reply before sleeping; absent on one core or when spinning is off.
   */
  replySpin?: { slots: SharedArrayBuffer; ms: number };
  /** The caps of the VM the worker makes before it says `ready` (the backend's defaults). */
  spare?: { memoryBytes: number; maxStackBytes: number };
}

/** Fields every run message has. */
interface RunBase {
  /** The run's sequence number on this worker (never 0). */
  seq: number;
  /** The run's own channel. */
  port: MessagePort;
  /** Counts the replies the host posted on `port`: a waiting worker sleeps on it. */
  replyCell?: Int32Array;
  /** Cap on stdout + stderr, in bytes. */
  maxOutputBytes: number;
}

/** Host → worker: run a snippet in a fresh QuickJS VM. */
export interface JsRunMessage extends RunBase {
  type: 'js';
  /** The prepared snippet (the body of an async function). */
  code: string;
  /** Wall clock of the run, in milliseconds. */
  timeoutMs: number;
  /** The VM's memory cap, in bytes. */
  memoryBytes: number;
  /** The VM's native stack cap, in bytes. */
  maxStackBytes: number;
  /** The largest result, as JSON bytes. */
  maxResultBytes: number;
  /** The largest gateway request, in bytes. */
  maxMessageBytes: number;
}

/** Host → worker: run a raw WASI module. */
export interface WasiRunMessage extends RunBase {
  type: 'wasi';
  /** The compiled module. */
  module: WasmModule;
  /** A descriptor of the null device, the module's stdio as node:wasi sees it. */
  nullFd: number;
}

/** Host → worker: stop run `seq` (sent besides the shared cell, for a VM that is idle). */
export interface CancelMessage {
  type: 'cancel';
  seq: number;
}

/** Host → worker: make a spare VM with these caps now. */
export interface PrepareMessage {
  type: 'prepare';
  memoryBytes: number;
  maxStackBytes: number;
}

/** A control message to the worker. */
export type WorkerControlMessage = JsRunMessage | WasiRunMessage | CancelMessage | PrepareMessage;

/** Worker → host: started, with the engine's versions. */
export interface ReadyMessage {
  type: 'ready';
  versions: Record<string, string>;
}

/**
 * Worker → host: a fresh VM is ready for the next run; `seq` is the last run the worker had
 * received then (0: none yet), so the host can tell a notice that a newer run already used up.
 */
export interface SpareMessage {
  type: 'spare';
  seq: number;
}

/** Worker → host: run `seq` is over and cleaned up. */
export interface IdleMessage {
  type: 'idle';
  seq: number;
}

/** What a run posts on its port besides gateway requests. */
export type RunPortMessage = GuestOutputMessage | GuestOutcomeMessage;
