/**
 * `toolexec servers`: connects every configured MCP server and shows each one's status.
 */
import type { Command } from 'commander';
import { ToolexecError, toErrorShape } from '../../model/index.js';
import type { ServerStatus } from '../../exec/index.js';
import { EXIT_CODES } from '../exit-codes.js';
import { writeJson, writeLine } from '../io.js';
import { oneLine, table } from '../render.js';
import { withSession } from '../session.js';
import { globalsOf, type CommandContext } from './context.js';

/** A status as JSON: the error as the seed-004 error shape (code, message, details, cause). */
function statusJson(status: ServerStatus): Record<string, unknown> {
  const { error, ...rest } = status;
  return error === undefined ? rest : { ...rest, error: toErrorShape(error).error };
}

/** Registers `servers`. */
export function registerServers(program: Command, context: CommandContext): void {
  program
    .command('servers')
    .description('connect every MCP server of the config and show its status (exit 6 when any is not connected)')
    .action(async (_options: unknown, command: Command) => {
      const options = globalsOf(command);
      const { io } = context;
      await withSession(io, options, async (session) => {
        // A `required` server that failed rejects connect() once every server has settled: a
        // health check still lists them all (and exits 6), so read the statuses instead.
        const statuses = await session.connect({ quiet: true }).catch((error: unknown) => {
          if (!ToolexecError.isInstance(error) || error.code !== 'SERVER_UNAVAILABLE' || io.signal.aborted) throw error;
          return session.exec.serverStatus();
        });
        const entries = Object.entries(statuses);
        if (options.json) {
          writeJson(io.stdout, Object.fromEntries(entries.map(([name, status]) => [name, statusJson(status)])));
        } else if (entries.length === 0) {
          writeLine(io.stderr, `toolexec: no MCP servers configured (${session.config.path ?? 'no toolexec.json here; see --config'})`);
        } else {
          const rows = entries.map(([name, status]) => [
            name,
            status.state,
            String(status.toolCount),
            oneLine(status.error?.message ?? ''),
          ]);
          for (const line of table([['SERVER', 'STATE', 'TOOLS', 'ERROR'], ...rows])) writeLine(io.stdout, line);
        }
        if (entries.some(([, status]) => status.state !== 'connected')) context.setExitCode(EXIT_CODES.UNAVAILABLE);
      });
    });
}
