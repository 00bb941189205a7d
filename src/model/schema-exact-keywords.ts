/**
 * Two keywords evaluated as JSON Schema defines them rather than as Ajv approximates them, in
 * every Ajv instance of the validator:
 *
 * - `multipleOf` on the numbers as written in decimal: "value / multipleOf is an integer" holds for
 *   `19.99` and `0.01`, which float division (`19.99 / 0.01 = 1998.9999999999998`) gets wrong (see
 *   docs/go-parity.md). A quotient beyond the float range is exact as well.
 * - `uniqueItems` in time linear in the array's size: each item's canonical JSON text (object keys
 *   sorted) goes into a map, where Ajv compares every pair of items (quadratic: 20,000 objects took
 *   seconds).
 *
 * Same keyword names, error parameters and messages as Ajv's own, so the violation builder reads
 * them unchanged.
 *
 * @internal
 * @module
 */
import { _, str, type CodeKeywordDefinition } from 'ajv';
import equalRuntime from 'ajv/dist/runtime/equal.js';

type Equal = (a: unknown, b: unknown) => boolean;
/**
 * Ajv's deep equality (fast-deep-equal), for arrays whose items have no canonical JSON text. A
 * CommonJS module: Node hands its `exports` as the default, a bundler may hand `exports.default`.
 */
const loadedEqual: unknown = equalRuntime;
const deepEqual = (typeof loadedEqual === 'function' ? loadedEqual : (loadedEqual as { default: unknown }).default) as Equal;

/** A finite number as `digits × 10^exponent`, read from its shortest decimal text. */
function decimalOf(value: number): { digits: bigint; exponent: number } {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/u.exec(String(value));
  if (match === null) throw new RangeError(`not a finite number: ${String(value)}`);
  const fraction = match[3] ?? '';
  return {
    digits: BigInt(`${match[1] ?? ''}${match[2] ?? '0'}${fraction}`),
    exponent: Number(match[4] ?? 0) - fraction.length,
  };
}

/**
 * Whether `value` is an integer multiple of `divisor` (> 0), on their decimal texts: exact for
 * every pair of finite numbers. Safe integers take one `%`.
 */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (Number.isSafeInteger(value) && Number.isSafeInteger(divisor)) return value % divisor === 0;
  if (!Number.isFinite(value) || !Number.isFinite(divisor)) return false;
  const x = decimalOf(value);
  const m = decimalOf(divisor);
  const shift = Math.min(x.exponent, m.exponent);
  const scaledValue = x.digits * 10n ** BigInt(x.exponent - shift);
  const scaledDivisor = m.digits * 10n ** BigInt(m.exponent - shift);
  return scaledValue % scaledDivisor === 0n;
}

/** Deepest nesting given a canonical text; deeper items are compared pairwise. */
const MAX_CANONICAL_DEPTH = 64;
/** Arrays up to this length are compared pairwise (cheaper than canonical texts when short). */
const PAIRWISE_MAX_ITEMS = 16;

/** Canonical JSON text of a JSON value (object keys sorted); `undefined` for anything else. */
function canonicalText(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value === 'boolean') return String(value);
  // -0 and 0 are the same number (String(-0) is "0")
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value !== 'object' || depth >= MAX_CANONICAL_DEPTH) return undefined;
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = canonicalText(item, depth + 1);
      if (text === undefined) return undefined;
      parts.push(text);
    }
    return `[${parts.join(',')}]`;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  for (const key of Object.keys(value).sort()) {
    const text = canonicalText((value as Record<string, unknown>)[key], depth + 1);
    if (text === undefined) return undefined;
    parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/** Two equal items of `items` as `[earlier, later]` indices; `undefined` when all differ. */
export function duplicateItems(items: readonly unknown[]): [number, number] | undefined {
  if (items.length > PAIRWISE_MAX_ITEMS) {
    const seen = new Map<string, number>();
    let canonical = true;
    for (let i = 0; i < items.length && canonical; i++) {
      const text = canonicalText(items[i], 0);
      if (text === undefined) canonical = false;
      else {
        const earlier = seen.get(text);
        if (earlier !== undefined) return [earlier, i];
        seen.set(text, i);
      }
    }
    if (canonical) return undefined;
  }
  for (let i = 1; i < items.length; i++) {
    for (let j = 0; j < i; j++) if (deepEqual(items[j], items[i])) return [j, i];
  }
  return undefined;
}

/** `multipleOf`, exact ({@link isMultipleOf}). */
export const exactMultipleOf: CodeKeywordDefinition = {
  keyword: 'multipleOf',
  type: 'number',
  schemaType: 'number',
  error: {
    message: ({ schemaCode }) => str`must be multiple of ${schemaCode}`,
    params: ({ schemaCode }) => _`{multipleOf: ${schemaCode}}`,
  },
  code(cxt) {
    const check = cxt.gen.scopeValue('func', { ref: isMultipleOf });
    cxt.fail(_`!${check}(${cxt.data}, ${cxt.schemaCode})`);
  },
};

/** `uniqueItems`, in linear time ({@link duplicateItems}). */
export const linearUniqueItems: CodeKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  error: {
    message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
  },
  code(cxt) {
    if (cxt.schema !== true) return;
    const { gen } = cxt;
    const find = gen.scopeValue('func', { ref: duplicateItems });
    const pair = gen.const('pair', _`${find}(${cxt.data})`);
    cxt.setParams({ i: _`${pair}[1]`, j: _`${pair}[0]` });
    cxt.fail(_`${pair} !== undefined`);
  },
};
