import { MAX_TIMER_MS } from '../model/internal.js';
import { DEFAULT_KILL_GRACE_MS, DEFAULT_STDERR_TAIL_BYTES } from './stdio-transport.js';
import type { McpExecutorOptions, McpServerConfig } from './types.js';
import { errors } from './errors.js';

/** Default of {@link McpExecutorOptions.requestTimeoutMs}: the SDK's own default, 60 s. */
export const DEFAULT_MCP_REQUEST_TIMEOUT_MS = 60_000;

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

/** @internal {@link McpExecutorOptions} with every default filled in. */
export interface ResolvedMcpExecutorOptions {
  servers: ReadonlyMap<string, McpServerConfig>;
  requestTimeoutMs: number;
  maxTotalTimeoutMs: number | undefined;
  alwaysRequestProgress: boolean;
  clientInfo: { name: string; version: string };
  stderrTailBytes: number;
  killGraceMs: number;
  onStderr: McpExecutorOptions['onStderr'];
  onToolsListChanged: McpExecutorOptions['onToolsListChanged'];
}

/** @internal Fills defaults and checks every server config; throws `CONFIGURATION`. */
export function resolveMcpExecutorOptions(options: McpExecutorOptions): ResolvedMcpExecutorOptions {
  if (options === null || typeof options !== 'object' || options.servers === null || typeof options.servers !== 'object') {
    throw errors('CONFIGURATION', 'createMcpExecutor needs { servers: { <name>: <config> } }');
  }
  const servers = new Map<string, McpServerConfig>();
  for (const [name, config] of Object.entries(options.servers)) {
    checkServerConfig(name, config);
    servers.set(name, config);
  }
  return {
    servers,
    requestTimeoutMs: resolveTimeoutMs(options.requestTimeoutMs, DEFAULT_MCP_REQUEST_TIMEOUT_MS, 'requestTimeoutMs', 'CONFIGURATION'),
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
  };
}

function checkServerConfig(name: string, config: McpServerConfig): void {
  const fail = (why: string): never => {
    throw errors('CONFIGURATION', `MCP server "${name}": ${why}`, { details: { serverName: name } });
  };
  if (name === '') fail('the server name must not be empty');
  if (config === null || typeof config !== 'object') fail('the config must be an object');
  switch (config.transport) {
    case undefined:
    case 'stdio':
      if (typeof config.command !== 'string' || config.command === '') fail('a stdio server needs a command');
      if (config.args !== undefined && (!Array.isArray(config.args) || config.args.some((a) => typeof a !== 'string'))) {
        fail('args must be an array of strings');
      }
      if (config.env !== undefined && Object.values(config.env).some((v) => typeof v !== 'string')) {
        fail('env values must be strings');
      }
      return;
    case 'http':
      if (typeof config.url !== 'string' || !URL.canParse(config.url)) fail(`an http server needs a valid url (got ${String(config.url)})`);
      if (!/^https?:$/.test(new URL(config.url).protocol)) fail(`the url must be http(s) (got ${config.url})`);
      return;
    case 'custom':
      if (typeof config.createTransport !== 'function') fail('a custom server needs createTransport()');
      return;
    default:
      fail(`unknown transport "${String((config as { transport?: unknown }).transport)}" (expected stdio, http or custom)`);
  }
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
