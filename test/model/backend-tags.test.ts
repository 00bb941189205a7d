import { describe, expect, it } from 'vitest';
import {
  BACKEND_KINDS,
  MAX_TAGS,
  MAX_TAG_LENGTH,
  ToolexecError,
  backendIdentity,
  describeBackend,
  localBackend,
  mcpBackend,
  normalizeTags,
  providerBackend,
  validateBackend,
  type ToolBackend,
} from '../../src/model/index.js';

function invalid(backend: unknown): string {
  try {
    validateBackend(backend as ToolBackend);
  } catch (err) {
    expect(ToolexecError.isInstance(err)).toBe(true);
    expect((err as ToolexecError).code).toBe('INVALID_BACKEND');
    return (err as ToolexecError).message;
  }
  throw new Error('expected INVALID_BACKEND');
}

describe('backends (foundation §8, cases 20–24)', () => {
  it('20: the kinds, in selection priority', () => {
    expect(BACKEND_KINDS).toEqual(['local', 'provider', 'mcp']);
  });

  it('21: constructors set the kind and its sub-object, and validate', () => {
    expect(mcpBackend('my-server')).toEqual({ kind: 'mcp', mcp: { serverName: 'my-server' } });
    expect(localBackend('my-handler')).toEqual({ kind: 'local', local: { name: 'my-handler' } });
    expect(providerBackend('openai', 'gpt-4-tool')).toEqual({ kind: 'provider', provider: { providerId: 'openai', toolId: 'gpt-4-tool' } });
    for (const backend of [mcpBackend('my-server'), localBackend('my-handler'), providerBackend('openai', 'gpt-4-tool')]) {
      expect(() => validateBackend(backend)).not.toThrow();
    }
  });

  it('22: incomplete backends', () => {
    expect(invalid({ kind: 'mcp', mcp: { serverName: '' } })).toBe('invalid backend: MCP backend requires ServerName');
    expect(invalid({ kind: 'mcp' })).toBe('invalid backend: MCP backend requires ServerName');
    expect(invalid({ kind: 'provider' })).toBe('invalid backend: Provider backend requires Provider details');
    expect(invalid({ kind: 'provider', provider: { toolId: 't' } })).toBe('invalid backend: Provider backend requires ProviderID');
    expect(invalid({ kind: 'provider', provider: { providerId: 'p' } })).toBe('invalid backend: Provider backend requires ToolID');
    expect(invalid({ kind: 'local', local: { name: '' } })).toBe('invalid backend: Local backend requires Name');
  });

  it('23: unknown kinds are quoted', () => {
    expect(invalid({ kind: 'unknown' })).toBe('invalid backend: unknown backend kind "unknown"');
    expect(invalid({})).toBe('invalid backend: unknown backend kind ""');
    expect(invalid({ kind: Object.create(null) })).toBe('invalid backend: unknown backend kind "[object Object]"');
    expect(invalid(null)).toBe('invalid backend: backend must be an object');
  });

  it('24: JSON form', () => {
    expect(JSON.stringify(providerBackend('p', 't'))).toBe('{"kind":"provider","provider":{"providerId":"p","toolId":"t"}}');
  });

  it('identity and labels', () => {
    expect(backendIdentity(providerBackend('a:b', 'c'))).not.toBe(backendIdentity(providerBackend('a', 'b:c')));
    expect(describeBackend(localBackend('echo'))).toBe('local:echo');
    expect(describeBackend(providerBackend('p', 't'))).toBe('provider:p/t');
    expect(describeBackend(mcpBackend('srv'))).toBe('mcp:srv');
  });
});

describe('normalizeTags (foundation §8, cases 25–34)', () => {
  it('25: lowercase, trim, whitespace to "-", dedupe', () => {
    expect(normalizeTags(['  Foo ', 'foo', 'Bar Baz', 'bar-baz', 'A_B', 'A.B'])).toEqual(['foo', 'bar-baz', 'a_b', 'a.b']);
  });

  it('26: empties and punctuation', () => {
    expect(normalizeTags(['', '   ', '###', 'ok!', 'good_tag'])).toEqual(['ok', 'good_tag']);
  });

  it('27: cut to 64 characters', () => {
    expect(normalizeTags(['a'.repeat(100)])).toEqual(['a'.repeat(MAX_TAG_LENGTH)]);
  });

  it('28: at most 20 tags, the first ones', () => {
    const tags = Array.from({ length: 25 }, (_, i) => `tag${i}`);
    expect(normalizeTags(tags)).toEqual(tags.slice(0, MAX_TAGS));
  });

  it('29: skipped entries do not count', () => {
    expect(normalizeTags(['tag1', ...Array<string>(25).fill('')])).toEqual(['tag1']);
  });

  it('30: the Go example', () => {
    expect(normalizeTags(['  Machine Learning  ', 'AI', 'machine-learning', 'Data Science!'])).toEqual([
      'machine-learning',
      'ai',
      'data-science',
    ]);
  });

  it('31: never null', () => {
    expect(normalizeTags(['@#$%^&*()'])).toEqual([]);
    expect(normalizeTags(['   ', '\t\n'])).toEqual([]);
    expect(normalizeTags([])).toEqual([]);
    expect(normalizeTags(undefined)).toEqual([]);
  });

  it('32: hyphen runs kept, non-ASCII dropped', () => {
    expect(normalizeTags(['a - b', 'x\ty\nz', 'Café'])).toEqual(['a---b', 'x-y-z', 'caf']);
    // Go's whitespace set: U+0085 and U+00A0 separate words.
    expect(normalizeTags(['a\u0085b', 'c\u00a0d'])).toEqual(['a-b', 'c-d']);
  });

  it('33: duplicates are found after cutting', () => {
    const prefix = 'p'.repeat(64);
    expect(normalizeTags([`${prefix}xxxxxx`, `${prefix}yyyyyy`])).toEqual([prefix]);
  });

  it('34: duplicates do not use up the 20 slots', () => {
    const distinct = Array.from({ length: 21 }, (_, i) => `t${i}`);
    const tags = [distinct[0] as string, distinct[0] as string, ...distinct.slice(1)];
    expect(tags).toHaveLength(22);
    expect(normalizeTags(tags)).toEqual(distinct.slice(0, 20));
  });

  it('skips entries that are not strings', () => {
    expect(normalizeTags(['a', 1, null, 'b'] as unknown as string[])).toEqual(['a', 'b']);
  });
});
