/**
 * One raw WASI run in the worker: a module instantiated with node:wasi, its stdio captured into
 * the run's output (within the cap), never the host's descriptors, and one outcome posted.
 */
import type { WASI } from 'node:wasi';
import type { MessagePort } from 'node:worker_threads';
import type { GuestFailureReport } from '../../gateway/codec.js';
import type { WasiRunMessage } from './messages.js';
import { Output, post } from './output.js';
import { wasm, type WasmInstance } from './webassembly.js';

/** Thrown out of `fd_write` when the output cap is exceeded. */
const OUTPUT_STOP = Symbol('output limit');
const ERRNO_SUCCESS = 0;
const ERRNO_BADF = 8;
const ERRNO_FAULT = 21;
const ERRNO_NOSYS = 52;

type WasiImport = (...args: number[]) => number;

let wasiModule: Promise<{ WASI: typeof WASI }> | undefined;

/** The instance's memory size, in bytes. */
function memoryBytesOf(instance: WasmInstance | undefined): number | undefined {
  const memory = instance?.exports.memory;
  return memory instanceof wasm.Memory ? memory.buffer.byteLength : undefined;
}

function wasiFailure(error: unknown, memoryBytes: number | undefined): GuestFailureReport {
  const extra = memoryBytes === undefined ? {} : { memoryBytes };
  if (error === OUTPUT_STOP) return { name: 'RangeError', message: 'output limit exceeded', limit: 'output', what: 'console', ...extra };
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError && /call stack/i.test(message)) {
    return { name: 'RangeError', message: 'Maximum call stack size exceeded', limit: 'stack', ...extra };
  }
  if (error instanceof wasm.RuntimeError) return { name: 'RuntimeError', message: `wasm trap: ${message}`, ...extra };
  if (error instanceof wasm.LinkError) return { name: 'LinkError', message, ...extra };
  return { name: error instanceof Error ? error.name : 'Error', message, ...extra };
}

/** Runs the module of `message` to its end; calls `onIdle(seq)` once the run is over. */
export async function runWasi(message: WasiRunMessage, onIdle: (seq: number) => void): Promise<void> {
  const port: MessagePort = message.port;
  const output = new Output(port, message.maxOutputBytes);
  const decoders = { 1: new TextDecoder(), 2: new TextDecoder() };
  let instance: WasmInstance | undefined;
  try {
    wasiModule ??= import('node:wasi');
    const { WASI } = await wasiModule;
    const fd = message.nullFd;
    const wasi = new WASI({ version: 'preview1', args: [], env: {}, preopens: {}, returnOnExit: true, stdin: fd, stdout: fd, stderr: fd });
    const base = (wasi.getImportObject() as { wasi_snapshot_preview1: Record<string, WasiImport> }).wasi_snapshot_preview1;
    const memoryOf = () => {
      const memory = instance?.exports.memory;
      return memory instanceof wasm.Memory ? memory : undefined;
    };
    const imports: Record<string, WasiImport> = {
      ...base,
      fd_write(fdNum, iovs, iovsLen, nwrittenPtr) {
        if (fdNum !== 1 && fdNum !== 2) return ERRNO_BADF;
        const memory = memoryOf();
        if (memory === undefined) return ERRNO_BADF;
        const size = memory.buffer.byteLength;
        const view = new DataView(memory.buffer);
        if (iovs < 0 || iovs + iovsLen * 8 > size || nwrittenPtr < 0 || nwrittenPtr + 4 > size) return ERRNO_FAULT;
        const stream = fdNum === 1 ? 'stdout' : 'stderr';
        let total = 0;
        for (let i = 0; i < iovsLen; i += 1) {
          const ptr = view.getUint32(iovs + i * 8, true);
          const len = view.getUint32(iovs + i * 8 + 4, true);
          if (ptr + len > size) return ERRNO_FAULT;
          const text = decoders[fdNum].decode(new Uint8Array(memory.buffer, ptr, len), { stream: true });
          // eslint-disable-next-line @typescript-eslint/only-throw-error
          if (!output.add(stream, text)) throw OUTPUT_STOP;
          total += len;
        }
        view.setUint32(nwrittenPtr, total, true);
        output.maybeFlush(Date.now());
        return ERRNO_SUCCESS;
      },
      fd_read(fdNum, _iovs, _iovsLen, nreadPtr) {
        if (fdNum !== 0) return ERRNO_BADF;
        const memory = memoryOf();
        if (memory === undefined || nreadPtr < 0 || nreadPtr + 4 > memory.buffer.byteLength) return ERRNO_FAULT;
        new DataView(memory.buffer).setUint32(nreadPtr, 0, true); // stdin is empty
        return ERRNO_SUCCESS;
      },
      // the stdio descriptors are shared with the host: never close or move them
      fd_close: (fdNum) => (fdNum <= 2 ? ERRNO_SUCCESS : (base.fd_close as WasiImport)(fdNum)),
      fd_renumber: () => ERRNO_NOSYS,
      // uvwasi would signal the whole host process
      proc_raise: () => ERRNO_NOSYS,
    };
    instance = await wasm.instantiate(message.module, { wasi_snapshot_preview1: imports });
    const exitCode = wasi.start(instance);
    output.flush();
    const used = memoryBytesOf(instance);
    const usage = used === undefined ? {} : { memoryBytes: used };
    if (exitCode === 0) {
      post(port, { type: 'result', exitCode, ...usage });
    } else {
      post(port, {
        type: 'failed',
        error: { name: 'ExitError', message: `the WASI module exited with code ${exitCode}`, exitCode, ...usage },
      });
    }
  } catch (error) {
    output.flush();
    post(port, { type: 'failed', error: wasiFailure(error, memoryBytesOf(instance)) });
  }
  port.removeAllListeners('message');
  onIdle(message.seq);
}
