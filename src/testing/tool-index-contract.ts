/**
 * The tool index contract: a vitest suite every {@link ToolIndex} must pass, as discovery's
 * interface defines it — registration (a tool, more backends, batches all or nothing, an MCP
 * server's tools), lookup, removal and change events here; search, pages and namespaces in
 * tool-index-search-contract.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ChangeEvent, ToolIndex } from '../discovery/index.js';
import { localBackend, mcpBackend, type Tool } from '../model/index.js';
import { show } from './contract-checks.js';
import { freshIndex, idsOf, indexCall, indexRefuses, indexTool, type IndexFactory } from './tool-index-checks.js';
import { toolIndexSearchTests } from './tool-index-search-contract.js';

/** Listens to `index`: the events it delivers, in order. */
function record(index: ToolIndex): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  indexCall(index, 'onChange', (event) => events.push(event));
  return events;
}

/** The events' types and tool IDs, for comparisons. */
function kinds(events: readonly ChangeEvent[]): string[] {
  return events.map((event) => `${event.type} ${event.toolId}`);
}

/** Checks that the events' versions strictly increase. */
function expectIncreasing(events: readonly ChangeEvent[], who: string): void {
  const versions = events.map((event) => event.version);
  for (let i = 1; i < versions.length; i++) {
    expect(versions[i], `${who}: event versions must strictly increase, got ${show(versions)}`).toBeGreaterThan(versions[i - 1] as number);
  }
}

/**
 * Registers the tool index contract for `name`: registration and its refusals (`INVALID_TOOL`,
 * `INVALID_BACKEND`), lookup (`TOOL_NOT_FOUND`), backends added and removed, batches all or
 * nothing, an MCP server's tools, search (exact ID, then exact names; an empty query in ID order),
 * cursor pages of search and namespaces (`INVALID_CURSOR` after a change, for another listing or
 * index), and change events (one per change, versions strictly increasing, a batch heard once it
 * is all in, a change made by a listener delivered after the current event).
 *
 * @param factory Makes a new, empty index; called for each test (and twice where a test needs a
 * second index).
 * @remarks The interface is synchronous: every method is called directly, and a failure names the
 * call and what it returned or threw.
 *
 * @example
 * ```ts
 * toolIndexContract('my index', () => new MyToolIndex());
 * ```
 */
export function toolIndexContract(name: string, factory: () => ToolIndex | Promise<ToolIndex>): void {
  const make: IndexFactory = factory;
  describe(`tool index contract: ${name}`, () => {
    it('registerTool then getTool: the tool, a copy, with its backend; the version moves', async () => {
      const index = await freshIndex(make);
      const before = index.version;
      const tool = indexTool('math', 'add', 'Adds two numbers');
      indexCall(index, 'registerTool', tool, localBackend('add'));
      expect(index.version, 'index.version after a registration').toBeGreaterThan(before);
      const found = indexCall(index, 'getTool', 'math:add');
      expect(found?.tool, `index.getTool('math:add') returned ${show(found)}`).toMatchObject({
        name: 'add',
        namespace: 'math',
        description: 'Adds two numbers',
      });
      expect(found.backend).toEqual(localBackend('add'));
      // the index keeps its own copy
      tool.description = 'changed after registration';
      expect(indexCall(index, 'getTool', 'math:add').tool.description, 'a tool changed after registration').toBe('Adds two numbers');
    });

    it('getTool and getAllBackends of an unknown ID throw TOOL_NOT_FOUND', async () => {
      const index = await freshIndex(make);
      indexRefuses(index, 'getTool', ['math:nope'], 'TOOL_NOT_FOUND');
      indexCall(index, 'registerTool', indexTool('math', 'add'), localBackend('add'));
      indexRefuses(index, 'getTool', ['math:nope'], 'TOOL_NOT_FOUND');
      indexRefuses(index, 'getAllBackends', ['math:nope'], 'TOOL_NOT_FOUND');
      indexRefuses(index, 'getTool', ['add'], 'TOOL_NOT_FOUND');
    });

    it('refuses a bad tool (INVALID_TOOL) or backend (INVALID_BACKEND), changing nothing', async () => {
      const index = await freshIndex(make);
      const version = index.version;
      indexRefuses(index, 'registerTool', [indexTool('math', ''), localBackend('add')], 'INVALID_TOOL');
      indexRefuses(index, 'registerTool', [{ name: 'add', namespace: 'math' } as never, localBackend('add')], 'INVALID_TOOL');
      indexRefuses(index, 'registerTool', [indexTool('math', 'add'), localBackend('')], 'INVALID_BACKEND');
      indexRefuses(index, 'registerTool', [indexTool('math', 'add'), { kind: 'nope' } as never], 'INVALID_BACKEND');
      expect(index.version, 'index.version after refused registrations').toBe(version);
      expect(idsOf(indexCall(index, 'search', '', 10)), 'what a search finds after refused registrations').toEqual([]);
    });

    it('adds backends in order, replaces one with the same identity, and refuses other MCP fields (INVALID_TOOL)', async () => {
      const index = await freshIndex(make);
      indexCall(index, 'registerTool', indexTool('math', 'add'), localBackend('add'));
      indexCall(index, 'registerTool', indexTool('math', 'add'), mcpBackend('calc'));
      indexCall(index, 'registerTool', indexTool('math', 'add'), mcpBackend('calc'));
      const backends = indexCall(index, 'getAllBackends', 'math:add');
      expect(backends, "index.getAllBackends('math:add')").toEqual([localBackend('add'), mcpBackend('calc')]);
      // a copy: changing it changes nothing
      backends.pop();
      expect(indexCall(index, 'getAllBackends', 'math:add')).toHaveLength(2);
      expect(backends.concat(mcpBackend('calc'))).toContainEqual(indexCall(index, 'getTool', 'math:add').backend);
      const changed: Tool = { ...indexTool('math', 'add'), inputSchema: { type: 'object', required: ['value'] } };
      indexRefuses(index, 'registerTool', [changed, mcpBackend('other')], 'INVALID_TOOL');
      expect(indexCall(index, 'getAllBackends', 'math:add'), 'the backends after a refused registration').toHaveLength(2);
    });

    it('registerTools is all or nothing, naming the refused entry', async () => {
      const index = await freshIndex(make);
      const version = index.version;
      const good = { tool: indexTool('a', 'one'), backend: localBackend('one') };
      const bad = { tool: indexTool('a', ''), backend: localBackend('two') };
      const error = indexRefuses(
        index,
        'registerTools',
        [[good, bad, { tool: indexTool('a', 'three'), backend: localBackend('three') }]],
        'INVALID_TOOL',
      );
      expect(error.details?.index, `details.index of ${show(error)}`).toBe(1);
      expect(index.version, 'index.version after a refused batch').toBe(version);
      indexRefuses(index, 'getTool', ['a:one'], 'TOOL_NOT_FOUND');
      indexCall(index, 'registerTools', [good, { tool: indexTool('b', 'two'), backend: mcpBackend('s') }]);
      expect(indexCall(index, 'getTool', 'b:two').backend).toEqual(mcpBackend('s'));
      expect(idsOf(indexCall(index, 'search', '', 10))).toEqual(['a:one', 'b:two']);
    });

    it("registerToolsFromMcp registers under the server's name and keeps the tools before a refused one", async () => {
      const index = await freshIndex(make);
      const tools = [indexTool(undefined, 'read'), indexTool('docs', 'find'), indexTool(undefined, ''), indexTool(undefined, 'after')];
      const error = indexRefuses(index, 'registerToolsFromMcp', ['files', tools], 'INVALID_TOOL');
      expect(error.details?.registered, `details.registered of ${show(error)}`).toBe(2);
      expect(indexCall(index, 'getTool', 'files:read').backend).toEqual(mcpBackend('files'));
      expect(indexCall(index, 'getTool', 'docs:find').backend).toEqual(mcpBackend('files'));
      indexRefuses(index, 'getTool', ['files:after'], 'TOOL_NOT_FOUND');
    });

    it('unregisterBackend removes one backend, then the tool with its last (TOOL_NOT_FOUND after)', async () => {
      const index = await freshIndex(make);
      indexCall(index, 'registerTool', indexTool('math', 'add'), localBackend('add'));
      indexCall(index, 'registerTool', indexTool('math', 'add'), mcpBackend('calc'));
      indexRefuses(index, 'unregisterBackend', ['math:add', 'mcp', 'elsewhere'], 'TOOL_NOT_FOUND');
      indexCall(index, 'unregisterBackend', 'math:add', 'mcp', 'calc');
      expect(indexCall(index, 'getAllBackends', 'math:add')).toEqual([localBackend('add')]);
      indexCall(index, 'unregisterBackend', 'math:add', 'local', 'add');
      indexRefuses(index, 'getTool', ['math:add'], 'TOOL_NOT_FOUND');
      expect(idsOf(indexCall(index, 'search', 'add', 10)), 'what a search finds of a removed tool').toEqual([]);
      indexRefuses(index, 'unregisterBackend', ['math:add', 'local', 'add'], 'TOOL_NOT_FOUND');
    });

    it('onChange: one event per change, with its tool, backend and version; refresh() too', async () => {
      const index = await freshIndex(make);
      const events = record(index);
      indexCall(index, 'registerTool', indexTool('math', 'add'), localBackend('add'));
      indexCall(index, 'registerTool', indexTool('math', 'add'), mcpBackend('calc'));
      indexCall(index, 'unregisterBackend', 'math:add', 'mcp', 'calc');
      indexCall(index, 'unregisterBackend', 'math:add', 'local', 'add');
      const refreshed = indexCall(index, 'refresh');
      expect(kinds(events), 'the change events').toEqual([
        'registered math:add',
        'updated math:add',
        'backend_removed math:add',
        'tool_removed math:add',
        'refreshed ',
      ]);
      expect(events.map((event) => event.backend)).toEqual([
        localBackend('add'),
        mcpBackend('calc'),
        mcpBackend('calc'),
        localBackend('add'),
        undefined,
      ]);
      expectIncreasing(events, 'index.onChange');
      expect(refreshed, 'what refresh() returned').toBe(index.version);
      expect(events.at(-1)?.version, 'the last event version').toBe(index.version);
    });

    it('onChange returns an unsubscribe that stops the events and can be called again', async () => {
      const index = await freshIndex(make);
      const events: ChangeEvent[] = [];
      const unsubscribe = indexCall(index, 'onChange', (event) => events.push(event));
      expect(typeof unsubscribe, `index.onChange(listener) must return a function, got ${show(unsubscribe)}`).toBe('function');
      indexCall(index, 'registerTool', indexTool('a', 'one'), localBackend('one'));
      unsubscribe();
      unsubscribe();
      indexCall(index, 'registerTool', indexTool('a', 'two'), localBackend('two'));
      expect(kinds(events)).toEqual(['registered a:one']);
    });

    it('registerTools: listeners hear of a batch once all of it is in', async () => {
      const index = await freshIndex(make);
      const seen: string[][] = [];
      indexCall(index, 'onChange', () => seen.push(idsOf(index.search('', 10))));
      const batch = ['one', 'two', 'three'].map((tool) => ({ tool: indexTool('a', tool), backend: localBackend(tool) }));
      indexCall(index, 'registerTools', batch);
      expect(seen.length, 'events heard for a batch of three').toBe(3);
      for (const ids of seen) expect(ids, 'what a listener finds while the batch is announced').toEqual(['a:one', 'a:three', 'a:two']);
    });

    it("a listener's change applies at once, its event delivered after the current one reached every listener", async () => {
      const index = await freshIndex(make);
      const first: ChangeEvent[] = [];
      let inside: unknown;
      indexCall(index, 'onChange', (event) => {
        first.push(event);
        if (event.toolId !== 'a:one') return;
        index.registerTool(indexTool('a', 'two'), localBackend('two'));
        inside = index.getTool('a:two').tool.name;
      });
      const second = record(index);
      indexCall(index, 'registerTool', indexTool('a', 'one'), localBackend('one'));
      expect(inside, "getTool('a:two') inside the listener that registered it").toBe('two');
      for (const [who, events] of [
        ['the listener that made the change', first],
        ['the other listener', second],
      ] as const) {
        expect(kinds(events), `the events ${who} heard`).toEqual(['registered a:one', 'registered a:two']);
        expectIncreasing(events, who);
      }
    });

    toolIndexSearchTests(make);
  });
}
