/**
 * The QuickJS prelude: evaluated inside each fresh QuickJS VM (never on the host) before the
 * snippet. The bundle is one expression whose value is {@link installPrelude}; the worker calls it
 * with three host functions that accept and return only primitives, and drives the run through the
 * {@link PreludeBridge} it returns. Nothing here is reachable from the snippet except what it puts
 * on `globalThis`: `tools`, `console`, `__out` and the run-scoped timers. Gateway messages cross
 * as JSON text: the worker relays them without parsing.
 *
 * The snippet sees the same surface as in the node guest: the same `tools` and `console` (both
 * shared), the same errors for failed calls.
 */
import { createConsole } from '../shared/console.js';
import { JSONParse, JSONStringify } from '../shared/primordials.js';
import { createToolsBridge } from '../shared/tools.js';
import { encodeRequest } from '../../gateway/codec.js';
import { reportJson } from './outcome.js';
import { resultJson } from '../shared/result.js';
import { createTimers, type HostTimer } from './timers.js';

/** Relays a gateway request (its JSON text) to the host. */
export type HostSend = (id: string, json: string) => void;

/** Writes console text to the run's stdout (1) or stderr (2). */
export type HostWrite = (fd: 1 | 2, text: string) => void;

/** What the worker drives the run through. */
export interface PreludeBridge {
  /** Delivers a reply: the JSON text of a `response` / `error` message. */
  deliver(json: string): void;
  /**
   * The snippet's value as JSON text, `undefined` when there is none, `null` when it is larger than
   * `maxBytes`; throws when not serializable.
   */
  finish(value: unknown, maxBytes: number): string | null | undefined;
  /** What the snippet threw, as the JSON text of a failure report. */
  report(error: unknown): string;
  /** The tool calls not answered yet, as JSON text; `undefined` when there are none. */
  pending(): string | undefined;
  /** Fires a timer the host armed. */
  fire(id: number): void;
}

/** Installs `tools`, `console`, `__out` and the timers on the VM's global object. */
export function installPrelude(hostSend: HostSend, hostWrite: HostWrite, hostTimer: HostTimer): PreludeBridge {
  const bridge = createToolsBridge({
    // a request crosses as the JSON text of a gateway-protocol message; the worker relays it as is
    send: (id, message) => hostSend(id, encodeRequest(message, JSONStringify)),
    // QuickJS's stack holds the frames only: the call site's are the snippet's
    stackOf: (_error, site) => (typeof site.stack === 'string' ? site.stack : undefined),
  });
  const timers = createTimers(hostTimer);
  const g = globalThis as Record<string, unknown>;
  g.tools = bridge.tools;
  g.console = createConsole(hostWrite);
  g.__out = undefined;
  g.setTimeout = timers.setTimeout;
  g.setInterval = timers.setInterval;
  g.clearTimeout = timers.clearTimeout;
  g.clearInterval = timers.clearInterval;
  return {
    deliver: (json) => bridge.deliver(JSONParse(json)),
    finish: resultJson,
    report: (error) => reportJson(error, bridge.requestIdOf),
    pending: () => {
      const calls = bridge.pendingCalls();
      return calls.length === 0 ? undefined : JSONStringify(calls);
    },
    fire: timers.fire,
  };
}
