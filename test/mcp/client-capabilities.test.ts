import { fileURLToPath } from 'node:url';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type DefaultExec, type ExecOptions, createExec } from '../../src/exec/index.js';
import {
  type CreateMessageRequest,
  type ElicitRequest,
  type McpCustomServerConfig,
  type McpLogger,
  type SdkMcpExecutor,
  createMcpExecutor,
} from '../../src/mcp/index.js';
import { rejection } from '../exec/helpers.js';
import { PROFILE_SCHEMA, createClientFeaturesServer } from '../fixtures/mcp/client-features-server.mjs';
import { waitUntil } from './helpers.js';

const STDIO_SCRIPT = fileURLToPath(new URL('../fixtures/mcp/client-features-stdio.mjs', import.meta.url));

/** A custom config serving a fresh client-features server per connection; `states` holds each one's counters. */
function inMemoryServer(): { config: McpCustomServerConfig; states: { rootsChanges: number }[] } {
  const states: { rootsChanges: number }[] = [];
  return {
    states,
    config: {
      transport: 'custom',
      createTransport: async () => {
        const [client, server] = InMemoryTransport.createLinkedPair();
        const fixture = createClientFeaturesServer();
        states.push(fixture.state);
        await fixture.server.connect(server);
        return client;
      },
    },
  };
}

const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c.close()));
});

function exec(options: ExecOptions): DefaultExec {
  const e = createExec(options);
  closers.push(e);
  return e;
}

/** A logger that records every call as `[method, record, message]`. */
function recordingLogger(): McpLogger & { calls: [string, Record<string, unknown>, string | undefined][] } {
  const calls: [string, Record<string, unknown>, string | undefined][] = [];
  const at =
    (method: string) =>
    (record: object, message?: string): void => {
      calls.push([method, record as Record<string, unknown>, message]);
    };
  return { calls, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('elicitation', () => {
  it('declines by default, and the server sees the decline', async () => {
    const e = exec({ mcpServers: { people: inMemoryServer().config } });
    const { value } = await e.runTool('people:ask_profile', {});
    expect(value).toEqual({ action: 'decline' });
  });

  it('routes each request to onElicitation with the asking server; an acceptance gets the schema defaults (SEP-1034)', async () => {
    const seen: { server: string; params: ElicitRequest['params'] }[] = [];
    const e = exec({
      mcpServers: { people: inMemoryServer().config, staff: inMemoryServer().config },
      onElicitation: async (params, { server, signal }) => {
        expect(signal).toBeInstanceOf(AbortSignal);
        seen.push({ server, params });
        return server === 'people' ? { action: 'accept', content: { name: 'Grace' } } : { action: 'accept' };
      },
    });
    const people = await e.runTool('people:ask_profile', {});
    const staff = await e.runTool('staff:ask_profile', {});
    expect(seen.map((s) => s.server)).toEqual(['people', 'staff']);
    expect(seen[0]?.params).toMatchObject({ message: 'Please fill in your profile', requestedSchema: PROFILE_SCHEMA });
    // What the user gave is kept; every field left out is the schema's default.
    expect(people.value).toEqual({ action: 'accept', content: { name: 'Grace', age: 36, role: 'user', subscribed: true } });
    // An acceptance without content gets every default.
    expect(staff.value).toEqual({ action: 'accept', content: { name: 'Ada', age: 36, role: 'user', subscribed: true } });
  });

  it("a handler's rejection reaches the server as an error, and the call fails with its message", async () => {
    const e = exec({
      mcpServers: { people: inMemoryServer().config },
      onElicitation: () => Promise.reject(new Error('no user at the keyboard')),
    });
    const err = await rejection(e.runTool('people:ask_profile', {}));
    expect(err.code).toBe('EXECUTION');
    expect(err.message).toContain('no user at the keyboard');
  });
});

describe('sampling', () => {
  it("routes sampling/createMessage to onSampling with the asking server and returns the app's completion", async () => {
    const seen: { server: string; params: CreateMessageRequest['params'] }[] = [];
    const e = exec({
      mcpServers: { docs: inMemoryServer().config },
      onSampling: async (params, { server }) => {
        seen.push({ server, params });
        return { model: 'scripted-model', role: 'assistant', content: { type: 'text', text: 'A short summary.' } };
      },
    });
    const { value } = await e.runTool('docs:summarize', { text: 'a long text' });
    expect(value).toEqual({ model: 'scripted-model', text: 'A short summary.' });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.server).toBe('docs');
    expect(seen[0]?.params.maxTokens).toBe(50);
    expect(seen[0]?.params.messages[0]?.content).toEqual({ type: 'text', text: 'Summarize: a long text' });
  });

  it('is not declared without a handler: a server that samples anyway gets "Method not found" and the call fails (EXECUTION)', async () => {
    const e = exec({ mcpServers: { docs: inMemoryServer().config } });
    const err = await rejection(e.runTool('docs:summarize', { text: 'x' }));
    expect(err.code).toBe('EXECUTION');
    expect(err.message).toContain('Method not found');
  });
});

describe('roots', () => {
  it('answers roots/list with the configured roots; setRoots replaces them and tells every connected server', async () => {
    const a = inMemoryServer();
    const b = inMemoryServer();
    const e = exec({ mcpServers: { a: a.config, b: b.config }, roots: [{ uri: 'file:///work/project', name: 'project' }] });
    expect((await e.runTool('a:list_roots', {})).value).toEqual({ roots: [{ uri: 'file:///work/project', name: 'project' }] });
    await e.connect();
    await e.setRoots([{ uri: 'file:///work/other' }]);
    expect(await waitUntil(() => a.states[0]?.rootsChanges === 1 && b.states[0]?.rootsChanges === 1)).toBe(true);
    expect((await e.runTool('b:list_roots', {})).value).toEqual({ roots: [{ uri: 'file:///work/other' }] });
  });

  it('refuses roots that are not file:// URIs (CONFIGURATION up front, INVALID_ARGUMENT in setRoots); setRoots needs roots', async () => {
    expect(() => createExec({ mcpServers: { a: inMemoryServer().config }, roots: [{ uri: 'https://example.com' }] })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION' }),
    );
    const e = exec({ mcpServers: { a: inMemoryServer().config }, roots: [] });
    expect((await rejection(e.setRoots([{ uri: 'relative/path' }]))).code).toBe('INVALID_ARGUMENT');
    const without = exec({ mcpServers: { a: inMemoryServer().config } });
    expect((await rejection(without.setRoots([{ uri: 'file:///x' }]))).code).toBe('CONFIGURATION');
    // A server that asks for roots when none were declared gets an error.
    expect((await rejection(without.runTool('a:list_roots', {}))).code).toBe('EXECUTION');
  });
});

describe('server log messages', () => {
  it('reach the logger with the server name, MCP levels folded into debug / info / warn / error', async () => {
    const logger = recordingLogger();
    const e = exec({ mcpServers: { noisy: inMemoryServer().config }, logger });
    await e.runTool('noisy:chatty', {});
    // the same logger also gets the facade's own events (call started, finished): keep the server's lines
    const calls = logger.calls.filter(([, record]) => (record as { logger?: unknown }).logger === 'chatty');
    expect(calls.map(([method]) => method)).toEqual(['debug', 'info', 'info', 'warn', 'error', 'error']);
    expect(calls[1]).toEqual(['info', { server: 'noisy', level: 'info', logger: 'chatty', data: 'a info message' }, 'a info message']);
    expect(calls[4]?.[1]).toEqual({ server: 'noisy', level: 'error', logger: 'chatty', data: { problem: 'disk full' } });
    expect(calls[4]?.[2]).toContain('noisy');
  });

  it('are dropped without a logger, and a logger that throws does not break the connection', async () => {
    const quiet = exec({ mcpServers: { noisy: inMemoryServer().config } });
    expect((await quiet.runTool('noisy:chatty', {})).value).toEqual({ sent: 6 });
    const broken = (): void => {
      throw new Error('logger down');
    };
    const e = exec({
      mcpServers: { noisy: inMemoryServer().config },
      logger: { debug: broken, info: broken, warn: broken, error: broken },
    });
    expect((await e.runTool('noisy:chatty', {})).value).toEqual({ sent: 6 });
  });

  it('a logger without the four methods is refused (CONFIGURATION)', () => {
    expect(() => createExec({ logger: { info: () => undefined } as unknown as McpLogger })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringContaining('logger') }),
    );
    expect(() => createMcpExecutor({ servers: {}, onSampling: 'yes' as never })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringContaining('onSampling') }),
    );
  });
});

describe('over stdio, with the MCP executor', () => {
  it('elicits, samples, lists roots and logs through one server process', async () => {
    const logger = recordingLogger();
    const ex: SdkMcpExecutor = createMcpExecutor({
      servers: { s: { command: process.execPath, args: [STDIO_SCRIPT] } },
      onElicitation: async (_params, { server }) => ({ action: 'accept', content: { name: server } }),
      onSampling: async () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: 'ok' } }),
      roots: [{ uri: 'file:///tmp' }],
      logger,
    });
    closers.push(ex);
    const structured = async (name: string, args: Record<string, unknown> = {}): Promise<unknown> =>
      (await ex.callTool('s', { name, arguments: args })).structuredContent;
    expect(await structured('ask_profile')).toEqual({ action: 'accept', content: { name: 's', age: 36, role: 'user', subscribed: true } });
    expect(await structured('summarize', { text: 't' })).toEqual({ model: 'm', text: 'ok' });
    expect(await structured('list_roots')).toEqual({ roots: [{ uri: 'file:///tmp' }] });
    await ex.setRoots([{ uri: 'file:///var' }]);
    expect(await waitUntil(async () => ((await structured('roots_changes')) as { rootsChanges: number }).rootsChanges === 1)).toBe(true);
    await structured('chatty');
    expect(logger.calls).toHaveLength(6);
  });
});
