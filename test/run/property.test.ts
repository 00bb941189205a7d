import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolexecError, type ToolBackend } from '../../src/model/index.js';
import { ToolError, createRunner } from '../../src/run/index.js';
import { FakeMcpExecutor, echoTool, indexWith, localBackend, mcpBackend, providerBackend, tool } from './helpers.js';

const index = indexWith(
  [echoTool, localBackend('echo')],
  [tool('remote', { namespace: 'srv' }), mcpBackend('srv')],
  [tool('p'), providerBackend('pp', 'pt')],
);
index.registerTool(tool('toString'), localBackend('toString'));
index.registerTool(tool('odd'), localBackend('__proto__'));

const runner = createRunner({
  index,
  mcp: new FakeMcpExecutor(),
  toolResolver: (id) => (id.startsWith('r:') ? tool(id.slice(2) || 'x') : undefined),
  backendsResolver: (id) => (id.length % 2 === 0 ? [localBackend(id)] : ([{ kind: id }] as unknown as ToolBackend[])),
  local: {
    echo: (args) => ({ echoed: args.message }),
    toString: () => {
      throw new Error('handler failure');
    },
  },
});

const toolIds = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '',
    'demo:echo',
    'srv:remote',
    'p',
    'toString',
    'odd',
    'r:',
    'r:x',
    'r:ab',
    'a:b:c:d',
    ':x',
    'x:',
    '__proto__',
    'constructor',
  ),
  fc.string().map((s) => `r:${s}`),
);

describe('property: run never rejects with anything but a ToolexecError', () => {
  it('holds for arbitrary tool IDs and arguments', async () => {
    await fc.assert(
      fc.asyncProperty(toolIds, fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }), async (id, args) => {
        try {
          const result = await runner.run(id, args);
          expect(result.tool).toBeDefined();
          expect(result.backend).toBeDefined();
        } catch (err) {
          expect(ToolexecError.isInstance(err)).toBe(true);
          expect(err).toBeInstanceOf(ToolError);
          expect((err as ToolError).toolId).toBe(id);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('holds for streams and chains too', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            toolId: toolIds,
            args: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
            usePrevious: fc.boolean(),
          }),
          { maxLength: 4 },
        ),
        async (steps) => {
          try {
            await runner.runChain(steps);
          } catch (err) {
            expect(ToolexecError.isInstance(err)).toBe(true);
          }
          for (const step of steps) {
            try {
              for await (const event of runner.runStream(step.toolId, step.args)) expect(typeof event.kind).toBe('string');
            } catch (err) {
              expect(ToolexecError.isInstance(err)).toBe(true);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
