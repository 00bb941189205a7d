/**
 * `compileToolSchema` (model internal): one of a tool's schemas compiled ahead of its first check,
 * failing as that check would and leaving the compiled form for it.
 */
import { describe, expect, it } from 'vitest';
import { ToolexecError, createSchemaValidator, type Tool } from '../../src/model/index.js';
import { compileToolSchema } from '../../src/model/internal.js';

/** What `fn` threw (failing the test when it does not throw). */
function thrown(fn: () => void): ToolexecError {
  try {
    fn();
  } catch (err) {
    expect(ToolexecError.isInstance(err), String(err)).toBe(true);
    return err as ToolexecError;
  }
  throw new Error('expected a throw');
}

function same(a: ToolexecError, b: ToolexecError): void {
  expect(a.code).toBe(b.code);
  expect(a.message).toBe(b.message);
  expect(a.details).toEqual(b.details);
}

describe('compileToolSchema', () => {
  it('compiles once: the checks that follow (forTool, validateInput, validateOutput) compile nothing', () => {
    const validator = createSchemaValidator();
    const tool: Tool = {
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    };
    compileToolSchema(validator, tool, 'inputSchema');
    compileToolSchema(validator, tool, 'outputSchema');
    expect(validator.cacheStats().compilations).toBe(2);
    compileToolSchema(validator, tool, 'inputSchema');
    const checks = validator.forTool(tool);
    checks.validateInput({ text: 'a' });
    checks.validateOutput({ text: 'a' });
    validator.validateInput(tool, { text: 'a' });
    validator.validateOutput(tool, { text: 'a' });
    expect(validator.cacheStats().compilations).toBe(2);
  });

  it('throws the INVALID_SCHEMA of the first check: message and details naming the tool and the slot', () => {
    const tool: Tool = {
      name: 'bad',
      namespace: 't',
      inputSchema: { type: 'object', properties: { a: { type: 'strng' } } },
      outputSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } },
    };
    const input = thrown(() => compileToolSchema(createSchemaValidator(), tool, 'inputSchema'));
    expect(input.code).toBe('INVALID_SCHEMA');
    expect(input.details).toMatchObject({ tool: 't:bad', schema: 'inputSchema' });
    same(
      input,
      thrown(() => createSchemaValidator().validateInput(tool, {})),
    );
    const output = thrown(() => compileToolSchema(createSchemaValidator(), tool, 'outputSchema'));
    expect(output.message).toBe(
      'invalid JSON Schema: outputSchema of tool "t:bad": external $ref resolution is disabled: https://example.com/a.json',
    );
    same(
      output,
      thrown(() => createSchemaValidator().validateOutput(tool, {})),
    );
    // the refusals are remembered for the schema objects, as a check's are
    const validator = createSchemaValidator();
    thrown(() => compileToolSchema(validator, tool, 'inputSchema'));
    thrown(() => compileToolSchema(validator, tool, 'outputSchema'));
    expect(validator.cacheStats().compilations).toBe(2);
    same(
      input,
      thrown(() => validator.forTool(tool).validateInput({})),
    );
    same(
      output,
      thrown(() => validator.validateOutput(tool, {})),
    );
    expect(validator.cacheStats().compilations).toBe(2);
  });

  it('no output schema is nothing to compile; no input schema (or no tool) fails as validateInput does', () => {
    const validator = createSchemaValidator();
    compileToolSchema(validator, { name: 'plain', inputSchema: { type: 'object' } }, 'outputSchema');
    expect(validator.cacheStats().compilations).toBe(0);
    const bare = { name: 'bare' } as unknown as Tool;
    same(
      thrown(() => compileToolSchema(validator, bare, 'inputSchema')),
      thrown(() => validator.validateInput(bare, {})),
    );
    same(
      thrown(() => compileToolSchema(validator, null as unknown as Tool, 'inputSchema')),
      thrown(() => validator.validateInput(null as unknown as Tool, {})),
    );
  });
});
