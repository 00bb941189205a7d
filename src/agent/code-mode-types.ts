/**
 * The fixed part of the code-mode declarations: the snippet's global `tools` (the six methods of
 * the guest's tools bridge, src/runtime/guest/shared/tools.ts) and what they resolve to (the
 * gateway's replies: run results, chain results, discovery records), plus `console`, the timers
 * and `__out`. The generated part (each selected tool's `ToolArgs` / `ToolResults` entry) goes
 * before it.
 */

/** Names the fixed part declares; a generated namespace never takes one. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  'ToolArgs',
  'ToolResults',
  'ToolId',
  'ToolArgsParam',
  'ToolDefinition',
  'ToolBackend',
  'RunResult',
  'ToolSummary',
  'ToolDoc',
  'ToolExample',
  'ChainStep',
  'StepError',
  'StepResult',
  'ChainResult',
  'ToolCallError',
  'Tools',
  'Console',
]);

/** The snippet environment's declarations, after the generated `ToolArgs` and `ToolResults`. */
export const ENVIRONMENT_DECLARATIONS = `/** Every tool ID declared above. */
type ToolId = keyof ToolArgs;

/** runTool's arguments parameter: optional when the tool requires no argument. */
type ToolArgsParam<K extends ToolId> = {} extends ToolArgs[K] ? [args?: ToolArgs[K]] : [args: ToolArgs[K]];

/** A tool's definition, as MCP describes it, plus toolexec's namespace, version and tags. */
interface ToolDefinition {
  name: string;
  namespace?: string;
  version?: string;
  title?: string;
  description?: string;
  tags?: string[];
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };
  outputSchema?: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

/** Where a tool ran. */
type ToolBackend =
  | { kind: 'local'; local: { name: string } }
  | { kind: 'provider'; provider: { providerId: string; toolId: string } }
  | { kind: 'mcp'; mcp: { serverName: string } };

/** What runTool resolves to. */
interface RunResult<R = unknown> {
  /** The tool's result: read it here. */
  structured: R;
  /** The tool that ran (read-only: one object shared by the run's calls of this tool). */
  readonly tool: ToolDefinition;
  /** Where it ran (read-only, shared like the tool). */
  readonly backend: ToolBackend;
  /** An MCP tool's result as the server sent it (every content block, images as base64). */
  mcpResult?: { content: Array<{ type: string; [key: string]: unknown }>; structuredContent?: Record<string, unknown>; isError?: boolean };
}

/** One search hit. */
interface ToolSummary {
  id: string;
  name: string;
  namespace?: string;
  summary?: string;
  shortDescription?: string;
  category?: string;
  tags?: string[];
}

/** A worked example of calling a tool. */
interface ToolExample {
  id?: string;
  title: string;
  description: string;
  args: Record<string, unknown> | null;
  resultHint?: string;
}

/** A tool's documentation: 'summary' (summary, annotations), 'schema' (+ tool with its schemas, schemaInfo), 'full' (+ notes, examples). */
interface ToolDoc {
  summary: string;
  tool?: ToolDefinition;
  annotations?: Record<string, unknown>;
  schemaInfo?: { required?: string[]; defaults?: Record<string, unknown>; types?: Record<string, string[]> };
  notes?: string;
  examples?: ToolExample[];
  externalRefs?: string[];
}

/** One chain step. */
interface ChainStep {
  toolId: ToolId | (string & {});
  /** The step's own arguments. */
  args?: Record<string, unknown>;
  /** Pass the previous step's result as args.previous. */
  usePrevious?: boolean;
  /** Arguments taken from the previous step's result: argument name → JSON pointer ('/items/0/sku'; '' is the whole result). */
  argsFrom?: Record<string, string>;
}

/** A failed chain step's error (a plain object). */
interface StepError {
  name: string;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** What happened to one chain step. */
interface StepResult {
  toolId: string;
  backend?: ToolBackend;
  /** The step's result (absent for the failed step). */
  result?: RunResult;
  error?: StepError;
}

/** What runChain resolves to. */
interface ChainResult {
  /** The last step's result (absent for an empty chain). */
  result?: RunResult;
  steps: StepResult[];
}

/** What a failed tools.* call rejects with. */
interface ToolCallError extends Error {
  /** VALIDATION (details.violations name each field), TOOL_NOT_FOUND (details.suggestions), EXECUTION, TIMEOUT, LIMIT_EXCEEDED, ... */
  code: string;
  details?: Record<string, unknown>;
  toolId?: string;
  /** runChain: every step's outcome. */
  steps?: StepResult[];
}

/** The snippet's tools. Every method is async: await it. */
interface Tools {
  /**
   * Runs a tool, its arguments checked against its schema: read the result from .structured.
   * A tool declared above has typed arguments and result; one found with searchTools does not (read its schema with describeTool first).
   */
  runTool<I extends string>(id: I, ...args: I extends ToolId ? ToolArgsParam<I> : [args?: Record<string, unknown>]): Promise<RunResult<I extends ToolId ? ToolResults[I] : unknown>>;
  /** Runs steps in order, stopping at the first failure (which rejects with .steps). */
  runChain(steps: ChainStep[]): Promise<ChainResult>;
  /** Full-text search over every tool. @param limit default 10 */
  searchTools(query: string, limit?: number): Promise<ToolSummary[]>;
  /** The tools' namespaces. */
  listNamespaces(): Promise<string[]>;
  /** A tool's documentation. @param level default 'summary' */
  describeTool(id: ToolId | (string & {}), level?: 'summary' | 'schema' | 'full'): Promise<ToolDoc>;
  /** A tool's worked examples. @param max default 0: all */
  listToolExamples(id: ToolId | (string & {}), max?: number): Promise<ToolExample[]>;
}

declare const tools: Tools;

/** Output lands in the run's stdout (log, info, debug) or stderr (warn, error). */
interface Console {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  debug(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
}
declare const console: Console;

declare function setTimeout(callback: () => void, delayMs?: number): number;
declare function clearTimeout(id: number | undefined): void;
declare function setInterval(callback: () => void, delayMs?: number): number;
declare function clearInterval(id: number | undefined): void;

/** The snippet's value when it does not return one. */
declare var __out: unknown;
`;
