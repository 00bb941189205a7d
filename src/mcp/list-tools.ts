/**
 * The checks of a `tools/list` page: the page's own shape strictly (a `tools` array, an optional
 * string `nextCursor`), each tool on its own, so that one malformed tool is refused alone (with a
 * short reason naming its field) and the server's other tools are still listed.
 *
 * @internal
 * @module
 */
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ToolexecError, McpTool } from '../model/index.js';
import { describeValue, modelErrors } from '../model/internal.js';
import { errors } from './errors.js';

/** A listed tool without the shape MCP requires, and why (`INVALID_TOOL`). */
export interface RejectedListedTool {
  /** The tool as the server sent it. */
  tool: unknown;
  /** `INVALID_TOOL`: `invalid tool: <the first problem, naming the field>`. */
  error: ToolexecError;
}

/** One page of a `tools/list` answer, its tools checked one by one. */
export interface CheckedToolsPage {
  /** The tools that have the shape MCP requires (as the SDK's `ToolSchema` parses them). */
  tools: McpTool[];
  /** Each tool that does not, with an `INVALID_TOOL` error saying why. */
  rejected: RejectedListedTool[];
  /** The cursor of the next page, when there is one. */
  nextCursor: string | undefined;
}

/**
 * Checks one `tools/list` result.
 *
 * @throws `PROTOCOL` naming the server when the page itself is malformed (not an object, `tools`
 * not an array, `nextCursor` not a string): nothing on it can be trusted.
 */
export function checkToolsPage(serverName: string, result: unknown): CheckedToolsPage {
  const refuse = (problem: string): never => {
    throw errors('PROTOCOL', `MCP server "${serverName}" sent an invalid tools/list result: ${problem}`, {
      details: { serverName },
    });
  };
  if (result === null || typeof result !== 'object' || Array.isArray(result)) refuse(`expected an object, got ${describeValue(result)}`);
  const { tools, nextCursor } = result as { tools?: unknown; nextCursor?: unknown };
  if (!Array.isArray(tools)) refuse(tools === undefined ? 'tools is missing' : `tools must be an array (got ${describeValue(tools)})`);
  if (nextCursor !== undefined && typeof nextCursor !== 'string') refuse(`nextCursor must be a string (got ${describeValue(nextCursor)})`);
  const page: CheckedToolsPage = { tools: [], rejected: [], nextCursor: nextCursor as string | undefined };
  for (const tool of tools as unknown[]) {
    const parsed = ToolSchema.safeParse(tool);
    if (parsed.success) {
      page.tools.push(parsed.data);
    } else {
      const reason = describeIssues(tool, parsed.error.issues);
      page.rejected.push({ tool, error: modelErrors.invalidTool(reason, { details: { serverName, tool: nameOf(tool) } }) });
    }
  }
  return page;
}

/** What is read of a zod issue (v3 and v4 alike). */
interface Issue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: unknown;
  values?: readonly unknown[];
}

/** The first problem of a tool, in a few words naming the field: `inputSchema is missing`. */
function describeIssues(tool: unknown, issues: readonly Issue[]): string {
  const first = issues[0];
  if (first === undefined) return 'it does not have the shape MCP requires';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more ${issues.length === 2 ? 'problem' : 'problems'})` : '';
  return `${describeIssue(tool, first)}${more}`;
}

function describeIssue(tool: unknown, issue: Issue): string {
  const field = fieldName(issue.path);
  const actual = valueAt(tool, issue.path);
  if (issue.path.length === 0 && (tool === null || typeof tool !== 'object' || Array.isArray(tool))) {
    return `a tool must be an object (got ${describeValue(tool)})`;
  }
  if (issue.code === 'invalid_type') {
    if (actual === undefined) return `${field} is missing`;
    return `${field} must be ${typeName(issue.expected)} (got ${describeValue(actual)})`;
  }
  if (issue.code === 'invalid_value' && Array.isArray(issue.values) && issue.values.length > 0) {
    return `${field} must be ${issue.values.map((value) => JSON.stringify(value)).join(' or ')} (got ${describeValue(actual)})`;
  }
  const message = issue.message.replace(/^Invalid input:?\s*/i, '');
  return `${field}: ${message === '' ? issue.code : message}`;
}

/** `inputSchema.type`, `icons[0].src`; `the tool` for the tool itself. */
function fieldName(path: readonly PropertyKey[]): string {
  let name = '';
  for (const key of path) name += typeof key === 'number' ? `[${key}]` : `${name === '' ? '' : '.'}${String(key)}`;
  return name === '' ? 'the tool' : name;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function typeName(expected: unknown): string {
  switch (expected) {
    case 'object':
    case 'record':
      return 'an object';
    case 'array':
      return 'an array';
    case 'string':
    case 'number':
    case 'boolean':
      return `a ${expected}`;
    case 'int':
      return 'an integer';
    default:
      return typeof expected === 'string' ? expected : 'something else';
  }
}

function nameOf(tool: unknown): string {
  const name = tool !== null && typeof tool === 'object' ? (tool as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : describeValue(name);
}
