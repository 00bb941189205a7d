import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { ToolexecError } from '../../../src/model/index.js';
import { ChainError, ToolError } from '../../../src/run/index.js';
import { createContractFixture } from '../../../src/testing/gateway-contract.js';
import { decodeWireStep, mapItems, readWireError } from '../../../src/runtime/gateway/codec.js';
import type * as runtime from '../../../src/runtime/index.js';
import { createDirectGateway, deserializeError, serializeError, type RuntimeBackend } from '../../../src/runtime/index.js';
import { assetPath } from '../../../src/runtime/internal.js';

/** A ChainError whose failed step is a ToolError with details and a cause, as the server sends it. */
function chainErrorWire(): unknown {
  const inner = new ToolError({
    code: 'EXECUTION',
    op: 'execute',
    toolId: 'ns:t',
    backend: { kind: 'local', local: { name: 't' } },
    reason: 'boom',
    cause: new Error('root'),
  });
  const chain = new ChainError(inner, [{ toolId: 'ns:a' }, { toolId: 'ns:t', error: inner }], 1);
  return JSON.parse(JSON.stringify(serializeError(chain)));
}

interface PreludeBridge {
  deliver(json: string): void;
  finish(value: unknown): string | undefined;
  report(error: unknown): string;
  fire(id: number): void;
}

/** Evaluates the QuickJS prelude bundle in a fresh realm (no modules, no Node globals). */
function loadPrelude() {
  const sent: { id: string; json: string }[] = [];
  const written: { fd: number; text: string }[] = [];
  const context: Record<string, unknown> = { performance };
  const install = runInNewContext(readFileSync(assetPath('wasm-prelude.js'), 'utf8'), context) as (
    send: (id: string, json: string) => void,
    write: (fd: number, text: string) => void,
    timer: (op: number, id: number, ms: number) => void,
  ) => PreludeBridge;
  const bridge = install(
    (id, json) => sent.push({ id, json }),
    (fd, text) => written.push({ fd, text }),
    () => undefined,
  );
  const tools = context.tools as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const run = (code: string) => runInNewContext(code, context) as unknown;
  return { bridge, tools, sent, written, context, run };
}

describe('wire codec', () => {
  it('reads an error reply defensively: each field only with its type, a message always', () => {
    expect(readWireError(undefined)).toEqual({ message: 'unknown error' });
    expect(readWireError([1, 2])).toEqual({ message: 'unknown error' });
    expect(readWireError({ error: '', name: '', code: 7, details: [1], toolId: 3, op: null, steps: {} })).toEqual({
      message: 'unknown error',
    });
    const cause = { error: 'root' };
    expect(
      readWireError({
        error: 'bad',
        name: 'ToolError',
        code: 'X',
        details: { a: 1 },
        toolId: 't',
        op: 'execute',
        backend: 0,
        steps: [],
        cause,
      }),
    ).toEqual({
      message: 'bad',
      name: 'ToolError',
      code: 'X',
      details: { a: 1 },
      toolId: 't',
      op: 'execute',
      backend: 0,
      steps: [],
      cause,
    });
  });

  it('decodes a step error with the decoder given, and copies the step', () => {
    const step = { toolId: 'a', result: 1 };
    const copy = decodeWireStep(step, () => 'never');
    expect(copy).toEqual(step);
    expect(copy).not.toBe(step);
    expect(decodeWireStep({ toolId: 'b', error: { error: 'x' } }, (wire) => readWireError(wire).message)).toEqual({
      toolId: 'b',
      error: 'x',
    });
    expect(decodeWireStep('text', () => 'never')).toBe('text');
  });

  it('maps items without calling setters a caller put on Array.prototype', () => {
    let called = false;
    Object.defineProperty(Array.prototype, '0', {
      configurable: true,
      set() {
        called = true;
      },
    });
    let mapped: number[];
    try {
      mapped = mapItems([1, 2], (n) => n * 2);
    } finally {
      delete (Array.prototype as unknown as Record<string, unknown>)['0'];
    }
    expect(called).toBe(false);
    expect(mapped).toEqual([2, 4]);
  });
});

describe('guest bundles', () => {
  it('the node guest needs node builtins only (the sandbox image has no node_modules)', () => {
    const source = readFileSync(assetPath('node-guest.cjs'), 'utf8');
    const required = [...source.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]);
    expect(required.length).toBeGreaterThan(0);
    expect(required.every((name) => name?.startsWith('node:'))).toBe(true);
    expect(source).not.toMatch(/\bmodule\.exports\b|\bexports\.\w+\s*=/);
  });

  it('the QuickJS prelude is one self-contained expression: its value installs tools and console', () => {
    const { context, sent, written, run } = loadPrelude();
    expect(Object.keys(context).sort()).toEqual(
      ['__out', 'clearInterval', 'clearTimeout', 'console', 'performance', 'setInterval', 'setTimeout', 'tools'].sort(),
    );
    void run("tools.runTool('ns:t', { a: 1 }); tools.listNamespaces(); console.log('hi', { n: 1 }); console.error(new Error('e'))");
    expect(sent).toEqual([
      { id: '1', json: '{"type":"run_tool","id":"1","payload":{"id":"ns:t","toolRev":0,"args":{"a":1}}}' },
      { id: '2', json: '{"type":"list_namespaces","id":"2"}' },
    ]);
    expect(written).toEqual([
      { fd: 1, text: 'hi {"n":1}\n' },
      { fd: 2, text: 'Error: e\n' },
    ]);
  });

  it('the prelude decodes an error reply as the host does, and reports its request id', async () => {
    const { bridge, tools } = loadPrelude();
    const wire = chainErrorWire();
    const host = deserializeError(wire) as ToolexecError & { toolId?: string; steps?: { error?: ToolexecError }[] };
    const call = tools.runChain?.([{ toolId: 'ns:a' }]).then(
      () => undefined,
      (error: unknown) => error,
    );
    bridge.deliver(JSON.stringify({ type: 'error', id: '1', payload: wire }));
    const guest = (await call) as Error & { code?: string; details?: unknown; toolId?: string; steps?: { error?: unknown }[] };
    expect({ name: guest.name, message: guest.message, code: guest.code, details: guest.details, toolId: guest.toolId }).toEqual({
      name: host.name,
      message: host.message,
      code: host.code,
      details: host.details,
      toolId: host.toolId,
    });
    const hostStep = host.steps?.[1]?.error;
    expect(guest.steps?.[1]?.error).toEqual({ name: hostStep?.name, code: hostStep?.code, message: hostStep?.message });
    expect(JSON.parse(bridge.report(guest))).toMatchObject({ name: 'ChainError', code: 'EXECUTION', requestId: '1' });
  });

  it('the prelude keeps answering after the snippet replaced the intrinsics it uses', async () => {
    const { bridge, context, run } = loadPrelude();
    run(
      [
        "JSON.parse = () => { throw new Error('tampered'); };",
        'JSON.stringify = JSON.parse; Map.prototype.get = JSON.parse; Map.prototype.set = JSON.parse;',
        'Promise.prototype.then = JSON.parse; Array.isArray = JSON.parse;',
        "(async () => { globalThis.got = await tools.searchTools('q'); })();",
      ].join('\n'),
    );
    bridge.deliver('{"type":"response","id":"1","payload":{"results":[{"id":"ns:t"}]}}');
    await new Promise((resolve) => setImmediate(resolve));
    expect(context.got).toEqual([{ id: 'ns:t' }]);
  });

  it('the wasm worker starts from the ESM and the CJS builds alike', async () => {
    const require = createRequire(import.meta.url);
    const fromCjs = require('../../../dist/runtime.cjs') as typeof runtime;
    const distEsm: string = '../../../dist/runtime.js';
    const fromEsm = (await import(distEsm)) as typeof runtime;
    for (const build of [fromCjs, fromEsm]) {
      const backend: RuntimeBackend & { close(): Promise<void> } = build.createWasmBackend({ poolSize: 1 });
      try {
        const gateway = createDirectGateway(createContractFixture());
        const result = await backend.execute({ code: "return (await tools.runTool('test:add', { a: 1, b: 2 })).structured;", gateway });
        expect(result.value).toBe(3);
      } finally {
        await backend.close();
      }
    }
  });
});
