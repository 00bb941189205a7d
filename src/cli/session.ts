/**
 * One run of a command against the facade: the config and tool modules loaded, the `Exec`
 * created, the command raced against the user's interrupt, and the `Exec` always closed (so no
 * MCP server process outlives the command).
 */
import { relative, resolve } from 'node:path';
import { ToolexecError } from '../model/index.js';
import { createExec, type DefaultExec, type ExecOptions, type ServerStatus } from '../exec/index.js';
import { loadConfig, type CliConfig } from './config.js';
import { cliErrors } from './errors.js';
import { untilInterrupted, writeLine, type CliIO } from './io.js';
import { oneLine } from './render.js';
import { loadToolModules } from './tool-modules.js';

/** The options every command takes (before or after the command's name). */
export interface GlobalOptions {
  /** `--config <file>`; undefined: `./toolexec.json`, which may be missing. */
  config?: string;
  /** `--tools <module>`, repeatable. */
  tools: string[];
  /** `--timeout <ms>`: the deadline of each call, snippet, connection and MCP request; `Infinity` for `--timeout 0`. */
  timeout?: number;
  /** `--json`: machine-readable output. */
  json: boolean;
  /** `--verbose`: stack traces, server status changes and the servers' stderr. */
  verbose: boolean;
}

/** What a command works with. */
export interface Session {
  /** The facade over the configured servers and tool modules. */
  exec: DefaultExec;
  /** The command's streams. */
  io: CliIO;
  /** The global options. */
  options: GlobalOptions;
  /** The config that was read. */
  config: CliConfig;
  /**
   * Connects every server (bounded by `--timeout`) and warns on stderr about each one that
   * failed; the statuses by name.
   */
  connect(options?: { quiet?: boolean }): Promise<Record<string, ServerStatus>>;
  /** One line on stderr, prefixed `toolexec: warning:`. */
  warn(line: string): void;
  /** One line on stderr with `--verbose`, nothing otherwise. */
  log(line: string): void;
}

function execOptions(io: CliIO, options: GlobalOptions, config: CliConfig, log: (line: string) => void): ExecOptions {
  const timeoutMs = options.timeout;
  const mcpOptions: NonNullable<ExecOptions['mcpOptions']> =
    timeoutMs === undefined ? {} : { connectTimeoutMs: timeoutMs, requestTimeoutMs: timeoutMs };
  if (options.verbose) {
    mcpOptions.onStderr = (server, text) => {
      for (const line of text.split('\n')) if (line !== '') writeLine(io.stderr, `[${server}] ${line}`);
    };
  }
  return {
    mcpServers: config.mcpServers,
    mcpOptions,
    ...(timeoutMs === undefined ? {} : { defaultTimeoutMs: timeoutMs }),
    ...(options.verbose
      ? {
          onServerStatus: (name: string, status: ServerStatus) =>
            log(`server ${name}: ${status.state}${status.state === 'connected' ? ` (${status.toolCount} tools)` : ''}`),
        }
      : {}),
  };
}

/**
 * Loads the config and tool modules, creates the facade, runs `command` until it settles or the
 * user interrupts (rejecting with the `ABORTED` error of `io.signal`), and closes the facade.
 */
export async function withSession<T>(io: CliIO, options: GlobalOptions, command: (session: Session) => Promise<T>): Promise<T> {
  if (io.signal.aborted) throw io.signal.reason;
  const log = (line: string): void => {
    if (options.verbose) writeLine(io.stderr, `toolexec: ${line}`);
  };
  const config = await loadConfig({ file: options.config, cwd: io.cwd, env: io.env });
  const shown = (path: string): string => relative(io.cwd, path) || path;
  const fromConfig = config.path === undefined ? '' : `${shown(config.path)} "tools":`;
  const modules = [
    ...config.toolModules.map((path) => ({ path, shown: shown(path), from: fromConfig })),
    ...options.tools.map((path) => ({ path: resolve(io.cwd, path), shown: path, from: 'option --tools' })),
  ];
  const tools = await loadToolModules(modules);
  let exec: DefaultExec;
  try {
    exec = createExec({ ...execOptions(io, options, config, log), tools });
  } catch (error) {
    if (!ToolexecError.isInstance(error)) throw error;
    // a server's config is checked here (the MCP layer names the server); anything else is a tool module's
    const where = config.path !== undefined && error.details?.serverName !== undefined ? shown(config.path) : 'tool modules';
    throw cliErrors(error.code, `${where}: ${error.message}`, { cause: error, ...(error.details ? { details: error.details } : {}) });
  }
  const session: Session = {
    exec,
    io,
    options,
    config,
    log,
    warn: (line) => writeLine(io.stderr, `toolexec: warning: ${line}`),
    async connect({ quiet = false } = {}) {
      const statuses = await exec.connect({ signal: io.signal, ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout }) });
      if (!quiet) {
        for (const [name, status] of Object.entries(statuses)) {
          if (status.state === 'failed') session.warn(`MCP server "${name}" failed: ${oneLine(status.error?.message ?? 'unknown error')}`);
          if (status.state === 'connecting') {
            // without --timeout there is no deadline of the command's to name
            const late = options.timeout === undefined ? 'is still connecting' : `did not connect within ${options.timeout} ms`;
            session.warn(`MCP server "${name}" ${late}`);
          }
        }
      }
      return statuses;
    },
  };
  try {
    // After an interrupt the command's own rejection (the closed facade) is expected and ignored.
    return await untilInterrupted(io.signal, command(session));
  } finally {
    await exec.close();
  }
}
