import { describe, expect, it } from 'vitest';
import { mcpResultTexts, normalizeMcpResult, type CallToolResult } from '../../src/run/index.js';

const text = (t: string) => ({ type: 'text' as const, text: t });
const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };

describe('normalizeMcpResult (§2.2.6)', () => {
  it('case 62: structuredContent is returned unchanged', () => {
    const structuredContent = { result: 'success' };
    expect(normalizeMcpResult({ content: [], structuredContent })).toBe(structuredContent);
  });

  it('case 63: one text item holding JSON is parsed', () => {
    expect(normalizeMcpResult({ content: [text('{"parsed":"json"}')] })).toEqual({ parsed: 'json' });
  });

  it('case 64: one text item that is not JSON stays a string', () => {
    expect(normalizeMcpResult({ content: [text('plain text result')] })).toBe('plain text result');
  });

  it('case 65: several text items give an array of strings', () => {
    expect(normalizeMcpResult({ content: [text('line 1'), text('line 2')] })).toEqual(['line 1', 'line 2']);
  });

  it('case 66: an empty result gives undefined', () => {
    expect(normalizeMcpResult({ content: [] })).toBeUndefined();
  });

  it('case 68: structuredContent wins over text content', () => {
    expect(normalizeMcpResult({ content: [text('{"a":1}')], structuredContent: { b: 2 } })).toEqual({ b: 2 });
  });

  it('case 69: one text item "null" gives null', () => {
    expect(normalizeMcpResult({ content: [text('null')] })).toBeNull();
  });

  it('case 70: one text item "42" gives the number 42, "[1]" an array', () => {
    expect(normalizeMcpResult({ content: [text('42')] })).toBe(42);
    expect(normalizeMcpResult({ content: [text('[1]')] })).toEqual([1]);
  });

  it('case 71: [image, text JSON] takes the multi-item path: the text is not parsed', () => {
    expect(normalizeMcpResult({ content: [image, text('{"a":1}')] })).toBe('{"a":1}');
  });

  it('one item with empty text, or only non-text items, gives undefined', () => {
    expect(normalizeMcpResult({ content: [text('')] })).toBeUndefined();
    expect(normalizeMcpResult({ content: [image] })).toBeUndefined();
    expect(normalizeMcpResult({ content: [image, image] })).toBeUndefined();
  });

  it('resources carry no top-level text', () => {
    const resource = { type: 'resource' as const, resource: { uri: 'file:///a', text: 'inner' } };
    expect(normalizeMcpResult({ content: [resource] })).toBeUndefined();
  });

  it('null structuredContent falls back to content; a null or malformed result gives undefined', () => {
    expect(normalizeMcpResult({ content: [text('"s"')], structuredContent: null } as unknown as CallToolResult)).toBe('s');
    expect(normalizeMcpResult(null)).toBeUndefined();
    expect(normalizeMcpResult(undefined)).toBeUndefined();
    expect(normalizeMcpResult({ content: 'nope' } as unknown as CallToolResult)).toBeUndefined();
  });

  it('ignores isError (the runner handles it)', () => {
    expect(normalizeMcpResult({ content: [text('boom')], isError: true })).toBe('boom');
  });

  it('mcpResultTexts lists the non-empty texts', () => {
    expect(mcpResultTexts({ content: [image, text('a'), text(''), text('b')] })).toEqual(['a', 'b']);
    expect(mcpResultTexts(undefined)).toEqual([]);
  });
});
