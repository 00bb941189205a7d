/**
 * The tool index contract, search and pages: an exact ID first, then exact names, an empty query in
 * ID order, cursor pages of search and of namespaces that add up to the whole listing, and cursors
 * refused after a change, for another listing or by another index.
 */
import { expect, it } from 'vitest';
import type { Page, ToolIndex } from '../discovery/index.js';
import { localBackend } from '../model/index.js';
import { show } from './contract-checks.js';
import { freshIndex, idsOf, indexCall, indexRefuses, indexTool, type IndexFactory } from './tool-index-checks.js';

/** Every tool of the catalogue, in ID (code-point) order. */
const CATALOGUE_IDS = ['calc:add', 'math:add', 'math:sum', 'ping', 'text:lower', 'text:upper', 'zeta:last'];

/** Every page of a listing, `limit` at a time, checked page by page; the items in order. */
function walk<T>(label: string, limit: number, page: (cursor: string | undefined) => Page<T>): T[] {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const current = page(cursor);
    expect(Array.isArray(current?.items), `${label} page ${pages} must have an items array, got ${show(current)}`).toBe(true);
    expect(current.items.length, `${label} page ${pages} holds at most ${limit} items`).toBeLessThanOrEqual(limit);
    items.push(...current.items);
    if (current.nextCursor === undefined) return items;
    expect(typeof current.nextCursor, `${label} page ${pages}: nextCursor must be a string`).toBe('string');
    expect(current.items.length, `${label} page ${pages} has a nextCursor, so it must be full`).toBe(limit);
    expect(pages, `${label} must end (a page without nextCursor)`).toBeLessThan(100);
    cursor = current.nextCursor;
  }
}

/** Registers the search, page and namespace tests of the tool index contract (inside its `describe`). */
export function toolIndexSearchTests(make: IndexFactory): void {
  const catalogue = async (): Promise<ToolIndex> => {
    const index = await freshIndex(make);
    const tools = [
      indexTool('math', 'add', 'Add two numbers'),
      indexTool('calc', 'add', 'Add two numbers'),
      indexTool('math', 'sum', 'Sum a list: add every number of it'),
      indexTool('text', 'upper', 'Upper-case a string'),
      indexTool('text', 'lower', 'Lower-case a string'),
      indexTool(undefined, 'ping', 'Answer pong'),
      indexTool('zeta', 'last', 'The last tool'),
    ];
    indexCall(
      index,
      'registerTools',
      tools.map((tool) => ({ tool, backend: localBackend(tool.name) })),
    );
    return index;
  };

  it('search: an exact ID first, then exact names, then other matches; summaries without schemas', async () => {
    const index = await catalogue();
    expect(idsOf(indexCall(index, 'search', 'math:add', 10))[0], "the first result of index.search('math:add', 10)").toBe('math:add');
    const add = idsOf(indexCall(index, 'search', 'add', 10));
    expect(add.slice(0, 2).sort(), "the first two results of index.search('add', 10): the exact names").toEqual(['calc:add', 'math:add']);
    expect(add, "index.search('add', 10) finds the tool whose description says add").toContain('math:sum');
    const [summary] = indexCall(index, 'search', 'math:add', 1);
    expect(summary, "index.search('math:add', 1)[0]").toMatchObject({ id: 'math:add', name: 'add', namespace: 'math' });
    expect(summary).not.toHaveProperty('inputSchema');
  });

  it('search: an empty query lists every tool in ID order; limit caps it, <= 0 gives []; a wrong type is INVALID_ARGUMENT', async () => {
    const index = await catalogue();
    expect(idsOf(indexCall(index, 'search', '', 100)), "index.search('', 100)").toEqual(CATALOGUE_IDS);
    expect(idsOf(indexCall(index, 'search', '', 3)), "index.search('', 3)").toEqual(CATALOGUE_IDS.slice(0, 3));
    expect(indexCall(index, 'search', 'add', 0), "index.search('add', 0)").toEqual([]);
    expect(indexCall(index, 'search', '', -1), "index.search('', -1)").toEqual([]);
    indexRefuses(index, 'search', [42 as never, 5], 'INVALID_ARGUMENT');
    indexRefuses(index, 'search', ['add', '4' as never], 'INVALID_ARGUMENT');
  });

  it('searchPage: pages of at most limit that add up to the whole search, the last without nextCursor', async () => {
    const index = await catalogue();
    for (const query of ['', 'add']) {
      const all = idsOf(indexCall(index, 'search', query, 100));
      for (const limit of [1, 2, 3, 100]) {
        const label = `index.searchPage(${show(query)}, ${limit})`;
        const paged = walk(label, limit, (cursor) => indexCall(index, 'searchPage', query, limit, cursor));
        expect(idsOf(paged), `${label}: every page in turn`).toEqual(all);
      }
    }
  });

  it('a search cursor is refused (INVALID_CURSOR) for another query, by another index, made up, or after a change', async () => {
    const index = await catalogue();
    const cursor = indexCall(index, 'searchPage', '', 2).nextCursor;
    expect(typeof cursor, "index.searchPage('', 2) of 7 tools has a nextCursor").toBe('string');
    indexRefuses(index, 'searchPage', ['add', 2, cursor], 'INVALID_CURSOR');
    indexRefuses(await catalogue(), 'searchPage', ['', 2, cursor], 'INVALID_CURSOR');
    indexRefuses(index, 'searchPage', ['', 2, 'not-a-cursor'], 'INVALID_CURSOR');
    indexRefuses(index, 'searchPage', ['', 0], 'INVALID_ARGUMENT');
    // still good: nothing changed
    expect(idsOf(indexCall(index, 'searchPage', '', 2, cursor).items)).toEqual(CATALOGUE_IDS.slice(2, 4));
    indexCall(index, 'registerTool', indexTool('new', 'tool'), localBackend('new'));
    indexRefuses(index, 'searchPage', ['', 2, cursor], 'INVALID_CURSOR');
    const fresh = indexCall(index, 'searchPage', '', 2).nextCursor;
    indexCall(index, 'refresh');
    indexRefuses(index, 'searchPage', ['', 2, fresh], 'INVALID_CURSOR');
  });

  it('listNamespaces: each once, in code-point order, "" for tools without one; listNamespacesPage pages it', async () => {
    const index = await freshIndex(make);
    for (const [namespace, name] of [
      ['b', 'one'],
      ['a', 'two'],
      ['B', 'three'],
      [undefined, 'four'],
      ['a', 'five'],
    ] as const) {
      indexCall(index, 'registerTool', indexTool(namespace, name), localBackend(name));
    }
    const namespaces = ['', 'B', 'a', 'b'];
    expect(indexCall(index, 'listNamespaces'), 'index.listNamespaces()').toEqual(namespaces);
    for (const limit of [1, 3, 10]) {
      const label = `index.listNamespacesPage(${limit})`;
      expect(
        walk(label, limit, (cursor) => indexCall(index, 'listNamespacesPage', limit, cursor)),
        label,
      ).toEqual(namespaces);
    }
    const cursor = indexCall(index, 'listNamespacesPage', 3).nextCursor;
    indexRefuses(index, 'listNamespacesPage', [0], 'INVALID_ARGUMENT');
    indexRefuses(index, 'listNamespacesPage', [3, 'not-a-cursor'], 'INVALID_CURSOR');
    indexCall(index, 'unregisterBackend', 'four', 'local', 'four');
    expect(indexCall(index, 'listNamespaces'), 'index.listNamespaces() once the last tool without a namespace is gone').toEqual([
      'B',
      'a',
      'b',
    ]);
    indexRefuses(index, 'listNamespacesPage', [3, cursor], 'INVALID_CURSOR');
  });
}
