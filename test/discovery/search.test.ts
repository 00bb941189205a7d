import { describe, expect, it } from 'vitest';
import { createToolIndex, type SearchDoc, type Searcher, type ToolSummary } from '../../src/discovery/index.js';
import { utf8ByteLength, type Tool } from '../../src/model/index.js';
import { expectCode, local, mcp, tool } from './support.js';

/** A searcher that records the docs it receives and returns them in order. */
function recordingSearcher(): Searcher & { calls: (readonly SearchDoc[])[] } {
  const calls: (readonly SearchDoc[])[] = [];
  return {
    calls,
    deterministic: true,
    search(_query, limit, docs) {
      calls.push(docs);
      return limit <= 0 ? [] : docs.slice(0, limit).map((doc) => doc.summary);
    },
  };
}

function ids(results: ToolSummary[]): string[] {
  return results.map((r) => r.id);
}

describe('search docs for a custom searcher (foundation §8 91–93)', () => {
  it('91: docs arrive sorted by ID', () => {
    const searcher = recordingSearcher();
    const index = createToolIndex({ searcher });
    for (const name of ['zebra', 'alpha', 'middle']) index.registerTool(tool(name, { namespace: 'ns' }), local(name));
    index.search('x', 10);
    expect(searcher.calls[0]?.map((d) => d.id)).toEqual(['ns:alpha', 'ns:middle', 'ns:zebra']);
  });

  it('92: docs are built once between changes and rebuilt after register, unregister and refresh', () => {
    const searcher = recordingSearcher();
    const index = createToolIndex({ searcher });
    index.registerTool(tool('a'), mcp('s'));
    index.search('x', 10);
    index.search('y', 10);
    expect(searcher.calls[1]).toBe(searcher.calls[0]);
    index.registerTool(tool('b'), mcp('s'));
    index.search('x', 10);
    expect(searcher.calls[2]).not.toBe(searcher.calls[1]);
    expect(searcher.calls[2]).toHaveLength(2);
    index.unregisterBackend('b', 'mcp', 's');
    index.search('x', 10);
    expect(searcher.calls[3]).toHaveLength(1);
    index.refresh();
    index.search('x', 10);
    expect(searcher.calls[4]).not.toBe(searcher.calls[3]);
  });

  it('93: docText carries the lowercased description and, after an update, the new tags', () => {
    const searcher = recordingSearcher();
    const index = createToolIndex({ searcher });
    index.registerTool(tool('t', { namespace: 'ns', description: 'Description A' }), mcp('s'));
    index.search('', 10);
    expect(searcher.calls[0]?.[0]?.docText).toContain('description a');
    index.registerTool(tool('t', { namespace: 'ns', description: 'Description A', tags: ['NewTag'] }), mcp('s'));
    index.search('', 10);
    expect(searcher.calls[1]?.[0]?.docText).toContain('newtag');
  });

  it('docText follows §4.6: name, namespace, description, summary text, category, security, modes, tags', () => {
    const searcher = recordingSearcher();
    const index = createToolIndex({ searcher });
    index.registerTool(
      tool('Run', {
        namespace: 'NS',
        description: 'Desc',
        tags: ['T1'],
        _meta: {
          category: 'Cat',
          inputModes: ['text', 1],
          outputModes: ['json'],
          securityRequirements: [{ oauth: [] }, { apiKey: [] }],
        },
      }),
      local('r'),
    );
    index.search('', 1);
    const doc = searcher.calls[0]?.[0];
    expect(doc?.docText).toBe('run ns desc desc cat apikey,oauth text json t1');
    expect(doc?.summary).toEqual({
      id: 'NS:Run',
      name: 'Run',
      namespace: 'NS',
      shortDescription: 'Desc',
      summary: 'Desc',
      category: 'Cat',
      inputModes: ['text'],
      outputModes: ['json'],
      securitySummary: 'apiKey,oauth',
      tags: ['t1'],
    });
  });

  it('the security summary falls back to securitySchemes keys, sorted, not deduplicated', () => {
    const index = createToolIndex();
    index.registerTool(tool('a', { _meta: { securitySchemes: { zeta: {}, alpha: {} } } }), local('a'));
    index.registerTool(tool('b', { _meta: { securityRequirements: [{ k: [] }, { k: [] }], securitySchemes: { x: {} } } }), local('b'));
    expect(index.search('a', 1)[0]?.securitySummary).toBe('alpha,zeta');
    expect(index.search('b', 1)[0]?.securitySummary).toBe('k,k');
  });

  it('a throwing or misbehaving searcher surfaces as a ToolexecError', () => {
    const index = createToolIndex({
      searcher: {
        search() {
          throw new Error('engine down');
        },
      },
    });
    const error = expectCode(() => index.search('x', 1), 'EXECUTION');
    expect(error.cause).toBeInstanceOf(Error);
    const junk = createToolIndex({ searcher: { search: () => 'nope' as unknown as ToolSummary[] } });
    expectCode(() => junk.search('x', 1), 'EXECUTION');
  });

  // Before the fix a revoked proxy or a throwing getter escaped raw, holes passed the check
  // (Array#some skips them) and a sparse answer of length 2^31 took ~50 s.
  it('a malformed searcher answer is EXECUTION: unreadable, holes, not summaries, fast', () => {
    const { proxy, revoke } = Proxy.revocable<ToolSummary[]>([], {});
    revoke();
    const huge: ToolSummary[] = [];
    huge.length = 2 ** 31;
    const answers: Record<string, unknown> = {
      'a revoked proxy': proxy,
      'a throwing id getter': [
        {
          name: 'a',
          get id(): never {
            throw new Error('id getter');
          },
        },
      ],
      'a hole': [, { id: 'a', name: 'a' }], // eslint-disable-line no-sparse-arrays
      'a sparse answer of length 2^31': huge,
      'a null entry': [null],
      'an entry without an id': [{ name: 'a' }],
    };
    for (const [label, answer] of Object.entries(answers)) {
      const index = createToolIndex({ searcher: { deterministic: true, search: () => answer as ToolSummary[] } });
      index.registerTool(tool('a'), local('a'));
      const error = expectCode(() => index.search('q', 5), 'EXECUTION');
      expect(error.message, label).toMatch(/^searcher failed: search\(\) (must return an array of summaries|answer could not be read)/);
      expectCode(() => index.searchPage('q', 5), 'EXECUTION');
    }
  }, 2_000);

  it('a searcher answer longer than asked is cut before it is read', () => {
    const answer: ToolSummary[] = [{ id: 'a', name: 'a' }];
    answer.length = 2 ** 31; // holes past what was asked are never looked at
    const index = createToolIndex({ searcher: { deterministic: true, search: () => answer } });
    index.registerTool(tool('a'), local('a'));
    expect(index.search('q', 1)).toEqual([{ id: 'a', name: 'a' }]);
    expect(index.searchPage('q', 5).items).toEqual([{ id: 'a', name: 'a' }]);
  }, 2_000);

  it('custom searcher results are copied and cut to the limit', () => {
    const searcher = recordingSearcher();
    const index = createToolIndex({ searcher: { search: (q, _l, docs) => searcher.search(q, 100, docs) } });
    for (const name of ['a', 'b', 'c']) index.registerTool(tool(name, { tags: ['x'] }), local(name));
    const results = index.search('', 2);
    expect(ids(results)).toEqual(['a', 'b']);
    results[0]!.tags!.push('junk');
    expect(index.search('', 1)[0]?.tags).toEqual(['x']);
  });
});

describe('full-text search (foundation §8 94–103)', () => {
  it('94: finds by name', () => {
    const index = createToolIndex();
    index.registerTool(tool('calculator', { namespace: 'math', description: 'Does arithmetic' }), local('c'));
    index.registerTool(tool('weather', { namespace: 'api', description: 'Forecasts' }), local('w'));
    expect(index.search('calculator', 10)[0]?.id).toBe('math:calculator');
  });

  it('95: finds by namespace', () => {
    const index = createToolIndex();
    index.registerTool(tool('add', { namespace: 'math' }), local('a'));
    index.registerTool(tool('sub', { namespace: 'math' }), local('s'));
    index.registerTool(tool('weather', { namespace: 'api' }), local('w'));
    expect(ids(index.search('math', 10))).toEqual(['math:add', 'math:sub']);
  });

  it('96: finds by description and by tags', () => {
    const index = createToolIndex();
    index.registerTool(tool('tool1', { description: 'Performs authentication' }), local('1'));
    index.registerTool(tool('tool2', { description: 'Sends emails', tags: ['security', 'auth'] }), local('2'));
    expect(index.search('authentication', 10)[0]?.id).toBe('tool1');
    expect(ids(index.search('security', 10))).toEqual(['tool2']);
  });

  it('97: is case-insensitive', () => {
    const index = createToolIndex();
    index.registerTool(tool('Calculator', { namespace: 'Math' }), local('c'));
    expect(ids(index.search('calculator', 10))).toEqual(['Math:Calculator']);
    expect(ids(index.search('CALCULATOR', 10))).toEqual(['Math:Calculator']);
    expect(ids(index.search('math', 10))).toEqual(['Math:Calculator']);
  });

  it('98: a name match outranks a description match', () => {
    const index = createToolIndex();
    index.registerTool(tool('mathhelper', { description: 'A calculator for math' }), local('m'));
    index.registerTool(tool('calculator', { description: 'Adds numbers' }), local('c'));
    expect(ids(index.search('calculator', 10))).toEqual(['calculator', 'mathhelper']);
  });

  it('99: prefix matching: add finds address, after add', () => {
    const index = createToolIndex();
    index.registerTool(tool('address', { namespace: 'ns' }), local('a'));
    index.registerTool(tool('add', { namespace: 'ns' }), local('b'));
    expect(ids(index.search('add', 10))).toEqual(['ns:add', 'ns:address']);
    expect(ids(index.search('addr', 10))).toEqual(['ns:address']);
  });

  it('100: empty query, no match, limit, and limit <= 0', () => {
    const index = createToolIndex();
    index.registerTool(tool('b'), local('b'));
    index.registerTool(tool('a'), local('a'));
    expect(ids(index.search('', 10))).toEqual(['a', 'b']);
    expect(ids(index.search('   \t\n', 10))).toEqual(['a', 'b']);
    expect(ids(index.search('', 1))).toEqual(['a']);
    expect(index.search('zzzzqqq', 10)).toEqual([]);
    const many = createToolIndex();
    for (let i = 0; i < 20; i++) many.registerTool(tool(`match${i}`, { description: 'matching tool' }), local(`m${i}`));
    expect(many.search('matching', 5)).toHaveLength(5);
    expect(many.search('matching', 0)).toEqual([]);
    expect(many.search('matching', -3)).toEqual([]);
    expect(many.search('matching', Number.NaN)).toEqual([]);
    expect(many.search('matching', Infinity)).toHaveLength(20);
    expect(many.search('matching', 2.9)).toHaveLength(2);
  });

  it('101: short descriptions are cut to 120 UTF-8 bytes without splitting a character', () => {
    const index = createToolIndex();
    index.registerTool(tool('long', { description: 'x'.repeat(200) }), local('l'));
    index.registerTool(tool('wide', { description: 'é'.repeat(100) }), local('w'));
    index.registerTool(tool('emoji', { description: '😀'.repeat(40) }), local('e'));
    const [long] = index.search('long', 1);
    expect(long?.shortDescription).toBe('x'.repeat(120));
    expect(long?.summary).toBe('x'.repeat(120));
    const [wide] = index.search('wide', 1);
    expect(wide?.shortDescription).toBe('é'.repeat(60));
    const [emoji] = index.search('emoji', 1);
    expect(emoji?.shortDescription).toBe('😀'.repeat(30));
    expect(utf8ByteLength(emoji?.shortDescription ?? '')).toBe(120);
  });

  it('the summary prefers _meta.summary over the description', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { description: 'long description', _meta: { summary: 'short' } }), local('t'));
    index.registerTool(tool('u', { description: 'desc', _meta: { summary: '' } }), local('u'));
    expect(index.search('t', 1)[0]?.summary).toBe('short');
    expect(index.search('u', 1)[0]?.summary).toBe('desc');
    expect(ids(index.search('short', 5))).toEqual(['t']);
  });

  it('102: summary tags are normalized, and normalized tags are searchable', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { tags: ['  UPPER CASE  ', 'with spaces'] }), local('t'));
    index.registerTool(tool('u', { tags: ['  TAG ONE  '] }), local('u'));
    expect(index.search('t', 1)[0]?.tags).toEqual(['upper-case', 'with-spaces']);
    expect(index.search('tag-one', 5)[0]?.id).toBe('u');
    expect(index.search('upper', 5)[0]?.id).toBe('t');
  });

  it('103: equal scores are ordered by ID', () => {
    const index = createToolIndex();
    index.registerTool(tool('beta', { namespace: 'ns1', description: 'shared text' }), local('b'));
    index.registerTool(tool('alpha', { namespace: 'ns1', description: 'shared text' }), local('a'));
    expect(ids(index.searchPage('shared', 10).items)).toEqual(['ns1:alpha', 'ns1:beta']);
  });
});

describe('ranking', () => {
  function catalog() {
    const index = createToolIndex();
    const add = (name: string, namespace: string, description: string, tags: string[] = []) =>
      index.registerTool(tool(name, { namespace, description, tags }), mcp(namespace));
    add('read', 'fs', 'Reads a file from disk');
    add('read_file', 'fs', 'Reads the content of a file; read read read');
    add('reader', 'rss', 'Feed reader that can read any feed');
    add('git-commit', 'vcs', 'Records changes to the repository', ['git']);
    add('git-push', 'vcs', 'Pushes commits to a remote', ['git']);
    add('docker-run', 'containers', 'Runs a container');
    add('snake_case_tool', 'misc', 'Converts identifiers');
    add('a.b', 'misc', 'Dotted name');
    add('readFile', 'camel', 'CamelCase name');
    add('send', 'mail', 'Sends a message', ['email', 'smtp']);
    return index;
  }

  it('an exact name match ranks first, even against heavier description matches', () => {
    const index = catalog();
    expect(index.search('read', 10)[0]?.id).toBe('fs:read');
    expect(index.search('READ', 10)[0]?.id).toBe('fs:read');
  });

  it('an exact ID match ranks first, then exact names', () => {
    const index = catalog();
    expect(index.search('fs:read_file', 10)[0]?.id).toBe('fs:read_file');
    expect(index.search('FS:READ', 10)[0]?.id).toBe('fs:read');
    const twins = createToolIndex();
    twins.registerTool(tool('open', { namespace: 'a', description: 'open open open' }), local('a'));
    twins.registerTool(tool('open', { namespace: 'b' }), local('b'));
    twins.registerTool(tool('open'), local('bare'));
    // `open` is the bare tool's ID and the others' name.
    expect(ids(twins.search('open', 10))).toEqual(['open', 'a:open', 'b:open']);
  });

  it('ID prefixes find tools', () => {
    const index = catalog();
    expect(index.search('fs:read_f', 5)[0]?.id).toBe('fs:read_file');
  });

  it('connector-joined words match in names and queries, in any form', () => {
    const index = catalog();
    expect(index.search('git-commit', 5)[0]?.id).toBe('vcs:git-commit');
    expect(index.search('git commit', 5)[0]?.id).toBe('vcs:git-commit');
    expect(index.search('commit', 5)[0]?.id).toBe('vcs:git-commit');
    expect(index.search('GIT_COMMIT', 5)[0]?.id).toBe('vcs:git-commit');
    expect(index.search('snake_case_tool', 5)[0]?.id).toBe('misc:snake_case_tool');
    expect(index.search('snake case', 5)[0]?.id).toBe('misc:snake_case_tool');
    expect(index.search('a.b', 5)[0]?.id).toBe('misc:a.b');
    expect(ids(index.search('docker', 5))).toEqual(['containers:docker-run']);
  });

  it('camelCase names are found whole and by their pieces', () => {
    const index = catalog();
    expect(index.search('readfile', 5)[0]?.id).toBe('camel:readFile');
    expect(ids(index.search('camelcase', 5))).toEqual(['camel:readFile']);
  });

  it('tags and namespaces are searchable', () => {
    const index = catalog();
    expect(ids(index.search('smtp', 5))).toEqual(['mail:send']);
    expect(ids(index.search('vcs', 5)).sort()).toEqual(['vcs:git-commit', 'vcs:git-push']);
  });

  it('two-word queries favour tools matching both words', () => {
    const index = catalog();
    expect(index.search('read file', 5)[0]?.id).toBe('fs:read_file');
    expect(index.search('push remote', 5)[0]?.id).toBe('vcs:git-push');
  });

  it('a typo finds the tool when nothing matches exactly', () => {
    const index = catalog();
    expect(index.search('containr', 5)[0]?.id).toBe('containers:docker-run');
    expect(index.search('kubernetes', 5)).toEqual([]);
  });

  it('identical tools tie and are ordered by ID, the same on every call', () => {
    const index = createToolIndex();
    for (const name of ['charlie', 'alpha', 'bravo']) {
      index.registerTool(tool(name, { namespace: 'x', description: 'git helper' }), local(name));
    }
    const first = ids(index.search('git', 10));
    expect(first).toEqual(['x:alpha', 'x:bravo', 'x:charlie']);
    for (let i = 0; i < 5; i++) expect(ids(index.search('git', 10))).toEqual(first);
    expect(ids(index.search('git', 2))).toEqual(['x:alpha', 'x:bravo']);
  });

  it('IDs that differ only in case are both exact matches, and stay so as they come and go', () => {
    const index = createToolIndex();
    index.registerTool(tool('Read', { description: 'read read read' }), local('a'));
    index.registerTool(tool('read'), local('b'));
    index.registerTool(tool('reader'), local('c'));
    expect(ids(index.search('read', 5))).toEqual(['Read', 'read', 'reader']);
    index.unregisterBackend('Read', 'local', 'a');
    expect(ids(index.search('READ', 5))).toEqual(['read', 'reader']);
    index.unregisterBackend('read', 'local', 'b');
    expect(ids(index.search('read', 5))).toEqual(['reader']);
  });

  it('exact matches rank first even when the tokenizer cannot see them', () => {
    const index = createToolIndex();
    index.registerTool(tool('---'), local('dash'));
    index.registerTool(tool('x', { namespace: '@@' }), local('x'));
    expect(ids(index.search('---', 5))).toEqual(['---']);
    expect(ids(index.search('@@:x', 5))[0]).toBe('@@:x');
  });

  it('stop words do not drown real terms; a stop-word-only query still looks for names', () => {
    const index = createToolIndex();
    index.registerTool(tool('the', { description: 'a tool named the' }), local('the'));
    index.registerTool(tool('other', { description: 'the other one is the best of the lot' }), local('o'));
    expect(ids(index.search('the', 5))).toEqual(['the']);
    expect(ids(index.search('the other', 5))[0]).toBe('other');
  });

  it('updates and removals keep the engine in step', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { tags: ['alpha'] }), mcp('a'));
    expect(ids(index.search('alpha', 5))).toEqual(['t']);
    index.registerTool(tool('t', { tags: ['beta'] }), mcp('b'));
    expect(index.search('alpha', 5)).toEqual([]);
    expect(ids(index.search('beta', 5))).toEqual(['t']);
    index.unregisterBackend('t', 'mcp', 'a');
    expect(ids(index.search('beta', 5))).toEqual(['t']);
    index.unregisterBackend('t', 'mcp', 'b');
    expect(index.search('beta', 5)).toEqual([]);
    index.registerTool(tool('t', { tags: ['gamma'] }), mcp('c'));
    expect(ids(index.search('gamma', 5))).toEqual(['t']);
  });

  it('a versioned tool is found by name and by its versioned ID', () => {
    const index = createToolIndex();
    index.registerTool(tool('t', { namespace: 'ns', version: '1.2.0' }), local('t'));
    expect(ids(index.search('t', 5))).toEqual(['ns:t:1.2.0']);
    expect(ids(index.search('ns:t:1.2.0', 5))).toEqual(['ns:t:1.2.0']);
  });
});

describe('text in other languages', () => {
  const index = createToolIndex();
  index.registerTool(tool('weather', { namespace: 'jp', description: '東京の天気を検索する' }), local('w'));
  index.registerTool(tool('translate', { namespace: 'zh', description: '把中文翻译成英文' }), local('t'));
  index.registerTool(tool('cv', { namespace: 'hr', description: 'Parse a résumé' }), local('c'));
  index.registerTool(tool('prevision', { namespace: 'fr', description: 'Prévisions météo', tags: ['Météo'] }), local('m'));

  it.each<[string, string[]]>([
    ['天気', ['jp:weather']],
    ['検索', ['jp:weather']],
    ['東京の天気を検索する', ['jp:weather']],
    ['翻译', ['zh:translate']],
    ['中文', ['zh:translate']],
  ])('finds a word inside text written without spaces: %s', (query, expected) => {
    expect(ids(index.search(query, 3))).toEqual(expected);
  });

  it.each<[string, string[]]>([
    ['resume', ['hr:cv']],
    ['résumé', ['hr:cv']],
    ['RESUMÉ', ['hr:cv']],
    ['meteo', ['fr:prevision']],
    ['previsions', ['fr:prevision']],
  ])('matches words with or without accents: %s', (query, expected) => {
    expect(ids(index.search(query, 3))).toEqual(expected);
  });
});

describe('queries that must never throw (foundation §8 117 as a general property)', () => {
  const index = createToolIndex();
  index.registerTool(tool('git-commit', { namespace: 'vcs', description: 'commit changes' }), local('g'));
  index.registerTool(tool('constructor', { namespace: '__proto__', description: 'hasOwnProperty toString' }), local('c'));

  const queries: [string, string][] = [
    ['plus', 'git+commit'],
    ['parentheses', '(git)'],
    ['wildcard', 'git*'],
    ['symbols', 'git@#$%^&'],
    ['regex syntax', '[a-z]+'],
    ['backslash', '\\'],
    ['quotes', '"quoted"'],
    ['boolean words', 'AND OR NOT'],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
    ['hasOwnProperty', 'hasOwnProperty'],
    ['NUL', '\u0000'],
    ['lone surrogate', '\uD800'],
    ['emoji', '😀 emoji'],
    ['colons only', ':::'],
    ['dash only', '-'],
    ['10,000-character word', 'a'.repeat(10_000)],
    ['5,000 words', 'word '.repeat(5_000)],
    ['5,000 distinct words', Array.from({ length: 5_000 }, (_, i) => `w${i}`).join(' ')],
  ];
  it.each(queries)('%s', (_label, query) => {
    expect(() => index.search(query, 10)).not.toThrow();
    expect(() => index.searchPage(query, 3)).not.toThrow();
  });

  it('special characters around a word still find it', () => {
    expect(index.search('git+commit', 5)[0]?.id).toBe('vcs:git-commit');
    expect(index.search('(git)', 5)[0]?.id).toBe('vcs:git-commit');
    expect(index.search('git*', 5)[0]?.id).toBe('vcs:git-commit');
    expect(index.search('constructor', 5)[0]?.id).toBe('__proto__:constructor');
  });

  it('a non-string query is INVALID_ARGUMENT', () => {
    expectCode(() => index.search(undefined as unknown as string, 5), 'INVALID_ARGUMENT');
    expectCode(() => index.searchPage(42 as unknown as string, 5), 'INVALID_ARGUMENT');
  });

  it('search results are plain summaries without schemas', () => {
    const [result] = index.search('git', 1);
    expect(Object.keys(result ?? {}).sort()).toEqual(['id', 'name', 'namespace', 'shortDescription', 'summary'].sort());
    expect((result as unknown as Tool).inputSchema).toBeUndefined();
  });
});
