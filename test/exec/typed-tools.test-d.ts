import { describe, expectTypeOf, it } from 'vitest';
import { createExec, defineLocalTool, type ArgsOf, type LocalToolDefinition } from '../../src/exec/index.js';
import type { LocalHandlerContext } from '../../src/run/index.js';

const addSchema = {
  type: 'object',
  properties: {
    a: { type: 'number' },
    b: { type: 'number' },
    label: { type: 'string', enum: ['sum', 'total'] },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['a', 'b'],
  additionalProperties: false,
} as const;

describe('defineLocalTool infers handler arguments from a literal JSON Schema', () => {
  it('types each argument from an `as const` schema, required ones without undefined', () => {
    const add = defineLocalTool({
      tool: { name: 'add', namespace: 'math', inputSchema: addSchema },
      handler: (args, ctx) => {
        expectTypeOf(args.a).toEqualTypeOf<number>();
        expectTypeOf(args.b).toEqualTypeOf<number>();
        expectTypeOf(args.label).toEqualTypeOf<'sum' | 'total' | undefined>();
        expectTypeOf(args.tags).toEqualTypeOf<string[] | undefined>();
        expectTypeOf(ctx).toEqualTypeOf<LocalHandlerContext>();
        return args.a + args.b;
      },
    });
    expectTypeOf(add).toEqualTypeOf<LocalToolDefinition>();
    expectTypeOf<ArgsOf<typeof addSchema>>().toEqualTypeOf<{ a: number; b: number; label?: 'sum' | 'total'; tags?: string[] }>();
  });

  it('reads an inline schema as a literal without `as const`', () => {
    defineLocalTool({
      tool: {
        name: 'greet',
        inputSchema: { type: 'object', properties: { name: { type: 'string' }, times: { type: 'integer' } }, required: ['name'] },
      },
      handler: ({ name, times }) => {
        expectTypeOf(name).toEqualTypeOf<string>();
        expectTypeOf(times).toEqualTypeOf<number | undefined>();
        return name.repeat(times ?? 1);
      },
    });
  });

  it('rejects a handler that misreads its arguments', () => {
    defineLocalTool({
      tool: { name: 'add', inputSchema: addSchema },
      // @ts-expect-error a is a number, not a string
      handler: (args) => args.a.toUpperCase(),
    });
    defineLocalTool({
      tool: { name: 'add', inputSchema: addSchema },
      handler: (args) => {
        // @ts-expect-error the schema declares no argument c (additionalProperties: false)
        return args.c;
      },
    });
  });

  it('its result goes into createExec({ tools }) beside untyped definitions', () => {
    const typed = defineLocalTool({ tool: { name: 'add', inputSchema: addSchema }, handler: (args) => args.a });
    const untyped: LocalToolDefinition = { tool: { name: 'raw', inputSchema: { type: 'object' } }, handler: (args) => args.x };
    expectTypeOf(createExec).parameter(0).toMatchTypeOf<{ tools?: LocalToolDefinition[] } | undefined>();
    expectTypeOf([typed, untyped]).toEqualTypeOf<LocalToolDefinition[]>();
  });
});
