import { describe, expect, it } from 'vitest';
import { compareCodePoints } from '../../src/discovery/index.js';
import { idLikeWords, tokenize } from '../../src/discovery/tokenize.js';
import { queryTerms } from '../../src/discovery/text-engine.js';

describe('tokenize', () => {
  it.each<[string, string[]]>([
    ['git-commit', ['git', 'commit']],
    ['snake_case', ['snake', 'case']],
    ['a.b', ['a', 'b']],
    ['fs:read_file', ['fs', 'read', 'file']],
    ['Reads a file.', ['Reads', 'a', 'file']],
    ['readFile', ['readFile', 'read', 'File']],
    ['HTTPServer', ['HTTPServer', 'HTTP', 'Server']],
    ['get_userName', ['get', 'userName', 'user', 'Name']],
    ['ÉtatCivil', ['ÉtatCivil', 'État', 'Civil']],
    ['--edge--', ['edge']],
    ['version 1.0.0', ['version', '1', '0', '0']],
    ['(git) git* git+commit', ['git', 'git', 'git', 'commit']],
    ['naïve café', ['naïve', 'café']],
    ['', []],
    ['@#$%', []],
  ])('%j', (text, tokens) => {
    expect(tokenize(text)).toEqual(tokens);
  });

  it('finds ID-like words', () => {
    expect(idLikeWords('run fs:read_file and ns:t:1.0.0, not :x')).toEqual(['fs:read_file', 'ns:t:1.0.0']);
  });

  it('query terms: lowercased, deduplicated, stop words dropped unless nothing else is left', () => {
    expect(queryTerms('Read the FILE read')).toEqual({ words: ['read', 'file'], ids: [] });
    expect(queryTerms('the')).toEqual({ words: ['the'], ids: [] });
    expect(queryTerms('fs:Read')).toEqual({ words: ['fs', 'read'], ids: ['fs:read'] });
    const many = queryTerms(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '));
    expect(many.words).toHaveLength(32);
  });
});

describe('compareCodePoints', () => {
  it('orders by code point, unlike the default UTF-16 sort', () => {
    const astral = '\u{1F600}';
    const bmpHigh = '\uFF5E';
    expect(compareCodePoints(astral, bmpHigh)).toBeGreaterThan(0);
    expect(compareCodePoints('a', 'b')).toBeLessThan(0);
    expect(compareCodePoints('ab', 'a')).toBeGreaterThan(0);
    expect(compareCodePoints('same', 'same')).toBe(0);
    expect(['b', astral, 'a', bmpHigh, ''].sort(compareCodePoints)).toEqual(['', 'a', 'b', bmpHigh, astral]);
  });
});
