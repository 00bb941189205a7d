/** @internal Forwards to core/errors.ts for the guest files until they import from core/ (remove after the merge). */
export * from './core/errors.js';
