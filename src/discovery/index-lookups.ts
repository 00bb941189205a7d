/**
 * The in-memory index's lookup tables: the namespaces and their tool counts, tool IDs by
 * lowercased ID and by lowercased name, and the sorted ID list. Suggestions (suggest.ts) read them
 * through a read-only view ({@link IndexLookups}): what the public interface can only give by
 * copying every summary.
 *
 * @internal
 * @module
 */
import type { Tool } from '../model/index.js';
import { compareCodePoints } from './compare.js';
import { addToMultiMap, multiMapValues, removeFromMultiMap, type MultiMap } from './multi-map.js';

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

/**
 * The lookup tables of one in-memory index, kept in step with its registrations; the sorted lists
 * are built on first use after a change.
 *
 * @internal
 */
export class ToolLookups implements IndexLookups {
  /** Tools per namespace (`''`: no namespace). */
  readonly #namespaces = new Map<string, number>();
  readonly #byLowerId: MultiMap = new Map();
  readonly #byLowerName: MultiMap = new Map();
  readonly #tools: ReadonlyMap<string, { readonly tool: Tool }>;
  #sortedIds: string[] | undefined;
  #namespaceList: string[] | undefined;

  /** @param tools - the index's registered tools by ID (read, never changed here). */
  constructor(tools: ReadonlyMap<string, { readonly tool: Tool }>) {
    this.#tools = tools;
  }

  /** Adds a newly registered tool (its name and namespace never change while it is registered). */
  add(id: string, tool: Tool): void {
    const namespace = tool.namespace ?? '';
    const count = this.#namespaces.get(namespace) ?? 0;
    this.#namespaces.set(namespace, count + 1);
    if (count === 0) this.#namespaceList = undefined;
    addToMultiMap(this.#byLowerId, id.toLowerCase(), id);
    addToMultiMap(this.#byLowerName, tool.name.toLowerCase(), id);
    this.#sortedIds = undefined;
  }

  /** Removes a tool that is no longer registered. */
  remove(id: string, tool: Tool): void {
    const namespace = tool.namespace ?? '';
    const count = this.#namespaces.get(namespace) ?? 0;
    if (count <= 1) {
      this.#namespaces.delete(namespace);
      this.#namespaceList = undefined;
    } else this.#namespaces.set(namespace, count - 1);
    removeFromMultiMap(this.#byLowerId, id.toLowerCase(), id);
    removeFromMultiMap(this.#byLowerName, tool.name.toLowerCase(), id);
    this.#sortedIds = undefined;
  }

  ids(): readonly string[] {
    this.#sortedIds ??= [...this.#tools.keys()].sort(compareCodePoints);
    return this.#sortedIds;
  }

  /** The namespaces in code-point order (a cached list: do not modify). */
  namespaces(): readonly string[] {
    this.#namespaceList ??= [...this.#namespaces.keys()].sort(compareCodePoints);
    return this.#namespaceList;
  }

  /** The IDs of the tools whose lowercased ID is `lowerId`; `undefined` when none. */
  idsWithLowerId(lowerId: string): readonly string[] | undefined {
    return multiMapValues(this.#byLowerId, lowerId);
  }

  /** The IDs of the tools whose lowercased name is `lowerName`; `undefined` when none. */
  idsWithLowerName(lowerName: string): readonly string[] | undefined {
    return multiMapValues(this.#byLowerName, lowerName);
  }

  idsNamed(lowerName: string): readonly string[] {
    return this.idsWithLowerName(lowerName) ?? [];
  }

  /** The IDs starting with `namespace:` form one run of the sorted list: found by binary search. */
  idsInNamespace(namespace: string, max: number): string[] {
    if (!this.#namespaces.has(namespace)) return [];
    const sorted = this.ids();
    const prefix = `${namespace}:`;
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareCodePoints(sorted[middle] as string, prefix) < 0) low = middle + 1;
      else high = middle;
    }
    const out: string[] = [];
    for (let i = low; i < sorted.length && out.length < max; i++) {
      const id = sorted[i] as string;
      if (!id.startsWith(prefix)) break;
      if (this.#tools.get(id)?.tool.namespace === namespace) out.push(id);
    }
    return out;
  }
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
