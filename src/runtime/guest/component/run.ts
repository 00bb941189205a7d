/**
 * One component run in the worker: a fresh instance of the transpiled component (so a trap in an
 * earlier run leaves nothing behind), `run` called once with the input's JSON text, one outcome
 * posted on the run's port.
 */
import type { MessagePort } from 'node:worker_threads';
import type { GuestFailureReport } from '../../gateway/codec.js';
import { HostCalls } from './host-calls.js';
import type { ComponentRunMessage } from './messages.js';

type Instantiate = (
  getCoreModule: (file: string) => object,
  imports: Record<string, Record<string, unknown>>,
  instantiateCore: (module: object, imports?: Record<string, unknown>) => { exports: Record<string, unknown> },
) => { run: (input: string) => unknown };

interface WebAssemblyApi {
  Instance: new (module: object, imports?: Record<string, unknown>) => { exports: Record<string, unknown> };
  Memory: abstract new (...args: never[]) => { buffer: ArrayBuffer; grow(pages: number): number };
  RuntimeError: abstract new (...args: never[]) => Error;
}
const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

/** jco `instantiate` functions by component hash; the oldest is forgotten past this many. */
const MAX_CACHED = 32;
const instantiators = new Map<string, Instantiate>();

function instantiatorOf(message: ComponentRunMessage): Instantiate {
  let fn = instantiators.get(message.hash);
  if (fn === undefined) {
    // the source is jco's generated bindings (made on the host), not guest code
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    fn = new Function(message.js)() as Instantiate;
    instantiators.set(message.hash, fn);
    if (instantiators.size > MAX_CACHED) instantiators.delete(instantiators.keys().next().value as string);
  }
  return fn;
}

function post(port: MessagePort, message: unknown): void {
  try {
    port.postMessage(message);
  } catch {
    // the host closed the run's port
  }
}

/** Room under the cap below which a trap counts as running out of memory: an eighth of the cap, at least 1 MiB. */
function slackBytes(memoryBytes: number): number {
  return Math.max(memoryBytes / 8, 1024 * 1024);
}

/**
 * True when a memory of the run is at (or within {@link slackBytes} of) its cap: the guest's
 * allocator asked for more, `memory.grow` said no, and the guest trapped (as Rust, C and QuickJS
 * allocators do). A large request refused with room left still counts, a small trap far from the
 * cap does not.
 */
function nearMemoryCap(memories: readonly { buffer: ArrayBuffer }[], memoryBytes: number): boolean {
  return memories.some((memory) => memory.buffer.byteLength + slackBytes(memoryBytes) > memoryBytes);
}

function failureOf(
  error: unknown,
  memories: readonly { buffer: ArrayBuffer; grow(pages: number): number }[],
  memoryBytes: number,
): GuestFailureReport {
  const used = memories.reduce((most, m) => Math.max(most, m.buffer.byteLength), 0);
  const extra = memories.length === 0 ? {} : { memoryBytes: used };
  const payload = (error as { payload?: unknown } | null)?.payload;
  if (error !== null && typeof error === 'object' && Object.hasOwn(error, 'payload') && typeof payload === 'string') {
    // the component returned err(message)
    return { name: 'Error', message: payload, ...extra };
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError && /call stack/i.test(message)) {
    return { name: 'RangeError', message: 'Maximum call stack size exceeded', limit: 'stack', ...extra };
  }
  if (error instanceof wasm.RuntimeError) {
    const text = /^wasm trap/.test(message) ? message : `wasm trap: ${message}`;
    if (nearMemoryCap(memories, memoryBytes)) {
      return { name: 'RuntimeError', message: `${text} (at the ${memoryBytes}-byte memory cap)`, limit: 'memory', ...extra };
    }
    return { name: 'RuntimeError', message: text, ...extra };
  }
  return { name: error instanceof Error ? error.name : 'Error', message, ...extra };
}

/** Runs the component of `message`; calls `onIdle(seq)` once the run is over. */
export function runComponent(message: ComponentRunMessage, onIdle: (seq: number) => void): void {
  const { port } = message;
  const memories: InstanceType<WebAssemblyApi['Memory']>[] = [];
  try {
    const host = new HostCalls(port, message.replyCell, message.maxMessageBytes);
    const instantiate = instantiatorOf(message);
    const getCoreModule = (file: string): object => {
      const module = message.modules[file];
      if (module === undefined) throw new Error(`missing core module ${file}`);
      return module;
    };
    const instantiateCore = (module: object, imports?: Record<string, unknown>) => {
      const instance = new wasm.Instance(module, imports);
      for (const value of Object.values(instance.exports)) if (value instanceof wasm.Memory) memories.push(value);
      return instance;
    };
    const component = instantiate(getCoreModule, { 'toolexec:sandbox/host': host.imports() }, instantiateCore);
    const value = component.run(message.inputJson);
    if (typeof value !== 'string') throw new TypeError('run returned no string');
    const bytes = Buffer.byteLength(value);
    if (bytes > message.maxResultBytes) {
      post(port, {
        type: 'failed',
        error: {
          name: 'RangeError',
          message: `the component's result is ${bytes} bytes, over the ${message.maxResultBytes}-byte limit`,
          limit: 'output',
        },
      });
    } else {
      let json = value;
      try {
        JSON.parse(value);
      } catch {
        json = JSON.stringify(value);
      }
      post(port, { type: 'result', json });
    }
  } catch (error) {
    post(port, { type: 'failed', error: failureOf(error, memories, message.memoryBytes) });
  }
  port.removeAllListeners('message');
  onIdle(message.seq);
}
