/** @internal Forwards to core/types.ts for the guest files until they import from core/ (remove after the merge). */
export type * from './core/types.js';
