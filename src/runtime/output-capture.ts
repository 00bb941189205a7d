/** @internal Forwards to core/output-capture.ts for the guest files until they import from core/ (remove after the merge). */
export * from './core/output-capture.js';
