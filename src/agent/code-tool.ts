/**
 * The AI SDK's `execute_code` tool: code mode for AI SDK agents.
 */
import type { JSONSchema7 } from 'ai';
import { ToolexecError } from '../model/index.js';
import { layerErrors } from '../model/internal.js';
import { codeResultOf, type CodeResult } from '../code/index.js';
import type { Exec } from '../exec/index.js';
import { codeModeApi, type CodeModeApiOptions } from './code-mode-api.js';
import { checkSnippet } from './code-mode-check.js';
import { jsonValue, loadAiSdk, type AiSdkTool } from './ai-sdk-peer.js';

const errors = layerErrors('agent');

/** Options of {@link codeTool}. */
export interface CodeToolOptions extends Omit<CodeModeApiOptions, 'language'> {
  /**
   * The language the model writes snippets in: `'typescript'` (JavaScript too) or `'python'`. It
   * picks the API in the tool's description (TypeScript declarations, or the Python stub of the
   * module `tools`) and the language the snippets run as (`exec.executeCode({ language })`: Python
   * runs in Pyodide for `standard` / `hardened`, see docs/guests.md). @defaultValue 'typescript'
   */
  language?: 'typescript' | 'javascript' | 'python';
  /**
   * Type-check each snippet against the declarations before it runs (needs the optional peer
   * dependency `typescript`): a snippet that does not compile is not run, and the compiler's
   * messages go back to the model as the tool's error. TypeScript only (`INVALID_ARGUMENT` with
   * `language: 'python'`). @defaultValue false
   */
  typecheck?: boolean;
  /** Wall-clock budget of each snippet, in milliseconds. @defaultValue the facade's */
  timeoutMs?: number;
  /** Most tool calls one snippet may make. @defaultValue the facade's `maxToolCalls` */
  maxToolCalls?: number;
}

/** The `execute_code` tool's input. */
export interface CodeToolInput {
  /** The snippet, in the tool's language (TypeScript / JavaScript, or Python). */
  code: string;
}

/** The `execute_code` tool's output: the snippet's value and what it printed. */
export interface CodeToolOutput {
  /** What the snippet returned (or assigned to `__out`); `null` when nothing. */
  value: unknown;
  /** The tool IDs the snippet called, in completion order. */
  toolCalls: string[];
  /** What it printed to stdout, when anything. */
  stdout?: string;
  /** What it printed to stderr, when anything. */
  stderr?: string;
  /** What it did that is probably a mistake (a tool call left pending, ...). */
  warnings?: string[];
}

/** Most characters of a failed snippet's output that go back to the model with its error. */
const MAX_FAILURE_OUTPUT_CHARS = 2_000;

/**
 * A failed snippet's error as the model should read it (the AI SDK hands only the message on):
 * the message, the line when the message does not say it, the tool calls that had already
 * succeeded (their effects happened: running the snippet again repeats them), and the end of what
 * it printed. The code, details and cause stay the facade's.
 */
function forTheModel(err: unknown): unknown {
  if (!ToolexecError.isInstance(err)) return err;
  const lines = [err.message];
  const line = err.details?.line;
  if (typeof line === 'number' && line > 0 && !err.message.includes(`line ${line}`)) lines.push(`(at line ${line} of the snippet)`);
  const partial = codeResultOf(err);
  // each tool once, in the order of its first success, with how often it succeeded
  const done = new Map<string, number>();
  for (const call of partial?.toolCalls ?? []) if (call.error === undefined) done.set(call.toolId, (done.get(call.toolId) ?? 0) + 1);
  if (done.size > 0) {
    const calls = [...done].map(([toolId, count]) => (count === 1 ? toolId : `${toolId} ×${count}`));
    lines.push(`Tool calls that had already succeeded (their effects happened): ${calls.join(', ')}`);
  }
  const printed = `${partial?.stdout ?? ''}${partial?.stderr ?? ''}`;
  if (printed !== '') {
    const tail = printed.length > MAX_FAILURE_OUTPUT_CHARS ? `…${printed.slice(-MAX_FAILURE_OUTPUT_CHARS)}` : printed;
    lines.push(`What it printed before failing:\n${tail}`);
  }
  if (lines.length === 1) return err;
  // the same failure told more fully: the facade's code, details and cause
  return new ToolexecError(err.code, lines.join('\n'), {
    ...(err.cause === undefined ? {} : { cause: err.cause }),
    ...(err.details === undefined ? {} : { details: err.details }),
  });
}

function codeInputSchema(python: boolean): JSONSchema7 {
  const description = python
    ? 'The Python snippet: its last expression is the value.'
    : 'The TypeScript or JavaScript snippet: the body of an async function.';
  return {
    type: 'object',
    properties: { code: { type: 'string', minLength: 1, description } },
    required: ['code'],
    additionalProperties: false,
  };
}

/**
 * One AI SDK tool, `execute_code`, that runs a model's snippet in toolexec's sandbox (the facade's
 * `executeCode`: WASM by default, on any Node host), its description carrying the code-mode API
 * of the selected tools ({@link codeModeApi}: the prompt and the TypeScript declarations, or with
 * `language: 'python'` the Python prompt and the stub of the module `tools`).
 *
 * @remarks
 * Snippets run as TypeScript (JavaScript is TypeScript too), or as Python with `language:
 * 'python'` (the facade's runtime must run Python: Pyodide for `standard` / `hardened`), under the facade's profile, call
 * budget and deadline (`timeoutMs`, `maxToolCalls` override them); `execute`'s `abortSignal`
 * stops the run. With `typecheck: true` a snippet is checked against the declarations first
 * ({@link checkSnippet}) and one that does not compile fails with `VALIDATION` listing the
 * compiler's messages. A failed run rejects with the facade's error (`CODE_EXECUTION` with the
 * line, `LIMIT_EXCEEDED`...), whose message the AI SDK hands back to the model.
 *
 * @throws `INVALID_ARGUMENT` for bad options; `RUNTIME_UNAVAILABLE` when `ai` or
 * json-schema-to-typescript is not installed.
 */
export async function codeTool(exec: Exec, options: CodeToolOptions = {}): Promise<AiSdkTool> {
  if (options === null || typeof options !== 'object') throw errors.invalidArgument('options', 'must be an object');
  const { typecheck = false, timeoutMs, maxToolCalls, language = 'typescript', ...selection } = options;
  if (typeof typecheck !== 'boolean') throw errors.invalidArgument('option typecheck', 'must be a boolean');
  if (language !== 'typescript' && language !== 'javascript' && language !== 'python') {
    throw errors.invalidArgument('option language', `must be 'typescript', 'javascript' or 'python', got ${JSON.stringify(language)}`);
  }
  const python = language === 'python';
  if (python && typecheck)
    throw errors.invalidArgument('option typecheck', "type-checks TypeScript snippets only: not with language 'python'");
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs > 0)) {
    throw errors.invalidArgument('option timeoutMs', 'must be a positive number of milliseconds');
  }
  if (maxToolCalls !== undefined && !(Number.isInteger(maxToolCalls) && maxToolCalls >= 0)) {
    throw errors.invalidArgument('option maxToolCalls', 'must be an integer ≥ 0');
  }
  const ai = await loadAiSdk();
  const api = await codeModeApi(exec, { ...selection, language: python ? 'python' : 'typescript' });
  const declared = python ? 'the stub of its module `tools`, in Python:\n```python' : 'declared in TypeScript:\n```ts';
  const description = `Runs a code snippet that calls tools, in a sandbox. ${api.prompt}\n\nThe snippet's API, ${declared}\n${api.declarations}\n\`\`\``;
  return ai.tool<CodeToolInput, CodeToolOutput, Record<string, unknown>>({
    description,
    inputSchema: ai.jsonSchema<CodeToolInput>(codeInputSchema(python)),
    execute: async (input, { abortSignal }) => {
      const code = typeof input?.code === 'string' ? input.code : '';
      if (code.trim() === '') throw errors.invalidArgument('code', 'must be a non-empty snippet');
      if (typecheck) {
        const check = await checkSnippet(api, code);
        if (!check.ok) {
          throw errors('VALIDATION', `the snippet does not type-check against the declared API; fix it and run it again:\n${check.text}`, {
            details: { diagnostics: check.diagnostics },
          });
        }
      }
      let run: CodeResult;
      try {
        run = await exec.executeCode({
          code,
          language: python ? 'python' : 'typescript',
          ...(abortSignal === undefined ? {} : { signal: abortSignal }),
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          ...(maxToolCalls === undefined ? {} : { maxToolCalls }),
        });
      } catch (err) {
        throw forTheModel(err);
      }
      const output: CodeToolOutput = { value: run.value ?? null, toolCalls: run.toolCalls.map((call) => call.toolId) };
      if (run.stdout !== '') output.stdout = run.stdout;
      if (run.stderr !== '') output.stderr = run.stderr;
      if (run.warnings !== undefined && run.warnings.length > 0) output.warnings = run.warnings.map((warning) => warning.message);
      return output;
    },
    toModelOutput: ({ output }) => ({ type: 'json', value: jsonValue(output) }),
  });
}
