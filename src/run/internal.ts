/**
 * What the run layer shares with the layers above it but not with users: imported by other
 * layers as `../run/internal.js`, never listed in package.json `exports`.
 *
 * @internal
 * @module
 */
export { walkChain, type ChainVisitor, type ChainWalk } from './chain.js';
export { stepArgs } from './chain-args.js';
export { withProgressEvents } from './progress.js';
