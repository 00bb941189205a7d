import { describe, expect, it } from 'vitest';
import { createToolIndex, type Searcher, type ToolSummary } from '../../src/discovery/index.js';
import { decodeCursorPayload, encodeCursorPayload, expectCode, local, tool } from './support.js';

function threeTools() {
  const index = createToolIndex();
  index.registerTool(tool('alpha', { namespace: 'ns1' }), local('a'));
  index.registerTool(tool('beta', { namespace: 'ns1' }), local('b'));
  index.registerTool(tool('gamma', { namespace: 'ns2' }), local('g'));
  return index;
}

const ids = (items: ToolSummary[]) => items.map((item) => item.id);

describe('searchPage (foundation §8 103–109)', () => {
  it('104: pages with a cursor until the last page, which has none', () => {
    const index = threeTools();
    const first = index.searchPage('', 2);
    expect(ids(first.items)).toEqual(['ns1:alpha', 'ns1:beta']);
    expect(typeof first.nextCursor).toBe('string');
    const second = index.searchPage('', 2, first.nextCursor);
    expect(ids(second.items)).toEqual(['ns2:gamma']);
    expect(second.nextCursor).toBeUndefined();
    expect('nextCursor' in second).toBe(false);
  });

  it('an empty-string cursor starts at the beginning', () => {
    const index = threeTools();
    expect(index.searchPage('', 2, '')).toEqual(index.searchPage('', 2));
  });

  it('cursors are URL-safe base64 without padding', () => {
    const index = threeTools();
    expect(index.searchPage('', 1).nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('105: a searcher declaring deterministic: false cannot page', () => {
    const searcher: Searcher = { deterministic: false, search: (_q, limit, docs) => docs.slice(0, limit).map((d) => d.summary) };
    const index = createToolIndex({ searcher });
    index.registerTool(tool('t'), local('t'));
    const error = expectCode(() => index.searchPage('', 1), 'CONFIGURATION');
    expect(error.message).toContain('deterministic');
    // Plain search still works.
    expect(index.search('', 1)).toHaveLength(1);
  });

  it('a custom searcher that does not declare deterministic: true cannot page (Go refuses unset too)', () => {
    const searcher: Searcher = { search: (_q, limit, docs) => docs.slice(0, limit).map((d) => d.summary) };
    const index = createToolIndex({ searcher });
    index.registerTool(tool('t'), local('t'));
    expect(expectCode(() => index.searchPage('', 1), 'CONFIGURATION').message).toContain('deterministic: true');
    expect(index.search('', 1)).toHaveLength(1);
  });

  it('a custom searcher declaring deterministic: true can page, and is asked for every hit', () => {
    const limits: number[] = [];
    const searcher: Searcher = {
      deterministic: true,
      search: (_q, limit, docs) => {
        limits.push(limit);
        return docs.slice(0, limit).map((d) => d.summary);
      },
    };
    const index = createToolIndex({ searcher });
    for (const name of ['a', 'b', 'c']) index.registerTool(tool(name), local(name));
    const first = index.searchPage('x', 2);
    expect(ids(first.items)).toEqual(['a', 'b']);
    expect(ids(index.searchPage('x', 2, first.nextCursor).items)).toEqual(['c']);
    expect(limits[0]).toBe(3);
  });

  it("refuses another index's cursor, even at the same version and for the same query", () => {
    const make = (names: string[]) => {
      const index = createToolIndex();
      for (const name of names) index.registerTool(tool(name, { namespace: 'fs', description: 'file tool' }), local(name));
      return index;
    };
    const a = make(['a1', 'a2', 'a3', 'a4']);
    const b = make(['b1', 'b2', 'b3', 'b4']);
    expect(a.version).toBe(b.version);
    const first = a.searchPage('file', 2);
    expect(ids(a.searchPage('file', 2, first.nextCursor).items)).toEqual(['fs:a3', 'fs:a4']);
    const error = expectCode(() => b.searchPage('file', 2, first.nextCursor), 'INVALID_CURSOR');
    expect(error.message).toContain('another index');
    const namespaces = a.listNamespacesPage(1);
    expect(namespaces.nextCursor).toBeUndefined();
    a.registerTool(tool('x', { namespace: 'other' }), local('x'));
    b.registerTool(tool('x', { namespace: 'other' }), local('x'));
    const cursor = a.listNamespacesPage(1).nextCursor;
    expectCode(() => b.listNamespacesPage(1, cursor), 'INVALID_CURSOR');
    expect(a.listNamespacesPage(1, cursor).items).toEqual(['other']);
  });

  it.each<[string, () => string]>([
    ['not-base64', () => 'not-base64'],
    ['characters outside base64url', () => 'abc+/='],
    ['base64 of non-JSON', () => Buffer.from('hello world').toString('base64url')],
    ['JSON of the wrong shape', () => encodeCursorPayload({ offset: 1 })],
    ['a JSON array', () => Buffer.from('[1,2]').toString('base64url')],
    ['a negative offset', () => encodeCursorPayload({ o: -1, v: 0, f: 'x' })],
    ['a fractional offset', () => encodeCursorPayload({ o: 1.5, v: 0, f: 'x' })],
    ['a huge cursor', () => 'A'.repeat(10_000)],
  ])('106: rejects %s as INVALID_CURSOR', (_label, make) => {
    const index = threeTools();
    expectCode(() => index.searchPage('', 2, make()), 'INVALID_CURSOR');
    expectCode(() => index.listNamespacesPage(2, make()), 'INVALID_CURSOR');
  });

  it('a non-string cursor is INVALID_CURSOR', () => {
    const index = threeTools();
    expectCode(() => index.searchPage('', 2, 42 as unknown as string), 'INVALID_CURSOR');
    expectCode(() => index.searchPage('', 2, {} as unknown as string), 'INVALID_CURSOR');
  });

  it('107: any change since the cursor was issued makes it stale', () => {
    const index = threeTools();
    const { nextCursor } = index.searchPage('', 1);
    index.registerTool(tool('delta', { namespace: 'ns2' }), local('d'));
    const error = expectCode(() => index.searchPage('', 1, nextCursor), 'INVALID_CURSOR');
    expect(error.message).toContain('changed');

    const again = index.searchPage('', 1).nextCursor;
    index.refresh();
    expectCode(() => index.searchPage('', 1, again), 'INVALID_CURSOR');

    const third = index.searchPage('', 1).nextCursor;
    index.unregisterBackend('ns2:delta', 'local', 'd');
    expectCode(() => index.searchPage('', 1, third), 'INVALID_CURSOR');
  });

  it('a failed change does not invalidate cursors', () => {
    const index = threeTools();
    const { nextCursor } = index.searchPage('', 1);
    expectCode(() => index.registerTool(tool(''), local('x')), 'INVALID_TOOL');
    expect(ids(index.searchPage('', 1, nextCursor).items)).toEqual(['ns1:beta']);
  });

  it('a cursor cannot be replayed with another query, or across listings', () => {
    const index = threeTools();
    const { nextCursor } = index.searchPage('ns1', 1);
    expect(nextCursor).toBeDefined();
    const error = expectCode(() => index.searchPage('ns2', 1, nextCursor), 'INVALID_CURSOR');
    expect(error.message).toContain('another query');
    expectCode(() => index.searchPage('NS1', 1, nextCursor), 'INVALID_CURSOR');
    expectCode(() => index.listNamespacesPage(1, nextCursor), 'INVALID_CURSOR');
    const namespaces = index.listNamespacesPage(1).nextCursor;
    expectCode(() => index.searchPage('', 1, namespaces), 'INVALID_CURSOR');
    // The page size may change between pages.
    expect(ids(index.searchPage('ns1', 5, nextCursor).items)).toEqual(['ns1:beta']);
  });

  it('109: limit must be positive', () => {
    const index = threeTools();
    for (const limit of [0, -1, 0.5, Number.NaN]) {
      expect(expectCode(() => index.searchPage('', limit), 'INVALID_ARGUMENT').message).toBe('limit must be positive');
      expect(expectCode(() => index.listNamespacesPage(limit), 'INVALID_ARGUMENT').message).toBe('limit must be positive');
    }
  });

  it('a limit that is not a number is INVALID_ARGUMENT with the same message for search and searchPage', () => {
    const index = threeTools();
    const limits: unknown[] = ['4', null, undefined, {}, 10n];
    for (const limit of limits) {
      const messages = [
        () => index.search('', limit as number),
        () => index.searchPage('', limit as number),
        () => index.listNamespacesPage(limit as number),
      ].map((call) => expectCode(call, 'INVALID_ARGUMENT'));
      for (const error of messages) {
        expect(error.message).toBe('limit must be a number');
        expect(error.details).toEqual({ limit: typeof limit });
      }
    }
    // A number that is not positive: search gives nothing, a page is refused.
    expect(index.search('', 0)).toEqual([]);
    expect(index.search('', Number.NaN)).toEqual([]);
  });

  it('109: an offset past the end (with a valid cursor) gives an empty last page', () => {
    const index = threeTools();
    const cursor = index.searchPage('', 1).nextCursor as string;
    const forged = encodeCursorPayload({ ...decodeCursorPayload(cursor), o: 99 });
    expect(index.searchPage('', 2, forged)).toEqual({ items: [] });
    const exact = encodeCursorPayload({ ...decodeCursorPayload(cursor), o: 3 });
    expect(index.searchPage('', 2, exact)).toEqual({ items: [] });
  });

  it('walking every page gives exactly search(query, all), for several page sizes', () => {
    const index = createToolIndex();
    for (let i = 0; i < 40; i++) {
      index.registerTool(
        tool(`tool${String(i).padStart(2, '0')}`, {
          namespace: `ns${i % 3}`,
          description: i % 2 ? 'reads files' : 'file reader',
          tags: ['io'],
        }),
        local(`t${i}`),
      );
    }
    for (const query of ['', 'file', 'reads', 'io', 'ns1', 'nomatch']) {
      const all = index.search(query, Infinity);
      for (const size of [1, 3, 7, 40, 100]) {
        const seen: ToolSummary[] = [];
        let page = index.searchPage(query, size);
        seen.push(...page.items);
        while (page.nextCursor !== undefined) {
          page = index.searchPage(query, size, page.nextCursor);
          seen.push(...page.items);
        }
        expect(seen).toEqual(all);
      }
    }
  });

  it('page items are copies', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { tags: ['a'] }), local('t'));
    index.searchPage('', 1).items[0]!.tags!.push('junk');
    expect(index.searchPage('', 1).items[0]?.tags).toEqual(['a']);
  });
});

describe('listNamespacesPage (foundation §8 108)', () => {
  it('108: pages the namespaces in order', () => {
    const index = createToolIndex();
    for (const ns of ['ns3', 'ns1', 'ns2']) index.registerTool(tool('t', { namespace: ns }), local('t'));
    const first = index.listNamespacesPage(2);
    expect(first.items).toEqual(['ns1', 'ns2']);
    const second = index.listNamespacesPage(2, first.nextCursor);
    expect(second).toEqual({ items: ['ns3'] });
  });

  it('107: a stale namespace cursor is rejected', () => {
    const index = createToolIndex();
    for (const ns of ['a', 'b']) index.registerTool(tool('t', { namespace: ns }), local('t'));
    const { nextCursor } = index.listNamespacesPage(1);
    index.registerTool(tool('t', { namespace: 'c' }), local('t'));
    expectCode(() => index.listNamespacesPage(1, nextCursor), 'INVALID_CURSOR');
  });

  it('an empty index gives an empty page', () => {
    expect(createToolIndex().listNamespacesPage(5)).toEqual({ items: [] });
  });
});

describe('searchPage with a very long query', () => {
  it('pages an 8 MB query at about the cost of one search (the query is hashed once, natively)', () => {
    const index = createToolIndex();
    for (let i = 0; i < 50; i++)
      index.registerTool(tool(`send_email_${i}`, { namespace: 'mail', description: 'Sends an email' }), local(`m${i}`));
    const query = 'email '.repeat((8 * 1024 * 1024) / 6);
    index.searchPage('warm up', 5);
    const started = performance.now();
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const result = index.searchPage(query, 5, cursor);
      seen.push(...ids(result.items));
      cursor = result.nextCursor;
    }
    const elapsed = performance.now() - started;
    expect(new Set(seen).size).toBe(25);
    // Hashing the whole query for every page (a JavaScript loop over 8 M characters each time) took about 1.8 s here; now about 50 ms.
    expect(elapsed).toBeLessThan(300);
  });

  it('keeps two queries that differ only in a lone surrogate apart', () => {
    const index = threeTools();
    const first = index.searchPage('alpha beta gamma \uD800', 1);
    expect(first.nextCursor).toBeDefined();
    expect(ids(index.searchPage('alpha beta gamma \uD800', 1, first.nextCursor).items)).toHaveLength(1);
    expectCode(() => index.searchPage('alpha beta gamma \uDC00', 1, first.nextCursor), 'INVALID_CURSOR');
  });
});
