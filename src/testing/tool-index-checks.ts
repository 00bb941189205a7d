/**
 * What the tool index contract's tests share: the index under test made fresh for each test, its
 * methods called with failures that name the call, and the tools the tests register.
 */
import { expect } from 'vitest';
import type { ToolIndex } from '../discovery/index.js';
import type { ErrorCode, Tool } from '../model/index.js';
import { callLabel, expectThrows, returned, show, type Failure } from './contract-checks.js';

/** Makes the index under test: a new, empty one on every call. */
export type IndexFactory = () => ToolIndex | Promise<ToolIndex>;

type Method = Exclude<keyof ToolIndex, 'version'>;

/** `index.method(...args)`, its result; fails naming the call when it throws. */
export function indexCall<M extends Method>(index: ToolIndex, method: M, ...args: Parameters<ToolIndex[M]>): ReturnType<ToolIndex[M]> {
  const fn = index[method] as (...given: unknown[]) => ReturnType<ToolIndex[M]>;
  return returned(callLabel('index', method, args), () => fn.apply(index, args));
}

/** `index.method(...args)`, which must throw `code`; its error, or a failure naming the call. */
export function indexRefuses<M extends Method>(index: ToolIndex, method: M, args: Parameters<ToolIndex[M]>, code: ErrorCode): Failure {
  const fn = index[method] as (...given: unknown[]) => unknown;
  return expectThrows(callLabel('index', method, args), () => fn.apply(index, args), code);
}

/** A new index from `factory`, checked to be one (an object with a numeric `version`). */
export async function freshIndex(factory: IndexFactory): Promise<ToolIndex> {
  const index = await factory();
  expect(typeof index === 'object' && index !== null, `the factory must return a ToolIndex, got ${show(index)}`).toBe(true);
  expect(typeof index.version, `index.version must be a number, got ${show(index.version)}`).toBe('number');
  return index;
}

/** A tool of the contract: `namespace:name` (or the bare name), an object input schema, a description. */
export function indexTool(namespace: string | undefined, name: string, description = `Runs ${name}`): Tool {
  const tool: Tool = { name, description, inputSchema: { type: 'object', properties: { value: { type: 'number' } } } };
  if (namespace !== undefined) tool.namespace = namespace;
  return tool;
}

/** The IDs of what a search returned, for comparisons. */
export function idsOf(summaries: readonly { id: string }[]): string[] {
  expect(Array.isArray(summaries), `a search must return an array, got ${show(summaries)}`).toBe(true);
  return summaries.map((summary) => summary.id);
}
