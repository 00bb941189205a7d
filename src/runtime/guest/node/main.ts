/**
 * The node guest: runs ONE snippet inside a plain `node` process (a child process, a container, a
 * VM) and speaks the gateway protocol with the host over stdin (host → guest) and stdout
 * (guest → host), one JSON message per line. Bundled into a single dependency-free CommonJS file
 * (`node-guest.cjs`, Node >= 20; CommonJS starts ~8 ms faster than an ES module), run as a file or
 * sent on stdin to the loader (`node -e`).
 *
 * Host → guest: `start` ({@link GuestStartMessage}), then `response` / `error` replies.
 * Guest → host: gateway requests, `stdout` / `stderr` output, and one `result` or `failed`.
 */
import type { GuestOutcomeMessage } from '../../gateway/codec.js';
import { createToolsBridge } from '../shared/tools.js';
import { JSONStringify, indexIn, sliceOf } from '../shared/primordials.js';
import { installCapture } from './capture.js';
import { receive, send, sendText } from './channel.js';
import { SnippetRun } from './snippet.js';

/** Exit code when the host closed stdin before the run ended. */
const EXIT_INPUT_CLOSED = 71;

let finished = false;

function finish(message: GuestOutcomeMessage): void {
  if (finished) return;
  finished = true;
  send(message);
  process.exit(0);
}

installCapture({ send, isOpen: () => !finished });

/** The largest message the host accepts (the `start` message says; the host's default until then). */
let maxMessageBytes = 8 * 1024 * 1024;

/**
 * Sends a gateway request; one larger than the host accepts is refused here, as the `PROTOCOL`
 * error the call rejects with (the snippet can catch it), never written to the channel.
 */
function sendRequest(message: object): void {
  const text = JSONStringify(message);
  const bytes = Buffer.byteLength(text);
  if (bytes > maxMessageBytes) {
    const error = new Error(`runtime: protocol error: message of ${bytes} bytes exceeds the ${maxMessageBytes}-byte limit`);
    error.name = 'ToolexecError';
    Object.assign(error, { code: 'PROTOCOL', details: { bytes, maxMessageBytes } });
    throw error;
  }
  sendText(text);
}

const bridge = createToolsBridge({
  send: (_id, message) => sendRequest(message),
  // V8's stack of the call site starts with a header line (`Error`): the error's own replaces it
  stackOf: (error, site) => {
    const stack = site.stack;
    if (typeof stack !== 'string') return undefined;
    const newline = indexIn(stack, '\n');
    return `${error.name}: ${error.message}\n${newline === -1 ? '' : sliceOf(stack, newline + 1)}`;
  },
});
const run = new SnippetRun({ finish, requestIdOf: bridge.requestIdOf, pendingCalls: bridge.pendingCalls });

// the dynamic-import loader of the snippet is flagged experimental; that is not the snippet's output
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = function (warning: string | Error, ...rest: unknown[]) {
  const message: unknown = typeof warning === 'string' ? warning : (warning as { message?: unknown } | null)?.message;
  const text = typeof message === 'string' ? message : '';
  if (text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return undefined;
  return (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
};

process.on('uncaughtException', (error) => run.fail(error));
process.on('unhandledRejection', (reason) => run.fail(reason));

let started = false;
receive(
  (message) => {
    if (message.type === 'start' && !started) {
      started = true;
      const g = globalThis as { tools?: unknown; __out?: unknown };
      g.tools = bridge.tools;
      g.__out = undefined;
      if (typeof message.maxMessageBytes === 'number' && message.maxMessageBytes > 0) maxMessageBytes = message.maxMessageBytes;
      void run.start(message);
    } else if (message.type === 'response' || message.type === 'error') {
      bridge.deliver(message);
    }
  },
  // the host closed our input (or died): nothing more can happen
  () => process.exit(finished ? 0 : EXIT_INPUT_CLOSED),
);
