/**
 * Read-only views of an in-memory index's lookup tables, for "did you mean" suggestions
 * (suggest.ts): what the public interface can only give by copying every summary.
 *
 * @internal
 * @module
 */

/**
 * The lookups of one in-memory index.
 *
 * @internal
 */
export interface IndexLookups {
  /** Every tool ID in code-point order (the index's own cached list: do not modify). */
  ids(): readonly string[];
  /** The IDs of the tools in `namespace` (exactly), in code-point order, at most `max`. */
  idsInNamespace(namespace: string, max: number): string[];
  /** The IDs of the tools whose lowercased name is `lowerName`. */
  idsNamed(lowerName: string): readonly string[];
}

/** Each in-memory index's lookups, set by the index when it is made. */
export const lookupsByIndex = new WeakMap<object, IndexLookups>();

/**
 * The lookups of an index made by `createToolIndex`; `undefined` for any other `ToolIndex`.
 *
 * @internal
 */
export function indexLookups(index: unknown): IndexLookups | undefined {
  return index !== null && typeof index === 'object' ? lookupsByIndex.get(index) : undefined;
}
