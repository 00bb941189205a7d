/**
 * `toolexec exec <file | ->`: a code-mode snippet in the sandbox of its profile, with the trace of
 * every tool call it made.
 */
import { Option, type Command } from 'commander';
import { ToolexecError } from '../../model/index.js';
import type { CodeParams, CodeResult, ToolCallRecord } from '../../exec/index.js';
import type { SecurityProfile } from '../../runtime/index.js';
import { STDIN, readSnippet } from '../arguments.js';
import { writeJson, writeLine, type CliOutput } from '../io.js';
import { failureText, formatMs, oneLine, pretty, table } from '../render.js';
import { withSession } from '../session.js';
import { globalsOf, type CommandContext } from './context.js';

/** The trace: one row per tool call, in completion order. */
function writeTrace(stream: CliOutput, calls: readonly ToolCallRecord[]): void {
  writeLine(stream, `tool calls: ${calls.length}`);
  const rows = calls.map((call, i) => [
    `${i + 1}.`,
    call.toolId,
    formatMs(call.durationMs),
    call.error === undefined ? 'ok' : `${call.errorCode ?? 'error'}: ${failureText(call.error)}`,
  ]);
  for (const line of table(rows)) writeLine(stream, `  ${line}`);
}

/**
 * What the snippet printed, then (on stderr) the trace and a summary; the value on stdout. For a
 * snippet that failed (`failed`), the trace and summary only when it made tool calls: the error
 * line follows, and an empty trace would say nothing (a snippet that never started, such as one
 * of an unsupported `--language`, shows the error line alone).
 */
function writeResult(stdout: CliOutput, stderr: CliOutput, result: Partial<CodeResult>, failed = false): void {
  if (result.stdout) stdout.write(result.stdout.endsWith('\n') ? result.stdout : `${result.stdout}\n`);
  if (result.stderr) stderr.write(result.stderr.endsWith('\n') ? result.stderr : `${result.stderr}\n`);
  const calls = result.toolCalls ?? [];
  const traced = !failed || calls.length > 0;
  if (traced) writeTrace(stderr, calls);
  for (const warning of result.warnings ?? []) writeLine(stderr, `warning: ${oneLine(warning.message)}`);
  const where = result.backend === undefined ? '' : `${result.backend.kind} sandbox, `;
  if (traced && result.durationMs !== undefined) writeLine(stderr, `${where}${formatMs(result.durationMs)}`);
}

/** The partial result a failed snippet carries (`details.result`), if any. */
function partialResult(error: unknown): Partial<CodeResult> | undefined {
  if (!ToolexecError.isInstance(error)) return undefined;
  const result = error.details?.result;
  return result !== null && typeof result === 'object' ? result : undefined;
}

/** Registers `exec`. */
export function registerExec(program: Command, context: CommandContext): void {
  const { io } = context;
  program
    .command('exec')
    .description('run a code-mode snippet (its `tools` object reaches every tool) and print its value and tool-call trace')
    .argument('<file>', `the snippet file (.js, .ts, .py), or ${STDIN} to read it from stdin`)
    .addOption(
      new Option('--profile <profile>', 'security profile: standard / hardened (sandboxed), dev (on this machine)').choices([
        'standard',
        'hardened',
        'dev',
      ]),
    )
    .option('--language <language>', 'javascript, typescript or python (default: from the file extension, else javascript)')
    .action(async (file: string, commandOptions: { profile?: SecurityProfile; language?: string }, command: Command) => {
      const options = globalsOf(command);
      const snippet = await readSnippet(file, io);
      await withSession(io, options, async (session) => {
        await session.connect();
        const language = commandOptions.language ?? snippet.language;
        const params: CodeParams = { code: snippet.code, signal: io.signal };
        if (language !== undefined) params.language = language;
        if (commandOptions.profile !== undefined) params.profile = commandOptions.profile;
        let result: CodeResult;
        try {
          result = await session.exec.executeCode(params);
        } catch (error) {
          // --json: the error shape carries the partial result in details.result
          const partial = options.json ? undefined : partialResult(error);
          if (partial !== undefined) writeResult(io.stdout, io.stderr, partial, true);
          throw error;
        }
        if (options.json) writeJson(io.stdout, result);
        else {
          writeResult(io.stdout, io.stderr, result);
          if (result.value !== undefined)
            writeLine(io.stdout, typeof result.value === 'string' ? result.value : pretty(result.value, io.stdout));
        }
      });
    });
}
