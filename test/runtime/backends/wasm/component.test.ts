import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWasmBackend, type WasmBackend } from '../../../../src/runtime/backends/wasm/index.js';
import { ComponentRunner, loadJco } from '../../../../src/runtime/backends/wasm/component/index.js';
import { resolveWasmOptions } from '../../../../src/runtime/backends/wasm/options.js';
import {
  createDirectGateway,
  createRuntime,
  type ExecuteRequest,
  type ExecuteResult,
  type ToolGateway,
} from '../../../../src/runtime/index.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';
import { createExec } from '../../../../src/exec/index.js';
import { WIT_PATH, callToolBody, constantBody, jsComponent, searchBody, watComponent } from './component-guests.js';

type Failure = Error & { code?: string; details?: Record<string, unknown> & { result?: ExecuteResult } };

async function failure(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (err) {
    return err as Failure;
  }
  throw new Error('expected the run to fail');
}

const gateway = (): ToolGateway => createDirectGateway(createContractFixture());

describe('wasm backend: WebAssembly components', () => {
  let backend: WasmBackend;
  const run = (component: Uint8Array | string, extra: Partial<ExecuteRequest> = {}) =>
    backend.execute({ code: '', gateway: gateway(), ...extra, metadata: { wasm_component: component, ...extra.metadata } });

  beforeAll(() => {
    backend = createWasmBackend({ poolSize: 1 });
  });
  afterAll(async () => {
    await backend.close();
  });

  it('parses an ok string as JSON into value, and keeps a non-JSON one as a string', async () => {
    const json = await run(await watComponent(constantBody(0, '{"answer":42,"list":[1,2]}')));
    expect(json.value).toEqual({ answer: 42, list: [1, 2] });
    expect(json.backend).toMatchObject({ kind: 'wasm', readiness: 'beta', details: { engine: 'jco', wasi: 'denied' } });
    expect(json.limitsEnforced).toMatchObject({ timeout: true, toolCalls: true, memory: true });
    const text = await run(await watComponent(constantBody(0, 'plain words')));
    expect(text.value).toBe('plain words');
  });

  it('accepts the component as base64 and caches its transpiled form by content hash', async () => {
    const bytes = await watComponent(constantBody(0, '"cached"'));
    const first = await run(Buffer.from(bytes).toString('base64'));
    const second = await run(bytes);
    expect(first.value).toBe('cached');
    expect(second.value).toBe('cached');
    expect(second.backend.details?.componentSha256).toBe(first.backend.details?.componentSha256);
    expect(second.backend.details?.transpileMs).toBe(0);
  });

  it('turns err(message) into CODE_EXECUTION with that message', async () => {
    const error = await failure(run(await watComponent(constantBody(1, 'the guest said no'))));
    expect(error.code).toBe('CODE_EXECUTION');
    expect(error.message).toBe('the guest said no');
    expect(error.details?.result?.backend.kind).toBe('wasm');
  });

  it('calls a tool through the gateway synchronously: traced, with the JSON of runTool as the ok string', async () => {
    const component = await watComponent(callToolBody('test:echo'));
    const result = await run(component, { metadata: { input: { hello: 'world' } } });
    expect(result.value).toMatchObject({ structured: { hello: 'world' } });
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ toolId: 'test:echo', args: { hello: 'world' } });
  });

  it('gives a failed tool call back as err with the JSON of { code, message }', async () => {
    const result = await failure(run(await watComponent(callToolBody('test:nope')), { metadata: { input: {} } }));
    expect(result.code).toBe('CODE_EXECUTION');
    const reported = JSON.parse(result.message) as { code: string; message: string };
    expect(reported.code).toBe('TOOL_NOT_FOUND');
    expect(reported.message).toMatch(/test:nope/);
  });

  it('searches tools from inside (the ok string is the JSON of the summaries)', async () => {
    const result = await run(await watComponent(searchBody(2)), { metadata: { input: 'echo' } });
    expect(Array.isArray(result.value)).toBe(true);
    expect((result.value as { id: string }[]).length).toBeGreaterThan(0);
    expect((result.value as { id: string }[]).length).toBeLessThanOrEqual(2);
  });

  it('passes null when metadata.input is absent', async () => {
    const result = await run(await watComponent(callToolBody('test:echo')));
    expect(result.toolCalls[0]?.toolId).toBe('test:echo');
    expect(result.toolCalls[0]?.args).toBeUndefined();
  });

  it('runs a JavaScript guest built with componentize-qjs, tool calls included', async () => {
    const component = await jsComponent(`
      import { callTool } from 'toolexec:sandbox/host@0.1.0';
      export function run(input) {
        const { a, b } = JSON.parse(input);
        const sum = JSON.parse(callTool('test:add', JSON.stringify({ a, b })));
        return JSON.stringify({ sum: sum.structured, input: JSON.parse(input) });
      }`);
    const result = await run(component, { metadata: { input: { a: 2, b: 3 } } });
    expect(result.value).toMatchObject({ input: { a: 2, b: 3 } });
    expect(result.toolCalls.map((c) => c.toolId)).toEqual(['test:add']);
  }, 60_000);

  it('routes through the runtime with empty code', async () => {
    const runtime = createRuntime({ backends: { standard: backend } });
    const result = await runtime.execute({
      code: '',
      gateway: gateway(),
      metadata: { wasm_component: await watComponent(constantBody(0, '7')) },
    });
    expect(result.value).toBe(7);
  });

  it('rejects what is not a component with INVALID_ARGUMENT', async () => {
    expect((await failure(run('%%%'))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(run(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])))).code).toBe('INVALID_ARGUMENT');
    const core = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
    const error = await failure(run(core));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/core WebAssembly module/);
    const broken = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00, 0xff, 0xff);
    expect((await failure(run(broken))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(run(42 as unknown as string))).code).toBe('INVALID_ARGUMENT');
  });

  it('names the missing package when jco cannot be loaded', async () => {
    const error = await failure(loadJco('@bytecodealliance/jco-not-installed'));
    expect(error.code).toBe('RUNTIME_UNAVAILABLE');
    expect(error.message).toContain('@bytecodealliance/jco-not-installed');
    const runner = new ComponentRunner(resolveWasmOptions({ poolSize: 1 }), { jcoSpecifier: '@bytecodealliance/jco-not-installed' });
    try {
      const component = await watComponent(constantBody(0, '1'));
      const viaRun = await failure(runner.execute({ code: '', gateway: gateway(), metadata: { wasm_component: component } }));
      expect(viaRun.code).toBe('RUNTIME_UNAVAILABLE');
      expect(viaRun.message).toMatch(/npm install @bytecodealliance\/jco-not-installed/);
      expect(viaRun.details?.result?.backend.kind).toBe('wasm');
      expect(runner.stats.started).toBe(0);
    } finally {
      await runner.close();
    }
  });

  it('fails later runs after close with RUNTIME_UNAVAILABLE and leaves no worker', async () => {
    const solo = createWasmBackend({ poolSize: 1 });
    const component = await watComponent(constantBody(0, '1'));
    await solo.execute({ code: '', gateway: gateway(), metadata: { wasm_component: component } });
    await solo.close();
    const error = await failure(solo.execute({ code: '', gateway: gateway(), metadata: { wasm_component: component } }));
    expect(error.code).toBe('RUNTIME_UNAVAILABLE');
  });

  it('ships the WIT world in the package (wit/toolexec-sandbox.wit, listed in package.json files)', () => {
    const wit = readFileSync(WIT_PATH, 'utf8');
    expect(wit).toContain('package toolexec:sandbox@0.1.0;');
    expect(wit).toContain('call-tool: func(id: string, args-json: string) -> result<string, string>;');
    expect(wit).toContain('search-tools: func(query: string, limit: u32) -> result<string, string>;');
    expect(wit).toContain('export run: func(input-json: string) -> result<string, string>;');
    const pkg = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('wit');
  });

  it('runs through exec.executeCode: empty code, metadata.input, the exec budget and trace', async () => {
    const exec = createExec({
      tools: [
        {
          tool: {
            name: 'add',
            namespace: 'math',
            inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
          },
          handler: (args) => (args.a as number) + (args.b as number),
        },
      ],
    });
    try {
      const component = await watComponent(callToolBody('math:add'));
      const result = await exec.executeCode({ code: '', metadata: { wasm_component: component, input: { a: 2, b: 40 } } });
      expect(result.value).toMatchObject({ structured: 42 });
      expect(result.toolCalls.map((c) => c.toolId)).toEqual(['math:add']);
      const looping = await watComponent(callToolBody('math:add', 5));
      const error = await failure(
        exec.executeCode({ code: '', maxToolCalls: 2, metadata: { wasm_component: looping, input: { a: 1, b: 1 } } }),
      );
      expect(error.code).toBe('LIMIT_EXCEEDED');
    } finally {
      await exec.close();
    }
  });

  it('gives a call with arguments that are not an object back as err', async () => {
    const result = await failure(run(await watComponent(callToolBody('test:echo')), { metadata: { input: [1, 2] } }));
    expect(result.code).toBe('CODE_EXECUTION');
    expect(JSON.parse(result.message)).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  });
});
