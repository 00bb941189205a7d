/**
 * Snippet preparation shared by every backend: language check and TypeScript stripping on the
 * host (a snippet named TypeScript, or naming no language), keeping the user's line numbers.
 */
import { Script } from 'node:vm';
import { transform } from 'sucrase';
import type { ToolexecError } from '../../model/index.js';
import { textOf } from '../../model/internal.js';
import { runtimeError } from './errors.js';

/** What {@link prepareSnippet} takes: the request's code and language. */
export interface SnippetSource {
  /** The snippet as the caller wrote it. */
  code: string;
  /** `javascript`/`js` or `typescript`/`ts`, case-insensitive; absent or `''`: either (TypeScript stripped). */
  language?: string;
}

/** A snippet ready to run in a JavaScript sandbox. */
export interface PreparedSnippet {
  /** JavaScript: the input, with any TypeScript syntax stripped unless it was named JavaScript (same line numbers). */
  code: string;
  /** Always `javascript`. */
  language: 'javascript';
}

const JAVASCRIPT = new Set(['javascript', 'js']);

/** The `language` values of Python snippets (case-insensitive). */
export const PYTHON_LANGUAGES: readonly string[] = ['python', 'py'];

/** True when `language` names Python (`python` or `py`, any case). */
export function isPythonLanguage(language: unknown): boolean {
  return typeof language === 'string' && PYTHON_LANGUAGES.includes(language.trim().toLowerCase());
}
const TYPESCRIPT = new Set(['typescript', 'ts']);

/** The snippet languages the library's runtime runs, by their names (`js`, `ts` and `py` are aliases, any case). */
export const SNIPPET_LANGUAGES: readonly string[] = ['javascript', 'typescript', 'python'];

/** True when `language` names one of {@link SNIPPET_LANGUAGES} or an alias of one, any case. */
export function isSnippetLanguage(language: unknown): boolean {
  if (typeof language !== 'string') return false;
  const name = language.trim().toLowerCase();
  return JAVASCRIPT.has(name) || TYPESCRIPT.has(name) || PYTHON_LANGUAGES.includes(name);
}

/**
 * Turns a request's code into JavaScript a sandbox can run.
 *
 * @remarks
 * A snippet named JavaScript runs as written. One named TypeScript, or naming no language, goes
 * through sucrase's TypeScript transform (`transforms: ['typescript']`, ES syntax left as is), which
 * leaves most plain JavaScript unchanged: a TypeScript snippet runs without naming its language
 * (JavaScript the transform reads as TypeScript, such as `a < b > (c)`, runs as written only when
 * named `javascript`). The transform keeps every line where it was, so line numbers in errors stay
 * the user's. Top-level `return` and `await` are accepted (the sandbox runs the snippet as the body
 * of an async function). A snippet naming no language that the transform cannot read is handed to
 * the sandbox as it is, so a JavaScript syntax error is the sandbox's own (`phase: 'compile'`).
 *
 * @throws `RUNTIME_UNAVAILABLE` for any other language (naming it); `CODE_EXECUTION` for a syntax
 * error in a snippet named TypeScript, with `details.line` and `details.column` (1-based).
 */
export function prepareSnippet(request: SnippetSource): PreparedSnippet {
  const language = (request.language ?? '').trim().toLowerCase();
  if (JAVASCRIPT.has(language)) return { code: request.code, language: 'javascript' };
  const typescript = TYPESCRIPT.has(language);
  if (!typescript && language !== '') {
    throw runtimeError(
      'RUNTIME_UNAVAILABLE',
      `runtime unavailable: language "${textOf(request.language ?? '')}" is not supported (use javascript, typescript or python)`,
      { details: { language: textOf(request.language) } },
    );
  }
  try {
    const output = transform(request.code, { transforms: ['typescript'], disableESTransforms: true });
    return { code: output.code, language: 'javascript' };
  } catch (err) {
    // no language named: a JavaScript syntax error is the sandbox's own, unless the code breaks
    // as JavaScript before the line where it breaks as TypeScript (TypeScript syntax, then a slip)
    if (!typescript) {
      const jsLine = javascriptErrorLine(request.code);
      const tsLine = errorLocation(err).line;
      if (jsLine === undefined || tsLine === undefined || jsLine >= tsLine) return { code: request.code, language: 'javascript' };
    }
    throw transpileError(err);
  }
}

/** The line and column (1-based) of a sucrase error. */
function errorLocation(err: unknown): { line?: number; column?: number } {
  const loc = (err as { loc?: { line?: unknown; column?: unknown } } | null)?.loc;
  return {
    ...(typeof loc?.line === 'number' ? { line: loc.line } : {}),
    ...(typeof loc?.column === 'number' ? { column: loc.column } : {}),
  };
}

/** The snippet line where `code` fails to compile as the body of an async function (compiled, never run). */
function javascriptErrorLine(code: string): number | undefined {
  try {
    new Script(`(async function () {\n${code}\n})`, { filename: 'snippet-check.js', lineOffset: -1 });
    return undefined;
  } catch (err) {
    const match = /snippet-check\.js:(\d+)/.exec(err instanceof Error ? (err.stack ?? '') : '');
    return match === null ? undefined : Number(match[1]);
  }
}

/** A TypeScript syntax error as `CODE_EXECUTION`, with its line and column. */
function transpileError(err: unknown): ToolexecError {
  const { line, column } = errorLocation(err);
  const reason = err instanceof Error ? err.message.replace(/\s*\(\d+:\d+\)$/, '') : String(err);
  const where = line === undefined ? '' : ` (line ${line}, col ${column ?? 0})`;
  return runtimeError('CODE_EXECUTION', `TypeScript syntax error: ${reason}${where}`, {
    cause: err,
    details: { ...(line === undefined ? {} : { line }), ...(column === undefined ? {} : { column }), phase: 'transpile' },
  });
}
