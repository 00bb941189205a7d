/**
 * What every command's registration receives, and the global options as a command reads them.
 */
import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import type { GlobalOptions } from '../session.js';

/** Shared by the commands of one run of the program. */
export interface CommandContext {
  /** The command's streams and surroundings. */
  io: CliIO;
  /** Sets the exit code of a command that completed but has a failure to report (`servers` with a failed server). */
  setExitCode(code: number): void;
}

/** The global options (`--config`, `--tools`, `--timeout`, `--json`, `--verbose`) wherever they were written. */
export function globalsOf(command: Command): GlobalOptions {
  const all = command.optsWithGlobals<Partial<GlobalOptions>>();
  return {
    ...(all.config === undefined ? {} : { config: all.config }),
    tools: all.tools ?? [],
    ...(all.timeout === undefined ? {} : { timeout: all.timeout }),
    json: all.json === true,
    verbose: all.verbose === true,
  };
}
