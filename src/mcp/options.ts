import { MAX_TIMER_MS } from '../model/internal.js';
import { DEFAULT_KILL_GRACE_MS, DEFAULT_STDERR_TAIL_BYTES } from './stdio-transport.js';
import type { McpCustomServerConfig, McpExecutorOptions, McpServerConfig, OAuthClientProvider } from './types.js';
import { errors } from './errors.js';
import { ClientFeatures, loggerProblem, rootsProblem } from './client-capabilities.js';

/** Default of {@link McpExecutorOptions.requestTimeoutMs}: the SDK's own default, 60 s. */
export const DEFAULT_MCP_REQUEST_TIMEOUT_MS = 60_000;

/** Default of {@link McpExecutorOptions.connectTimeoutMs}: 10 s to start and answer `initialize`. */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 10_000;

/** The `clientInfo` sent in `initialize` unless one is given. */
export const DEFAULT_MCP_CLIENT_INFO: Readonly<{
  /** The client name sent: `toolexec`. */
  name: string;
  /** The client version sent: `0.1.0`. */
  version: string;
}> = Object.freeze({
  name: 'toolexec',
  version: '0.1.0',
});

/** @internal A server config as the executor uses it: the transport decided once, the URL parsed. */
export type ResolvedServerConfig =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd: string | undefined }
  | { kind: 'http' | 'sse'; url: URL; headers: Record<string, string> | undefined; authProvider: OAuthClientProvider | undefined }
  | { kind: 'custom'; createTransport: McpCustomServerConfig['createTransport'] };

/** @internal {@link McpExecutorOptions} with every default filled in. */
export interface ResolvedMcpExecutorOptions {
  servers: ReadonlyMap<string, ResolvedServerConfig>;
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  maxTotalTimeoutMs: number | undefined;
  alwaysRequestProgress: boolean;
  clientInfo: { name: string; version: string };
  stderrTailBytes: number;
  killGraceMs: number;
  onStderr: McpExecutorOptions['onStderr'];
  onToolsListChanged: McpExecutorOptions['onToolsListChanged'];
  onConnectionLost: McpExecutorOptions['onConnectionLost'];
  /** Elicitation, sampling, roots and logging: what the client declares and how it answers. */
  features: ClientFeatures;
}

/** @internal Fills defaults and checks every server config; throws `CONFIGURATION`. */
export function resolveMcpExecutorOptions(options: McpExecutorOptions): ResolvedMcpExecutorOptions {
  if (options === null || typeof options !== 'object' || options.servers === null || typeof options.servers !== 'object') {
    throw errors('CONFIGURATION', 'createMcpExecutor needs { servers: { <name>: <config> } }');
  }
  const servers = new Map<string, ResolvedServerConfig>();
  for (const [name, config] of Object.entries(options.servers)) servers.set(name, resolveServerConfig(name, config));
  for (const handler of ['onElicitation', 'onSampling'] as const) {
    if (options[handler] !== undefined && typeof options[handler] !== 'function') {
      throw errors('CONFIGURATION', `${handler} must be a function`);
    }
  }
  const rootsIssue = options.roots === undefined ? undefined : rootsProblem(options.roots);
  if (rootsIssue !== undefined) throw errors('CONFIGURATION', `roots ${rootsIssue}`);
  const loggerIssue = options.logger === undefined ? undefined : loggerProblem(options.logger);
  if (loggerIssue !== undefined) throw errors('CONFIGURATION', `logger ${loggerIssue}`);
  return {
    servers,
    requestTimeoutMs: resolveTimeoutMs(options.requestTimeoutMs, DEFAULT_MCP_REQUEST_TIMEOUT_MS, 'requestTimeoutMs', 'CONFIGURATION'),
    connectTimeoutMs: resolveTimeoutMs(options.connectTimeoutMs, DEFAULT_MCP_CONNECT_TIMEOUT_MS, 'connectTimeoutMs', 'CONFIGURATION'),
    maxTotalTimeoutMs:
      options.maxTotalTimeoutMs === undefined
        ? undefined
        : resolveTimeoutMs(options.maxTotalTimeoutMs, 0, 'maxTotalTimeoutMs', 'CONFIGURATION'),
    alwaysRequestProgress: flag(options.alwaysRequestProgress, 'alwaysRequestProgress'),
    clientInfo: options.clientInfo ?? { ...DEFAULT_MCP_CLIENT_INFO },
    stderrTailBytes: nonNegative(options.stderrTailBytes, DEFAULT_STDERR_TAIL_BYTES, 'stderrTailBytes'),
    killGraceMs: nonNegative(options.killGraceMs, DEFAULT_KILL_GRACE_MS, 'killGraceMs'),
    onStderr: options.onStderr,
    onToolsListChanged: options.onToolsListChanged,
    onConnectionLost: options.onConnectionLost,
    features: new ClientFeatures(options),
  };
}

/**
 * @internal Decides a server's transport as MCP clients' configs do: `type` (or `transport`)
 * when given, else `url` → Streamable HTTP, `command` → stdio. Throws `CONFIGURATION`.
 */
export function resolveServerConfig(name: string, config: McpServerConfig): ResolvedServerConfig {
  const fail = (why: string): never => {
    throw errors('CONFIGURATION', `MCP server "${name}": ${why}`, { details: { serverName: name } });
  };
  if (name === '') fail('the server name must not be empty');
  if (config === null || typeof config !== 'object') fail('the config must be an object');
  const given = config as unknown as Record<string, unknown>;
  if (given.required !== undefined && typeof given.required !== 'boolean') fail('required must be a boolean');
  if (given.type !== undefined && given.transport !== undefined && given.type !== given.transport) {
    fail(`type ${JSON.stringify(given.type)} and transport ${JSON.stringify(given.transport)} disagree`);
  }
  const kind: unknown = given.type ?? given.transport ?? ('url' in given ? 'http' : 'command' in given ? 'stdio' : undefined);
  switch (kind) {
    case 'stdio': {
      const { command, args, env, cwd } = given;
      if (typeof command !== 'string' || command === '') fail('a stdio server needs a command');
      if (args !== undefined && (!Array.isArray(args) || args.some((a) => typeof a !== 'string'))) fail('args must be an array of strings');
      if (env !== undefined && (env === null || typeof env !== 'object' || Object.values(env).some((v) => typeof v !== 'string'))) {
        fail('env values must be strings');
      }
      if (cwd !== undefined && typeof cwd !== 'string') fail('cwd must be a string');
      return {
        kind: 'stdio',
        command: command as string,
        args: [...((args as string[] | undefined) ?? [])],
        env: { ...(env as Record<string, string> | undefined) },
        cwd: cwd as string | undefined,
      };
    }
    case 'http':
    case 'sse': {
      const { url, headers, authProvider } = given;
      if (typeof url !== 'string' || !URL.canParse(url)) fail(`an ${kind} server needs a valid url (got ${String(url)})`);
      const parsed = new URL(url as string);
      if (!/^https?:$/.test(parsed.protocol)) fail(`the url must be http(s) (got ${url as string})`);
      if (headers !== undefined) {
        const problem = headersProblem(headers);
        if (problem !== undefined) fail(problem);
      }
      if (authProvider !== undefined && (authProvider === null || typeof authProvider !== 'object')) {
        fail('authProvider must be an OAuthClientProvider');
      }
      return {
        kind: kind === 'sse' ? 'sse' : 'http',
        url: parsed,
        headers: headers as Record<string, string> | undefined,
        authProvider: authProvider as OAuthClientProvider | undefined,
      };
    }
    case 'custom':
      if (typeof given.createTransport !== 'function') fail('a custom server needs createTransport()');
      return { kind: 'custom', createTransport: given.createTransport as McpCustomServerConfig['createTransport'] };
    case undefined:
      return fail('a server needs a command (stdio) or a url (Streamable HTTP)');
    default:
      return fail(`unknown transport "${String(kind)}" (expected stdio, http, sse or custom)`);
  }
}

// RFC 9110 field-name: a token.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What fetch refuses in a value (and what would split a header: CR, LF), and what is not a byte.
const HEADER_VALUE_FORBIDDEN = /[\0\r\n]|[^\0-\xff]/;

/**
 * Why `headers` cannot be sent (an invalid header name, a value with CR, LF or NUL, or a character
 * no HTTP header can carry), or undefined. Checked once here, so that a bad header is refused up
 * front instead of failing every connection attempt.
 */
function headersProblem(headers: unknown): string | undefined {
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers))
    return 'headers must be an object of header names to values';
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') return 'header values must be strings';
    if (!HEADER_NAME.test(name))
      return `header ${JSON.stringify(name)} is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only)`;
    const bad = HEADER_VALUE_FORBIDDEN.exec(value);
    if (bad !== null) {
      return `the value of header ${JSON.stringify(name)} contains ${JSON.stringify(bad[0])} at index ${bad.index}, which an HTTP header cannot carry`;
    }
  }
  // What fetch would still refuse (the same rules, by the runtime that sends them).
  try {
    const check = new Headers();
    for (const [name, value] of Object.entries(headers as Record<string, string>)) check.append(name, value);
  } catch (error) {
    return `headers cannot be sent: ${error instanceof Error ? error.message : String(error)}`;
  }
  return undefined;
}

/**
 * @internal A timeout option: positive milliseconds; Infinity (or anything beyond what a timer
 * can hold) means no limit. Throws `code` for anything else.
 */
export function resolveTimeoutMs(
  value: number | undefined,
  fallback: number,
  name: string,
  code: 'CONFIGURATION' | 'INVALID_ARGUMENT',
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) {
    throw errors(code, `${name} must be a positive number of milliseconds (got ${String(value)})`);
  }
  // setTimeout fires at once for anything larger: larger values (and Infinity) mean "no limit".
  return Math.min(value, MAX_TIMER_MS);
}

function flag(value: boolean | undefined, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw errors('CONFIGURATION', `${name} must be a boolean (got ${String(value)})`);
  return value;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw errors('CONFIGURATION', `${name} must be a non-negative finite number (got ${String(value)})`);
  }
  return value;
}
