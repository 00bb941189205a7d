/**
 * The config file: MCP servers in the shape MCP clients already use, plus local tool modules.
 *
 * ```json
 * {
 *   "mcpServers": {
 *     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] },
 *     "search": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer ${SEARCH_TOKEN}" } }
 *   },
 *   "tools": ["./tools/math.mjs"]
 * }
 * ```
 *
 * Each server is checked by the MCP layer when the facade is created (`CONFIGURATION`, naming
 * the server); this module reads the file, checks its outer shape, expands `${VAR}` references,
 * and resolves paths against the file's folder.
 */
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { errorMessage } from '../model/index.js';
import type { McpServerConfig } from '../mcp/index.js';
import { cliErrors } from './errors.js';

/** The file read when `--config` is not given (a missing one means no servers). */
export const DEFAULT_CONFIG_FILE = 'toolexec.json';

/** The config as the command uses it. */
export interface CliConfig {
  /** The file read, absolute; undefined when the default file does not exist. */
  path: string | undefined;
  /** The MCP servers by name, `${VAR}`s expanded, stdio servers' `cwd` resolved against the file's folder. */
  mcpServers: Record<string, McpServerConfig>;
  /** Local tool modules named by the file's `tools` key, absolute. */
  toolModules: string[];
}

/** Where to read the config from. */
export interface LoadConfigOptions {
  /** `--config`, as given; undefined: {@link DEFAULT_CONFIG_FILE}, which may be missing. */
  file: string | undefined;
  /** The folder relative paths start from. */
  cwd: string;
  /** For `${VAR}` and `${VAR:-default}` references. */
  env: Readonly<Record<string, string | undefined>>;
}

const EMPTY: Omit<CliConfig, 'path'> = { mcpServers: {}, toolModules: [] };

/** Fields of a server config whose strings may hold `${VAR}` references. */
const EXPANDED_FIELDS = ['command', 'args', 'env', 'cwd', 'url', 'headers'] as const;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Reads and checks the config file. A missing default file is an empty config; a missing
 * `--config` file, unreadable or invalid JSON, or a wrong outer shape is `CONFIGURATION`.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<CliConfig> {
  const path = resolve(options.cwd, options.file ?? DEFAULT_CONFIG_FILE);
  // the path as the user gave it; the default file relative to where the command runs
  const shown = options.file ?? (relative(options.cwd, path) || path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && options.file === undefined) return { path: undefined, ...EMPTY };
    const why = code === 'ENOENT' ? 'does not exist' : `cannot be read (${errorMessage(error)})`;
    throw cliErrors.configuration('--config', `${shown} ${why}`, { cause: error, details: { path } });
  }
  const fail = (problem: string, cause?: unknown): never => {
    throw cliErrors('CONFIGURATION', `${shown}: ${problem}`, { details: { path }, ...(cause === undefined ? {} : { cause }) });
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return fail(`not valid JSON (${errorMessage(error)})`, error);
  }
  if (!isPlainObject(parsed)) return fail('the config must be a JSON object with an "mcpServers" object');
  const folder = dirname(path);
  return {
    path,
    mcpServers: readServers(parsed.mcpServers, folder, options.env, fail),
    toolModules: readToolModules(parsed.tools, folder, fail),
  };
}

function readServers(
  value: unknown,
  folder: string,
  env: LoadConfigOptions['env'],
  fail: (problem: string) => never,
): Record<string, McpServerConfig> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) return fail('"mcpServers" must be an object of servers by name');
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(value)) {
    // the name becomes the namespace of the server's tools, the part of their IDs before the first ':'
    if (name.includes(':'))
      return fail(`mcpServers: the server name "${name}" must not contain ":" (its tools' IDs would read as another namespace)`);
    if (!isPlainObject(server)) return fail(`mcpServers.${name} must be an object ({ command, args, env } or { url, headers })`);
    const expanded: Record<string, unknown> = { ...server };
    for (const field of EXPANDED_FIELDS) {
      if (field in server) expanded[field] = expandVars(server[field], env, `mcpServers.${name}.${field}`, fail);
    }
    const stdio =
      expanded.type === 'stdio' ||
      (expanded.type === undefined && expanded.transport === undefined && !('url' in expanded) && 'command' in expanded);
    // A stdio server starts in the config file's folder (or its `cwd`, relative to that folder).
    if (stdio) expanded.cwd = resolve(folder, typeof expanded.cwd === 'string' ? expanded.cwd : '.');
    // defined, not assigned: a server named "__proto__" is an entry, not the object's prototype
    Object.defineProperty(servers, name, { value: expanded, enumerable: true, writable: true, configurable: true });
  }
  return servers;
}

function readToolModules(value: unknown, folder: string, fail: (problem: string) => never): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    return fail('"tools" must be an array of module paths (JS or TS files whose default export is LocalToolDefinition[])');
  }
  return (value as string[]).map((item) => resolve(folder, item));
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${VAR}` / `${VAR:-default}` in every string of `value` (strings, arrays and objects of strings). */
function expandVars(value: unknown, env: LoadConfigOptions['env'], where: string, fail: (problem: string) => never): unknown {
  if (typeof value === 'string') {
    return value.replace(VAR, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      // as in sh: `${VAR:-fallback}` when VAR is unset or empty; `${VAR}` must be set
      if (fallback !== undefined) return found === undefined || found === '' ? fallback : found;
      return found ?? fail(`${where} refers to \${${name}}, which is not set (set it, or write \${${name}:-default})`);
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => expandVars(item, env, `${where}[${i}]`, fail));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expandVars(item, env, `${where}.${key}`, fail)]));
  }
  return value;
}
