import { describe, expect, it } from 'vitest';
import { compareCodePoints } from '../../src/discovery/index.js';
import { COMPOUND_MARK, idLikeWords, normalizeTerm, tokenize } from '../../src/discovery/tokenize.js';
import { queryTerms } from '../../src/discovery/text-engine.js';

describe('tokenize', () => {
  it.each<[string, string[]]>([
    ['git-commit', ['gitcommit', 'git', 'commit']],
    ['snake_case', ['snakecase', 'snake', 'case']],
    ['a.b', ['ab', 'a', 'b']],
    ['fs:read_file', ['fs', 'readfile', 'read', 'file']],
    ['Reads a file.', ['Reads', 'a', 'file']],
    ['readFile', ['readFile', 'read', 'File']],
    ['HTTPServer', ['HTTPServer', 'HTTP', 'Server']],
    ['get_userName', ['getuserName', 'get', 'user', 'Name']],
    ['s3Bucket s3_bucket', ['s3Bucket', 's3', 'Bucket', 's3bucket', 's3', 'bucket']],
    ['ns:t:1.0.0 v1.0', ['ns', 't', '1', '0', '0', 'v10', 'v1', '0']],
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

  it('gives a compound word the same tokens in every spelling: camelCase, snake_case, kebab-case, dotted', () => {
    const spellings = [
      'getWeather',
      'GetWeather',
      'get_weather',
      'GET_WEATHER',
      'get-weather',
      'get.weather',
      'get__weather',
      'get_Weather',
    ];
    for (const spelling of spellings) {
      expect(tokenize(spelling).map(normalizeTerm), spelling).toEqual(['getweather', 'get', 'weather']);
    }
  });

  it('marks compound wholes for indexing, and only them', () => {
    expect(tokenize('getWeather get_weather fs:read plain 1.0', true)).toEqual([
      `${COMPOUND_MARK}getWeather`,
      'get',
      'Weather',
      `${COMPOUND_MARK}getweather`,
      'get',
      'weather',
      'fs',
      'read',
      'plain',
      '1',
      '0',
    ]);
  });

  it('indexes a compound of three or more words with its pairs of neighbouring words, marked, the same in every spelling', () => {
    const spellings = [
      'getUserName',
      'GetUserName',
      'get_userName',
      'get_user_name',
      'GET_USER_NAME',
      'get-user-name',
      'get.user.name',
      'getUser_name',
    ];
    for (const spelling of spellings) {
      expect(tokenize(spelling, true).map(normalizeTerm), spelling).toEqual([
        `${COMPOUND_MARK}getusername`,
        'get',
        'user',
        'name',
        `${COMPOUND_MARK}getuser`,
        `${COMPOUND_MARK}username`,
      ]);
      // Queries keep their terms: no pairs.
      expect(tokenize(spelling).map(normalizeTerm), spelling).toEqual(['getusername', 'get', 'user', 'name']);
    }
  });

  it('pairs: none for two words, none without a letter, kept with stop words, none beside a script without spaces', () => {
    const pairs = (text: string) =>
      tokenize(text, true)
        .filter((token) => token.startsWith(COMPOUND_MARK))
        .slice(1);
    expect(pairs('get_weather')).toEqual([]);
    expect(pairs('list_user_repos_by_org')).toEqual(['listuser', 'userrepos', 'reposby', 'byorg'].map((pair) => COMPOUND_MARK + pair));
    expect(pairs('log_in_user')).toEqual([`${COMPOUND_MARK}login`, `${COMPOUND_MARK}inuser`]);
    expect(pairs('v1_2_3')).toEqual([`${COMPOUND_MARK}v12`]);
    expect(tokenize('1_2_3', true)).toEqual(['1', '2', '3']);
    expect(tokenize('天気_get_user_name', true)).toEqual([`${COMPOUND_MARK}天気getusername`, '天気', 'get', 'user', 'name']);
  });

  it('splits scripts written without spaces into words (Intl.Segmenter)', () => {
    expect(tokenize('東京の天気を検索する')).toEqual(['東京', 'の', '天気', 'を', '検索', 'する']);
    expect(tokenize('把中文翻译成英文')).toEqual(['把', '中文', '翻译', '成', '英文']);
    expect(tokenize('ภาษาไทยง่าย')).toEqual(['ภาษา', 'ไทย', 'ง่าย']);
    // Mixed with connectors and Latin words; punctuation segments are dropped.
    expect(tokenize('jp:天気予報、getWeather')).toEqual(['jp', '天気', '予報', 'getWeather', 'get', 'Weather']);
    // Scripts with spaces are left as they were.
    expect(tokenize('한국어 검색 Ελληνικά')).toEqual(['한국어', '검색', 'Ελληνικά']);
  });

  it('normalizes terms: lowercased, accents removed, other scripts kept', () => {
    expect(normalizeTerm('Résumé')).toBe('resume');
    expect(normalizeTerm('NAÏVE')).toBe('naive');
    expect(normalizeTerm('Ελληνικά')).toBe('ελληνικα');
    expect(normalizeTerm('天気')).toBe('天気');
    expect(normalizeTerm('한국어')).toBe('한국어');
    expect(normalizeTerm('plain')).toBe('plain');
  });

  it('finds ID-like words', () => {
    expect(idLikeWords('run fs:read_file and ns:t:1.0.0, not :x')).toEqual(['fs:read_file', 'ns:t:1.0.0']);
  });

  it('query terms: lowercased, deduplicated, stop words dropped unless nothing else is left', () => {
    expect(queryTerms('Read the FILE read')).toEqual({ words: ['read', 'file'], ids: [] });
    expect(queryTerms('the')).toEqual({ words: ['the'], ids: [] });
    expect(queryTerms('fs:Read')).toEqual({ words: ['fs', 'read'], ids: ['fs:read'] });
    expect(queryTerms('Résumé café:crème')).toEqual({ words: ['resume', 'cafe', 'creme'], ids: ['cafe:creme'] });
    expect(queryTerms('天気を検索')).toEqual({ words: ['天気', 'を', '検索'], ids: [] });
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
