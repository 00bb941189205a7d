/**
 * `toolexec run <id>`: one call through the facade; the result as JSON on stdout (or readable with
 * `--pretty`), a progress bar on a terminal's stderr while the tool reports progress.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Command } from 'commander';
import type { ContentBlock, Result } from '../../exec/index.js';
import type { RunOptions } from '../../run/index.js';
import { FROM_FILE, STDIN, parseToolIdArgument, readToolArgs } from '../arguments.js';
import { cliErrors } from '../errors.js';
import { writeJson, writeLine, type CliOutput } from '../io.js';
import { progressDisplay } from '../progress.js';
import { formatMs, pretty } from '../render.js';
import { withSession } from '../session.js';
import { globalsOf, type CommandContext } from './context.js';

/** Bytes of base64 text. */
function decodedBytes(base64: string): number {
  return Buffer.byteLength(base64, 'base64');
}

/** One content block for people: text as it is, anything else named and summarised. */
function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${decodedBytes(block.data)} bytes]`;
    case 'resource': {
      const { resource } = block;
      const body = 'text' in resource ? `\n${resource.text}` : ` (${decodedBytes(resource.blob)} bytes)`;
      return `[resource ${resource.uri}]${body}`;
    }
    case 'resource_link':
      return `[link ${block.name} ${block.uri}]`;
    default:
      return JSON.stringify(block);
  }
}

function writePretty(stdout: CliOutput, result: Result): void {
  const texts = result.content?.map(blockText) ?? [];
  for (const text of texts) writeLine(stdout, text);
  // A structured value the text blocks do not already say (or a local tool's value).
  const value = result.value;
  const said = typeof value === 'string' ? texts.includes(value) : value === undefined || texts.some((text) => saysValue(text, value));
  if (!said && value !== undefined) writeLine(stdout, typeof value === 'string' ? value : pretty(value, stdout));
}

/** Whether a text block is `value` written as JSON (the text an MCP tool sends beside its structured result). */
function saysValue(text: string, value: unknown): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(text), value);
  } catch {
    return false;
  }
}

/** Registers `run`. */
export function registerRun(program: Command, context: CommandContext): void {
  const { io } = context;
  program
    .command('run')
    .description('run one tool and print its result (JSON; --json: the whole result with content and duration)')
    .argument('<id>', 'the tool ID (namespace:name[:version])', parseToolIdArgument)
    .option('-a, --args <json>', `the arguments as a JSON object, ${FROM_FILE}file to read them from a file, or ${STDIN} from stdin`)
    .option('--pretty', 'readable output: text content as text, other content summarised, then the value (not with --json)')
    .option('--no-progress', 'no progress bar on stderr')
    .action(async (id: string, commandOptions: { args?: string; pretty?: boolean; progress: boolean }, command: Command) => {
      const options = globalsOf(command);
      if (options.json && commandOptions.pretty === true) throw cliErrors.invalidArgument('--pretty', 'cannot be used with --json');
      const args = await readToolArgs(commandOptions.args, io);
      await withSession(io, options, async (session) => {
        const display = progressDisplay(io.stderr, id, { enabled: commandOptions.progress, verbose: options.verbose });
        const runOptions: RunOptions = { signal: io.signal };
        if (display !== undefined) runOptions.onProgress = display.onProgress;
        let result: Result;
        try {
          result = await session.exec.runTool(id, args, runOptions);
          display?.finish(true);
        } finally {
          display?.finish(false);
        }
        if (options.json) writeJson(io.stdout, result);
        else if (commandOptions.pretty === true) {
          writePretty(io.stdout, result);
          writeLine(io.stderr, `toolexec: ${id} in ${formatMs(result.durationMs)}`);
        } else writeJson(io.stdout, result.value);
      });
    });
}
