/**
 * What a model reads of a code-mode run, the same from the AI SDK's `execute_code` (`codeTool`)
 * and from the meta-tool of that name (`agentTools`, `createMcpServer`): the snippet's value, the
 * tools it called with how often, what it printed; and a failed run told so that the model can act
 * on it.
 */
import { ToolexecError } from '../model/index.js';
import { codeResultOf, type CodeResult, type ToolCallRecord } from '../code/index.js';

/**
 * The `execute_code` tool's output: the tools the snippet called, what it did that is probably a
 * mistake, its value, what it printed. Its keys come in the order a model reads them (see
 * `codeRunOutput`).
 */
export interface CodeToolOutput {
  /**
   * Each tool the snippet called, once, in the order of its first call: its ID, how many calls it
   * made to it, and how many of those failed (absent when none did; the snippet caught them).
   */
  toolCalls: {
    /** The tool ID as the snippet passed it. */
    id: string;
    /** How many calls. */
    count: number;
    /** How many of them failed, when any did. */
    failed?: number;
  }[];
  /** What it did that is probably a mistake (a tool call left pending, ...). */
  warnings?: string[];
  /** What the snippet returned (or assigned to `__out`); `null` when nothing. */
  value: unknown;
  /** What it printed to stdout, when anything. */
  stdout?: string;
  /** What it printed to stderr, when anything. */
  stderr?: string;
}

/** Most characters of a failed snippet's output that go back to the model with its error. */
export const MAX_FAILURE_OUTPUT_CHARS = 2_000;

/** Each tool of a run's call records once, in the order of its first call, with how many calls and failures. */
export function toolCallCounts(calls: readonly ToolCallRecord[]): CodeToolOutput['toolCalls'] {
  const counts = new Map<string, CodeToolOutput['toolCalls'][number]>();
  for (const call of calls) {
    const entry = counts.get(call.toolId) ?? { id: call.toolId, count: 0 };
    entry.count += 1;
    if (call.error !== undefined) entry.failed = (entry.failed ?? 0) + 1;
    counts.set(call.toolId, entry);
  }
  return [...counts.values()];
}

/** The length of a value's JSON text; a value with none last (its failure is told downstream). */
function jsonChars(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? Number.MAX_SAFE_INTEGER;
  } catch {
    return Number.MAX_SAFE_INTEGER;
  }
}

/**
 * A finished run as the model reads it, its keys in reading order: `toolCalls` and `warnings`
 * (short: what the snippet did) first, then `value`, `stdout` and `stderr` from the shortest JSON
 * text to the longest. A model reads the run as its JSON text cut at `maxResultChars` (the one cut
 * of result-limit.ts, which keeps the start), so only the longest of them is cut (and any after it
 * that no longer fits): never the tool calls or the warnings, nor a short print beside a huge value.
 */
export function codeRunOutput(run: CodeResult): CodeToolOutput {
  // built key by key, in reading order (`value` is set below)
  const output = { toolCalls: toolCallCounts(run.toolCalls) } as CodeToolOutput;
  if (run.warnings !== undefined && run.warnings.length > 0) output.warnings = run.warnings.map((warning) => warning.message);
  const rest: { key: 'value' | 'stdout' | 'stderr'; field: unknown; chars: number }[] = [
    { key: 'value', field: run.value ?? null, chars: 0 },
  ];
  if (run.stdout !== '') rest.push({ key: 'stdout', field: run.stdout, chars: 0 });
  if (run.stderr !== '') rest.push({ key: 'stderr', field: run.stderr, chars: 0 });
  if (rest.length > 1) {
    for (const entry of rest) entry.chars = jsonChars(entry.field);
    // stable: equal lengths keep the order value, stdout, stderr
    rest.sort((a, b) => a.chars - b.chars);
  }
  for (const { key, field } of rest) Object.assign(output, { [key]: field });
  return output;
}

/**
 * A failed snippet's error as the model should read it (a tool-result error carries only the
 * message): the message, the line when the message does not say it, the tool calls that had
 * already succeeded (their effects happened: running the snippet again repeats them), and the end
 * of what it printed. The code, details and cause stay the facade's; anything else is returned as
 * it is.
 */
export function codeFailureForTheModel(err: unknown): unknown {
  if (!ToolexecError.isInstance(err)) return err;
  const lines = [err.message];
  const line = err.details?.line;
  if (typeof line === 'number' && line > 0 && !err.message.includes(`line ${line}`)) lines.push(`(at line ${line} of the snippet)`);
  const partial = codeResultOf(err);
  // each tool once, in the order of its first call, with how often it succeeded
  const done = toolCallCounts(partial?.toolCalls ?? [])
    .map(({ id, count, failed = 0 }) => ({ id, succeeded: count - failed }))
    .filter(({ succeeded }) => succeeded > 0);
  if (done.length > 0) {
    const calls = done.map(({ id, succeeded }) => (succeeded === 1 ? id : `${id} ×${succeeded}`));
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
