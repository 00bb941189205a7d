/**
 * Newline-delimited JSON over a pair of byte streams (child stdio, sockets, container attach).
 */
import type { Readable, Writable } from 'node:stream';
import { AsyncQueue, encodeMessage, type GatewayConnection, type IncomingItem } from './connection.js';
import { StreamDecoder } from './stream-decoder.js';
import { connectionClosedError, type WireMessage } from './wire.js';

/** Default cap on one encoded message: 8 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** Options of {@link createStreamConnection}. */
export interface StreamConnectionOptions {
  /**
   * Largest message, in bytes of its JSON line, sent or accepted. A longer incoming line is
   * discarded as it streams in (never buffered whole) and reported as a `malformed` item.
   * @defaultValue 8 MiB ({@link DEFAULT_MAX_MESSAGE_BYTES})
   */
  maxMessageBytes?: number;
  /** Pause the input while this many decoded items wait for the consumer. @defaultValue 1024 */
  highWaterMark?: number;
}

class StreamConnection implements GatewayConnection {
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #max: number;
  readonly #highWaterMark: number;
  readonly #queue = new AsyncQueue<IncomingItem>();
  readonly #decoder: StreamDecoder;
  #closed = false;
  #writeError: unknown;
  readonly #onData = (chunk: Buffer | string) => this.#receive(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  readonly #onEnd = () => this.#finish();
  readonly #onInputError = (err: unknown) => {
    this.#decoder.inputFailed(err);
    this.#finish();
  };
  readonly #onOutputError = (err: unknown) => {
    this.#writeError ??= err;
  };

  constructor(input: Readable, output: Writable, options: StreamConnectionOptions) {
    this.#input = input;
    this.#output = output;
    this.#max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#decoder = new StreamDecoder(this.#queue, this.#max);
    this.#highWaterMark = options.highWaterMark ?? 1024;
    this.#queue.onDrain = () => {
      if (!this.#closed && this.#input.isPaused()) this.#input.resume();
    };
    input.on('data', this.#onData);
    input.on('end', this.#onEnd);
    input.on('close', this.#onEnd);
    input.on('error', this.#onInputError);
    output.on('error', this.#onOutputError);
  }

  get incoming(): AsyncIterable<IncomingItem> {
    return this.#queue;
  }

  get closed(): boolean {
    return this.#closed || this.#queue.ended;
  }

  async send(message: WireMessage): Promise<void> {
    if (this.#closed || this.#writeError !== undefined || this.#output.destroyed || this.#output.writableEnded) {
      throw connectionClosedError('gateway connection closed', this.#writeError);
    }
    const text = encodeMessage(message, this.#max);
    await new Promise<void>((resolve, reject) => {
      const onError = (err: unknown) => {
        cleanup();
        reject(connectionClosedError('gateway connection closed while sending', err));
      };
      const onClose = () => {
        cleanup();
        reject(connectionClosedError('gateway connection closed while sending'));
      };
      const onDrain = () => {
        cleanup();
        resolve();
      };
      const cleanup = () => {
        this.#output.off('error', onError);
        this.#output.off('close', onClose);
        this.#output.off('drain', onDrain);
      };
      this.#output.on('error', onError);
      this.#output.on('close', onClose);
      const flushed = this.#output.write(`${text}\n`, (err) => {
        if (err !== null && err !== undefined) onError(err);
      });
      if (flushed) {
        cleanup();
        resolve();
      } else {
        this.#output.on('drain', onDrain);
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#detachInput();
    this.#queue.end();
    if (!this.#output.destroyed && !this.#output.writableEnded) {
      try {
        this.#output.end();
      } catch {
        // already gone
      }
    }
  }

  #detachInput(): void {
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onEnd);
    this.#input.off('close', this.#onEnd);
    // keep an error listener so a late stream error never becomes an uncaught exception
    this.#input.off('error', this.#onInputError);
    this.#input.on('error', () => undefined);
    // let whatever is still in flight drain to nowhere, so the stream (and a child's `close`) can end
    this.#input.resume();
  }

  #receive(chunk: Buffer): void {
    this.#decoder.receive(chunk);
    if (this.#queue.size >= this.#highWaterMark && !this.#input.isPaused()) this.#input.pause();
  }

  #finish(): void {
    if (this.#queue.ended) return;
    this.#decoder.finish();
    this.#queue.end();
  }
}

/**
 * A {@link GatewayConnection} speaking newline-delimited JSON: `input` is read line by line,
 * messages are written to `output` one JSON line each.
 *
 * @remarks
 * Bad input never throws and never buffers without bound. Raw text (a line that does not start
 * with `{`, text glued in front of a message, a line that is not a message and names no request
 * id) is counted as it streams in, never held for a newline: everything raw received in one read
 * becomes ONE `malformed` item (a `PROTOCOL` error, up to 64 KiB of the text, and all its
 * `bytes`), however many lines it has. A line that names a request id but is not a message, or is
 * longer than `maxMessageBytes`, becomes its own `malformed` item with that `id`, so the request
 * can be answered. A last line without its newline is a message when it parses as one; when it is
 * not JSON, the input ended in the middle of it (the peer went away): a `malformed` item marked
 * `truncated`, whose error is `CONNECTION_CLOSED`, not `PROTOCOL`. `close()` ends `output` and
 * stops reading `input` (the stream is drained, not destroyed).
 */
export function createStreamConnection(input: Readable, output: Writable, options: StreamConnectionOptions = {}): GatewayConnection {
  return new StreamConnection(input, output, options);
}
