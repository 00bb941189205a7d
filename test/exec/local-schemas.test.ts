/**
 * The facade's own `tools` have their schemas compiled by `createExec`: a schema broken below its
 * root fails at startup with the `INVALID_SCHEMA` a call would have given, not at the first call.
 * Tools added later (`exec.index.registerTool`) stay lazy.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createToolIndex, type ToolIndex } from '../../src/discovery/index.js';
import { createExec, type DefaultExec, type ExecOptions } from '../../src/exec/index.js';
import { ToolError } from '../../src/run/index.js';
import { ToolexecError, localBackend, mcpBackend, type Tool } from '../../src/model/index.js';

const open: DefaultExec[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

function made(options: ExecOptions): DefaultExec {
  const exec = createExec(options);
  open.push(exec);
  return exec;
}

/** What `createExec` threw (failing the test when it does not throw). */
function refusal(options: ExecOptions): ToolexecError {
  try {
    made(options);
  } catch (err) {
    expect(ToolexecError.isInstance(err), String(err)).toBe(true);
    return err as ToolexecError;
  }
  throw new Error('createExec did not throw');
}

/** What the first call of `tool` rejects with when it is registered after creation (lazily compiled). */
async function onCall(tool: Tool, args: Record<string, unknown>, options: ExecOptions = {}): Promise<ToolError> {
  const exec = made(options);
  const id = tool.namespace === undefined ? tool.name : `${tool.namespace}:${tool.name}`;
  exec.index.registerTool(tool, localBackend(id));
  exec.localHandlers.registerHandler(id, () => ({ a: 'x' }));
  const err: unknown = await exec.runTool(id, args).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolError);
  return err as ToolError;
}

const NESTED_INPUT: Tool = { name: 'bad', namespace: 't', inputSchema: { type: 'object', properties: { a: { type: 'strng' } } } };
const NESTED_OUTPUT: Tool = {
  name: 'bad',
  namespace: 't',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', properties: { a: { type: 'string', minLength: 'two' } } },
};
const EXTERNAL_REF: Tool = {
  name: 'bad',
  namespace: 't',
  inputSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } },
};

describe('createExec compiles the schemas of its tools', () => {
  it('a nested input schema that does not compile: INVALID_SCHEMA at once, as the call would give it', async () => {
    const err = refusal({ tools: [{ tool: NESTED_INPUT, handler: () => 1 }] });
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(err.message).toMatch(
      /^invalid JSON Schema: inputSchema of tool "t:bad": schema is invalid: \/properties\/a\/type must be equal to one of the allowed values/,
    );
    expect(err.details).toMatchObject({ tool: 't:bad', schema: 'inputSchema' });
    const call = await onCall(NESTED_INPUT, {});
    expect(call.code).toBe('INVALID_SCHEMA');
    expect(call.op).toBe('validate_input');
    expect(err.message).toBe((call.cause as Error).message);
    expect(call.message).toBe(`run: validate_input t:bad [local]: ${err.message}`);
    expect(err.details).toEqual(call.details);
  });

  it('a nested output schema that does not compile: INVALID_SCHEMA naming outputSchema', async () => {
    const err = refusal({ tools: [{ tool: NESTED_OUTPUT, handler: () => ({ a: 'x' }) }] });
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(err.message).toMatch(
      /^invalid JSON Schema: outputSchema of tool "t:bad": schema is invalid: \/properties\/a\/minLength must be/,
    );
    expect(err.details).toMatchObject({ tool: 't:bad', schema: 'outputSchema' });
    const call = await onCall(NESTED_OUTPUT, {});
    expect(call.code).toBe('INVALID_SCHEMA');
    expect(call.op).toBe('validate_output');
    expect(err.message).toBe((call.cause as Error).message);
    expect(err.details).toEqual(call.details);
  });

  it('a $ref to a URL (never fetched): INVALID_SCHEMA at once', async () => {
    const err = refusal({ tools: [{ tool: EXTERNAL_REF, handler: () => 1 }] });
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(err.message).toBe(
      'invalid JSON Schema: inputSchema of tool "t:bad": external $ref resolution is disabled: https://example.com/a.json',
    );
    expect(err.details).toEqual({
      reason: 'external $ref resolution is disabled: https://example.com/a.json',
      tool: 't:bad',
      schema: 'inputSchema',
    });
    const call = await onCall(EXTERNAL_REF, {});
    expect(err.details).toEqual(call.details);
  });

  it('names the broken tool among good ones; a root-level breakage stays INVALID_TOOL', () => {
    const good: Tool = { name: 'good', namespace: 't', inputSchema: { type: 'object' } };
    const err = refusal({
      tools: [
        { tool: good, handler: () => 1 },
        { tool: { ...NESTED_INPUT, name: 'worse' }, handler: () => 1 },
      ],
    });
    expect(err.details).toMatchObject({ tool: 't:worse', schema: 'inputSchema' });
    const root = refusal({ tools: [{ tool: { name: 'bad', inputSchema: { type: 'strng' } } as unknown as Tool, handler: () => 1 }] });
    expect(root.code).toBe('INVALID_TOOL');
  });

  it('checks only what calls check: no input check with validateInput: false, no output check unless validateOutput is true', async () => {
    made({ tools: [{ tool: NESTED_INPUT, handler: () => 1 }], validateInput: false });
    made({ tools: [{ tool: NESTED_OUTPUT, handler: () => ({ a: 'x' }) }], validateOutput: false });
    // 'warn' keeps a call going with a warning, so createExec does not fail either
    const warnings: unknown[] = [];
    const exec = made({
      tools: [{ tool: NESTED_OUTPUT, handler: () => ({ a: 'x' }) }],
      validateOutput: 'warn',
      onWarning: (w) => warnings.push(w.error.code),
    });
    expect((await exec.runTool('t:bad', {})).value).toEqual({ a: 'x' });
    expect(warnings).toEqual(['INVALID_SCHEMA']);
    expect(refusal({ tools: [{ tool: NESTED_OUTPUT, handler: () => ({ a: 'x' }) }], validateInput: false }).code).toBe('INVALID_SCHEMA');
  });

  it('tools registered on the index after creation stay lazy: the call fails, not the registration', async () => {
    const exec = made({});
    exec.index.registerTool(NESTED_INPUT, localBackend('t:bad'));
    exec.localHandlers.registerHandler('t:bad', () => 1);
    await expect(exec.runTool('t:bad', {})).rejects.toMatchObject({ code: 'INVALID_SCHEMA', op: 'validate_input' });
  });
});

describe("a refused tools option leaves the caller's index as it was", () => {
  const good: Tool = { name: 'good', namespace: 't', inputSchema: { type: 'object' } };
  const toolNotFound = (index: ToolIndex, id: string): string | undefined => {
    try {
      index.getTool(id);
      return undefined;
    } catch (err) {
      return (err as ToolexecError).code;
    }
  };

  it('a schema refused after good tools: none of them stays in the index', () => {
    const index = createToolIndex();
    const err = refusal({
      index,
      tools: [
        { tool: good, handler: () => 1 },
        { tool: { ...good, name: 'also' }, handler: () => 1 },
        { tool: NESTED_INPUT, handler: () => 1 },
      ],
    });
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(toolNotFound(index, 't:good')).toBe('TOOL_NOT_FOUND');
    expect(toolNotFound(index, 't:also')).toBe('TOOL_NOT_FOUND');
    expect(toolNotFound(index, 't:bad')).toBe('TOOL_NOT_FOUND');
    expect(index.search('good', 5)).toEqual([]);
  });

  it('a duplicate, an invalid tool or a refused doc after good tools: none stays', () => {
    const cases: ExecOptions['tools'][] = [
      [
        { tool: good, handler: () => 1 },
        { tool: good, handler: () => 1 },
      ],
      [
        { tool: good, handler: () => 1 },
        { tool: { name: 'bad name!', inputSchema: { type: 'object' } }, handler: () => 1 },
      ],
      [
        { tool: good, handler: () => 1 },
        { tool: { ...good, name: 'documented' }, handler: () => 1, examples: [{ args: 'not an object' } as never] },
      ],
    ];
    const codes = cases.map((tools) => {
      const index = createToolIndex();
      const code = refusal({ index, tools }).code;
      expect(toolNotFound(index, 't:good'), code).toBe('TOOL_NOT_FOUND');
      expect(toolNotFound(index, 't:documented'), code).toBe('TOOL_NOT_FOUND');
      return code;
    });
    expect(codes).toEqual(['CONFIGURATION', 'INVALID_TOOL', 'INVALID_ARGUMENT']);
  });

  it('a tool the index held before keeps what it had: its other backends, and a local backend it already had', () => {
    const index = createToolIndex();
    index.registerTool(good, mcpBackend('files'));
    const held: Tool = { ...good, name: 'held' };
    index.registerTool(held, localBackend('t:held'));
    refusal({
      index,
      tools: [
        { tool: good, handler: () => 1 },
        { tool: held, handler: () => 1 },
        { tool: NESTED_INPUT, handler: () => 1 },
      ],
    });
    expect(index.getAllBackends('t:good')).toEqual([mcpBackend('files')]);
    expect(index.getAllBackends('t:held')).toEqual([localBackend('t:held')]);
  });
});

/**
 * An index over a real one whose `getTool` hands out the registered tool (the same object every
 * time) with its schemas behind proxies that count every read: the validator reads a schema only to compile it (or to find an
 * equal one by content), never once the schema object is known to it.
 */
function countingIndex(): { index: ToolIndex; reads: () => number } {
  const inner = createToolIndex();
  let reads = 0;
  const counted = new Map<string, Tool>();
  const watch = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    return new Proxy(value, {
      get(target, key, receiver) {
        reads++;
        return watch(Reflect.get(target, key, receiver));
      },
      ownKeys(target) {
        reads++;
        return Reflect.ownKeys(target);
      },
    });
  };
  const getTool: ToolIndex['getTool'] = (id) => {
    const found = inner.getTool(id);
    let tool = counted.get(id);
    if (tool === undefined) {
      // over unfrozen copies: a proxy of a frozen object must hand out its very values
      const { inputSchema, outputSchema } = structuredClone({ inputSchema: found.tool.inputSchema, outputSchema: found.tool.outputSchema });
      tool = { ...found.tool, inputSchema: watch(inputSchema) as Tool['inputSchema'] };
      if (outputSchema !== undefined) tool.outputSchema = watch(outputSchema) as Tool['outputSchema'];
      counted.set(id, tool);
    }
    return { tool, backend: found.backend };
  };
  const index = new Proxy(inner, {
    get(target, key) {
      if (key === 'getTool') return getTool;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { index, reads: () => reads };
}

describe('a valid tool', () => {
  it('is compiled by createExec, once: its first call reads its schemas no more', async () => {
    const { index, reads } = countingIndex();
    const tool: Tool = {
      name: 'echo',
      namespace: 't',
      inputSchema: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] },
      outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    };
    const exec = made({ index, tools: [{ tool, handler: (args) => ({ text: args.text }) }] });
    const atCreation = reads();
    expect(atCreation).toBeGreaterThan(0);
    expect((await exec.runTool('t:echo', { text: 'hi' })).value).toEqual({ text: 'hi' });
    await expect(exec.runTool('t:echo', { text: '' })).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(reads()).toBe(atCreation);
  });
});
