import { createServer, connect, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { MessageChannel } from 'node:worker_threads';
import { createContractFixture } from '../../src/testing/gateway-contract.js';
import {
  createDirectGateway,
  createMessagePortConnection,
  createProxyGateway,
  createStreamConnection,
  serveGateway,
  type GatewayConnection,
  type GatewayServer,
  type ProxyGateway,
  type ToolGateway,
} from '../../src/runtime/index.js';

/** Two connected NDJSON connections over in-memory streams. */
export function streamPair(options: { maxMessageBytes?: number } = {}): { client: GatewayConnection; server: GatewayConnection } {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  return {
    client: createStreamConnection(toClient, toServer, options),
    server: createStreamConnection(toServer, toClient, options),
  };
}

/** Two connected connections over a worker_threads MessageChannel. */
export function portPair(encoding: 'clone' | 'json' = 'clone'): { client: GatewayConnection; server: GatewayConnection } {
  const { port1, port2 } = new MessageChannel();
  return { client: createMessagePortConnection(port1, { encoding }), server: createMessagePortConnection(port2, { encoding }) };
}

/** Two connected NDJSON connections over a real TCP socket on 127.0.0.1. */
export async function tcpPair(): Promise<{ client: GatewayConnection; server: GatewayConnection; listener: Server }> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as { port: number }).port;
  const accepted = new Promise<Socket>((resolve) => listener.once('connection', resolve));
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const serverSocket = await accepted;
  return { client: createStreamConnection(socket, socket), server: createStreamConnection(serverSocket, serverSocket), listener };
}

/** A proxy gateway served by `gateway` over `pair`; `close()` shuts both sides down. */
export function proxied(
  gateway: ToolGateway,
  pair: { client: GatewayConnection; server: GatewayConnection; listener?: Server },
  requestTimeoutMs?: number,
): ProxyGateway & { server: GatewayServer } {
  const server = serveGateway(gateway, pair.server);
  const proxy = createProxyGateway({ connection: pair.client, ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }) });
  const close = proxy.close.bind(proxy);
  return Object.assign(proxy, {
    server,
    close: async () => {
      await close();
      await server.close();
      if (pair.listener !== undefined) await new Promise<void>((resolve) => pair.listener?.close(() => resolve()));
    },
  });
}

/** A direct gateway whose runTool records the signal each call gets. */
export function signalWatchingGateway(): { seen: AbortSignal[]; watching: ToolGateway } {
  const seen: AbortSignal[] = [];
  const gateway = createDirectGateway(createContractFixture());
  const watching: ToolGateway = {
    searchTools: gateway.searchTools.bind(gateway),
    listNamespaces: gateway.listNamespaces.bind(gateway),
    describeTool: gateway.describeTool.bind(gateway),
    listToolExamples: gateway.listToolExamples.bind(gateway),
    runChain: gateway.runChain.bind(gateway),
    runTool: (id, args, options) => {
      if (options?.signal !== undefined) seen.push(options.signal);
      return gateway.runTool(id, args, options);
    },
  };
  return { seen, watching };
}
