/**
 * The guard around a snippet's `tools`: reading a name it does not have throws a `TypeError` that
 * says how tools are called, instead of giving `undefined` and a later "cannot read property
 * 'convert' of undefined". Models often write `tools.fx.convert(args)` (a namespace as a
 * property); the message names the call that works, `tools.runTool("fx:<tool>", args)`.
 *
 * The guard is the object's prototype, a proxy: a method of `tools` is an own property, read
 * without it (a proxy trap costs ~0.4 µs a read in QuickJS); only a name `tools` lacks reaches it.
 */
import { GuestProxy, GuestTypeError, JSONStringify, apply, freeze, reflectGet, stringSlice } from './primordials.js';

/** Longest part of the missing name quoted in the message. */
const MAX_SHOWN = 60;

/** `methods` as a frozen object behind the guard (called before any snippet code runs). */
export function guardTools<T extends object>(methods: T): Readonly<T> {
  const list = Object.keys(methods);
  const names = list.join(', ');
  // each method by its name in lower case without underscores: `run_tool` and `runtool` find `runTool`
  const folded = list.map((method) => ({ method, key: fold(method) }));
  const guard = new GuestProxy<object>(
    {},
    {
      get(target, key, receiver) {
        // `then` and `toJSON` are read to probe an object (`await tools`, `JSON.stringify(tools)`): they read as usual
        if (typeof key === 'string' && !(key in target) && key !== 'then' && key !== 'toJSON') {
          throw new GuestTypeError(missingMessage(key, names, folded));
        }
        return reflectGet(target, key, receiver) as unknown;
      },
    },
  );
  return freeze(Object.assign(Object.create(guard) as T, methods));
}

/** `name` in lower case without underscores (called before a snippet runs, or on a failed read). */
function fold(name: string): string {
  return name.toLowerCase().replace(/_/g, '');
}

function missingMessage(key: string, names: string, methods: readonly { method: string; key: string }[]): string {
  const name = key.length > MAX_SHOWN ? apply<string, [number, number], string>(stringSlice, key, [0, MAX_SHOWN]) : key;
  // a method misnamed (`tools.run`, `tools.run_tool`, `tools.search`): the methods it starts
  const wanted = key.length >= 3 && key.length <= MAX_SHOWN ? fold(key) : '';
  const close = wanted === '' ? [] : methods.filter((entry) => entry.key.startsWith(wanted)).map((entry) => `tools.${entry.method}`);
  if (close.length > 0) return `tools has no ${JSONStringify(name)}: did you mean ${close.join(' or ')}? (tools has ${names})`;
  return (
    `tools has no ${JSONStringify(name)}: call a tool by its ID, e.g. await tools.runTool(${JSONStringify(`${name}:<tool>`)}, args) ` +
    `(tools has ${names}; find IDs with tools.searchTools(query) or tools.listNamespaces())`
  );
}
