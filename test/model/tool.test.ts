import { describe, expect, it } from 'vitest';
import {
  MAX_TOOL_NAME_LENGTH,
  MCP_VERSION,
  ToolexecError,
  cloneTool,
  defineTool,
  hasErrorCode,
  parseToolId,
  parsedVersion,
  toMcpTool,
  toolId,
  truncateUtf8,
  utf8ByteLength,
  validateTool,
  type Tool,
} from '../../src/model/index.js';

const S = { type: 'object' as const };

function caught(fn: () => unknown): ToolexecError {
  try {
    fn();
  } catch (err) {
    expect(ToolexecError.isInstance(err)).toBe(true);
    return err as ToolexecError;
  }
  throw new Error('expected a throw');
}

describe('tool IDs (foundation §8, cases 1–11)', () => {
  it('1–4: toolId joins namespace, name and version', () => {
    expect(toolId({ name: 'read', namespace: 'filesystem' })).toBe('filesystem:read');
    expect(toolId({ name: 'read', namespace: 'filesystem', version: '1.0.0' })).toBe('filesystem:read:1.0.0');
    expect(toolId({ name: 'read' })).toBe('read');
    expect(toolId({ name: 'read', version: '1.0.0' })).toBe('read');
    expect(toolId({ name: 'read', namespace: '', version: '1.0.0' })).toBe('read');
  });

  it('5–7, 10: parseToolId returns namespace, name and version apart', () => {
    expect(parseToolId('filesystem:read')).toEqual({ namespace: 'filesystem', name: 'read' });
    expect(parseToolId('filesystem:read:1.0.0')).toEqual({ namespace: 'filesystem', name: 'read', version: '1.0.0' });
    expect(parseToolId('read')).toEqual({ name: 'read' });
    // Nothing is trimmed.
    expect(parseToolId(' ')).toEqual({ name: ' ' });
  });

  it('8–9: malformed IDs are INVALID_TOOL_ID', () => {
    for (const id of ['', ':', ':name', 'namespace:', 'a:b:c:d', 'a:b:', 'a::1']) {
      const err = caught(() => parseToolId(id));
      expect(err.code).toBe('INVALID_TOOL_ID');
      expect(err.message).toMatch(/^invalid tool ID format: /);
    }
    expect(caught(() => parseToolId(42 as unknown as string)).code).toBe('INVALID_TOOL_ID');
  });

  it('11: IDs round-trip', () => {
    const tools = [
      { namespace: 'filesystem', name: 'read' },
      { namespace: 'filesystem', name: 'read', version: '1.0.0' },
      { name: 'read' },
      { namespace: 'my-namespace', name: 'my-tool' },
    ];
    for (const tool of tools) expect(parseToolId(toolId(tool))).toEqual(tool);
  });

  it('toolId rejects values that are not tools with INVALID_TOOL', () => {
    expect(caught(() => toolId(null as unknown as Tool)).code).toBe('INVALID_TOOL');
    expect(caught(() => toolId({ name: 5 } as unknown as Tool)).message).toBe('invalid tool: name must be a string');
    expect(caught(() => toolId({ name: 'a', namespace: 1 } as unknown as Tool)).message).toBe('invalid tool: namespace must be a string');
    expect(caught(() => toolId({ name: 'a', namespace: 'n', version: 1 } as unknown as Tool)).message).toBe(
      'invalid tool: version must be a string',
    );
  });
});

describe('validateTool (foundation §8, cases 12–19)', () => {
  it('12: a name and a schema are enough', () => {
    expect(() => validateTool({ name: 'ok', inputSchema: S })).not.toThrow();
  });

  it('13: an empty name', () => {
    const err = caught(() => validateTool({ name: '', inputSchema: S }));
    expect(err.message).toBe('invalid tool: name is required');
    expect(hasErrorCode(err, 'INVALID_TOOL')).toBe(true);
  });

  it('14: a missing schema', () => {
    expect(caught(() => validateTool({ name: 'ok', inputSchema: null } as unknown as Tool)).message).toBe(
      'invalid tool: inputSchema is required',
    );
    expect(caught(() => validateTool({ name: 'ok' } as unknown as Tool)).message).toBe('invalid tool: inputSchema is required');
  });

  it('15: at most 128 UTF-8 bytes', () => {
    expect(() => validateTool({ name: 'a'.repeat(MAX_TOOL_NAME_LENGTH), inputSchema: S })).not.toThrow();
    expect(caught(() => validateTool({ name: 'a'.repeat(129), inputSchema: S })).message).toBe('invalid tool: name exceeds 128 characters');
    // Bytes, not UTF-16 units: 65 × "é" is 65 units but 130 bytes, and length is checked before characters.
    expect(caught(() => validateTool({ name: 'é'.repeat(65), inputSchema: S })).message).toBe('invalid tool: name exceeds 128 characters');
  });

  it('16–17: invalid characters are listed once each, in order', () => {
    expect(caught(() => validateTool({ name: 'bad:name', inputSchema: S })).message).toBe(
      'invalid tool: name contains invalid characters: :',
    );
    expect(caught(() => validateTool({ name: 'bad@name#here', inputSchema: S })).message).toBe(
      'invalid tool: name contains invalid characters: @, #',
    );
    expect(caught(() => validateTool({ name: 'a b@c d😀', inputSchema: S })).message).toBe(
      'invalid tool: name contains invalid characters:  , @, 😀',
    );
  });

  it('18: the namespace is not checked', () => {
    expect(() => validateTool({ name: 'A.b_c-9', namespace: 'weird ns:x', inputSchema: S })).not.toThrow();
  });

  it('19: the name is checked before the schema', () => {
    expect(caught(() => validateTool({ name: 'bad name', inputSchema: null } as unknown as Tool)).message).toBe(
      'invalid tool: name contains invalid characters:  ',
    );
  });

  it('checks the types of the extensions', () => {
    expect(caught(() => validateTool(null as unknown as Tool)).message).toBe('invalid tool: tool must be an object');
    expect(caught(() => validateTool({ name: 7, inputSchema: S } as unknown as Tool)).message).toBe('invalid tool: name must be a string');
    expect(caught(() => validateTool({ name: 'a', inputSchema: S, tags: ['x', 1] } as unknown as Tool)).message).toBe(
      'invalid tool: tags must be an array of strings',
    );
    // a hole is not a string: a sparse array of a hundred million empty slots is refused at its first
    const sparse: string[] = [];
    sparse.length = 1e8;
    expect(caught(() => validateTool({ name: 'a', inputSchema: S, tags: sparse })).message).toBe(
      'invalid tool: tags must be an array of strings',
    );
    expect(caught(() => validateTool({ name: 'a', inputSchema: S, tags: Object.assign(['x', 'y'], { length: 3 }).reverse() })).code).toBe(
      'INVALID_TOOL',
    );
    expect(caught(() => validateTool({ name: 'a', inputSchema: S, version: 'latest' })).code).toBe('INVALID_TOOL');
    expect(() => validateTool({ name: 'a', inputSchema: S, version: 'v1.2.3' })).not.toThrow();
  });
});

describe('the shape MCP requires of inputSchema', () => {
  it('refuses an inputSchema that is not a JSON Schema object, naming the tool ID and what is wrong', () => {
    const cases: [unknown, string][] = [
      [5, 'must be a JSON Schema object with type "object", got number'],
      [[], 'must be a JSON Schema object with type "object", got array'],
      [new Map(), 'must be a JSON Schema object with type "object", got Map'],
      ['hello', 'is not valid JSON text (failed to parse schema: '],
      ['   ', 'is not valid JSON text (empty schema)'],
      ['5', 'must be a JSON Schema object with type "object", got number'],
      [{ type: 'string' }, 'must describe an object (type "object"), got type "string"'],
      [{ type: 'array', items: { type: 'string' } }, 'must describe an object (type "object"), got type "array"'],
      [{ type: ['string', 'null'] }, 'must describe an object (type "object"), got type ["string","null"]'],
      ['{"type":"integer"}', 'must describe an object (type "object"), got type "integer"'],
      [new TextEncoder().encode('{"type":"null"}'), 'must describe an object (type "object"), got type "null"'],
      // a dialect no validator evaluates: refused when the tool is defined, not at its first call
      [
        { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' },
        'cannot be evaluated: unsupported JSON Schema dialect: https://json-schema.org/draft/2019-09/schema (only 2020-12 and draft-07 are supported)',
      ],
      [{ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }, 'cannot be evaluated: unsupported JSON Schema dialect'],
      [{ $schema: 7, type: 'object' }, 'cannot be evaluated: $schema must be a string, got 7'],
    ];
    for (const [inputSchema, problem] of cases) {
      const err = caught(() => validateTool({ name: 'write', namespace: 'files', version: '1.0.0', inputSchema } as unknown as Tool));
      expect(err.code).toBe('INVALID_TOOL');
      expect(err.message).toContain(`invalid tool: inputSchema of tool "files:write:1.0.0" ${problem}`);
      expect(err.details).toMatchObject({ toolId: 'files:write:1.0.0' });
    }
    // defineTool goes through the same check.
    expect(caught(() => defineTool({ name: 'n', inputSchema: { type: 'string' } } as unknown as Tool)).message).toBe(
      'invalid tool: inputSchema of tool "n" must describe an object (type "object"), got type "string"',
    );
  });

  it('accepts an object schema, a schema without a root type, a boolean schema and JSON text of one', () => {
    const accepted: unknown[] = [
      // the supported dialects over http or https, and a custom meta-schema (a validator may be given it)
      { $schema: 'https://json-schema.org/draft-07/schema#', type: 'object' },
      { $schema: 'http://json-schema.org/draft/2020-12/schema', type: 'object' },
      { $schema: 'https://example.com/meta', type: 'object' },
      { type: 'object' },
      { type: 'object', properties: { a: { type: 'string' } } },
      {},
      { properties: { a: { type: 'string' } }, required: ['a'] },
      { $ref: '#/$defs/args', $defs: { args: { type: 'object' } } },
      { type: ['object', 'null'] },
      true,
      false,
      '{"type":"object"}',
      'true',
      new TextEncoder().encode('{"type":"object","properties":{}}'),
    ];
    for (const inputSchema of accepted) expect(() => validateTool({ name: 't', inputSchema } as unknown as Tool)).not.toThrow();
  });

  it('checks the Go rules first: a bad name or a missing schema is reported as before', () => {
    expect(caught(() => validateTool({ name: 'bad name', inputSchema: 5 } as unknown as Tool)).message).toBe(
      'invalid tool: name contains invalid characters:  ',
    );
    expect(caught(() => validateTool({ name: 'a', inputSchema: 5, tags: 'x' } as unknown as Tool)).message).toBe(
      'invalid tool: tags must be an array of strings',
    );
  });
});

describe('UTF-8 helpers', () => {
  it('count and cut bytes without splitting a character', () => {
    expect(utf8ByteLength('aé😀')).toBe(1 + 2 + 4);
    expect(utf8ByteLength('\ud800')).toBe(3);
    expect(truncateUtf8('aé😀', 4)).toBe('aé');
    expect(truncateUtf8('short', 64)).toBe('short');
  });
});

describe('defineTool, cloneTool, toMcpTool, parsedVersion (foundation §8, cases 35–42)', () => {
  it('35: defineTool normalizes tags', () => {
    const tool = defineTool({ name: 'tagged', inputSchema: S, tags: ['  UPPER  ', 'with spaces', 'with!special@chars'] });
    expect(tool.tags).toEqual(['upper', 'with-spaces', 'withspecialchars']);
  });

  it('36: defineTool validates', () => {
    expect(caught(() => defineTool({ name: '', inputSchema: S })).code).toBe('INVALID_TOOL');
    expect(caught(() => defineTool({ name: 'no-schema' } as unknown as Tool)).message).toBe('invalid tool: inputSchema is required');
    expect(caught(() => defineTool({ name: 'bad:name', inputSchema: S })).code).toBe('INVALID_TOOL');
  });

  it('37: the defined tool is a copy', () => {
    const source: Tool = { name: 'copy', description: 'old', inputSchema: S, tags: ['A'] };
    const tool = defineTool(source);
    source.description = 'new';
    expect(tool.description).toBe('old');
    expect(tool).not.toBe(source);
    expect(source.tags).toEqual(['A']);
  });

  it('39: toMcpTool drops the extensions; JSON keeps them', () => {
    const tool: Tool = { name: 'read', description: 'Reads', namespace: 'fs', version: '1.0.0', tags: ['io'], inputSchema: S };
    const mcp = toMcpTool(tool);
    expect(mcp).toEqual({ name: 'read', description: 'Reads', inputSchema: S });
    expect(Object.keys(mcp)).not.toEqual(expect.arrayContaining(['namespace']));
    expect(JSON.parse(JSON.stringify(tool))).toMatchObject({ namespace: 'fs', version: '1.0.0', tags: ['io'] });
  });

  it('41: cloneTool copies deeply', () => {
    const tool: Tool = {
      name: 'full',
      title: 'Full',
      description: 'd',
      namespace: 'ns',
      version: '1.0.0',
      tags: ['a', 'b'],
      inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
      outputSchema: { type: 'object' },
      annotations: { title: 'T', readOnlyHint: true, destructiveHint: false },
      icons: [{ src: 'https://example.com/i.png', sizes: ['16x16'] }],
      _meta: { summary: 's', nested: { k: 1 } },
    };
    const snapshot = structuredClone(tool);
    const clone = cloneTool(tool);
    expect(clone).toEqual(tool);
    (clone._meta as Record<string, unknown>).summary = 'changed';
    ((clone._meta as Record<string, { k: number }>).nested as { k: number }).k = 2;
    (clone.annotations as { title?: string }).title = 'changed';
    (clone.tags as string[])[0] = 'changed';
    (clone.inputSchema as { type: string }).type = 'array';
    ((clone.icons as { sizes?: string[] }[])[0]?.sizes as string[])[0] = '1x1';
    expect(tool).toEqual(snapshot);
    expect(cloneTool(null as unknown as Tool)).toBeNull();
  });

  it('42: parsedVersion', () => {
    expect(caught(() => parsedVersion({ version: '' })).message).toBe('invalid tool: tool has no version');
    expect(caught(() => parsedVersion({})).code).toBe('INVALID_TOOL');
    expect(parsedVersion({ version: 'v2.0.0' }).version).toBe('2.0.0');
    expect(parsedVersion({ version: '1.0.0-alpha.1' }).prerelease).toEqual(['alpha', 1]);
    expect(parsedVersion({ version: '1.2.3+sha.5' })).toEqual({
      version: '1.2.3',
      major: 1,
      minor: 2,
      patch: 3,
      prerelease: [],
      build: ['sha', '5'],
    });
    expect(Object.isFrozen(parsedVersion({ version: '1.2.3' }))).toBe(true);
    expect(caught(() => parsedVersion({ version: 'not-a-version' })).code).toBe('INVALID_TOOL');
  });

  it('MCP_VERSION is the protocol revision', () => {
    expect(MCP_VERSION).toBe('2025-11-25');
  });
});
