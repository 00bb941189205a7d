/**
 * Walks an object graph: every object reachable from a root through `links`, each once (cycles
 * and shared references are fine), depth first, without recursion (so depth is not bounded by the
 * call stack).
 *
 * @internal
 * @module
 */

/**
 * Yields `root` (when it is an object) and every object reachable from it through `links`, once
 * each. `links(object)` is read after the object was yielded, so a consumer may change it first.
 */
export function* reachableObjects(root: unknown, links: (object: object) => Iterable<unknown>): Generator<object, void, undefined> {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const current = stack.pop();
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    yield current;
    for (const next of links(current)) stack.push(next);
  }
}
