import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolexecError } from '../../src/model/index.js';
import { MAX_TOOL_NAME_CHARS, PROVIDER_TOOL_NAME, decodeToolName, encodeToolName, isShortenedToolName } from '../../src/agent/index.js';

/** The providers' published name rules. */
const OPENAI_ANTHROPIC = /^[a-zA-Z0-9_-]{1,64}$/u;
const GEMINI = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/u;
const MCP = /^[A-Za-z0-9_.-]{1,128}$/u;

/** IDs as the index makes them, plus arbitrary strings. */
const idPart = fc.stringMatching(/^[A-Za-z0-9_.-]{1,20}$/u);
const semver = fc.tuple(fc.nat(99), fc.nat(99), fc.nat(99)).map(([a, b, c]) => `${a}.${b}.${c}`);
const ids = fc.oneof(
  idPart,
  fc.tuple(idPart, idPart).map(([ns, name]) => `${ns}:${name}`),
  fc.tuple(idPart, idPart, semver).map(([ns, name, version]) => `${ns}:${name}:${version}`),
  fc.string({ minLength: 1, maxLength: 80, unit: 'binary' }),
);

describe('encodeToolName / decodeToolName', () => {
  it('keeps common IDs readable', () => {
    expect(encodeToolName('fs:read_text_file')).toBe('fs--read_text_file');
    expect(encodeToolName('math:add:1.0.0')).toBe('math--add--1-d0-d0');
    expect(encodeToolName('search_tools')).toBe('search_tools');
    expect(encodeToolName('github:create-issue')).toBe('github--create-_issue');
    expect(encodeToolName('3d:render')).toBe('_3d--render');
  });

  it('produces names legal for every provider', () => {
    fc.assert(
      fc.property(ids, (id) => {
        const name = encodeToolName(id);
        expect(name).toMatch(OPENAI_ANTHROPIC);
        expect(name).toMatch(GEMINI);
        expect(name).toMatch(MCP);
        expect(name).toMatch(PROVIDER_TOOL_NAME);
        expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_CHARS);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips every ID whose name is not shortened', () => {
    fc.assert(
      fc.property(ids, (id) => {
        const name = encodeToolName(id);
        if (isShortenedToolName(name)) expect(() => decodeToolName(name)).toThrow(/shortened name/u);
        else expect(decodeToolName(name)).toBe(id);
      }),
      { numRuns: 2000 },
    );
  });

  it('never gives two IDs the same name', () => {
    fc.assert(
      fc.property(ids, ids, (a, b) => {
        fc.pre(a !== b);
        expect(encodeToolName(a)).not.toBe(encodeToolName(b));
      }),
      { numRuns: 3000 },
    );
    // IDs that differ only in the characters the encoding escapes, or in their long tails
    const tricky = ['a:b', 'a--b', 'a-b', 'a_b', 'a.b', 'a-_b', '_a', 'a', 'A', '1', '_1', `${'x'.repeat(60)}:1`, `${'x'.repeat(60)}:2`];
    const names = tricky.map(encodeToolName);
    expect(new Set(names).size).toBe(tricky.length);
  });

  it('shortens long IDs with a stable hash suffix and keeps a readable start', () => {
    const id = `acme-enterprise-resource-planning:${'generate_quarterly_financial_report'}:12.4.1`;
    const name = encodeToolName(id);
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name.startsWith('acme-_enterprise-_resource-_planning--generate_quart')).toBe(true);
    expect(name).toMatch(/-z[a-z2-7]{10}$/u);
    expect(encodeToolName(id)).toBe(name);
    expect(isShortenedToolName(name)).toBe(true);
    expect(isShortenedToolName('fs--read_text_file')).toBe(false);
  });

  it('refuses names no ID encodes to, and empty IDs, with INVALID_ARGUMENT', () => {
    for (const name of ['', 'fs:read', 'a-', 'a-q', '_abc', 'a-x4', 'a-x3a', '9lives', 'x'.repeat(65)]) {
      const err = (() => {
        try {
          decodeToolName(name);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(ToolexecError.isInstance(err), name).toBe(true);
      expect((err as ToolexecError).code).toBe('INVALID_ARGUMENT');
    }
    expect(() => encodeToolName('')).toThrow(/tool ID must be a non-empty string/u);
  });
});
