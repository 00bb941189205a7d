/**
 * The `toolexec` program: global options, the six commands, and the exit code of a run.
 */
import { Command } from 'commander';
import { DEFAULT_MCP_CLIENT_INFO } from '../mcp/index.js';
import { collect, parseTimeoutMs } from './arguments.js';
import { registerDiscovery } from './commands/discovery.js';
import { registerExec } from './commands/exec.js';
import { registerRun } from './commands/run.js';
import { registerServers } from './commands/servers.js';
import { DEFAULT_CONFIG_FILE } from './config.js';
import { EXIT_CODES } from './exit-codes.js';
import type { CliIO } from './io.js';
import { oneLine } from './render.js';
import { reportFailure } from './report.js';

/** The exit-code table at the end of `--help`. */
function exitCodeHelp(): string {
  const lines = Object.entries(EXIT_CODES).map(([name, code]) => `  ${String(code).padStart(3)}  ${name}`);
  return `\nExit codes (docs/cli.md):\n${lines.join('\n')}\n`;
}

/** The program, writing to `io`; `setExitCode` records a completed command's non-zero outcome. */
export function createProgram(io: CliIO, setExitCode: (code: number) => void): Command {
  const program = new Command('toolexec')
    .description('Search, describe and run the tools of MCP servers and local tool modules; run code-mode snippets.')
    .version(DEFAULT_MCP_CLIENT_INFO.version, '-V, --version')
    .option(
      '-c, --config <file>',
      `config file: { "mcpServers": { ... }, "tools": [ ... ] } (default: ./${DEFAULT_CONFIG_FILE}, if present)`,
    )
    .option('--tools <module>', 'a local tool module (JS or TS, default export LocalToolDefinition[]); repeatable', collect)
    .option('--timeout <ms>', 'deadline of each call, snippet, connection and MCP request in milliseconds (0: none)', parseTimeoutMs)
    .option('--json', 'machine-readable JSON on stdout (failures: the error shape)')
    .option('-v, --verbose', 'stack traces, server status changes and the servers’ stderr')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // one line, as every failure (commander puts its "(Did you mean ...?)" on a line of its own)
      outputError: (text, write) => write(`toolexec: INVALID_ARGUMENT: ${oneLine(text.replace(/^error: /, ''))}\n`),
    })
    // each command's help lists the options every command takes too (--config, --json, ...)
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true)
    .addHelpText('after', exitCodeHelp());
  const context = { io, setExitCode };
  registerServers(program, context);
  registerDiscovery(program, context);
  registerRun(program, context);
  registerExec(program, context);
  return program;
}

/**
 * Runs the program on `argv` (the arguments after the executable and script) and resolves with
 * the exit code ({@link EXIT_CODES}); never rejects.
 */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode: number = EXIT_CODES.OK;
  const program = createProgram(io, (code) => (exitCode = code));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    const { json, verbose } = program.opts<{ json?: boolean; verbose?: boolean }>();
    return reportFailure(error, io, { json: json === true, verbose: verbose === true });
  }
}
