import { describe, expect, it } from 'vitest';
import {
  DOC_LIMITS,
  InMemoryDocStore,
  MAX_ARGS_DEPTH,
  MAX_ARGS_KEYS,
  createDocStore,
  createToolIndex,
  deriveSchemaInfo,
  measureArgs,
  type DetailLevel,
  type ToolExample,
} from '../../src/discovery/index.js';
import { ToolexecError, utf8ByteLength, type Tool } from '../../src/model/index.js';
import { expectCode, local, tool } from './support.js';

const example = (title: string, args: Record<string, unknown> | null = {}, extra: Partial<ToolExample> = {}): ToolExample => ({
  title,
  description: `${title} description`,
  args,
  ...extra,
});

function indexWith(...tools: Tool[]) {
  const index = createToolIndex();
  for (const t of tools) index.registerTool(t, local(t.name));
  return index;
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < depth; i++) value = { next: value };
  return value;
}

describe('describeTool (foundation §8 120–127, 135–136)', () => {
  it('120: unknown IDs are TOOL_NOT_FOUND; an invalid level is INVALID_DETAIL, checked first', () => {
    const store = createDocStore();
    const error = expectCode(() => store.describeTool('missing:tool', 'summary'), 'TOOL_NOT_FOUND');
    expect(error.message).toBe('tool not found: missing:tool');
    expect(expectCode(() => store.describeTool('missing:tool', 'invalid' as DetailLevel), 'INVALID_DETAIL').message).toBe(
      'invalid detail level: invalid',
    );
  });

  it('an unknown ID suggests the closest IDs of the index, in the message and details, as the runner does', () => {
    const store = createDocStore({ index: indexWith(tool('convert', { namespace: 'fx' }), tool('greet', { namespace: 'demo' })) });
    for (const level of ['summary', 'schema', 'full'] as const) {
      const error = expectCode(() => store.describeTool('fx:convrt', level), 'TOOL_NOT_FOUND');
      expect(error.message).toBe("tool not found: fx:convrt; did you mean 'fx:convert'?");
      expect(error.details).toEqual({ toolId: 'fx:convrt', suggestions: ['fx:convert'] });
    }
    expect(expectCode(() => store.listExamples('convert', 1), 'TOOL_NOT_FOUND').details).toEqual({
      toolId: 'convert',
      suggestions: ['fx:convert'],
    });
    // nothing close: no hint
    expect(expectCode(() => store.describeTool('zzz:qqq', 'summary'), 'TOOL_NOT_FOUND').message).toBe('tool not found: zzz:qqq');
  });

  it('121: a doc-only ID describes at summary level; schema and full need a tool', () => {
    const store = createDocStore();
    store.registerDoc('doc:only', { summary: 'Just a summary', notes: 'n', examples: [example('e')] });
    expect(store.describeTool('doc:only', 'summary')).toEqual({ summary: 'Just a summary' });
    for (const level of ['schema', 'full'] as const) {
      const error = expectCode(() => store.describeTool('doc:only', level), 'TOOL_NOT_FOUND');
      expect(error.message).toBe('tool required for schema/full level: doc:only');
      expect(error.details).toMatchObject({ toolId: 'doc:only', level });
    }
  });

  it('122: without a doc the summary is the tool description', () => {
    const store = createDocStore({ index: indexWith(tool('t', { namespace: 'ns', description: 'From the tool' })) });
    expect(store.describeTool('ns:t', 'summary')).toEqual({ summary: 'From the tool' });
  });

  it('122: the description fallback is cut to 200 bytes', () => {
    const store = createDocStore({ index: indexWith(tool('t', { description: 'ü'.repeat(150) })) });
    const { summary } = store.describeTool('t', 'summary');
    expect(summary).toBe('ü'.repeat(100));
    expect(utf8ByteLength(summary)).toBe(200);
  });

  it('a tool with an empty description and no doc has an empty summary (a success)', () => {
    const store = createDocStore({ index: indexWith(tool('t')) });
    expect(store.describeTool('t', 'summary')).toEqual({ summary: '' });
  });

  it('123: the resolver provides the tool when there is no index', () => {
    const resolved = tool('r', { description: 'resolved', inputSchema: { type: 'object', required: ['q'] } });
    const store = createDocStore({ toolResolver: (id) => (id === 'r' ? resolved : undefined) });
    expect(store.describeTool('r', 'summary').summary).toBe('resolved');
    const doc = store.describeTool('r', 'schema');
    expect(doc.tool).toBe(resolved);
    expect(doc.schemaInfo).toEqual({ required: ['q'] });
    expectCode(() => store.describeTool('other', 'summary'), 'TOOL_NOT_FOUND');
  });

  it('the index wins over the resolver; index errors are ignored', () => {
    const calls: string[] = [];
    const store = createDocStore({
      index: indexWith(tool('t', { description: 'indexed' })),
      toolResolver: (id) => {
        calls.push(id);
        return tool('x', { description: 'resolved' });
      },
    });
    expect(store.describeTool('t', 'summary').summary).toBe('indexed');
    expect(calls).toEqual([]);
    expect(store.describeTool('u', 'summary').summary).toBe('resolved');
    expect(calls).toEqual(['u']);
  });

  it('124: resolver errors surface at schema/full (even with a doc) and at summary without a doc', () => {
    const failure = new ToolexecError('EXECUTION', 'resolver exploded');
    const store = createDocStore({
      toolResolver: () => {
        throw failure;
      },
    });
    store.registerDoc('with:doc', { summary: 'has a doc' });
    expect(captureError(() => store.describeTool('with:doc', 'schema'))).toBe(failure);
    expect(captureError(() => store.describeTool('with:doc', 'full'))).toBe(failure);
    expect(captureError(() => store.describeTool('no:doc', 'summary'))).toBe(failure);
    // A doc with a summary is enough at summary level.
    expect(store.describeTool('with:doc', 'summary')).toEqual({ summary: 'has a doc' });
  });

  it('a resolver throwing a non-library error is wrapped, keeping it as cause', () => {
    const failure = new Error('plain');
    const store = createDocStore({
      toolResolver: () => {
        throw failure;
      },
    });
    const error = expectCode(() => store.describeTool('x', 'schema'), 'TOOL_NOT_FOUND');
    expect(error.cause).toBe(failure);
    expect(error.message).toContain('plain');
  });

  it('an asynchronous resolver is reported as CONFIGURATION', () => {
    const store = createDocStore({ toolResolver: (() => Promise.resolve(tool('x'))) as unknown as (id: string) => Tool });
    expectCode(() => store.describeTool('x', 'schema'), 'CONFIGURATION');
  });

  it('125: schema level: custom summary, schemaInfo and no notes', () => {
    const index = indexWith(
      tool('search', {
        namespace: 'ns',
        description: 'tool description',
        inputSchema: {
          type: 'object',
          properties: { query: { type: 'string', default: 'test' }, limit: { type: 'integer' } },
          required: ['query'],
        },
      }),
    );
    const store = createDocStore({ index });
    store.registerDoc('ns:search', { summary: 'Custom summary', notes: 'Some notes' });
    const doc = store.describeTool('ns:search', 'schema');
    expect(doc.summary).toBe('Custom summary');
    expect(doc.schemaInfo).toEqual({
      required: ['query'],
      types: { query: ['string'], limit: ['integer'] },
      defaults: { query: 'test' },
    });
    expect(doc.notes).toBeUndefined();
    expect(doc.examples).toBeUndefined();
    expect(doc.tool?.name).toBe('search');
  });

  it('the tool in a doc is a caller-owned copy of the indexed tool', () => {
    const index = indexWith(tool('t', { description: 'd' }));
    const store = createDocStore({ index });
    const doc = store.describeTool('t', 'schema');
    doc.tool!.description = 'changed';
    expect(index.getTool('t').tool.description).toBe('d');
  });

  it('126: full level: notes, examples and refs with the tool', () => {
    const store = createDocStore({ index: indexWith(tool('t', { namespace: 'ns' })) });
    store.registerDoc('ns:t', {
      summary: 's',
      notes: 'Important notes',
      examples: [example('Example 1', { a: 1 }, { id: 'ex1', resultHint: 'a number' })],
      externalRefs: ['https://example.com/docs'],
    });
    const doc = store.describeTool('ns:t', 'full');
    expect(doc.tool?.name).toBe('t');
    expect(doc.notes).toBe('Important notes');
    expect(doc.examples).toEqual([
      { id: 'ex1', title: 'Example 1', description: 'Example 1 description', args: { a: 1 }, resultHint: 'a number' },
    ]);
    expect(doc.externalRefs).toEqual(['https://example.com/docs']);
  });

  it('127: full level returns at most maxExamples examples', () => {
    const store = createDocStore({ index: indexWith(tool('t')), maxExamples: 2 });
    store.registerDoc('t', { examples: [example('1'), example('2'), example('3')] });
    expect(store.describeTool('t', 'full').examples?.map((e) => e.title)).toEqual(['1', '2']);
  });

  it('modes, security summary and annotations come from the tool', () => {
    const store = createDocStore({
      index: indexWith(
        tool('t', {
          _meta: { inputModes: ['text'], outputModes: ['json', 7], securitySchemes: { oauth: {} } },
          annotations: { title: 'Nice', readOnlyHint: true, destructiveHint: false },
        }),
      ),
    });
    expect(store.describeTool('t', 'summary')).toEqual({
      summary: '',
      inputModes: ['text'],
      outputModes: ['json'],
      securitySummary: 'oauth',
      annotations: { readOnlyHint: true, idempotentHint: false, destructiveHint: false, title: 'Nice' },
    });
  });

  it('136: empty annotations give exactly the two boolean hints', () => {
    const store = createDocStore({ index: indexWith(tool('t', { annotations: {} }), tool('u')) });
    expect(store.describeTool('t', 'summary').annotations).toEqual({ readOnlyHint: false, idempotentHint: false });
    expect(store.describeTool('u', 'summary').annotations).toBeUndefined();
  });

  it('135: schemaInfo handles type unions, numeric defaults, JSON text and invalid JSON', () => {
    expect(deriveSchemaInfo({ type: 'object', properties: { a: { type: ['string', 'null'], default: 0 }, b: { default: null } } })).toEqual(
      { types: { a: ['string', 'null'] }, defaults: { a: 0, b: null } },
    );
    expect(deriveSchemaInfo('{"properties":{"x":{"type":"number","default":1.5}},"required":["x"]}')).toEqual({
      required: ['x'],
      types: { x: ['number'] },
      defaults: { x: 1.5 },
    });
    expect(deriveSchemaInfo(new TextEncoder().encode('{"required":["y"]}'))).toEqual({ required: ['y'] });
    expect(deriveSchemaInfo('{not json')).toBeUndefined();
    expect(deriveSchemaInfo({ type: 'object' })).toBeUndefined();
    expect(deriveSchemaInfo(null)).toBeUndefined();
    expect(deriveSchemaInfo(42)).toBeUndefined();
  });

  it('schemaInfo keeps a property named __proto__ as data', () => {
    const info = deriveSchemaInfo('{"properties":{"__proto__":{"type":"string","default":"x"}}}');
    expect(Object.getPrototypeOf(info?.types)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(info?.types, '__proto__')).toBe(true);
    expect(info?.defaults?.['__proto__']).toBe('x');
  });

  it('a non-string ID is INVALID_ARGUMENT', () => {
    const store = createDocStore();
    expectCode(() => store.describeTool(1 as unknown as string, 'summary'), 'INVALID_ARGUMENT');
  });
});

describe('listExamples (foundation §8 128–130)', () => {
  it('128: max 0 returns all; max 2 the first two in order', () => {
    const store = createDocStore();
    store.registerExamples('t', [example('1'), example('2'), example('3')]);
    expect(store.listExamples('t', 0).map((e) => e.title)).toEqual(['1', '2', '3']);
    expect(store.listExamples('t', -1)).toHaveLength(3);
    expect(store.listExamples('t', 2).map((e) => e.title)).toEqual(['1', '2']);
  });

  it('129: the store cap bounds every listing and registration', () => {
    const store = createDocStore({ maxExamples: 2 });
    store.registerDoc('t', { examples: [example('1'), example('2'), example('3'), example('4')] });
    expect(store.listExamples('t', 0)).toHaveLength(2);
    expect(store.listExamples('t', 1)).toHaveLength(1);
    expect(store.listExamples('t', 10)).toHaveLength(2);
    store.registerExamples('u', [example('a'), example('b'), example('c', nested(9))]);
    // The third example is dropped before it is checked.
    expect(store.listExamples('u', 0).map((e) => e.title)).toEqual(['a', 'b']);
  });

  it('130: a known tool without docs has no examples; unknown IDs and resolver errors throw', () => {
    const store = createDocStore({ toolResolver: (id) => (id === 'known' ? tool('known') : undefined) });
    expect(store.listExamples('known', 5)).toEqual([]);
    expect(expectCode(() => store.listExamples('unknown', 5), 'TOOL_NOT_FOUND').message).toBe('tool not found: unknown');
    const failure = new ToolexecError('EXECUTION', 'down');
    const failing = createDocStore({
      toolResolver: () => {
        throw failure;
      },
    });
    failing.registerExamples('t', [example('1')]);
    expect(captureError(() => failing.listExamples('t', 5))).toBe(failure);
  });

  it('the index as tool source: examples of an indexed tool without docs are []', () => {
    const store = createDocStore({ index: indexWith(tool('t')) });
    expect(store.listExamples('t', 3)).toEqual([]);
  });
});

describe('a toolResolver tool that cannot be read', () => {
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const unreadable: Record<string, unknown> = {
    '_meta getter': {
      ...tool('x'),
      get _meta(): never {
        throw new Error('meta getter');
      },
    },
    'annotations getter': {
      ...tool('x'),
      get annotations(): never {
        throw new Error('annotations getter');
      },
    },
    'revoked proxy': revoked,
  };

  // Before the fix these escaped as a raw Error / TypeError.
  it.each(Object.keys(unreadable))('%s: describeTool and listExamples throw INVALID_ARGUMENT', (label) => {
    const store = createDocStore({ toolResolver: () => unreadable[label] as Tool });
    store.registerExamples('x', [example('1')]);
    const calls = [
      () => store.describeTool('x', 'summary'),
      () => store.describeTool('x', 'schema'),
      () => store.describeTool('x', 'full'),
      () => store.listExamples('x', 1),
    ];
    // listExamples reads only whether the tool exists: a plain object with a throwing getter is fine
    for (const call of label === 'revoked proxy' ? calls : calls.slice(0, 3)) {
      const error = expectCode(call, 'INVALID_ARGUMENT');
      expect(error.message).toBe('discovery: tool could not be read');
      expect(error.cause).toBeInstanceOf(Error);
    }
  });

  it('an unreadable schema keeps its own message', () => {
    const schema = {
      type: 'object' as const,
      properties: new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error('ownKeys');
          },
        },
      ),
    };
    const store = createDocStore({ toolResolver: () => tool('x', { inputSchema: schema }) });
    expect(expectCode(() => store.describeTool('x', 'schema'), 'INVALID_ARGUMENT').message).toBe('discovery: schema could not be read');
  });
});

describe('registration caps and copies (foundation §8 131–134)', () => {
  it('131: text is cut to exactly the caps', () => {
    const store = createDocStore();
    store.registerDoc('t', {
      summary: 's'.repeat(300),
      notes: 'n'.repeat(2100),
      examples: [{ title: 'x', description: 'd'.repeat(400), args: {}, resultHint: 'h'.repeat(300) }],
    });
    const [stored] = store.listExamples('t', 0);
    expect(store.describeTool('t', 'summary').summary).toHaveLength(DOC_LIMITS.summaryBytes);
    expect(stored?.description).toHaveLength(300);
    expect(stored?.resultHint).toHaveLength(200);
    const full = createDocStore({ index: indexWith(tool('t')) });
    full.registerDoc('t', { notes: 'n'.repeat(2100) });
    expect(full.describeTool('t', 'full').notes).toHaveLength(2000);
  });

  it('131: cuts never split a multi-byte character', () => {
    const store = createDocStore();
    store.registerDoc('t', { summary: '€'.repeat(100) }); // 3 bytes each
    const { summary } = store.describeTool('t', 'summary');
    expect(summary).toBe('€'.repeat(66));
    expect(utf8ByteLength(summary)).toBe(198);
  });

  it('132: measureArgs depth and keys', () => {
    expect(measureArgs(null)).toEqual({ depth: 0, keys: 0, ok: true });
    expect(measureArgs(undefined)).toEqual({ depth: 0, keys: 0, ok: true });
    expect(measureArgs({})).toEqual({ depth: 1, keys: 0, ok: true });
    expect(measureArgs({ a: 1, b: 'x', c: true })).toEqual({ depth: 1, keys: 3, ok: true });
    expect(measureArgs({ a: { b: { c: 1 } } })).toEqual({ depth: 3, keys: 3, ok: true });
    expect(measureArgs({ items: [{ id: 1 }, { id: 2 }] })).toEqual({ depth: 3, keys: 5, ok: true });
    expect(measureArgs({ list: [1, 2] })).toEqual({ depth: 2, keys: 3, ok: true });
  });

  it('133: depth 6, 51 keys or a 51-item array exceed the caps', () => {
    expect(measureArgs(nested(MAX_ARGS_DEPTH)).ok).toBe(true);
    expect(measureArgs(nested(MAX_ARGS_DEPTH + 1))).toMatchObject({ depth: 6, ok: false });
    const wide = Object.fromEntries(Array.from({ length: MAX_ARGS_KEYS + 1 }, (_, i) => [`k${i}`, i]));
    expect(measureArgs(wide)).toEqual({ depth: 1, keys: 51, ok: false });
    expect(measureArgs({ items: Array.from({ length: 51 }, (_, i) => i) })).toMatchObject({ keys: 52, ok: false });
    expect(measureArgs(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]))).ok).toBe(true);
  });

  it('measureArgs terminates on cyclic args', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(measureArgs(cyclic)).toMatchObject({ depth: 6, ok: false });
  });

  // Before the fix every item was walked before the cap was compared: a sparse array of length 2e7
  // took ~7 s (2^32-1 ran out of memory) and width-70 shared arrays ~24 M visits.
  it('measureArgs stops as soon as the key cap is passed: sparse arrays and shared references', () => {
    const sparse: unknown[] = [];
    sparse.length = 1e8;
    expect(measureArgs({ a: sparse })).toEqual({ depth: 2, keys: 1 + 1e8, ok: false });
    let level: unknown[] = Array<unknown>(70).fill(1);
    for (let i = 0; i < 3; i++) level = Array<unknown>(70).fill(level);
    expect(measureArgs({ a: level })).toMatchObject({ ok: false });
    // Shared references within the caps count once per place, as in JSON.
    const shared = { x: 1, y: 2 };
    expect(measureArgs({ a: shared, b: [shared, shared] })).toEqual({ depth: 3, keys: 10, ok: true });
    const store = createDocStore();
    const huge: unknown[] = [];
    huge.length = 2 ** 32 - 1;
    for (const args of [{ a: sparse }, { a: huge }, { a: level }]) {
      const error = expectCode(() => store.registerExamples('t', [example('big', args)]), 'ARGS_TOO_LARGE');
      expect(error.details).toMatchObject({ maxKeys: MAX_ARGS_KEYS });
    }
    expectCode(() => store.listExamples('t', 0), 'TOOL_NOT_FOUND');
  }, 2_000);

  it('133: registerDoc and registerExamples reject oversized args and store nothing', () => {
    const store = createDocStore();
    store.registerDoc('t', { summary: 'kept', examples: [example('ok')] });
    const error = expectCode(
      () => store.registerDoc('t', { summary: 'new', examples: [example('fine'), example('Deep one', nested(6))] }),
      'ARGS_TOO_LARGE',
    );
    expect(error.message).toBe('args exceeds caps: example 1 (Deep one) has depth=6 (max 5), keys=5 (max 50)');
    expect(error.details).toMatchObject({ index: 1, title: 'Deep one', depth: 6, keys: 5 });
    expect(store.describeTool('t', 'summary').summary).toBe('kept');
    expect(store.listExamples('t', 0).map((e) => e.title)).toEqual(['ok']);

    const wide = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expect(expectCode(() => store.registerExamples('t', [example('Wide', wide)]), 'ARGS_TOO_LARGE').message).toContain('args exceeds caps');
    expect(store.listExamples('t', 0).map((e) => e.title)).toEqual(['ok']);
  });

  it('134: args are deep-copied in and out', () => {
    const store = createDocStore();
    const args = { q: 'x', nested: { list: [1, { deep: true }] } };
    store.registerExamples('t', [example('e', args)]);
    args.nested.list.push(3);
    (args.nested.list[1] as { deep: boolean }).deep = false;
    const [first] = store.listExamples('t', 0);
    expect(first?.args).toEqual({ q: 'x', nested: { list: [1, { deep: true }] } });
    ((first?.args as typeof args).nested.list[1] as { deep: boolean }).deep = false;
    (first?.args as typeof args).nested.list.length = 0;
    expect(store.listExamples('t', 0)[0]?.args).toEqual({ q: 'x', nested: { list: [1, { deep: true }] } });

    const full = createDocStore({ index: indexWith(tool('t')) });
    full.registerExamples('t', [example('e', { a: { b: 1 } })]);
    const doc = full.describeTool('t', 'full');
    (doc.examples?.[0]?.args as { a: { b: number } }).a.b = 2;
    expect(full.describeTool('t', 'full').examples?.[0]?.args).toEqual({ a: { b: 1 } });
  });

  it('args that are not plain data are INVALID_ARGUMENT; null args are kept as null', () => {
    const store = createDocStore();
    expectCode(() => store.registerExamples('t', [example('fn', { f: () => 1 })]), 'INVALID_ARGUMENT');
    store.registerExamples('t', [example('none', null), { title: 'undef', description: '' } as ToolExample]);
    expect(store.listExamples('t', 0).map((e) => e.args)).toEqual([null, null]);
  });

  it('args that are not a JSON object (a string, a number, a boolean, an array) are INVALID_ARGUMENT naming the example and the field', () => {
    for (const args of ['{"q":"x"}', '', 42, true, ['q'], []]) {
      const store = createDocStore();
      store.registerExamples('t', [example('kept')]);
      const error = expectCode(
        () => store.registerExamples('t', [example('fine', { q: 1 }), example('bad', args as unknown as Record<string, unknown>)]),
        'INVALID_ARGUMENT',
      );
      expect(error.message).toMatch(/^example 1 \(bad\) args must be a JSON object or null, got /u);
      expect(error.details).toEqual({ index: 1, title: 'bad', field: 'args' });
      // Nothing was stored: the examples registered before are still there.
      expect(store.listExamples('t', 0).map((e) => e.title)).toEqual(['kept']);
      expectCode(
        () => store.registerDoc('t', { examples: [example('bad', args as unknown as Record<string, unknown>)] }),
        'INVALID_ARGUMENT',
      );
    }
    const store = createDocStore();
    expect(expectCode(() => store.registerExamples('t', [example('s', 'abc' as never)]), 'INVALID_ARGUMENT').message).toBe(
      'example 0 (s) args must be a JSON object or null, got "abc"',
    );
    store.registerExamples('t', [example('object', { a: [1, 'x'] }), example('none', null)]);
    expect(store.listExamples('t', 0).map((e) => e.args)).toEqual([{ a: [1, 'x'] }, null]);
  });

  it('registerExamples replaces only the examples; registerDoc replaces everything', () => {
    const store = createDocStore({ index: indexWith(tool('t')) });
    store.registerDoc('t', { summary: 's', notes: 'n', examples: [example('1')], externalRefs: ['r'] });
    store.registerExamples('t', [example('2')]);
    expect(store.describeTool('t', 'full')).toMatchObject({ summary: 's', notes: 'n', externalRefs: ['r'] });
    expect(store.listExamples('t', 0).map((e) => e.title)).toEqual(['2']);
    store.registerDoc('t', { summary: 'only' });
    const doc = store.describeTool('t', 'full');
    expect(doc.summary).toBe('only');
    expect(doc.notes).toBeUndefined();
    expect(doc.examples).toBeUndefined();
    expect(doc.externalRefs).toBeUndefined();
  });

  it('registerExamples on an unknown ID creates a record with an empty summary', () => {
    const store = createDocStore();
    store.registerExamples('new', [example('1')]);
    expect(store.describeTool('new', 'summary')).toEqual({ summary: '' });
  });

  it('registerDoc does not cap the number of examples', () => {
    const store = createDocStore();
    store.registerDoc('t', { examples: Array.from({ length: 30 }, (_, i) => example(String(i))) });
    expect(store.listExamples('t', 0)).toHaveLength(30);
  });
});

describe('options', () => {
  it('rejects a bad maxExamples, index or resolver as CONFIGURATION', () => {
    expectCode(() => createDocStore({ maxExamples: -1 }), 'CONFIGURATION');
    expectCode(() => createDocStore({ maxExamples: 1.5 }), 'CONFIGURATION');
    expectCode(() => createDocStore({ index: {} as never }), 'CONFIGURATION');
    expectCode(() => createDocStore({ toolResolver: 'x' as never }), 'CONFIGURATION');
  });

  it('createDocStore returns the exported class', () => {
    expect(createDocStore()).toBeInstanceOf(InMemoryDocStore);
  });
});

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('review fixes: maxExamples and schemaInfo of pydantic / zod schemas', () => {
  it('registerDoc drops the examples past maxExamples before checking them, as registerExamples does', () => {
    const store = createDocStore({ index: indexWith(tool('t')), maxExamples: 2 });
    const tooDeep = example('deep', nested(MAX_ARGS_DEPTH + 3));
    expect(() => store.registerDoc('t', { examples: [example('a'), example('b'), tooDeep] })).not.toThrow();
    expect(store.listExamples('t', 0).map((e) => e.title)).toEqual(['a', 'b']);
    expect(() => store.registerExamples('t', [example('c'), example('d'), tooDeep])).not.toThrow();
    expect(store.listExamples('t', 0).map((e) => e.title)).toEqual(['c', 'd']);
    expectCode(() => store.registerDoc('t', { examples: [example('a'), tooDeep] }), 'ARGS_TOO_LARGE');
  });

  it('follows a root $ref into $defs (pydantic, zod) and merges root allOf members', () => {
    const pydantic = {
      $ref: '#/$defs/Query',
      $defs: {
        Query: {
          type: 'object',
          properties: {
            text: { type: 'string' },
            limit: { type: 'integer', default: 10 },
            owner: { $ref: '#/$defs/Owner' },
            nickname: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null },
          },
          required: ['text'],
        },
        Owner: { type: 'object', properties: { id: { type: 'string' } } },
      },
    };
    expect(deriveSchemaInfo(pydantic)).toEqual({
      required: ['text'],
      types: { text: ['string'], limit: ['integer'], owner: ['object'], nickname: ['string', 'null'] },
      defaults: { limit: 10, nickname: null },
    });
    const zod = {
      definitions: { Args: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
      $ref: '#/definitions/Args',
    };
    expect(deriveSchemaInfo(zod)).toEqual({ required: ['n'], types: { n: ['number'] } });
    const allOf = {
      type: 'object',
      allOf: [{ $ref: '#/$defs/Base' }, { properties: { extra: { type: 'boolean' } }, required: ['extra'] }],
      $defs: { Base: { properties: { id: { type: 'string' } }, required: ['id'] } },
    };
    expect(deriveSchemaInfo(allOf)).toEqual({ required: ['id', 'extra'], types: { id: ['string'], extra: ['boolean'] } });
    // A cycle of references ends.
    expect(deriveSchemaInfo({ $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } } })).toBeUndefined();
  });
});
