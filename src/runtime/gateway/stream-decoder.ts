/**
 * The reading side of a stream connection: the input's bytes cut into newline-delimited JSON
 * messages and raw text, each handed to the connection's queue as an {@link IncomingItem}.
 */
import type { AsyncQueue, IncomingItem } from './connection.js';
import { connectionClosedError, protocolError, type WireMessage } from './wire.js';

const TEXT_SAMPLE_BYTES = 4096;
/** The most of a run of raw text an item keeps (its `bytes` count all of it). */
const RAW_SAMPLE_BYTES = 64 * 1024;
const ENVELOPE_START = '{"type":"';
const ENVELOPE_BYTES = Buffer.from(ENVELOPE_START);
const OPEN_BRACE = 0x7b;
const NEWLINE = Buffer.from('\n');
/** The problem of a line that is not JSON at all. */
const NOT_JSON = 'not a JSON message';

/** How many bytes at the end of `data` (from `from` on) are a proper prefix of a message envelope. */
function envelopePrefixAtEnd(data: Buffer, from: number): number {
  for (let length = Math.min(ENVELOPE_BYTES.length - 1, data.length - from); length > 0; length -= 1) {
    if (data.compare(ENVELOPE_BYTES, 0, length, data.length - length, data.length) === 0) return length;
  }
  return 0;
}
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

/** Decodes one input stream into `queue` (what becomes of bad input: see `createStreamConnection`). */
export class StreamDecoder {
  readonly #queue: AsyncQueue<IncomingItem>;
  readonly #max: number;
  /** The message line being read (it starts with `{`). */
  #partial: Buffer[] = [];
  #partialBytes = 0;
  #discarding = false;
  #discardSample = '';
  #discardBytes = 0;
  /** True while the rest of the current line is raw text (it did not start with `{`). */
  #rawLine = false;
  /** The end of a raw line held back: it may be the start of a message's envelope. */
  #carry: Buffer | undefined;
  /** Raw text received since the last item, as one run: a sample and its size. */
  #rawSample: Buffer[] = [];
  #rawSampleBytes = 0;
  #rawBytes = 0;
  /** Why the input failed (a reset socket, ...), kept as the cause of a line it cut short. */
  #readError: unknown;

  constructor(queue: AsyncQueue<IncomingItem>, maxMessageBytes: number) {
    this.#queue = queue;
    this.#max = maxMessageBytes;
  }

  /** Takes the next chunk of the input. */
  receive(chunk: Buffer): void {
    const carry = this.#carry;
    this.#carry = undefined;
    this.#split(carry === undefined ? chunk : Buffer.concat([carry, chunk]));
    this.#flushRaw();
  }

  /** Notes why the input failed (the first reason only). */
  inputFailed(err: unknown): void {
    this.#readError ??= err;
  }

  /** The input ended: hands over what is left of it. */
  finish(): void {
    if (this.#carry !== undefined) this.#addRaw(this.#carry);
    this.#carry = undefined;
    if (this.#discarding) {
      this.#emitOversized();
    } else if (this.#partialBytes > 0) {
      const line = Buffer.concat(this.#partial);
      this.#resetPartial();
      this.#decode(line, false);
    }
    this.#flushRaw();
  }

  /**
   * Cuts `data` into message lines and raw text. A line that starts with `{` is a message
   * candidate, buffered up to `maxMessageBytes`; anything else is raw text up to the next
   * newline or message envelope, counted and sampled as it streams in, never buffered.
   */
  #split(data: Buffer): void {
    let pos = 0;
    while (pos < data.length) {
      const newline = data.indexOf(10, pos);
      const end = newline === -1 ? data.length : newline + 1;
      if (this.#discarding) {
        this.#discardBytes += (newline === -1 ? end : newline) - pos;
        if (newline !== -1) this.#emitOversized();
        pos = end;
      } else if (this.#partialBytes > 0 || (!this.#rawLine && data[pos] === OPEN_BRACE)) {
        pos = this.#readMessage(data, pos, newline);
      } else {
        pos = this.#readRaw(data, pos, newline, end);
      }
    }
  }

  /** Reads message-candidate bytes from `pos` (to the newline, when there is one). */
  #readMessage(data: Buffer, pos: number, newline: number): number {
    const segment = data.subarray(pos, newline === -1 ? data.length : newline);
    const next = newline === -1 ? data.length : newline + 1;
    if (this.#partialBytes + segment.length > this.#max) {
      const parts = [...this.#partial, segment];
      const sample = Buffer.concat([...this.#partial, segment.subarray(0, TEXT_SAMPLE_BYTES)]).subarray(0, TEXT_SAMPLE_BYTES);
      const bytes = this.#partialBytes + segment.length;
      this.#resetPartial();
      if (recoverId(sample.toString('utf8')) === undefined) {
        // no request to answer: raw text, counted as it streams (never buffered, never held back)
        for (const part of parts) this.#addRaw(part);
        if (newline === -1) this.#rawLine = true;
        else this.#addRaw(NEWLINE);
        return next;
      }
      this.#discardSample = sample.toString('utf8');
      this.#discardBytes = bytes;
      if (newline === -1) this.#discarding = true;
      else this.#emitOversized();
    } else if (newline === -1) {
      // copy: the chunk's memory may be reused by the stream
      this.#partial.push(Buffer.from(segment));
      this.#partialBytes += segment.length;
    } else {
      const line = this.#partial.length === 0 ? segment : Buffer.concat([...this.#partial, segment]);
      this.#resetPartial();
      this.#decode(line, true);
    }
    return next;
  }

  /** Reads raw bytes from `pos`: to a message envelope glued on, the newline, or the end of `data`. */
  #readRaw(data: Buffer, pos: number, newline: number, end: number): number {
    const envelope = data.indexOf(ENVELOPE_BYTES, pos + (this.#rawLine ? 0 : 1));
    if (envelope !== -1 && envelope < end) {
      this.#addRaw(data.subarray(pos, envelope));
      this.#rawLine = false;
      return envelope;
    }
    if (newline !== -1) {
      this.#addRaw(data.subarray(pos, end));
      this.#rawLine = false;
      return end;
    }
    const held = envelopePrefixAtEnd(data, pos);
    this.#addRaw(data.subarray(pos, data.length - held));
    if (held > 0) this.#carry = Buffer.from(data.subarray(data.length - held));
    this.#rawLine = true;
    return data.length;
  }

  #addRaw(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.#rawBytes += bytes.length;
    const room = RAW_SAMPLE_BYTES - this.#rawSampleBytes;
    if (room <= 0) return;
    const kept = bytes.length <= room ? bytes : bytes.subarray(0, room);
    this.#rawSample.push(Buffer.from(kept));
    this.#rawSampleBytes += kept.length;
  }

  /** Hands the raw text received so far to the consumer as one `malformed` item (one error object per run, not per line). */
  #flushRaw(): void {
    if (this.#rawBytes === 0) return;
    const bytes = this.#rawBytes;
    const text = Buffer.concat(this.#rawSample).toString('utf8');
    this.#rawSample = [];
    this.#rawSampleBytes = 0;
    this.#rawBytes = 0;
    this.#queue.push({ kind: 'malformed', error: protocolError(NOT_JSON, { bytes }), text, bytes });
  }

  #resetPartial(): void {
    this.#partial = [];
    this.#partialBytes = 0;
  }

  #emitOversized(): void {
    this.#flushRaw();
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

  /**
   * Decodes a message line; one that is not a message and names no request id is raw text. The
   * last line of the input, `terminated: false` (no newline came), is a message when it parses as
   * one; when it is not even JSON, the input ended in the middle of it: a `truncated` item.
   */
  #decode(line: Buffer, terminated: boolean): void {
    let end = line.length;
    if (end > 0 && line[end - 1] === 13) end -= 1;
    const text = line.toString('utf8', 0, end);
    const parsed = this.#parse(text);
    if (typeof parsed !== 'string') {
      this.#flushRaw();
      this.#queue.push({ kind: 'message', message: parsed });
      return;
    }
    // Raw output glued in front of a message (a write without a newline): split it off.
    const at = text.indexOf(ENVELOPE_START);
    if (at > 0) {
      const embedded = this.#parse(text.slice(at));
      if (typeof embedded !== 'string') {
        this.#addRaw(Buffer.from(text.slice(0, at)));
        this.#flushRaw();
        this.#queue.push({ kind: 'message', message: embedded });
        return;
      }
    }
    const sample = text.length > TEXT_SAMPLE_BYTES ? text.slice(0, TEXT_SAMPLE_BYTES) : text;
    const id = recoverId(sample);
    if (!terminated && parsed === NOT_JSON) {
      this.#emitTruncated(text, id);
      return;
    }
    if (id === undefined) {
      this.#addRaw(line);
      if (terminated) this.#addRaw(NEWLINE);
      return;
    }
    this.#flushRaw();
    const bytes = Buffer.byteLength(text);
    this.#queue.push({ kind: 'malformed', error: protocolError(parsed, { bytes }), text: sample, bytes, id });
  }

  /** Hands over a last line the input cut short (see {@link IncomingItem}'s `truncated`). */
  #emitTruncated(text: string, id: string | undefined): void {
    this.#flushRaw();
    const bytes = Buffer.byteLength(text);
    const message = `gateway connection ended in the middle of a message (${bytes} bytes without a newline)`;
    this.#queue.push({
      kind: 'malformed',
      error: connectionClosedError(message, this.#readError, { bytes }),
      text: text.length > RAW_SAMPLE_BYTES ? text.slice(0, RAW_SAMPLE_BYTES) : text,
      bytes,
      truncated: true,
      ...(id === undefined ? {} : { id }),
    });
  }

  #parse(text: string): WireMessage | string {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return NOT_JSON;
    }
    return asMessage(value);
  }
}
