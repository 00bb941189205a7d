/** @internal Forwards to core/failure.ts for the guest files until they import from core/ (remove after the merge). */
export * from './core/failure.js';
