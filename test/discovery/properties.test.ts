import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createToolIndex, type ToolSummary } from '../../src/discovery/index.js';
import { ToolexecError, normalizeTags, type ToolBackend } from '../../src/model/index.js';
import { local, tool } from './support.js';

const WORDS = ['read', 'write', 'file', 'git', 'commit', 'push', 'search', 'user', 'list', 'add', 'address', 'the'];

/** A fixed catalog, rich enough for overlapping matches, ties and exact names. */
function catalog() {
  const index = createToolIndex();
  let n = 0;
  for (const ns of ['', 'fs', 'vcs', 'Ns2']) {
    for (const a of WORDS.slice(0, 8)) {
      for (const b of ['', '_file', '-push', 'List']) {
        const name = `${a}${b}`;
        index.registerTool(
          tool(name, {
            ...(ns ? { namespace: ns } : {}),
            description: `${WORDS[n % WORDS.length]} ${WORDS[(n * 7) % WORDS.length]} tool`,
            tags: [WORDS[(n * 3) % WORDS.length]!],
          }),
          local(`${ns}${name}`),
        );
        n++;
      }
    }
  }
  return index;
}

const index = catalog();
const total = index.search('', Infinity).length;

const query = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(...WORDS, 'fs:read', 'vcs:git-push', 'READ', 'git commit', '(git)', 'git*', '', '  '),
  fc.array(fc.constantFrom(...WORDS, ':', '-', '_', '.', ' ', '*', '"'), { maxLength: 8 }).map((parts) => parts.join('')),
);
const limit = fc.oneof(fc.integer({ min: -5, max: 200 }), fc.double(), fc.constantFrom(Number.NaN, Infinity, -Infinity, 0));
const cursor = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 60 }),
  fc.base64String({ maxLength: 60 }),
  fc
    .record({ o: fc.integer(), v: fc.integer(), f: fc.string() })
    .map((payload) => Buffer.from(JSON.stringify(payload)).toString('base64url')),
);

function onlyToolexecErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    if (!ToolexecError.isInstance(error)) throw error;
  }
}

function walk(q: string, size: number): ToolSummary[] {
  const items: ToolSummary[] = [];
  let page = index.searchPage(q, size);
  items.push(...page.items);
  while (page.nextCursor !== undefined) {
    page = index.searchPage(q, size, page.nextCursor);
    items.push(...page.items);
  }
  return items;
}

describe('properties', () => {
  it('search never throws for any string query and any limit, and respects the limit', () => {
    fc.assert(
      fc.property(query, limit, (q, l) => {
        const results = index.search(q, l);
        const cap = Number.isNaN(l) || l < 1 ? 0 : Math.floor(l);
        expect(results.length).toBeLessThanOrEqual(Math.min(cap, total));
        expect(new Set(results.map((r) => r.id)).size).toBe(results.length);
      }),
      { numRuns: 300 },
    );
  });

  it('searchPage and listNamespacesPage throw nothing but ToolexecErrors', () => {
    fc.assert(
      fc.property(query, limit, cursor, (q, l, c) => {
        onlyToolexecErrors(() => index.searchPage(q, l, c));
        onlyToolexecErrors(() => index.listNamespacesPage(l, c));
      }),
      { numRuns: 300 },
    );
  });

  it('walking all pages equals search(query, all)', () => {
    fc.assert(
      fc.property(query, fc.integer({ min: 1, max: 40 }), (q, size) => {
        expect(walk(q, size)).toEqual(index.search(q, Infinity));
      }),
      { numRuns: 150 },
    );
  });

  it('search(q, n) is the first n of search(q, all): ranking does not depend on the limit', () => {
    fc.assert(
      fc.property(query, fc.integer({ min: 1, max: 60 }), (q, n) => {
        expect(index.search(q, n)).toEqual(index.search(q, Infinity).slice(0, n));
      }),
      { numRuns: 150 },
    );
  });

  it('an exact name or ID, in any case, ranks first', () => {
    const ids = index.search('', Infinity).map((s) => s.id);
    fc.assert(
      fc.property(fc.constantFrom(...ids), fc.boolean(), (id, upper) => {
        const q = upper ? id.toUpperCase() : id;
        const [first] = index.search(q, 3);
        expect(first?.id.toLowerCase()).toBe(id.toLowerCase());
      }),
      { numRuns: 100 },
    );
  });

  it('registrations and removals keep lookups, namespaces and search consistent with a model', () => {
    type Op =
      | { kind: 'register'; ns: string; name: string; server: string; tags: string[] }
      | { kind: 'unregister'; ns: string; name: string; server: string };
    const ns = fc.constantFrom('', 'a', 'b', 'Zed');
    const name = fc.constantFrom('x', 'y', 'read', 'read_file');
    const server = fc.constantFrom('s1', 's2');
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({
        kind: fc.constant('register' as const),
        ns,
        name,
        server,
        tags: fc.array(fc.constantFrom('T1', 'two', ' x '), { maxLength: 2 }),
      }),
      fc.record({ kind: fc.constant('unregister' as const), ns, name, server }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const subject = createToolIndex();
        const model = new Map<string, { backends: string[]; tags: string[]; ns: string }>();
        for (const step of ops) {
          const id = step.ns ? `${step.ns}:${step.name}` : step.name;
          const backend: ToolBackend = { kind: 'mcp', mcp: { serverName: step.server } };
          if (step.kind === 'register') {
            subject.registerTool(tool(step.name, { ...(step.ns ? { namespace: step.ns } : {}), tags: step.tags }), backend);
            const entry = model.get(id) ?? { backends: [], tags: [], ns: step.ns };
            if (!entry.backends.includes(step.server)) entry.backends.push(step.server);
            entry.tags = normalizeTags(step.tags);
            model.set(id, entry);
          } else {
            const entry = model.get(id);
            if (entry === undefined || !entry.backends.includes(step.server)) {
              onlyToolexecErrors(() => subject.unregisterBackend(id, 'mcp', step.server));
              continue;
            }
            subject.unregisterBackend(id, 'mcp', step.server);
            entry.backends = entry.backends.filter((s) => s !== step.server);
            if (entry.backends.length === 0) model.delete(id);
          }
        }
        const expectedIds = [...model.keys()].sort();
        expect(subject.search('', Infinity).map((s) => s.id)).toEqual(expectedIds);
        expect(subject.listNamespaces()).toEqual([...new Set([...model.values()].map((e) => e.ns))].sort());
        for (const [id, entry] of model) {
          expect(subject.getAllBackends(id).map((b) => (b.kind === 'mcp' ? b.mcp.serverName : ''))).toEqual(entry.backends);
          const summary = subject.search(id, 1)[0];
          expect(summary?.id).toBe(id);
          expect(summary?.tags ?? []).toEqual(entry.tags);
        }
      }),
      { numRuns: 150 },
    );
  });
});
