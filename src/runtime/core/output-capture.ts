import { truncateUtf8 } from '../../model/index.js';
import type { WireMessage } from '../gateway/wire.js';

/**
 * stdout + stderr of one run under one byte budget (`limits.maxOutputBytes`): text beyond the
 * budget is cut at it (never splitting a character) and {@link OutputCapture.add} says so.
 */
export class OutputCapture {
  /** The captured stdout. */
  stdout = '';
  /** The captured stderr. */
  stderr = '';
  #bytes = 0;
  readonly #max: number;

  constructor(maxBytes: number) {
    this.#max = maxBytes;
  }

  /** Appends `text`; false once the budget is exceeded (the text is cut at the budget). */
  add(stream: 'stdout' | 'stderr', text: string, bytes = Buffer.byteLength(text)): boolean {
    const room = this.#max - this.#bytes;
    const kept = bytes <= room ? text : truncateUtf8(text, Math.max(0, room));
    this.#bytes += bytes;
    if (stream === 'stdout') this.stdout += kept;
    else this.stderr += kept;
    return this.#bytes <= this.#max;
  }

  /** Appends the text of a guest's `stdout` / `stderr` message (other messages are ignored); false once the budget is exceeded. */
  addMessage(message: WireMessage): boolean {
    if ((message.type !== 'stdout' && message.type !== 'stderr') || typeof message.data !== 'string') return true;
    return this.add(message.type, message.data);
  }
}
