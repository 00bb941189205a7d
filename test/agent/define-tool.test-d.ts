import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agent/define-tool.js';
import type { InferToolArgs, StandardSchema } from '../../src/agent/define-tool-schema.js';
import { createExec, type LocalToolDefinition } from '../../src/exec/index.js';
import type { LocalHandlerContext } from '../../src/run/index.js';

describe('defineTool types', () => {
  it("types the handler's arguments from a zod schema (z.infer: the output side), without casts", () => {
    const tool = defineTool({
      name: 'add',
      inputSchema: z.object({ a: z.number(), b: z.number().default(1), label: z.string().optional() }),
      handler: (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number; b: number; label?: string | undefined }>();
        expectTypeOf(ctx).toEqualTypeOf<LocalHandlerContext>();
        return args.a + args.b;
      },
    });
    expectTypeOf(tool).toEqualTypeOf<LocalToolDefinition>();
    createExec({ tools: [tool] });
  });

  it('applies transforms to the argument types', () => {
    defineTool({
      name: 'len',
      inputSchema: z.object({ text: z.string().transform((s) => s.length) }),
      handler: ({ text }) => {
        expectTypeOf(text).toEqualTypeOf<number>();
        return { length: text };
      },
    });
  });

  it('types the arguments from any Standard Schema (InferOutput)', () => {
    const schema = {} as StandardSchema<{ n: string }, { n: number }>;
    defineTool({
      name: 'n',
      inputSchema: schema,
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ n: number }>();
        return args.n;
      },
    });
    expectTypeOf<InferToolArgs<typeof schema>>().toEqualTypeOf<{ n: number }>();
  });

  it('plain JSON Schema gives Record<string, unknown>', () => {
    defineTool({
      name: 'j',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return null;
      },
    });
  });

  it('an output schema types what the handler returns', () => {
    defineTool({
      name: 'out',
      inputSchema: z.object({ a: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
      handler: async ({ a }) => ({ sum: a }),
    });
    defineTool({
      name: 'bad',
      inputSchema: z.object({ a: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
      // @ts-expect-error -- sum must be a number
      handler: ({ a }) => ({ sum: String(a) }),
    });
  });

  it('a handler that misuses its arguments does not compile', () => {
    defineTool({
      name: 'wrong',
      inputSchema: z.object({ a: z.number() }),
      handler: (args) => {
        // @ts-expect-error -- a is a number
        const text: string = args.a;
        // @ts-expect-error -- no such argument
        return args.b + text;
      },
    });
  });
});
