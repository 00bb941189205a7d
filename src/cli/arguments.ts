/**
 * Values the command line carries: option parsers for commander (which turns their
 * `InvalidArgumentError` into a usage error), tool arguments as JSON, and snippets from files.
 */
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { ToolexecError, errorMessage, parseToolId } from '../model/index.js';
import { cliErrors } from './errors.js';
import { readStdin, type CliIO } from './io.js';

/** The value that stands for stdin in `--args -` and `exec -`. */
export const STDIN = '-';

/** A whole number ≥ 1 (`--limit`). */
export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
}

/** Milliseconds ≥ 1, or 0 for no deadline (`Infinity`) (`--timeout`). */
export function parseTimeoutMs(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('must be whole milliseconds (0: no deadline)');
  return n === 0 ? Infinity : n;
}

/**
 * A tool ID argument (`describe <id>`, `run <id>`), checked as the model reads IDs
 * (`namespace:name[:version]`) before anything loads or connects: an empty or malformed ID (more
 * than two `:`, an empty part) is `INVALID_TOOL_ID`, a usage error (exit 2) in every command that
 * takes one. No tool can have such an ID (the model refuses `:` in names and namespaces).
 */
export function parseToolIdArgument(value: string): string {
  try {
    parseToolId(value);
  } catch (error) {
    const reason =
      ToolexecError.isInstance(error) && typeof error.details?.reason === 'string' ? error.details.reason : errorMessage(error);
    throw cliErrors('INVALID_TOOL_ID', `<id>: ${reason} (a tool ID is namespace:name[:version]; \`toolexec tools\` lists them)`, {
      cause: error,
      details: { id: value, reason },
    });
  }
  return value;
}

/** Appends each occurrence of a repeatable option (`--tools a --tools b`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The prefix of `--args @file`: the arguments are the JSON object in that file (no JSON text starts with it). */
export const FROM_FILE = '@';

/** The text of `--args`: stdin for `-`, a file's for `@file`, else the option's own; and what to call it in errors. */
async function argsText(given: string, io: CliIO): Promise<{ text: string; where: string }> {
  if (given === STDIN) return { text: await readStdin(io), where: 'the arguments on stdin' };
  if (!given.startsWith(FROM_FILE)) return { text: given, where: '--args' };
  const file = given.slice(FROM_FILE.length);
  try {
    return { text: await readFile(resolve(io.cwd, file), 'utf8'), where: `--args ${given}:` };
  } catch (error) {
    throw cliErrors.invalidArgument('--args', `${given}: ${file} cannot be read (${errorMessage(error)})`, { cause: error });
  }
}

/**
 * The tool's arguments: `--args` as a JSON object, stdin's JSON object for `-`, or the JSON object
 * in a file for `@file`. `INVALID_ARGUMENT` (a usage error) for text that is not JSON or not an object.
 */
export async function readToolArgs(given: string | undefined, io: CliIO): Promise<Record<string, unknown>> {
  if (given === undefined) return {};
  const { text, where } = await argsText(given, io);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const hint =
      where === '--args' ? ` (quote it for the shell: --args '{"name":"value"}'; or --args @file, --args ${STDIN} for stdin)` : '';
    throw cliErrors.invalidArgument(where, `must be a JSON object (${errorMessage(error)})${hint}`, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const got = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : typeof parsed;
    throw cliErrors.invalidArgument(where, `must be a JSON object (got ${got})`);
  }
  return parsed as Record<string, unknown>;
}

/** Languages inferred from a snippet file's extension (the rest: the facade's default, JavaScript). */
const LANGUAGE_OF_EXTENSION: Readonly<Record<string, string>> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.py': 'python',
};

/** A snippet: its code and the language its file's extension says (none for stdin or an unknown extension). */
export async function readSnippet(file: string, io: CliIO): Promise<{ code: string; language?: string }> {
  if (file === STDIN) return { code: await readStdin(io) };
  let code: string;
  try {
    code = await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw cliErrors.invalidArgument('<file>', `${file} cannot be read (${errorMessage(error)})`, { cause: error });
  }
  const language = LANGUAGE_OF_EXTENSION[extname(file).toLowerCase()];
  return language === undefined ? { code } : { code, language };
}
