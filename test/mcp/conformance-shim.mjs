// Loaded with `node --import` before the MCP conformance suite's CLI on Node 20: its bundle imports
// `globSync` from `fs`, which Node added in 22 (only its `tier-check` command calls it). Give that
// one module an `fs` with the missing export; everything else resolves as usual.
import { register } from 'node:module';

const hooks = `
const SHIM = 'toolexec-conformance-shim:fs';
export async function resolve(specifier, context, next) {
  const fromSuite = context.parentURL !== undefined && context.parentURL.includes('/@modelcontextprotocol/conformance/');
  if (fromSuite && (specifier === 'fs' || specifier === 'node:fs')) return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (url !== SHIM) return next(url, context);
  const source = [
    "import fs from 'node:fs';",
    "export * from 'node:fs';",
    'export default fs;',
    "export const globSync = fs.globSync ?? (() => { throw new Error('fs.globSync needs Node 22 (conformance tier-check)'); });",
  ].join('\\n');
  return { format: 'module', source, shortCircuit: true };
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`);
