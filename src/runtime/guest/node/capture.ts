/**
 * The node guest's output capture: the snippet never sees the real stdout/stderr. `console`,
 * `process.stdout` and `process.stderr` are replaced by captures whose writes go straight,
 * synchronously, into the protocol as `stdout` / `stderr` messages.
 */
import { Writable } from 'node:stream';
import type { GuestOutputMessage } from '../../gateway/codec.js';
import { createConsole } from '../shared/console.js';
import { sliceOf } from '../shared/primordials.js';

/** The largest `data` of one output message, in characters. */
const CHUNK_CHARS = 64 * 1024;

/** What the capture writes through. */
export interface CaptureTarget {
  /** Sends one message to the host. */
  send(message: GuestOutputMessage): void;
  /** False once the run reported its outcome: later output is dropped. */
  isOpen(): boolean;
}

/** A real Writable (code that pipes into `process.stdout`, e.g. `new Worker()`, works). */
function captureStream(fd: 1 | 2, emit: (fd: 1 | 2, text: string) => void): Writable {
  const capture = new Writable({
    decodeStrings: false,
    write(chunk: unknown, encoding: BufferEncoding | 'buffer', callback: () => void) {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(encoding === 'buffer' ? 'utf8' : encoding);
      emit(fd, text);
      callback();
    },
  });
  Object.assign(capture, { fd, isTTY: false });
  return capture;
}

/** Replaces `process.stdout`, `process.stderr` and the global `console` with captures. */
export function installCapture(target: CaptureTarget): void {
  const emit = (fd: 1 | 2, text: string) => {
    if (!target.isOpen() || text.length === 0) return;
    const type = fd === 1 ? 'stdout' : 'stderr';
    for (let i = 0; i < text.length; i += CHUNK_CHARS) target.send({ type, data: sliceOf(text, i, i + CHUNK_CHARS) });
  };
  const stdout = captureStream(1, emit);
  const stderr = captureStream(2, emit);
  Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => stdout });
  Object.defineProperty(process, 'stderr', { configurable: true, enumerable: true, get: () => stderr });
  globalThis.console = createConsole(emit) as unknown as Console;
}
