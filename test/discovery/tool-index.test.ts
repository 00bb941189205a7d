import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  InMemoryToolIndex,
  createDocStore,
  createToolIndex,
  defaultBackendSelector,
  type ChangeEvent,
  type SearchDoc,
  type Searcher,
} from '../../src/discovery/index.js';
import { ToolexecError, hasErrorCode, type Tool, type ToolBackend } from '../../src/model/index.js';
import { S, expectCode, local, mcp, provider, tool } from './support.js';

describe('registration and lookup (foundation §8 67–81)', () => {
  it('67: registers a namespaced tool and returns it with its backend', () => {
    const index = createToolIndex();
    index.registerTool(tool('mytool', { namespace: 'myns', description: 'd' }), mcp('server1'));
    const { tool: found, backend } = index.getTool('myns:mytool');
    expect(found.name).toBe('mytool');
    expect(found.namespace).toBe('myns');
    expect(backend).toEqual(mcp('server1'));
  });

  it('68: finds a namespace-less tool by its bare name', () => {
    const index = createToolIndex();
    index.registerTool(tool('simpletool'), local('h'));
    expect(index.getTool('simpletool').tool.name).toBe('simpletool');
  });

  it('69: checks the tool before the backend', () => {
    const index = createToolIndex();
    const error = expectCode(() => index.registerTool({} as Tool, {} as ToolBackend), 'INVALID_TOOL');
    expect(error.message).toBe('invalid tool: name is required');
    expect(index.version).toBe(0);
  });

  it('70: rejects an empty backend and provider backends missing an ID', () => {
    const index = createToolIndex();
    expect(expectCode(() => index.registerTool(tool('t'), {} as ToolBackend), 'INVALID_BACKEND').message).toBe(
      'invalid backend: unknown backend kind ""',
    );
    expect(expectCode(() => index.registerTool(tool('t'), provider('p', '')), 'INVALID_BACKEND').message).toBe(
      'invalid backend: Provider backend requires ToolID',
    );
    expect(expectCode(() => index.registerTool(tool('t'), provider('', 't')), 'INVALID_BACKEND').message).toBe(
      'invalid backend: Provider backend requires ProviderID',
    );
    expect(index.listNamespaces()).toEqual([]);
  });

  it('71: re-registering with the same backend and new tags keeps one backend and updates the summary', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { namespace: 'ns', tags: ['old'] }), mcp('s'));
    index.registerTool(tool('t', { namespace: 'ns', tags: ['New Tag'] }), mcp('s'));
    expect(index.getAllBackends('ns:t')).toHaveLength(1);
    expect(index.search('t', 1)[0]?.tags).toEqual(['new-tag']);
    expect(index.getTool('ns:t').tool.tags).toEqual(['New Tag']);
  });

  it('72: provider identities (a:b,c) and (a,b:c) do not collide', () => {
    const index = createToolIndex();
    index.registerTool(tool('t'), provider('a:b', 'c'));
    index.registerTool(tool('t'), provider('a', 'b:c'));
    expect(index.getAllBackends('t')).toEqual([provider('a:b', 'c'), provider('a', 'b:c')]);
  });

  it.each<[string, Partial<Tool>]>([
    ['description', { description: 'other' }],
    ['inputSchema', { inputSchema: { type: 'object', properties: { a: { type: 'string' } } } }],
    ['outputSchema', { outputSchema: { type: 'object' } }],
    ['title', { title: 'Other' }],
    ['icons', { icons: [{ src: 'https://example.com/b.png' }] }],
    ['annotations', { annotations: { destructiveHint: false } }],
    ['_meta', { _meta: { summary: 'x' } }],
  ])('73: rejects a re-registration whose %s differs', (_field, change) => {
    const index = createToolIndex();
    index.registerTool(tool('t', { namespace: 'ns', description: 'd', icons: [{ src: 'https://example.com/a.png' }] }), mcp('a'));
    const before = index.version;
    const error = expectCode(
      () =>
        index.registerTool(
          tool('t', { namespace: 'ns', description: 'd', icons: [{ src: 'https://example.com/a.png' }], ...change }),
          mcp('b'),
        ),
      'INVALID_TOOL',
    );
    expect(error.message).toBe('invalid tool: tool "ns:t" MCP fields differ from existing registration');
    expect(index.version).toBe(before);
    expect(index.getAllBackends('ns:t')).toHaveLength(1);
  });

  it('73: treats absent boolean hints as false and a missing annotations object as empty', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { annotations: { readOnlyHint: false } }), mcp('a'));
    index.registerTool(tool('t'), mcp('b'));
    index.registerTool(tool('t', { annotations: {} }), mcp('c'));
    expect(index.getAllBackends('t')).toHaveLength(3);
    // destructiveHint is tri-state: absent differs from false.
    expectCode(() => index.registerTool(tool('t', { annotations: { destructiveHint: false } }), mcp('d')), 'INVALID_TOOL');
  });

  it('74: compares schemas structurally, JSON text and bytes included', () => {
    const schema = { type: 'object', properties: { n: { type: 'number', default: 42 } } };
    const index = createToolIndex();
    index.registerTool(tool('t', { inputSchema: schema as Tool['inputSchema'] }), mcp('map'));
    const text = '{"properties":{"n":{"default":42.0,"type":"number"}},"type":"object"}';
    index.registerTool({ name: 't', inputSchema: text as unknown as Tool['inputSchema'] }, mcp('text'));
    index.registerTool({ name: 't', inputSchema: new TextEncoder().encode(text) as unknown as Tool['inputSchema'] }, mcp('bytes'));
    expect(index.getAllBackends('t')).toHaveLength(3);
    expectCode(
      () =>
        index.registerTool(
          { name: 't', inputSchema: '{"type":"object","properties":{"n":{"type":"string"}}}' as unknown as Tool['inputSchema'] },
          mcp('x'),
        ),
      'INVALID_TOOL',
    );
  });

  it('75: keeps backends in order and prefers local, then provider, then mcp', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { namespace: 'ns' }), mcp('m'));
    index.registerTool(tool('t', { namespace: 'ns' }), provider('p', 'x'));
    index.registerTool(tool('t', { namespace: 'ns' }), local('l'));
    expect(index.getAllBackends('ns:t').map((b) => b.kind)).toEqual(['mcp', 'provider', 'local']);
    expect(index.getTool('ns:t').backend).toEqual(local('l'));

    const two = createToolIndex();
    two.registerTool(tool('t'), mcp('m'));
    two.registerTool(tool('t'), provider('p', 'x'));
    expect(two.getTool('t').backend).toEqual(provider('p', 'x'));
  });

  it('76: uses a custom backend selector', () => {
    const index = createToolIndex({ backendSelector: (list) => list.find((b) => b.kind === 'mcp') ?? list[0]! });
    index.registerTool(tool('t'), local('l'));
    index.registerTool(tool('t'), mcp('m'));
    expect(index.getTool('t').backend).toEqual(mcp('m'));
  });

  it('76: a selector may reorder the list it gets without touching the index', () => {
    const index = createToolIndex({ backendSelector: (list) => list.reverse()[0]! });
    index.registerTool(tool('t'), local('a'));
    index.registerTool(tool('t'), local('b'));
    expect(index.getTool('t').backend).toEqual(local('b'));
    expect(index.getAllBackends('t')).toEqual([local('a'), local('b')]);
  });

  it('77: defaultBackendSelector: unknown kinds fall back to the first; an empty list is NO_BACKENDS', () => {
    const unknown = { kind: 'unknown' } as unknown as ToolBackend;
    expect(defaultBackendSelector([unknown])).toBe(unknown);
    expect(defaultBackendSelector([mcp('a'), unknown, mcp('b')])).toEqual(mcp('a'));
    expect(expectCode(() => defaultBackendSelector([]), 'NO_BACKENDS').message).toBe('no backends to select from');
  });

  it('78: unknown IDs are TOOL_NOT_FOUND for getTool, getAllBackends and unregisterBackend', () => {
    const index = createToolIndex();
    for (const id of ['nonexistent', 'missing:tool']) {
      expect(expectCode(() => index.getTool(id), 'TOOL_NOT_FOUND').message).toBe(`tool not found: ${id}`);
      expectCode(() => index.getAllBackends(id), 'TOOL_NOT_FOUND');
      expectCode(() => index.unregisterBackend(id, 'mcp', 's'), 'TOOL_NOT_FOUND');
    }
  });

  it('an ID that is not a string is INVALID_ARGUMENT for getTool, getAllBackends and unregisterBackend, as in the doc store', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { namespace: 'ns' }), mcp('s'));
    const docs = createDocStore({ index });
    for (const id of [42, undefined, null, {}, ['ns:t'], Symbol('ns:t')] as unknown as string[]) {
      const calls = [
        () => index.getTool(id),
        () => index.getAllBackends(id),
        () => index.unregisterBackend(id, 'mcp', 's'),
        () => docs.describeTool(id, 'summary'),
        () => docs.listExamples(id, 0),
      ];
      const errors = calls.map((call) => expectCode(call, 'INVALID_ARGUMENT'));
      for (const error of errors) {
        expect(error.message).toBe('tool ID must be a string');
        expect(error.details).toEqual({ toolId: typeof id });
      }
    }
    // Nothing was removed; a string ID still answers as before, '' included (not found).
    expect(index.getAllBackends('ns:t')).toEqual([mcp('s')]);
    expectCode(() => index.getTool(''), 'TOOL_NOT_FOUND');
    expectCode(() => index.getAllBackends(''), 'TOOL_NOT_FOUND');
    expectCode(() => index.unregisterBackend('', 'mcp', 's'), 'TOOL_NOT_FOUND');
    expectCode(() => docs.describeTool('', 'summary'), 'TOOL_NOT_FOUND');
  });

  it('79: registers a batch in order; an empty batch is fine; a failing item refuses the whole batch (Go kept the entries before it)', () => {
    const index = createToolIndex();
    index.registerTools([]);
    index.registerTools([
      { tool: tool('a', { namespace: 'ns' }), backend: local('a') },
      { tool: tool('b', { namespace: 'ns' }), backend: local('b') },
    ]);
    expect(index.getTool('ns:a').tool.name).toBe('a');
    expect(index.getTool('ns:b').tool.name).toBe('b');
    expectCode(
      () =>
        index.registerTools([
          { tool: tool('c'), backend: local('c') },
          { tool: tool(''), backend: local('d') },
          { tool: tool('e'), backend: local('e') },
        ]),
      'INVALID_TOOL',
    );
    expectCode(() => index.getTool('c'), 'TOOL_NOT_FOUND');
    expectCode(() => index.getTool('e'), 'TOOL_NOT_FOUND');
  });

  it('80: registerToolsFromMcp namespaces tools by server and binds them to it', () => {
    const index = createToolIndex();
    index.registerToolsFromMcp('my-mcp-server', [tool('tool1'), tool('tool2')]);
    const { backend } = index.getTool('my-mcp-server:tool1');
    expect(backend).toEqual({ kind: 'mcp', mcp: { serverName: 'my-mcp-server' } });
    expect(index.getTool('my-mcp-server:tool2').tool.namespace).toBe('my-mcp-server');
    // An explicit namespace wins; an empty one does not.
    index.registerToolsFromMcp('fs', [{ ...tool('read'), namespace: 'files' } as Tool, { ...tool('stat'), namespace: '' } as Tool]);
    expect(index.getTool('files:read').backend).toEqual(mcp('fs'));
    expect(index.getTool('fs:stat').backend).toEqual(mcp('fs'));
    // No tools: nothing to do, even with an empty server name.
    index.registerToolsFromMcp('', []);
    expectCode(() => index.registerToolsFromMcp('', [tool('x')]), 'INVALID_BACKEND');
  });

  it('registerToolsFromMcp names serverName when it is not a string', () => {
    const index = createToolIndex();
    for (const serverName of [42, null, undefined, { name: 's' }]) {
      const error = expectCode(() => index.registerToolsFromMcp(serverName as unknown as string, [tool('x')]), 'INVALID_ARGUMENT');
      expect(error.message).toBe('serverName must be a string');
    }
    expect(index.version).toBe(0);
  });

  it('refuses a tool whose inputSchema is not an object schema, and registers nothing', () => {
    const index = createToolIndex();
    for (const inputSchema of [5, 'hello', [], { type: 'string' }, { type: 'array' }]) {
      const error = expectCode(
        () => index.registerTool({ name: 't', namespace: 'ns', inputSchema } as unknown as Tool, local('t')),
        'INVALID_TOOL',
      );
      expect(error.message).toMatch(/^invalid tool: inputSchema of tool "ns:t" /);
      expectCode(() => index.registerToolsFromMcp('srv', [{ name: 'u', inputSchema } as unknown as Tool]), 'INVALID_TOOL');
    }
    expect(index.version).toBe(0);
    expect(index.search('', 10)).toEqual([]);
  });

  it('81: lookup is exact: a versioned ID is not found without its version', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { namespace: 'ns', version: '1.0.0' }), local('t'));
    expect(index.getTool('ns:t:1.0.0').tool.version).toBe('1.0.0');
    expectCode(() => index.getTool('ns:t'), 'TOOL_NOT_FOUND');
  });

  it('rejects tools that are not plain data as INVALID_TOOL', () => {
    const index = createToolIndex();
    const error = expectCode(() => index.registerTool(tool('t', { _meta: { fn: () => 1 } }), local('t')), 'INVALID_TOOL');
    expect(error.message).toMatch(/^invalid tool: tool is not plain data/);
    expect(error.cause).toBeDefined();
    expect(index.version).toBe(0);
  });
});

describe('plain data', () => {
  it('cyclic or absurdly deep tools are INVALID_TOOL; shared references are fine', () => {
    const index = createToolIndex();
    const meta: Record<string, unknown> = {};
    meta.self = meta;
    expectCode(() => index.registerTool(tool('cyclic', { _meta: meta }), local('c')), 'INVALID_TOOL');
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 1000; i++) deep = { deep };
    expectCode(() => index.registerTool(tool('deep', { _meta: deep }), local('d')), 'INVALID_TOOL');
    // Shared references doubling at every level would explode; the copy budget stops it.
    let dag: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 40; i++) dag = { left: dag, right: dag };
    expectCode(() => index.registerTool(tool('dag', { _meta: dag }), local('g')), 'INVALID_TOOL');
    const shared = { type: 'string' };
    index.registerTool(tool('shared', { inputSchema: { type: 'object', properties: { a: shared, b: shared } } }), local('s'));
    expect(index.getTool('shared').tool.inputSchema.properties).toEqual({ a: shared, b: shared });
    expect(index.version).toBe(1);
  });

  /** A sparse array: `length` items, none of them present (a few bytes of memory). */
  const sparse = (length: number): unknown[] => {
    const array: unknown[] = [];
    array.length = length;
    return array;
  };

  // Before the fix the copy allocated and walked every index: 5e7 took ~4 s, 2^32-1 ran out of memory.
  it('a sparse array counts its length against the copy budget, fast', () => {
    const index = createToolIndex();
    for (const length of [1e8, 2 ** 32 - 1]) {
      const error = expectCode(() => index.registerTool(tool('meta', { _meta: { x: sparse(length) } }), local('m')), 'INVALID_TOOL');
      expect(error.message).toMatch(/^invalid tool: tool is too large to copy \(more than 100000 /);
    }
    expect(index.version).toBe(0);
  }, 2_000);

  // validateTool passes sparse tags (Array#some skips holes) and walks them: the copy must refuse them first.
  it('sparse tags are refused before anything walks them, fast', () => {
    const index = createToolIndex();
    for (const length of [1e8, 2 ** 32 - 1]) {
      expectCode(() => index.registerTool(tool('tags', { tags: sparse(length) as string[] }), local('t')), 'INVALID_TOOL');
    }
    expect(index.version).toBe(0);
  }, 2_000);

  it('arrays with holes are not plain data; validation errors still come first', () => {
    const index = createToolIndex();
    const holey = ['a'] as string[];
    holey[2] = 'b';
    expectCode(() => index.registerTool(tool('t', { tags: holey }), local('t')), 'INVALID_TOOL');
    const list = [1];
    list[2] = 3;
    const error = expectCode(() => index.registerTool(tool('t', { _meta: { list } }), local('t')), 'INVALID_TOOL');
    expect(error.message).toBe('invalid tool: tool is not plain data (array with a hole at index 1)');
    const nameless = { inputSchema: { type: 'object' }, tags: holey } as unknown as Tool;
    expect(expectCode(() => index.registerTool(nameless, local('t')), 'INVALID_TOOL').message).toBe('invalid tool: name is required');
    const within = Array.from({ length: 1000 }, (_, i) => i);
    index.registerTool(tool('dense', { _meta: { within } }), local('d'));
    expect((index.getTool('dense').tool._meta as { within: number[] }).within).toEqual(within);
  });

  it('typed arrays and dates survive the copy', () => {
    const index = createToolIndex();
    const when = new Date(0);
    index.registerTool(tool('t', { _meta: { when, bytes: new Uint8Array([1, 2]) } }), local('t'));
    const meta = index.getTool('t').tool._meta as { when: Date; bytes: Uint8Array };
    expect(meta.when).toEqual(when);
    expect(meta.when).not.toBe(when);
    expect([...meta.bytes]).toEqual([1, 2]);
  });
});

describe('unregistering, namespaces and events (foundation §8 82–90)', () => {
  it('82: removes only the named backend', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { namespace: 'ns' }), mcp('server1'));
    index.registerTool(tool('t', { namespace: 'ns' }), local('l'));
    index.unregisterBackend('ns:t', 'mcp', 'server1');
    expect(index.getAllBackends('ns:t')).toEqual([local('l')]);
  });

  it('83: removing the last backend removes the tool and its namespace', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { namespace: 'ns' }), mcp('s'));
    index.unregisterBackend('ns:t', 'mcp', 's');
    expectCode(() => index.getTool('ns:t'), 'TOOL_NOT_FOUND');
    expect(index.listNamespaces()).toEqual([]);
    expect(index.search('t', 10)).toEqual([]);
  });

  it('84: provider backend IDs must be providerID:toolID, split on the first colon', () => {
    const index = createToolIndex();
    index.registerTool(tool('t'), provider('provider1', 'tool-a'));
    expect(expectCode(() => index.unregisterBackend('t', 'provider', 'provider1'), 'INVALID_BACKEND').message).toBe(
      "invalid backend: provider backendID must be in format 'providerID:toolID'",
    );
    for (const bad of [':tool-a', 'provider1:']) {
      expect(expectCode(() => index.unregisterBackend('t', 'provider', bad), 'INVALID_BACKEND').message).toBe(
        'invalid backend: provider backendID must have non-empty providerID and toolID',
      );
    }
    // The format is checked before the lookup.
    expectCode(() => index.unregisterBackend('missing', 'provider', 'nocolon'), 'INVALID_BACKEND');
    index.unregisterBackend('t', 'provider', 'provider1:tool-a');
    expectCode(() => index.getTool('t'), 'TOOL_NOT_FOUND');

    index.registerTool(tool('u'), provider('a', 'b:c'));
    index.registerTool(tool('u'), provider('a:b', 'c'));
    index.unregisterBackend('u', 'provider', 'a:b:c');
    expect(index.getAllBackends('u')).toEqual([provider('a:b', 'c')]);
  });

  it('an unknown backend of a known tool is TOOL_NOT_FOUND', () => {
    const index = createToolIndex();
    index.registerTool(tool('t'), local('l'));
    const error = expectCode(() => index.unregisterBackend('t', 'mcp', 'l'), 'TOOL_NOT_FOUND');
    expect(error.message).toMatch(/^tool not found: backend not found/);
    expectCode(() => index.unregisterBackend('t', 'other' as 'mcp', 'l'), 'TOOL_NOT_FOUND');
    expect(index.getAllBackends('t')).toEqual([local('l')]);
  });

  it('85: lists namespaces in code-point order, with "" for namespace-less tools, deterministically', () => {
    const index = createToolIndex();
    for (const ns of ['beta', 'alpha', 'gamma']) index.registerTool(tool('t', { namespace: ns }), local('t'));
    expect(index.listNamespaces()).toEqual(['alpha', 'beta', 'gamma']);
    expect(index.listNamespaces()).toEqual(['alpha', 'beta', 'gamma']);
    index.registerTool(tool('bare'), local('b'));
    expect(index.listNamespaces()).toEqual(['', 'alpha', 'beta', 'gamma']);
  });

  it('85: code-point order, not UTF-16 order, for astral characters', () => {
    const index = createToolIndex();
    const astral = '\u{1F600}'; // UTF-16 sorts it before U+FF5E; code points sort it after
    const high = '\uFF5E';
    index.registerTool(tool('t', { namespace: astral }), local('t'));
    index.registerTool(tool('t', { namespace: high }), local('t'));
    expect([astral, high].sort()).toEqual([astral, high]);
    expect(index.listNamespaces()).toEqual([high, astral]);
  });

  it('listNamespaces returns a copy', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { namespace: 'ns' }), local('t'));
    index.listNamespaces().push('junk');
    expect(index.listNamespaces()).toEqual(['ns']);
  });

  it('86: emits registered then tool_removed, with increasing versions', () => {
    const index = createToolIndex();
    const events: ChangeEvent[] = [];
    index.onChange((event) => events.push(event));
    index.registerTool(tool('mytool', { namespace: 'ns' }), mcp('s'));
    index.unregisterBackend('ns:mytool', 'mcp', 's');
    expect(events.map((e) => [e.type, e.toolId])).toEqual([
      ['registered', 'ns:mytool'],
      ['tool_removed', 'ns:mytool'],
    ]);
    expect(events[0]?.version).toBeGreaterThan(0);
    expect(events[1]?.version).toBe((events[0]?.version ?? 0) + 1);
    expect(events[1]?.backend).toEqual(mcp('s'));
  });

  it('emits backend_removed while backends remain, and nothing for failed calls', () => {
    const index = createToolIndex();
    index.registerTool(tool('t'), mcp('a'));
    index.registerTool(tool('t'), mcp('b'));
    const events: ChangeEvent[] = [];
    index.onChange((event) => events.push(event));
    index.unregisterBackend('t', 'mcp', 'a');
    expectCode(() => index.unregisterBackend('t', 'mcp', 'a'), 'TOOL_NOT_FOUND');
    expectCode(() => index.registerTool(tool('t', { description: 'changed' }), mcp('c')), 'INVALID_TOOL');
    expect(events.map((e) => e.type)).toEqual(['backend_removed']);
    expect(events[0]).toMatchObject({ toolId: 't', backend: mcp('a'), version: index.version });
  });

  it('87: onChange(null) returns a callable no-op; unsubscribe is idempotent', () => {
    const index = createToolIndex();
    const noop = index.onChange(null as unknown as (e: ChangeEvent) => void);
    expect(() => noop()).not.toThrow();
    const calls: string[] = [];
    const unsubscribe = index.onChange((e) => calls.push(e.type));
    unsubscribe();
    unsubscribe();
    index.refresh();
    expect(calls).toEqual([]);
  });

  it('88: an unsubscribed listener stops receiving events; the others continue', () => {
    const index = createToolIndex();
    const counts = [0, 0, 0];
    index.onChange(() => counts[0]!++);
    const off = index.onChange(() => counts[1]!++);
    index.onChange(() => counts[2]!++);
    index.registerTool(tool('a'), local('a'));
    off();
    index.registerTool(tool('b'), local('b'));
    expect(counts).toEqual([2, 1, 2]);
  });

  it('the same function subscribed twice is called twice and unsubscribed per subscription', () => {
    const index = createToolIndex();
    const listener = vi.fn();
    const first = index.onChange(listener);
    index.onChange(listener);
    index.refresh();
    expect(listener).toHaveBeenCalledTimes(2);
    first();
    index.refresh();
    expect(listener).toHaveBeenCalledTimes(3);
  });

  it('89: refresh() returns a strictly increasing version and emits refreshed', () => {
    const index = createToolIndex();
    const events: ChangeEvent[] = [];
    index.onChange((e) => events.push(e));
    const first = index.refresh();
    const second = index.refresh();
    expect(second).toBeGreaterThan(first);
    expect(index.version).toBe(second);
    expect(events).toEqual([
      { type: 'refreshed', toolId: '', version: first },
      { type: 'refreshed', toolId: '', version: second },
    ]);
  });

  it('90: registering an existing tool with another backend emits updated', () => {
    const index = createToolIndex();
    index.registerTool(tool('t'), mcp('server1'));
    const events: ChangeEvent[] = [];
    index.onChange((e) => events.push(e));
    index.registerTool(tool('t'), mcp('server2'));
    index.registerTool(tool('t'), mcp('server2'));
    expect(events.map((e) => [e.type, e.backend])).toEqual([
      ['updated', mcp('server2')],
      ['updated', mcp('server2')],
    ]);
  });
});

describe('listener semantics (foundation §4.9)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('listeners see the change already applied and may call back into the index', () => {
    const index = createToolIndex();
    const seen: unknown[] = [];
    index.onChange((event) => {
      seen.push(index.getTool(event.toolId).tool.name, index.version === event.version);
    });
    index.registerTool(tool('t'), local('t'));
    expect(seen).toEqual(['t', true]);
  });

  it('a listener added during a notification misses it; one removed during it still gets it', () => {
    const index = createToolIndex();
    const calls: string[] = [];
    let offLate: (() => void) | undefined;
    const offVictim: { fn?: () => void } = {};
    index.onChange(() => {
      calls.push('first');
      offVictim.fn?.();
      offLate ??= index.onChange(() => calls.push('late'));
    });
    offVictim.fn = index.onChange(() => calls.push('victim'));
    index.refresh();
    expect(calls).toEqual(['first', 'victim']);
    calls.length = 0;
    index.refresh();
    expect(calls).toEqual(['first', 'late']);
  });

  it('a throwing listener goes to onListenerError; the index and the other listeners are unaffected', () => {
    const reported: [unknown, ChangeEvent][] = [];
    const index = createToolIndex({ onListenerError: (error, event) => reported.push([error, event]) });
    const boom = new Error('boom');
    const after = vi.fn();
    index.onChange(() => {
      throw boom;
    });
    index.onChange(after);
    index.registerTool(tool('t'), local('t'));
    expect(after).toHaveBeenCalledTimes(1);
    expect(reported).toHaveLength(1);
    expect(reported[0]?.[0]).toBe(boom);
    expect(reported[0]?.[1]).toMatchObject({ type: 'registered', toolId: 't' });
    expect(index.getTool('t').tool.name).toBe('t');
    expect(index.version).toBe(1);
  });

  it('by default a throwing listener becomes a process warning carrying the error', async () => {
    const index = createToolIndex();
    const boom = new Error('boom');
    index.onChange(() => {
      throw boom;
    });
    const warning = new Promise<Error>((resolve) => process.once('warning', resolve));
    const emitted = vi.spyOn(process, 'emitWarning');
    index.registerTool(tool('t'), local('t'));
    expect(emitted).toHaveBeenCalledTimes(1);
    const received = await warning;
    expect(received.name).toBe('ToolexecListenerWarning');
    expect(received.cause).toBe(boom);
    expect(received.message).toContain('boom');
  });

  it('an onListenerError that throws falls back to the warning, with both errors', () => {
    const index = createToolIndex({
      onListenerError: () => {
        throw new Error('reporter');
      },
    });
    index.onChange(() => {
      throw new Error('listener');
    });
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    index.refresh();
    expect(emitted).toHaveBeenCalledTimes(1);
    const warning = emitted.mock.calls[0]?.[0] as Error;
    expect(warning.cause).toBeInstanceOf(AggregateError);
    expect((warning.cause as AggregateError).errors.map((e: Error) => e.message)).toEqual(['listener', 'reporter']);
  });

  it('a change made by a listener is delivered after the current event: every listener sees increasing versions', () => {
    const index = createToolIndex();
    const seen: string[][] = [[], [], []];
    index.onChange((event) => {
      seen[0]?.push(`${event.toolId} v${event.version}`);
      if (event.toolId === 'a:one') index.registerTool(tool('two', { namespace: 'a' }), local('two'));
      if (event.toolId === 'a:two') index.registerTool(tool('three', { namespace: 'a' }), local('three'));
    });
    index.onChange((event) => seen[1]?.push(`${event.toolId} v${event.version}`));
    index.onChange((event) => seen[2]?.push(`${event.toolId} v${event.version}`));
    index.registerTool(tool('one', { namespace: 'a' }), local('one'));
    for (const list of seen) expect(list).toEqual(['a:one v1', 'a:two v2', 'a:three v3']);
    // The changes themselves were applied at once, and later notifications work as before.
    expect(index.version).toBe(3);
    index.refresh();
    for (const list of seen) expect(list.at(-1)).toBe(' v4');
  });

  it('a queued event goes to the listeners subscribed when it was raised, and a throwing listener is still reported', () => {
    const reported: number[] = [];
    const index = createToolIndex({ onListenerError: (_error, event) => reported.push(event.version) });
    const late: number[] = [];
    let subscribed = false;
    index.onChange((event) => {
      if (event.version === 1) index.refresh();
      if (!subscribed) {
        subscribed = true;
        index.onChange((later) => late.push(later.version));
      }
      throw new Error(`boom ${event.version}`);
    });
    index.refresh();
    // The late listener was subscribed after version 2 was raised: it misses both.
    expect(late).toEqual([]);
    expect(reported).toEqual([1, 2]);
    index.refresh();
    expect(late).toEqual([3]);
    expect(reported).toEqual([1, 2, 3]);
  });

  it('events are frozen so one listener cannot change what the next sees', () => {
    const index = createToolIndex();
    const types: string[] = [];
    index.onChange((event) => {
      expect(() => {
        (event as { type: string }).type = 'hacked';
      }).toThrow(TypeError);
    });
    index.onChange((event) => types.push(event.type));
    index.refresh();
    expect(types).toEqual(['refreshed']);
  });
});

describe('isolation from callers', () => {
  it('mutating the registered objects afterwards does not change the index', () => {
    const index = createToolIndex();
    const original = tool('t', {
      namespace: 'ns',
      description: 'before',
      tags: ['one'],
      inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
      _meta: { summary: 'sum' },
    });
    const backend = mcp('s');
    index.registerTool(original, backend);
    original.description = 'after';
    original.tags!.push('two');
    (original.inputSchema.properties as Record<string, unknown>).b = { type: 'number' };
    (original._meta as Record<string, unknown>).summary = 'changed';
    (backend as { mcp: { serverName: string } }).mcp.serverName = 'other';
    const { tool: stored, backend: storedBackend } = index.getTool('ns:t');
    expect(stored.description).toBe('before');
    expect(stored.tags).toEqual(['one']);
    expect(Object.keys(stored.inputSchema.properties ?? {})).toEqual(['a']);
    expect(stored._meta).toEqual({ summary: 'sum' });
    expect(storedBackend).toEqual(mcp('s'));
  });

  it('returned tools and backends are frozen; returned arrays and summaries are copies', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { tags: ['a'], inputSchema: { type: 'object', properties: {} } }), local('t'));
    const { tool: stored, backend } = index.getTool('t');
    expect(Object.isFrozen(stored)).toBe(true);
    expect(Object.isFrozen(stored.inputSchema)).toBe(true);
    expect(Object.isFrozen(stored.tags)).toBe(true);
    expect(Object.isFrozen(backend)).toBe(true);
    expect(() => {
      (stored as { description?: string }).description = 'x';
    }).toThrow(TypeError);
    // getTool returns the same frozen object every time (no per-call clone on the hot path).
    expect(index.getTool('t').tool).toBe(stored);

    index.getAllBackends('t').push(local('x'));
    expect(index.getAllBackends('t')).toEqual([local('t')]);

    const [summary] = index.search('t', 1);
    summary!.tags!.push('junk');
    summary!.name = 'junk';
    expect(index.search('t', 1)[0]).toEqual({ id: 't', name: 't', tags: ['a'] });
  });
});

describe('options', () => {
  it('rejects options of the wrong type as CONFIGURATION', () => {
    expectCode(() => createToolIndex({ backendSelector: 'x' as unknown as () => ToolBackend }), 'CONFIGURATION');
    expectCode(() => createToolIndex({ searcher: {} as Searcher }), 'CONFIGURATION');
    expectCode(() => createToolIndex({ onListenerError: 1 as unknown as () => void }), 'CONFIGURATION');
  });

  it('createToolIndex returns the exported class', () => {
    expect(createToolIndex()).toBeInstanceOf(InMemoryToolIndex);
    expect(new InMemoryToolIndex().version).toBe(0);
  });

  it('a selector error propagates from getTool', () => {
    const index = createToolIndex({
      backendSelector: () => {
        throw new ToolexecError('NO_BACKENDS', 'nope');
      },
    });
    index.registerTool(tool('t'), local('t'));
    expect(
      hasErrorCode(
        captureError(() => index.getTool('t')),
        'NO_BACKENDS',
      ),
    ).toBe(true);
  });

  it('a custom searcher gets frozen docs: it cannot mutate them', () => {
    let docs: readonly SearchDoc[] = [];
    const index = createToolIndex({
      searcher: {
        search(_query, _limit, given) {
          docs = given;
          return [];
        },
      },
    });
    index.registerTool(tool('t', { inputSchema: S }), local('t'));
    index.search('x', 1);
    expect(Object.isFrozen(docs)).toBe(true);
    expect(Object.isFrozen(docs[0])).toBe(true);
    expect(Object.isFrozen(docs[0]?.summary)).toBe(true);
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
