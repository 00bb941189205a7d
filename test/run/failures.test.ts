/**
 * What a dispatch through the backend registry (`createRunner({ backends })`) reports: the backend
 * layer's own codes are kept, a handler's own failure is EXECUTION (src/run/failures.ts, executeFailure).
 */
import { describe, expect, it } from 'vitest';
import { createBackendRegistry, createLocalBackend, registerBackendTools } from '../../src/backend/index.js';
import { createToolIndex } from '../../src/discovery/index.js';
import { ToolexecError, errorStatus, hasErrorCode, mcpBackend, providerBackend } from '../../src/model/index.js';
import { createRunner, type McpExecutor, type ToolError } from '../../src/run/index.js';
import { rejectionOf, tool } from './helpers.js';

/** A registry with a local backend `tools` (echo, nested, coded, broken) and a runner over its indexed tools. */
async function setup() {
  const registry = createBackendRegistry();
  const tools = createLocalBackend('tools');
  tools.registerHandler('echo', (args) => args);
  const own = new ToolexecError('TOOL_NOT_FOUND', 'a lookup inside the handler found nothing', {
    details: { backend: 'tools', tool: 'elsewhere' },
  });
  tools.registerHandler('nested', () => {
    throw own;
  });
  const validation = new ToolexecError('VALIDATION', 'its own validation failed');
  tools.registerHandler('coded', () => Promise.reject(validation));
  const plain = new Error('handler bug');
  tools.registerHandler('broken', () => {
    throw plain;
  });
  registry.register(tools);
  const index = createToolIndex();
  await registerBackendTools(index, registry);
  const runner = createRunner({ index, backends: registry });
  return { registry, tools, index, runner, own, plain };
}

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  return (await rejectionOf(promise)) as ToolError;
}

describe('executeFailure: backend-layer codes survive a dispatch through the registry', () => {
  it('a disabled backend is BACKEND_DISABLED (503), with its details, not EXECUTION', async () => {
    const { runner, tools } = await setup();
    tools.setEnabled(false);
    const err = await failure(runner.run('tools:echo', {}));
    expect(err.code).toBe('BACKEND_DISABLED');
    expect(err.op).toBe('execute');
    expect(err.details).toEqual({ backend: 'tools' });
    expect(err.message).toBe('run: execute tools:echo [local]: backend: backend disabled: tools');
    expect(errorStatus(err)).toBe(503);
    expect(hasErrorCode(err.cause, 'BACKEND_DISABLED')).toBe(true);
  });

  it('a stream through the registry keeps the same codes', async () => {
    const { runner, tools } = await setup();
    tools.setEnabled(false);
    let err: ToolError | undefined;
    try {
      for await (const _event of runner.runStream('tools:echo', {})) {
        // nothing arrives from a disabled backend
      }
    } catch (e) {
      err = e as ToolError;
    }
    expect(err?.code).toBe('BACKEND_DISABLED');
    expect(err?.op).toBe('stream');
    expect(errorStatus(err)).toBe(503);
  });

  it('a backend unregistered since its tools were indexed is BACKEND_NOT_FOUND (404), not "local handler not found"', async () => {
    const { runner, registry } = await setup();
    await registry.unregister('tools');
    const err = await failure(runner.run('tools:echo', {}));
    expect(err.code).toBe('BACKEND_NOT_FOUND');
    expect(err.details).toEqual({ backend: 'tools' });
    expect(errorStatus(err)).toBe(404);
  });

  it('a backend that no longer serves the indexed tool is TOOL_NOT_FOUND at execute (404)', async () => {
    const { runner, tools } = await setup();
    tools.unregisterHandler('echo');
    const err = await failure(runner.run('tools:echo', {}));
    expect(err.code).toBe('TOOL_NOT_FOUND');
    expect(err.op).toBe('execute');
    expect(err.details).toEqual({ backend: 'tools', tool: 'echo' });
    expect(errorStatus(err)).toBe(404);
  });

  it('mcp and provider bindings served by a registry backend keep the codes too', async () => {
    const registry = createBackendRegistry();
    const calc = createLocalBackend('calc');
    calc.registerHandler('add', () => ({ content: [{ type: 'text', text: '3' }] }));
    const api = createLocalBackend('api');
    registry.register(calc);
    registry.register(api);
    const index = createToolIndex();
    index.registerTool(tool('add', { namespace: 'calc' }), mcpBackend('calc'));
    index.registerTool(tool('forecast', { namespace: 'wx' }), providerBackend('api', 'forecast_v2'));
    const runner = createRunner({ index, backends: registry });
    const missing = await failure(runner.run('wx:forecast', {}));
    expect(missing.code).toBe('TOOL_NOT_FOUND');
    expect(missing.details).toEqual({ backend: 'api', tool: 'forecast_v2' });
    calc.setEnabled(false);
    expect((await failure(runner.run('calc:add', {}))).code).toBe('BACKEND_DISABLED');
  });

  it("a handler's own error stays EXECUTION: a plain error, a library error of another code, its own TOOL_NOT_FOUND", async () => {
    const { runner, own, plain } = await setup();
    const broken = await failure(runner.run('tools:broken', {}));
    expect(broken.code).toBe('EXECUTION');
    expect(broken.message).toContain('execution error: backend: tools:broken failed: handler bug');
    expect((broken.cause as ToolexecError).cause).toBe(plain);
    expect(errorStatus(broken)).toBe(502);
    const coded = await failure(runner.run('tools:coded', {}));
    expect(coded.code).toBe('EXECUTION');
    expect(hasErrorCode(coded, 'VALIDATION')).toBe(true);
    const nested = await failure(runner.run('tools:nested', {}));
    expect(nested.code).toBe('EXECUTION');
    expect(nested.cause).toBe(own);
  });

  it("a backend-layer error about another backend is the handler's own failure: EXECUTION", async () => {
    const { registry, runner, tools } = await setup();
    const other = createLocalBackend('other');
    other.registerHandler('t', () => 1);
    other.setEnabled(false);
    registry.register(other);
    tools.registerHandler('calls_other', () => registry.execute('other', 't', {}));
    tools.registerHandler('calls_nobody', () => registry.execute('nobody', 't', {}));
    const index = createToolIndex();
    await registerBackendTools(index, registry);
    const fresh = createRunner({ index, backends: registry });
    const disabled = await failure(fresh.run('tools:calls_other', {}));
    expect(disabled.code).toBe('EXECUTION');
    expect(hasErrorCode(disabled, 'BACKEND_DISABLED')).toBe(true);
    expect((await failure(fresh.run('tools:calls_nobody', {}))).code).toBe('EXECUTION');
    expect((await runner.run('tools:echo', { a: 1 })).structured).toEqual({ a: 1 });
  });

  it('a LocalBackend given directly as `local` (no registry): a disabled one is BACKEND_DISABLED too, naming the store and the binding', async () => {
    const local = createLocalBackend('local');
    local.registerHandler('echo', (args) => args);
    const index = createToolIndex();
    index.registerTool(tool('echo'), { kind: 'local', local: { name: 'echo' } });
    const runner = createRunner({ index, local });
    local.setEnabled(false);
    const err = await failure(runner.run('echo', {}));
    expect(err).toMatchObject({ code: 'BACKEND_DISABLED', details: { backend: 'local', tool: 'echo' } });
    expect(hasErrorCode(err.cause, 'BACKEND_DISABLED')).toBe(true);
    local.setEnabled(true);
    expect((await runner.run('echo', { a: 1 })).structured).toEqual({ a: 1 });
  });
});

describe('executeFailure: what an MCP executor says about the call it served', () => {
  /** An MCP executor (an interface the caller injects) that fails every call with `error`. */
  function failingExecutor(error: Error): McpExecutor {
    return { callTool: () => Promise.reject(error) };
  }

  it('keeps PROTOCOL (an invalid result) and CONNECTION_CLOSED (closed during the call) about its server; EXECUTION otherwise', async () => {
    const index = createToolIndex();
    index.registerTool(tool('echo', { namespace: 'srv' }), mcpBackend('srv'));
    const cases: [ToolexecError, string][] = [
      [new ToolexecError('PROTOCOL', 'MCP server "srv" sent an invalid result', { details: { serverName: 'srv' } }), 'PROTOCOL'],
      [new ToolexecError('CONNECTION_CLOSED', 'The MCP executor is closed', { details: { serverName: 'srv' } }), 'CONNECTION_CLOSED'],
      [new ToolexecError('PROTOCOL', 'MCP server "other" sent an invalid result', { details: { serverName: 'other' } }), 'EXECUTION'],
      [new ToolexecError('CONNECTION_CLOSED', 'closed'), 'EXECUTION'],
    ];
    for (const [error, code] of cases) {
      const err = await failure(createRunner({ index, mcp: failingExecutor(error) }).run('srv:echo', {}));
      expect(err.code, error.message).toBe(code);
      expect(err.cause).toBe(error);
    }
    expect(errorStatus(await failure(createRunner({ index, mcp: failingExecutor(cases[0]![0]) }).run('srv:echo', {})))).toBe(502);
  });
});

/** A tool's or server's error text of megabytes is quoted cut in the caller's message; the whole stays where it came from. */
describe('foreign error text in messages', () => {
  const huge = 'E'.repeat(1_000_000);

  it("a handler's huge error message is cut at 4 KiB; the error itself is the cause", async () => {
    const thrown = new Error(huge);
    const index = createToolIndex();
    index.registerTool(tool('boom', { namespace: 't' }), { kind: 'local', local: { name: 'boom' } });
    const runner = createRunner({
      index,
      local: {
        boom: () => {
          throw thrown;
        },
      },
    });
    const err = await failure(runner.run('t:boom', {}));
    expect(err.code).toBe('EXECUTION');
    expect(err.message.length).toBeLessThan(4096 + 200);
    expect(err.message).toContain('… (1000000 characters)');
    expect(err.cause).toBe(thrown);
  });

  it("an MCP tool's huge error text is cut at 4 KiB; the whole result is details.mcpResult", async () => {
    const result = { content: [{ type: 'text' as const, text: huge }], isError: true };
    const mcp: McpExecutor = { callTool: () => Promise.resolve(result) };
    const index = createToolIndex();
    index.registerTool(tool('fails', { namespace: 's' }), mcpBackend('s'));
    const err = await failure(createRunner({ index, mcp }).run('s:fails', {}));
    expect(err.code).toBe('EXECUTION');
    expect(err.message.length).toBeLessThan(4096 + 200);
    expect(err.message).toContain('… (1000000 characters)');
    expect(err.details).toMatchObject({ isError: true, mcpResult: result });
  });
});
