import type { ChainResult } from '../../run/index.js';

/**
 * What a gateway returns for an empty chain without running anything: the runner's answer for
 * one (`{ result: undefined, steps: [] }`; `result` is absent only for an empty chain).
 */
export function emptyChainResult(): ChainResult {
  return { result: undefined, steps: [] };
}
