import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  createRemoteRuntimeHandler,
  remoteRequestHeaders,
  type RemoteRuntimeHandler,
  type RemoteRuntimeHandlerOptions,
} from '../../../../src/runtime/backends/remote/index.js';
import type { ExecuteResult, RuntimeBackend } from '../../../../src/runtime/index.js';

/** The secret shared by the tests' clients and servers. */
export const SECRET = 'remote-test-secret-0123456789abcdef';

/** A real node:http server on 127.0.0.1 (port 0). */
export interface TestServer {
  url: string;
  port: number;
  server: Server;
  handler?: RemoteRuntimeHandler;
  close(): Promise<void>;
}

/** Listens with `listener` on 127.0.0.1:0. */
export async function listen(listener: (req: IncomingMessage, res: ServerResponse) => void, path = '/'): Promise<TestServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    server,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** A server running {@link createRemoteRuntimeHandler} with `options` (secret defaults to {@link SECRET}). */
export async function runtimeServer(
  options: Omit<RemoteRuntimeHandlerOptions, 'secret'> & { secret?: RemoteRuntimeHandlerOptions['secret'] },
): Promise<TestServer> {
  const handler = createRemoteRuntimeHandler(options.secrets === undefined ? { ...options, secret: options.secret ?? SECRET } : options);
  const listening = await listen(handler);
  return {
    ...listening,
    handler,
    async close() {
      await handler.close();
      await listening.close();
    },
  };
}

/** Reads a whole response body. */
export async function readBody(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A signed execute request as a client sends it: its first line and the headers signing it. */
export interface SignedExecute {
  line: string;
  headers: Record<string, string>;
}

/**
 * The execute message of `code` and its signed headers (POST `/`, signed with {@link SECRET}),
 * stamped now with a random nonce unless `timestampMs` / `nonce` say otherwise.
 */
export function signedExecute(code: string, stamp: { timestampMs?: number; nonce?: string } = {}): SignedExecute {
  const line = JSON.stringify({ type: 'execute', request: { code } });
  const headers = remoteRequestHeaders(SECRET, {
    method: 'POST',
    path: '/',
    timestampMs: stamp.timestampMs ?? Date.now(),
    nonce: stamp.nonce ?? randomBytes(12).toString('hex'),
    body: line,
  });
  return { line, headers };
}

/** A server-side backend (what an operator injects) that answers at once with `value` (`later` after the first run, when given). */
export function answering(value: unknown, later: unknown = value): RuntimeBackend {
  let runs = 0;
  return {
    kind: 'wasm',
    readiness: 'prod',
    execute: async (): Promise<ExecuteResult> => ({
      value: (runs += 1) === 1 ? value : later,
      stdout: '',
      stderr: '',
      toolCalls: [],
      durationMs: 1,
      backend: { kind: 'wasm', readiness: 'prod' },
      limitsEnforced: { timeout: true, toolCalls: false, chainSteps: false, memory: false, cpu: false, pids: false, disk: false },
    }),
  };
}
