/** "Did you mean" hints: the registered IDs closest to an unknown one, compared within its namespace. */
import { describe, expect, it } from 'vitest';
import { createToolIndex, suggestToolIds, type ToolIndex } from '../../src/discovery/index.js';
import { local, tool } from './support.js';

const FX_NAMES = ['archive', 'balance', 'convert', 'delete', 'export', 'fetch_rates', 'greet', 'history', 'import', 'list'];

function fxIndex(): ToolIndex {
  const index = createToolIndex();
  for (const name of FX_NAMES) index.registerTool(tool(name, { namespace: 'fx', description: `The ${name} tool.` }), local(name));
  return index;
}

describe('suggestToolIds within a namespace', () => {
  it.each<[string, string[]]>([
    ['fx:greeting', ['fx:greet']],
    ['fx:conversion', ['fx:convert']],
    ['fx:rates', ['fx:fetch_rates']],
    ['fx:converter', ['fx:convert']],
    ['fx:convrt', ['fx:convert']],
    ['fx:Convert', ['fx:convert']],
    ['convert', ['fx:convert']],
    ['greeting', ['fx:greet']],
  ])('%s → %j', (unknown, expected) => {
    expect(suggestToolIds(fxIndex(), unknown)).toEqual(expected);
  });

  it('never fills the list with tools that match only on the namespace', () => {
    const index = fxIndex();
    expect(suggestToolIds(index, 'fx:zzzzzz')).toEqual([]);
    expect(suggestToolIds(index, 'fx:quantum_teleport')).toEqual([]);
  });

  it('ranks a typo above a looser relation, and the same namespace above another one', () => {
    const index = fxIndex();
    index.registerTool(tool('greet', { namespace: 'chat' }), local('chat-greet'));
    index.registerTool(tool('greeter', { namespace: 'chat' }), local('chat-greeter'));
    // Same name in another namespace first, then the typos (the unknown ID's namespace first).
    expect(suggestToolIds(index, 'fx:greeter')).toEqual(['chat:greeter', 'fx:greet', 'chat:greet']);
    // Only relations: the unknown ID's namespace first.
    expect(suggestToolIds(index, 'fx:greetings_card')).toEqual(['fx:greet', 'chat:greet', 'chat:greeter']);
  });

  it('still searches the words of the name when nothing is close, and a namespace no tool has counts as words', () => {
    const index = createToolIndex();
    index.registerTool(tool('create_entities', { namespace: 'memory', description: 'Create entities in the knowledge graph' }), local('c'));
    index.registerTool(tool('read', { namespace: 'fs', description: 'Read a file' }), local('r'));
    expect(suggestToolIds(index, 'knowledge:graph')).toEqual(['memory:create_entities']);
    expect(suggestToolIds(index, 'fs:knowledge')).toEqual(['memory:create_entities']);
    // `fs` is a registered namespace: it is not searched for, so `fs:zzz` suggests nothing.
    expect(suggestToolIds(index, 'fs:zzzzzz')).toEqual([]);
  });

  it('finds a typo within the namespace of a large index (past the first 10,000 IDs)', () => {
    const index = createToolIndex();
    const regs = [];
    for (let i = 0; i < 20_000; i++) regs.push({ tool: tool(`tool_${i}`, { namespace: `ns${i % 50}` }), backend: local(`h${i}`) });
    index.registerTools(regs);
    expect(suggestToolIds(index, 'ns49:tool_19999x')[0]).toBe('ns49:tool_19999');
    // A bare name finds the tool with that name in any namespace, wherever it sorts.
    expect(suggestToolIds(index, 'tool_19999')[0]).toBe('ns49:tool_19999');
  }, 60_000);

  it('works with any ToolIndex, not only the built-in one', () => {
    const inner = fxIndex();
    const wrapped: ToolIndex = {
      registerTool: (t, b) => inner.registerTool(t, b),
      registerTools: (r) => inner.registerTools(r),
      registerToolsFromMcp: (s, t) => inner.registerToolsFromMcp(s, t),
      unregisterBackend: (i, k, b) => inner.unregisterBackend(i, k, b),
      getTool: (i) => inner.getTool(i),
      getAllBackends: (i) => inner.getAllBackends(i),
      search: (q, l) => inner.search(q, l),
      searchPage: (q, l, c) => inner.searchPage(q, l, c),
      listNamespaces: () => inner.listNamespaces(),
      listNamespacesPage: (l, c) => inner.listNamespacesPage(l, c),
      onChange: (f) => inner.onChange(f),
      refresh: () => inner.refresh(),
      get version() {
        return inner.version;
      },
    };
    expect(suggestToolIds(wrapped, 'fx:greeting')).toEqual(['fx:greet']);
    expect(suggestToolIds(wrapped, 'fx:zzzzzz')).toEqual([]);
  });
});
