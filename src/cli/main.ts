/**
 * The executable (`dist/cli.js`, with a `#!/usr/bin/env node` line): runs the program on the
 * process's arguments and streams. The first SIGINT or SIGTERM stops the command, which closes the
 * facade (ending every MCP server it started) and exits with 130; a second one exits at once. A
 * reader that goes away (`toolexec tools | head -1`: EPIPE on stdout or stderr) stops it the same
 * way instead of crashing with the servers still running.
 */
import { interrupted } from './errors.js';
import { EXIT_CODES, runCli } from './index.js';

const controller = new AbortController();

function onSignal(signal: NodeJS.Signals): void {
  if (controller.signal.aborted) process.exit(EXIT_CODES.INTERRUPTED);
  controller.abort(interrupted(signal));
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

let outputBroken = false;

function onOutputError(error: NodeJS.ErrnoException): void {
  outputBroken = true;
  if (!controller.signal.aborted) controller.abort(interrupted(error.code ?? 'output error'));
}
process.stdout.on('error', onOutputError);
process.stderr.on('error', onOutputError);

// Holds the event loop open while the command runs: a command waiting only on a promise (a tool
// that never answers under `--timeout 0`, a tool module whose top-level await never settles) would
// otherwise let Node end the process with exit code 13 and no message. Ctrl-C still stops it.
const keepAlive = setInterval(() => undefined, 1 << 30);
let exitCode: number;
try {
  exitCode = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    cwd: process.cwd(),
    env: process.env,
    signal: controller.signal,
  });
} finally {
  clearInterval(keepAlive);
}
/**
 * Resolves once everything written to `stream` so far has been handed to the system (writes
 * complete in order), or the stream failed. On a pipe Node writes asynchronously: exiting before
 * this cuts the output (`toolexec run ... | jq` lost all but the first 64 KiB).
 */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
// Everything the command opened is closed by now; exit without waiting for idle sockets or timers
// of libraries. A reader that went away stopped the command: exit 130, as for Ctrl-C.
process.exit(outputBroken ? EXIT_CODES.INTERRUPTED : exitCode);
