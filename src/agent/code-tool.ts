/**
 * The AI SDK's `execute_code` tool: code mode for AI SDK agents.
 */
import type { JSONSchema7 } from 'ai';
import { layerErrors } from '../model/internal.js';
import type { Exec } from '../exec/index.js';
import { codeModeApi, type CodeModeApiOptions } from './code-mode-api.js';
import { checkSnippet } from './code-mode-check.js';
import { jsonOutput, loadAiSdk, type AiSdkTool } from './ai-sdk-peer.js';
import { codeFailureForTheModel, codeRunOutput, type CodeToolOutput } from './code-run-output.js';
import { aiSdkToolError } from './tool-results.js';
import { readMaxResultChars, type ResultLimitOptions } from './result-limit.js';
import { optionsError } from './option-errors.js';

export type { CodeToolOutput } from './code-run-output.js';

const errors = layerErrors('agent');

/**
 * Options of {@link codeTool}: the tools declared (as {@link CodeModeApiOptions}), how snippets run,
 * and how much of a run the model reads ({@link ResultLimitOptions}: `toModelOutput` and a
 * failure's text; the tool's `output` stays whole).
 */
export interface CodeToolOptions extends Omit<CodeModeApiOptions, 'language'>, ResultLimitOptions {
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
   * messages go back to the model as the tool's error. TypeScript only (`CONFIGURATION` with
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
 * line, `LIMIT_EXCEEDED`...), told more fully (the tool calls that had already succeeded, the end
 * of what it printed) and in the words `agentTools`' meta-tool `execute_code` uses
 * (`Error (CODE_EXECUTION): ...`), which the AI SDK hands back to the model. The output is
 * `{ toolCalls: [{ id, count, failed? }], warnings?, value, stdout?, stderr? }` (`value`, `stdout`
 * and `stderr` shortest first), the meta-tool's too; the model reads it as JSON, cut at
 * `maxResultChars` (100,000 characters by default) with a note saying how much was cut: what the
 * snippet called and the warnings come first and are kept whole, and only the longest of the rest
 * is cut.
 *
 * @throws `CONFIGURATION` for bad options (`maxResultChars` and the selection's included, and
 * `typecheck` beside `language: 'python'`); `TOOL_NOT_FOUND` for an unknown ID in `ids`;
 * `RUNTIME_UNAVAILABLE` when `ai` or json-schema-to-typescript is not installed. A model's empty
 * snippet is the call's `INVALID_ARGUMENT`, which the model reads as the tool's error.
 */
export async function codeTool(exec: Exec, options: CodeToolOptions = {}): Promise<AiSdkTool> {
  if (options === null || typeof options !== 'object') throw optionsError();
  const { typecheck = false, timeoutMs, maxToolCalls, language = 'typescript', maxResultChars, ...selection } = options;
  const maxChars = readMaxResultChars(maxResultChars);
  if (typeof typecheck !== 'boolean') throw errors.configuration('typecheck', 'must be a boolean');
  if (language !== 'typescript' && language !== 'javascript' && language !== 'python') {
    throw errors.configuration('language', `must be 'typescript', 'javascript' or 'python', got ${JSON.stringify(language)}`);
  }
  const python = language === 'python';
  if (python && typecheck) throw errors.configuration('typecheck', "type-checks TypeScript snippets only: not with language 'python'");
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs > 0)) {
    throw errors.configuration('timeoutMs', 'must be a positive number of milliseconds');
  }
  if (maxToolCalls !== undefined && !(Number.isInteger(maxToolCalls) && maxToolCalls >= 0)) {
    throw errors.configuration('maxToolCalls', 'must be an integer ≥ 0');
  }
  const ai = await loadAiSdk();
  const api = await codeModeApi(exec, { ...selection, language: python ? 'python' : 'typescript' });
  const declared = python ? 'the stub of its module `tools`, in Python:\n```python' : 'declared in TypeScript:\n```ts';
  const description = `Runs a code snippet that calls tools, in a sandbox. ${api.prompt}\n\nThe snippet's API, ${declared}\n${api.declarations}\n\`\`\``;
  const runSnippet = async (code: string, abortSignal: AbortSignal | undefined): Promise<CodeToolOutput> => {
    if (code.trim() === '') throw errors.invalidArgument('code', 'must be a non-empty snippet');
    if (typecheck) {
      const check = await checkSnippet(api, code);
      if (!check.ok) {
        throw errors('VALIDATION', `the snippet does not type-check against the declared API; fix it and run it again:\n${check.text}`, {
          details: { diagnostics: check.diagnostics },
        });
      }
    }
    const run = await exec.executeCode({
      code,
      language: python ? 'python' : 'typescript',
      ...(abortSignal === undefined ? {} : { signal: abortSignal }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(maxToolCalls === undefined ? {} : { maxToolCalls }),
    });
    return codeRunOutput(run);
  };
  return ai.tool<CodeToolInput, CodeToolOutput, Record<string, unknown>>({
    description,
    inputSchema: ai.jsonSchema<CodeToolInput>(codeInputSchema(python)),
    // every failure reads as the meta-tool's execute_code words it (agentTools' error text)
    execute: async (input, { abortSignal }) => {
      try {
        return await runSnippet(typeof input?.code === 'string' ? input.code : '', abortSignal);
      } catch (err) {
        throw aiSdkToolError(codeFailureForTheModel(err), maxChars);
      }
    },
    // the run as JSON, cut at maxResultChars as text when longer; `output`, the app's, stays whole
    toModelOutput: ({ output }) => jsonOutput(output, maxChars),
  });
}
