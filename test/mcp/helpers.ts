import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'vitest';
import { ToolexecError } from '../../src/model/index.js';
import type { McpCustomServerConfig, McpStdioServerConfig } from '../../src/mcp/index.js';
import { createFixtureServer, type FixtureState } from '../fixtures/mcp/fixture-server.mjs';

/** The stdio fixture server script. */
export const STDIO_SERVER = fileURLToPath(new URL('../fixtures/mcp/stdio-server.mjs', import.meta.url));

/** The stdio script that never speaks MCP (`hang` or `garbage`). */
export const MISBEHAVING_SERVER = fileURLToPath(new URL('../fixtures/mcp/misbehaving-server.mjs', import.meta.url));

/** A stdio config for a process that never answers initialize (`hang`) or answers with garbage. */
export function misbehavingFixture(mode: 'hang' | 'garbage'): McpStdioServerConfig {
  return { command: process.execPath, args: [MISBEHAVING_SERVER, mode] };
}

/** The stdio script of a real SDK server that answers malformed JSON-RPC on request (see its header). */
export const HOSTILE_SERVER = fileURLToPath(new URL('../fixtures/mcp/hostile-server.mjs', import.meta.url));

/** A stdio config that runs the hostile server with this Node and `env`. */
export function hostileFixture(env: Record<string, string> = {}): McpStdioServerConfig {
  return { command: process.execPath, args: [HOSTILE_SERVER], env };
}

/** A stdio config that runs the fixture server with this Node. */
export function stdioFixture(env?: Record<string, string>): McpStdioServerConfig {
  return { command: process.execPath, args: [STDIO_SERVER], ...(env === undefined ? {} : { env }) };
}

/** A custom config serving a fresh in-memory fixture server per connection; counts connections. */
export function inMemoryFixture(options: { pageSize?: number } = {}): {
  config: McpCustomServerConfig;
  connections: () => number;
  state: FixtureState;
} {
  let connections = 0;
  const state: FixtureState = { calls: 0, cancelled: 0, children: [] };
  return {
    state,
    connections: () => connections,
    config: {
      transport: 'custom',
      createTransport: async () => {
        connections++;
        const [client, server] = InMemoryTransport.createLinkedPair();
        await createFixtureServer({ ...options, state }).server.connect(server);
        return client;
      },
    },
  };
}

/**
 * True while `pid` is a live process. A zombie (exited, not yet reaped: orphans are reparented to
 * an init that may never reap them) counts as gone.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 3000, stepMs = 20): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

/** Counts of active handles/requests by type (`process.getActiveResourcesInfo()`). */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** Waits (briefly) for the active resources to come back to `baseline`, then asserts they did. */
export async function expectNoLeakedResources(baseline: Map<string, number>): Promise<void> {
  const excess = (): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const [type, count] of activeResources()) {
      const extra = count - (baseline.get(type) ?? 0);
      if (extra > 0) out[type] = extra;
    }
    return out;
  };
  await waitUntil(() => Object.keys(excess()).length === 0, 3000);
  expect(excess()).toEqual({});
}

/** Parses the JSON text of a fixture result (`stats`, `spawn_child`, `env`). */
export function jsonText<T>(result: { content?: unknown }): T {
  const content = result.content as { type: string; text?: string }[];
  const first = content[0];
  if (first?.type !== 'text' || first.text === undefined) throw new Error('expected text content');
  return JSON.parse(first.text) as T;
}

/** The text of a fixture result. */
export function textOf(result: { content?: unknown }): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((item) => item.text ?? '').join('');
}

/** The rejection of `promise`, checked to be a library error; fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<ToolexecError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(ToolexecError.isInstance(error)).toBe(true);
  return error as ToolexecError;
}
