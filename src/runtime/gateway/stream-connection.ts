/**
 * Newline-delimited JSON over a pair of byte streams (child stdio, sockets, container attach).
 */
import type { Readable, Writable } from 'node:stream';
import { AsyncQueue, encodeMessage, type GatewayConnection, type IncomingItem } from './connection.js';
import { connectionClosedError, protocolError, type WireMessage } from './wire.js';

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

const TEXT_SAMPLE_BYTES = 4096;
const ENVELOPE_START = '{"type":"';
const ID_PATTERN = /"id"\s*:\s*"([^"\\]{1,128})"/;

function recoverId(text: string): string | undefined {
  return ID_PATTERN.exec(text)?.[1];
}

/** Checks a parsed line: an object with a string `type`; an `id`, when present, must be a string. */
function asMessage(value: unknown): WireMessage | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'a message must be a JSON object';
  const message = value as Record<string, unknown>;
  if (typeof message.type !== 'string' || message.type === '') return 'a message needs a string "type"';
  if (message.id !== undefined && typeof message.id !== 'string') return 'a message "id" must be a string';
  return message as WireMessage;
}

class StreamConnection implements GatewayConnection {
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #max: number;
  readonly #highWaterMark: number;
  readonly #queue = new AsyncQueue<IncomingItem>();
  #partial: Buffer[] = [];
  #partialBytes = 0;
  #discarding = false;
  #discardSample = '';
  #discardBytes = 0;
  #closed = false;
  #writeError: unknown;
  readonly #onData = (chunk: Buffer | string) => this.#receive(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  readonly #onEnd = () => this.#finish();
  readonly #onOutputError = (err: unknown) => {
    this.#writeError ??= err;
  };

  constructor(input: Readable, output: Writable, options: StreamConnectionOptions) {
    this.#input = input;
    this.#output = output;
    this.#max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#highWaterMark = options.highWaterMark ?? 1024;
    this.#queue.onDrain = () => {
      if (!this.#closed && this.#input.isPaused()) this.#input.resume();
    };
    input.on('data', this.#onData);
    input.on('end', this.#onEnd);
    input.on('close', this.#onEnd);
    input.on('error', this.#onEnd);
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
    this.#input.off('error', this.#onEnd);
    this.#input.on('error', () => undefined);
    // let whatever is still in flight drain to nowhere, so the stream (and a child's `close`) can end
    this.#input.resume();
  }

  #receive(chunk: Buffer): void {
    this.#split(chunk);
    if (this.#queue.size >= this.#highWaterMark && !this.#input.isPaused()) this.#input.pause();
  }

  #split(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) break;
      const segment = chunk.subarray(start, newline);
      start = newline + 1;
      if (this.#discarding) {
        this.#discardBytes += segment.length;
        this.#emitOversized();
      } else if (this.#partialBytes + segment.length > this.#max) {
        this.#discardSample = Buffer.concat([...this.#partial, segment.subarray(0, TEXT_SAMPLE_BYTES)])
          .subarray(0, TEXT_SAMPLE_BYTES)
          .toString('utf8');
        this.#discardBytes = this.#partialBytes + segment.length;
        this.#resetPartial();
        this.#emitOversized();
      } else {
        const line = this.#partial.length === 0 ? segment : Buffer.concat([...this.#partial, segment]);
        this.#resetPartial();
        this.#decode(line);
      }
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) return;
    if (this.#discarding) {
      this.#discardBytes += rest.length;
    } else if (this.#partialBytes + rest.length > this.#max) {
      this.#discarding = true;
      this.#discardSample = Buffer.concat([...this.#partial, rest.subarray(0, TEXT_SAMPLE_BYTES)])
        .subarray(0, TEXT_SAMPLE_BYTES)
        .toString('utf8');
      this.#discardBytes = this.#partialBytes + rest.length;
      this.#resetPartial();
    } else {
      // copy: the chunk's memory may be reused by the stream
      this.#partial.push(Buffer.from(rest));
      this.#partialBytes += rest.length;
    }
  }

  #resetPartial(): void {
    this.#partial = [];
    this.#partialBytes = 0;
  }

  #emitOversized(): void {
    const id = recoverId(this.#discardSample);
    this.#queue.push({
      kind: 'malformed',
      error: protocolError(`message of ${this.#discardBytes} bytes exceeds the ${this.#max}-byte limit`, {
        bytes: this.#discardBytes,
        maxMessageBytes: this.#max,
      }),
      text: this.#discardSample,
      bytes: this.#discardBytes,
      ...(id === undefined ? {} : { id }),
    });
    this.#discarding = false;
    this.#discardSample = '';
    this.#discardBytes = 0;
  }

  #decode(line: Buffer): void {
    let end = line.length;
    if (end > 0 && line[end - 1] === 13) end -= 1;
    const text = line.toString('utf8', 0, end);
    if (text.trim() === '') return;
    const parsed = this.#parse(text);
    if (typeof parsed !== 'string') {
      this.#queue.push({ kind: 'message', message: parsed });
      return;
    }
    // Raw output glued in front of a message (a write without a newline): split it off.
    const at = text.indexOf(ENVELOPE_START);
    if (at > 0) {
      const embedded = this.#parse(text.slice(at));
      if (typeof embedded !== 'string') {
        this.#pushMalformed(text.slice(0, at), 'not a JSON message');
        this.#queue.push({ kind: 'message', message: embedded });
        return;
      }
    }
    this.#pushMalformed(text, parsed);
  }

  #parse(text: string): WireMessage | string {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return 'not a JSON message';
    }
    return asMessage(value);
  }

  #pushMalformed(text: string, reason: string): void {
    const bytes = Buffer.byteLength(text);
    const sample = text.length > TEXT_SAMPLE_BYTES ? text.slice(0, TEXT_SAMPLE_BYTES) : text;
    const id = text.startsWith('{') ? recoverId(sample) : undefined;
    this.#queue.push({
      kind: 'malformed',
      error: protocolError(reason, { bytes }),
      text: sample,
      bytes,
      ...(id === undefined ? {} : { id }),
    });
  }

  #finish(): void {
    if (this.#queue.ended) return;
    if (this.#discarding) {
      this.#emitOversized();
    } else if (this.#partialBytes > 0) {
      const line = Buffer.concat(this.#partial);
      this.#resetPartial();
      this.#decode(line);
    }
    this.#queue.end();
  }
}

/**
 * A {@link GatewayConnection} speaking newline-delimited JSON: `input` is read line by line,
 * messages are written to `output` one JSON line each.
 *
 * @remarks
 * Bad input never throws and never buffers without bound: a line that is not a JSON object with a
 * string `type`, or longer than `maxMessageBytes`, becomes a `malformed` item (a `PROTOCOL` error,
 * a sample of the text, and the request `id` when it can be recovered). Raw text glued in front of
 * a message is split off as its own `malformed` item. `close()` ends `output` and stops reading
 * `input` (the stream is drained, not destroyed).
 */
export function createStreamConnection(input: Readable, output: Writable, options: StreamConnectionOptions = {}): GatewayConnection {
  return new StreamConnection(input, output, options);
}
