/**
 * Local tool modules: JavaScript or TypeScript files whose default export is an array of
 * `LocalToolDefinition`s (`{ tool, handler, doc?, examples? }`), named with `--tools` or the
 * config's `tools` key.
 *
 * TypeScript files are loaded by Node itself where it strips types (Node ≥ 22.18), else through
 * the optional `tsx` package.
 */
import { realpath, stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { tsImport as TsImport } from 'tsx/esm/api';
import { errorMessage, toolId } from '../model/index.js';
import type { LocalToolDefinition } from '../exec/index.js';
import { cliErrors } from './errors.js';

const TYPESCRIPT = /\.[cm]?ts$/;

function isDefinition(value: unknown): value is LocalToolDefinition {
  if (value === null || typeof value !== 'object') return false;
  const { tool, handler } = value as Partial<LocalToolDefinition>;
  return tool !== null && typeof tool === 'object' && typeof handler === 'function';
}

/** True when this Node runs `.ts` files itself (type stripping on by default). */
function nodeStripsTypes(): boolean {
  const features = process.features as { typescript?: unknown };
  return typeof features.typescript === 'string';
}

type Importer = (url: string) => Promise<unknown>;

const nativeImport: Importer = (url) => import(url);

/**
 * How to import the module: Node's own `import()`, or tsx's `tsImport` for TypeScript on a Node that
 * does not strip types. On a Node that does, a `.ts` file with `export` syntax in a CommonJS
 * project (no `"type": "module"`) fails to load natively: it is then loaded through tsx when tsx
 * is installed.
 */
async function importerFor(ref: ToolModuleRef): Promise<Importer> {
  if (!TYPESCRIPT.test(ref.path)) return nativeImport;
  if (nodeStripsTypes()) {
    return async (url) => {
      try {
        return await nativeImport(url);
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        const viaTsx = await tsxImporter(ref).catch(() => undefined);
        if (viaTsx === undefined) throw error;
        return viaTsx(url);
      }
    };
  }
  return tsxImporter(ref);
}

/** A tool module to load: its absolute path, the path to show, and where it was named. */
export interface ToolModuleRef {
  /** Absolute. */
  path: string;
  /** As the user sees it (relative to the working directory). */
  shown: string;
  /** Where it was named, to start its errors with: `option --tools`, or `toolexec.json "tools":`. */
  from: string;
}

/** `CONFIGURATION` about a module, naming it and where it was named. */
function moduleError(ref: ToolModuleRef, problem: string, cause?: unknown): Error {
  return cliErrors('CONFIGURATION', `${ref.from} ${ref.shown} ${problem}`, {
    details: { path: ref.path },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** tsx's `tsImport`, or `CONFIGURATION` saying what to install. */
async function tsxImporter(ref: ToolModuleRef): Promise<Importer> {
  let tsImport: typeof TsImport;
  try {
    ({ tsImport } = await import('tsx/esm/api'));
  } catch (error) {
    throw moduleError(ref, 'is TypeScript: loading it needs Node ≥ 22.18 or the tsx package (npm install --save-dev tsx)', error);
  }
  return (url) => tsImport(url, import.meta.url);
}

/**
 * A module's default export, unwrapped once when it is a CommonJS module's `exports` holding an
 * ES default (a `.ts` file compiled to CommonJS in a project without `"type": "module"` comes back
 * as `{ default: { default: [...] } }`).
 */
function defaultArray(value: unknown): unknown {
  if (Array.isArray(value) || value === null || typeof value !== 'object') return value;
  const inner = (value as { default?: unknown }).default;
  return Array.isArray(inner) ? inner : value;
}

/** Imports one module and checks its default export. `CONFIGURATION` naming the file otherwise. */
async function loadToolModule(ref: ToolModuleRef): Promise<LocalToolDefinition[]> {
  try {
    if (!(await stat(ref.path)).isFile()) throw new Error('not a file');
  } catch (error) {
    throw moduleError(ref, 'does not exist', error);
  }
  const importer = await importerFor(ref);
  let loaded: { default?: unknown };
  try {
    loaded = (await importer(pathToFileURL(ref.path).href)) as { default?: unknown };
  } catch (error) {
    throw moduleError(ref, `could not be loaded: ${errorMessage(error)}`, error);
  }
  let definitions: unknown;
  let valid: boolean;
  try {
    definitions = defaultArray(loaded.default);
    valid = Array.isArray(definitions) && definitions.every(isDefinition);
  } catch (err) {
    // a getter or a proxy of the module's export threw while it was read
    throw moduleError(ref, `could not be read (${errorMessage(err)}): it must export default an array of { tool, handler }`, err);
  }
  if (!valid) throw moduleError(ref, 'must export default an array of { tool, handler } (LocalToolDefinition[])');
  return definitions as LocalToolDefinition[];
}

/** A definition's tool ID; undefined for a tool the facade will refuse anyway (with its own message). */
function idOf(definition: LocalToolDefinition): string | undefined {
  try {
    return toolId(definition.tool);
  } catch {
    return undefined;
  }
}

/** A module as its errors name it: where it was named, and its path. */
function named(ref: ToolModuleRef): string {
  return `${ref.from} ${ref.shown}`.trim();
}

/**
 * Loads every module in order; the definitions of all of them, concatenated. A module named more
 * than once (the config's `tools` and `--tools`, or a path written two ways: the same real path)
 * is loaded once. A tool ID that two definitions share is `CONFIGURATION` naming both modules.
 */
export async function loadToolModules(modules: readonly ToolModuleRef[]): Promise<LocalToolDefinition[]> {
  const definitions: LocalToolDefinition[] = [];
  const loaded = new Set<string>();
  const definedIn = new Map<string, ToolModuleRef>();
  for (const ref of modules) {
    // a missing file keeps its resolved path: loadToolModule reports it
    const key = await realpath(ref.path).catch(() => ref.path);
    if (loaded.has(key)) continue;
    loaded.add(key);
    for (const definition of await loadToolModule(ref)) {
      const id = idOf(definition);
      const first = id === undefined ? undefined : definedIn.get(id);
      if (id !== undefined && first !== undefined) {
        const where = first === ref ? `twice in ${named(ref)}` : `in both ${named(first)} and ${named(ref)}`;
        throw cliErrors('CONFIGURATION', `local tool "${id}" is defined ${where} (a tool ID must be unique)`, {
          details: { toolId: id, paths: first === ref ? [ref.path] : [first.path, ref.path] },
        });
      }
      if (id !== undefined) definedIn.set(id, ref);
      definitions.push(definition);
    }
  }
  return definitions;
}
