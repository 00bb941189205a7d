import { describe, expect, it } from 'vitest';
import { formatValue } from '../../../src/runtime/guest/shared/console-format.js';
import { formatLine } from '../../../src/runtime/guest/shared/console.js';

describe('console formatting', () => {
  it('shows strings as they are and JSON values as compact JSON', () => {
    expect(formatValue('plain text')).toBe('plain text');
    expect(formatValue({ a: 1, b: [true, null, 'x'] })).toBe('{"a":1,"b":[true,null,"x"]}');
    expect(formatLine(['total', 3, { ok: true }])).toBe('total 3 {"ok":true}\n');
  });

  it('shows the values JSON cannot say instead of null or {}', () => {
    expect(formatValue(Number.NaN)).toBe('NaN');
    expect(formatValue({ x: Number.NaN, y: -Infinity, z: -0 })).toBe('{"x":NaN,"y":-Infinity,"z":-0}');
    expect(formatValue(12n)).toBe('12n');
    expect(formatValue([undefined, 1])).toBe('[undefined,1]');
    expect(formatValue({ u: undefined })).toBe('{"u":undefined}');
    expect(formatValue(function named() {})).toBe('[Function: named]');
    expect(formatValue(Symbol('s'))).toBe('Symbol(s)');
    expect(
      formatValue(
        new Map<unknown, unknown>([
          ['a', 1],
          [2, { b: Number.NaN }],
        ]),
      ),
    ).toBe('Map(2) {"a" => 1, 2 => {"b":NaN}}');
    expect(formatValue(new Set([1, 'two']))).toBe('Set(2) {1, "two"}');
    expect(formatValue(new TypeError('bad input'))).toBe('TypeError: bad input');
    expect(formatValue({ error: new RangeError('too far') })).toBe('{"error":RangeError: too far}');
    expect(formatValue({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  it('stays bounded: cycles, deep nesting and long collections', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(formatValue(cyclic)).toBe('{"name":"loop","self":[Circular]}');
    const shared = { n: 1 };
    expect(formatValue([shared, shared])).toBe('[{"n":1},{"n":1}]');
    let deep: unknown = 'bottom';
    for (let i = 0; i < 10; i += 1) deep = { d: deep };
    expect(formatValue(deep)).toBe('{"d":{"d":{"d":{"d":{"d":{"d":[Object]}}}}}}');
    const long = formatValue(Array.from({ length: 250 }, (_, i) => i));
    expect(long.endsWith(',99,... 150 more]')).toBe(true);
  });

  it('never throws for hostile values', () => {
    const throwing = {
      get boom(): never {
        throw new Error('getter');
      },
    };
    expect(formatValue(throwing)).toBe('[object Object]');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(formatValue(proxy)).toBe('[object]');
    expect(formatValue(Object.create(null))).toBe('{}');
  });
});
