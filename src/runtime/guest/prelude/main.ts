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
  /**
   * Delivers a reply: the JSON text of a `response` / `error` message. Returns `false` when the VM
   * cannot parse it (the host's JSON is always valid: the reply needs more memory than the VM has
   * left), and the call is not settled.
   */
  deliver(json: string): false | undefined;
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

/**
 * Parses and delivers a reply; `false` when it cannot be parsed. No snippet code runs while the
 * captured `JSON.parse` reads the host's text (no reviver), so a failure there is the engine's own:
 * out of memory.
 */
function deliverReply(deliver: (message: unknown) => void, json: string): false | undefined {
  let message: unknown;
  try {
    message = JSONParse(json);
  } catch {
    return false;
  }
  deliver(message);
  return undefined;
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
    deliver: (json) => deliverReply(bridge.deliver, json),
    finish: resultJson,
    report: (error) => reportJson(error, bridge.requestIdOf),
    pending: () => {
      const calls = bridge.pendingCalls();
      return calls.length === 0 ? undefined : JSONStringify(calls);
    },
    fire: timers.fire,
  };
}
