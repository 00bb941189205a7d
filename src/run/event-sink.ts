/**
 * Where events go: the `onEvent` callback, the subscribers (`exec.subscribe`) and the logger.
 *
 * @internal
 * @module
 */
import type { ExecEvent, Logger } from './events.js';
import { callListener } from '../model/internal.js';

/** Where events go: the `onEvent` callback, subscribers and the logger. */
export class EventSink {
  readonly #onEvent: ((event: ExecEvent) => void) | undefined;
  readonly #logger: Logger | undefined;
  readonly #subscribers = new Set<(event: ExecEvent) => void>();
  /** True when anyone receives events (a plain field: the hot path reads it). */
  listening: boolean;

  constructor(onEvent?: (event: ExecEvent) => void, logger?: Logger) {
    this.#onEvent = onEvent;
    this.#logger = logger;
    this.listening = onEvent !== undefined || logger !== undefined;
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (event: ExecEvent) => void): () => void {
    this.#subscribers.add(listener);
    this.listening = true;
    return () => {
      this.#subscribers.delete(listener);
      this.listening = this.#onEvent !== undefined || this.#logger !== undefined || this.#subscribers.size > 0;
    };
  }

  /** Delivers an event; a listener or logger that throws cannot fail the work it is told about. */
  emit(event: ExecEvent): void {
    if (!this.listening) return;
    if (this.#onEvent !== undefined) deliver(this.#onEvent, event);
    for (const listener of this.#subscribers) deliver(listener, event);
    const logger = this.#logger;
    if (logger !== undefined) {
      try {
        log(logger, event);
      } catch {
        // a logger that throws is its own problem
      }
    }
  }
}

/** Calls one listener; its failure stays its own (events are advisory). */
function deliver(listener: (event: ExecEvent) => void, event: ExecEvent): void {
  callListener(listener, event);
}

/** Writes an event to a pino-style logger at its level (see {@link Logger}). */
function log(logger: Logger, event: ExecEvent): void {
  switch (event.type) {
    case 'call.started':
      return logger.debug(event, `tool call started: ${event.toolId}`);
    case 'call.finished':
      return logger.debug(event, `tool call finished: ${event.toolId}`);
    case 'call.failed':
      return logger.warn(event, `tool call failed: ${event.toolId}: ${event.error.code}`);
    case 'call.warning':
      return logger.warn(event, `tool call warning: ${event.toolId}: ${event.error.code}`);
    case 'server.status':
      if (event.state === 'failed') return logger.warn(event, `MCP server ${event.server} failed`);
      return logger.info(event, `MCP server ${event.server} ${event.state}`);
    case 'sandbox.run':
      if (event.outcome === 'error') return logger.error(event, `snippet failed: ${event.error?.code ?? 'unknown'}`);
      return logger.debug(event, 'snippet ran');
    case 'limit.hit':
      return logger.warn(event, `snippet hit its ${event.limit} limit`);
  }
}
