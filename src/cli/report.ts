/**
 * How a failed command is reported: one line on stderr (the error's code and message; the whole
 * error with its stack and causes under `--verbose`), the seed-004 error shape on stdout under
 * `--json`, and the exit code of the error's class.
 */
import { inspect } from 'node:util';
import { CommanderError } from 'commander';
import { ToolexecError, errorMessage, toErrorShape } from '../model/index.js';
import { cliErrors } from './errors.js';
import { EXIT_CODES, exitCodeOf } from './exit-codes.js';
import { writeJson, writeLine, type CliIO } from './io.js';
import { failureText, oneLine } from './render.js';

/** The message of the usage error of `toolexec` alone (commander prints the help on stderr). */
const NO_COMMAND = 'no command given (toolexec --help lists the commands)';

/** Reports `error` and returns the exit code. Commander has already printed its own usage errors. */
export function reportFailure(error: unknown, io: CliIO, options: { json: boolean; verbose: boolean }): number {
  if (error instanceof CommanderError) {
    // exit code 0: help or the version was asked for; anything else is a usage error commander printed
    if (error.exitCode === 0) return EXIT_CODES.OK;
    if (options.json) {
      // no command given: commander printed the help, its message says nothing ("(outputHelp)")
      const message = error.code === 'commander.help' ? NO_COMMAND : oneLine(error.message.replace(/^error: /, ''));
      const usage = cliErrors('INVALID_ARGUMENT', message, { details: { reason: error.code } });
      writeJson(io.stdout, toErrorShape(usage));
    }
    return EXIT_CODES.USAGE;
  }
  const exitCode = exitCodeOf(error);
  if (options.json) writeJson(io.stdout, toErrorShape(error));
  if (options.verbose) {
    writeLine(io.stderr, `toolexec: ${inspect(error, { depth: 8 })}`);
  } else if (ToolexecError.isInstance(error)) {
    writeLine(io.stderr, `toolexec: ${error.code}: ${failureText(error.message)}`);
  } else {
    writeLine(io.stderr, `toolexec: unexpected failure: ${failureText(errorMessage(error))} (--verbose shows the stack)`);
  }
  return exitCode;
}
