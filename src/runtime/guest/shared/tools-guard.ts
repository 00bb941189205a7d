/**
 * The guard around a snippet's `tools`: reading a name it does not have throws a `TypeError` that
 * says how tools are called, instead of giving `undefined` and a later "cannot read property
 * 'convert' of undefined". Models often write `tools.fx.convert(args)` (a namespace as a
 * property); the message names the call that works, `tools.runTool("fx:<tool>", args)`.
 */
import { GuestProxy, GuestTypeError, JSONStringify, apply, reflectGet, stringSlice } from './primordials.js';

/** Longest part of the missing name quoted in the message. */
const MAX_SHOWN = 60;

/** `tools` behind the guard (called before any snippet code runs); the methods are the same functions. */
export function guardTools<T extends object>(tools: T): T {
  const methods = Object.keys(tools).join(', ');
  return new GuestProxy(tools, {
    get(target, key, receiver) {
      // `then` and `toJSON` are read to probe an object (`await tools`, `JSON.stringify(tools)`): they read as usual
      if (typeof key === 'string' && !(key in target) && key !== 'then' && key !== 'toJSON') {
        throw new GuestTypeError(missingMessage(key, methods));
      }
      return reflectGet(target, key, receiver) as unknown;
    },
  });
}

function missingMessage(key: string, methods: string): string {
  const name = key.length > MAX_SHOWN ? apply<string, [number, number], string>(stringSlice, key, [0, MAX_SHOWN]) : key;
  return (
    `tools has no ${JSONStringify(name)}: call a tool by its ID, e.g. await tools.runTool(${JSONStringify(`${name}:<tool>`)}, args) ` +
    `(tools has ${methods}; find IDs with tools.searchTools(query) or tools.listNamespaces())`
  );
}
