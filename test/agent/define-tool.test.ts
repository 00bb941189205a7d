import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agent/define-tool.js';
import { agentTools, type AnthropicTool } from '../../src/agent/index.js';
import type { StandardSchema } from '../../src/agent/define-tool-schema.js';
import { createExec, type DefaultExec, type LocalToolDefinition } from '../../src/exec/index.js';
import { ToolexecError, hasErrorCode } from '../../src/model/index.js';

const open: DefaultExec[] = [];
function execWith(...tools: LocalToolDefinition[]): DefaultExec {
  const exec = createExec({ tools });
  open.push(exec);
  return exec;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

async function rejection(promise: Promise<unknown>): Promise<ToolexecError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(ToolexecError.isInstance(error), String(error)).toBe(true);
  return error as ToolexecError;
}

function configurationError(run: () => unknown): ToolexecError {
  try {
    run();
  } catch (err) {
    expect(hasErrorCode(err, 'CONFIGURATION'), String(err)).toBe(true);
    return err as ToolexecError;
  }
  throw new Error('expected CONFIGURATION');
}

/**
 * A Standard Schema from a library other than zod (the interface users bring): checks that a value
 * is an object with a numeric `n`, and converts to JSON Schema when `withJsonSchema` is set.
 */
function otherVendorSchema(withJsonSchema: boolean): StandardSchema<{ n: number }, { n: number; doubled: number }> {
  const json = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
  return {
    '~standard': {
      version: 1,
      vendor: 'tiny',
      validate: (value) => {
        const n = (value as { n?: unknown }).n;
        return typeof n === 'number' && n >= 0 ? { value: { n, doubled: n * 2 } } : { issues: [{ message: 'must be ≥ 0', path: ['n'] }] };
      },
      ...(withJsonSchema ? { jsonSchema: { input: () => structuredClone(json), output: () => structuredClone(json) } } : {}),
    },
  };
}

describe('defineTool with zod 4', () => {
  const add = defineTool({
    name: 'add',
    namespace: 'math',
    description: 'Adds two numbers',
    tags: ['Math', 'arithmetic'],
    inputSchema: z.object({ a: z.number().describe('first'), b: z.number() }),
    outputSchema: z.object({ sum: z.number() }),
    handler: ({ a, b }) => ({ sum: a + b }),
  });

  it('stores JSON Schema converted by z.toJSONSchema and runs the handler', async () => {
    expect(add.tool.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { type: 'number', description: 'first' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(add.tool.outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] });
    expect(add.tool.tags).toEqual(['math', 'arithmetic']);
    const exec = execWith(add);
    expect(exec.index.getTool('math:add').tool.inputSchema).toEqual(add.tool.inputSchema);
    expect((await exec.runTool('math:add', { a: 2, b: 3 })).value).toEqual({ sum: 5 });
  });

  it("validates with toolexec's own validator: VALIDATION with the field's violation", async () => {
    const exec = execWith(add);
    const err = await rejection(exec.runTool('math:add', { a: 2, b: 'three' }));
    expect(err.code).toBe('VALIDATION');
    expect(err.details?.violations).toEqual([
      expect.objectContaining({ field: '/b', code: 'InvalidType', message: "Field '/b' must be number, got string." }),
    ]);
  });

  it("hands the handler the schema's output: defaults filled in, transforms applied", async () => {
    const seen: unknown[] = [];
    const greet = defineTool({
      name: 'greet',
      inputSchema: z.object({ name: z.string().transform((s) => s.toUpperCase()), times: z.number().int().default(2) }),
      handler: (args) => {
        seen.push(args);
        return { text: `${args.name} `.repeat(args.times).trim() };
      },
    });
    expect(greet.tool.inputSchema).toMatchObject({ required: ['name'] });
    const exec = execWith(greet);
    expect((await exec.runTool('greet', { name: 'ada' })).value).toEqual({ text: 'ADA ADA' });
    expect(seen).toEqual([{ name: 'ADA', times: 2 }]);
  });

  it('a refinement JSON Schema cannot express fails the call with VALIDATION naming the issue', async () => {
    const range = defineTool({
      name: 'range',
      inputSchema: z
        .object({ from: z.number(), to: z.number() })
        .refine((r) => r.from <= r.to, { message: 'from must not exceed to', path: ['to'] }),
      handler: ({ from, to }) => ({ size: to - from }),
    });
    const exec = execWith(range);
    expect((await exec.runTool('range', { from: 1, to: 4 })).value).toEqual({ size: 3 });
    const err = await rejection(exec.runTool('range', { from: 5, to: 4 }));
    expect(err.code).toBe('EXECUTION');
    expect(err.message).toContain('/to: from must not exceed to');
    const cause = err.cause as ToolexecError;
    expect(cause.code).toBe('VALIDATION');
    expect(cause.details?.issues).toEqual([{ field: '/to', message: 'from must not exceed to' }]);
  });

  it('an async refinement and an async handler work', async () => {
    const slow = defineTool({
      name: 'slow',
      inputSchema: z.object({ id: z.string() }).refine(async (v) => Promise.resolve(v.id !== 'bad'), { message: 'unknown id' }),
      outputSchema: z.object({
        id: z.string(),
        at: z
          .string()
          .transform((s) => `at ${s}`)
          .pipe(z.string()),
      }),
      handler: async ({ id }) => ({ id, at: 'noon' }),
    });
    const exec = execWith(slow);
    expect((await exec.runTool('slow', { id: 'x' })).value).toEqual({ id: 'x', at: 'at noon' });
    expect((await rejection(exec.runTool('slow', { id: 'bad' }))).message).toContain('unknown id');
  });

  it('a result the output schema refuses fails the call (OUTPUT_VALIDATION from the schema, or from toolexec)', async () => {
    const liar = defineTool({
      name: 'liar',
      inputSchema: z.object({ positive: z.boolean() }),
      outputSchema: z.object({ n: z.number().positive() }),
      handler: ({ positive }) => ({ n: positive ? 1 : -1 }),
    });
    const exec = execWith(liar);
    expect((await exec.runTool('liar', { positive: true })).value).toEqual({ n: 1 });
    const err = await rejection(exec.runTool('liar', { positive: false }));
    expect(err.message).toContain('/n:');
    expect((err.cause as ToolexecError).code).toBe('OUTPUT_VALIDATION');
  });

  it('the handler gets the call context (signal, toolId)', async () => {
    const who = defineTool({
      name: 'who',
      namespace: 'ctx',
      inputSchema: z.object({}),
      handler: (_args, ctx) => ({ toolId: ctx.toolId, aborted: ctx.signal.aborted }),
    });
    expect((await execWith(who).runTool('ctx:who', {})).value).toEqual({ toolId: 'ctx:who', aborted: false });
  });
});

describe('defineTool with other schemas', () => {
  it('takes another vendor’s Standard Schema through its Standard JSON Schema converter', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'double',
      inputSchema: otherVendorSchema(true),
      handler: (args) => {
        seen.push(args);
        return { doubled: args.doubled };
      },
    });
    expect(tool.tool.inputSchema).toEqual({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] });
    const exec = execWith(tool);
    expect((await exec.runTool('double', { n: 4 })).value).toEqual({ doubled: 8 });
    expect(seen).toEqual([{ n: 4, doubled: 8 }]);
    expect((await rejection(exec.runTool('double', { n: 'x' }))).code).toBe('VALIDATION');
    expect((await rejection(exec.runTool('double', { n: -1 }))).message).toContain('/n: must be ≥ 0');
  });

  it('refuses a Standard Schema without a JSON Schema converter with CONFIGURATION naming the vendor', () => {
    const err = configurationError(() => defineTool({ name: 'x', inputSchema: otherVendorSchema(false), handler: () => 1 }));
    expect(err.message).toMatch(/^agent: option inputSchema is a Standard Schema of "tiny" that cannot be converted to JSON Schema/);
  });

  it('takes plain JSON Schema as it is', async () => {
    const schema = { type: 'object', properties: { q: { type: 'string', minLength: 1 } }, required: ['q'] };
    const tool = defineTool({ name: 'echo', inputSchema: schema, handler: (args) => ({ q: args.q }) });
    expect(tool.tool.inputSchema).toEqual(schema);
    expect(tool.tool.inputSchema).not.toBe(schema);
    const exec = execWith(tool);
    expect((await exec.runTool('echo', { q: 'hi' })).value).toEqual({ q: 'hi' });
    expect((await rejection(exec.runTool('echo', { q: '' }))).code).toBe('VALIDATION');
  });

  it('refuses what cannot be stored: a zod type JSON Schema cannot express, a non-object schema, a missing handler', () => {
    expect(
      configurationError(() => defineTool({ name: 'd', inputSchema: z.object({ when: z.date() }), handler: () => 1 })).message,
    ).toContain('could not be converted to JSON Schema by zod');
    expect(configurationError(() => defineTool({ name: 's', inputSchema: z.string(), handler: () => 1 })).message).toContain(
      'must describe an object',
    );
    expect(configurationError(() => defineTool({ name: 'n', inputSchema: 42 as never, handler: () => 1 })).message).toContain(
      'must be a zod 4 schema, a Standard Schema or a JSON Schema object',
    );
    expect(configurationError(() => defineTool({ name: 'h', inputSchema: z.object({}), handler: undefined as never })).message).toBe(
      'agent: option handler must be a function',
    );
  });

  it('takes a root union of objects (z.discriminatedUnion, z.union): typed args, each variant callable, adapters merge it', async () => {
    const draw = defineTool({
      name: 'draw',
      namespace: 'gfx',
      description: 'Draw a shape.',
      inputSchema: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('circle'), r: z.number() }),
        z.object({ kind: z.literal('square'), side: z.number() }),
      ]),
      handler: (shape) => (shape.kind === 'circle' ? { area: 3 * shape.r * shape.r } : { area: shape.side * shape.side }),
    });
    expect(draw.tool.inputSchema).toMatchObject({ type: 'object', oneOf: [{ type: 'object' }, { type: 'object' }] });
    const exec = execWith(draw);
    expect((await exec.runTool('gfx:draw', { kind: 'circle', r: 1 })).value).toEqual({ area: 3 });
    expect((await exec.runTool('gfx:draw', { kind: 'square', side: 2 })).value).toEqual({ area: 4 });
    expect((await rejection(exec.runTool('gfx:draw', { kind: 'triangle' }))).code).toBe('VALIDATION');
    const agent = await agentTools(exec, { format: 'anthropic', strict: true });
    expect((agent.tools[0] as AnthropicTool).input_schema.properties).toMatchObject({ kind: { enum: ['circle', 'square'] } });
    const either = defineTool({
      name: 'either',
      inputSchema: z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]),
      handler: (args) => args,
    });
    expect(either.tool.inputSchema).toMatchObject({ type: 'object', anyOf: [{ type: 'object' }, { type: 'object' }] });
  });

  it('refuses a root union with an alternative that is not an object, naming it', () => {
    const error = configurationError(() =>
      defineTool({ name: 'mixed', inputSchema: z.union([z.object({ a: z.string() }), z.string()]) as never, handler: () => 1 }),
    );
    expect(error.message).toBe(
      "agent: option inputSchema must describe an object (a tool's arguments are a JSON object); its JSON Schema is a union (anyOf) whose alternative 1 is not an object (type \"string\"); every alternative of a root union must be a z.object (or have type: 'object')",
    );
    expect(error.message).not.toContain('type null');
  });

  it('keeps the model’s rules on the tool itself (INVALID_TOOL)', () => {
    expect(() => defineTool({ name: 'bad name', inputSchema: z.object({}), handler: () => 1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_TOOL' }),
    );
  });
});
