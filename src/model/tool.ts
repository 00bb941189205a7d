import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import semver from 'semver';
import { layerErrors, modelErrors } from './error-factory.js';
import { asLibraryError, guardCall } from './options-reader.js';

/** Errors for a caller's value that cannot be read at all (a throwing getter, a revoked proxy). */
const guardErrors = layerErrors('model');
import { normalizeTags } from './tags.js';
import { SchemaProblem, describeType, isPlainObject, parseSchemaText, safeJson, unsupportedOfficialDialect } from './schema-source.js';

export type { McpTool };

/** The MCP protocol revision this library targets. */
export const MCP_VERSION = '2025-11-25';

/** Longest tool name, in UTF-8 bytes. */
export const MAX_TOOL_NAME_LENGTH = 128;

/**
 * The canonical tool: an MCP tool plus the stack's extensions.
 *
 * @remarks
 * `namespace` and `version` become part of the tool ID ({@link toolId}); `tags` are kept raw on the
 * tool and normalized ({@link normalizeTags}) wherever they are searched or summarized.
 */
export interface Tool extends McpTool {
  /** Groups tools; the ID is `namespace:name` (or `namespace:name:version`). */
  namespace?: string;
  /** A semantic version, `1.2.3` or `v1.2.3`; part of the ID when a namespace is set. */
  version?: string;
  /** Free-form discovery tags. */
  tags?: string[];
}

/** The parts of a tool ID. */
export interface ParsedToolId {
  /** The part before the first `:`; undefined for a bare name. */
  namespace?: string;
  /** The tool's name (the whole ID when it has no `:`). */
  name: string;
  /** The part after the second `:`; undefined when the ID has fewer than two `:`. */
  version?: string;
}

const NAME_CHAR = /^[A-Za-z0-9_.-]$/u;

/** UTF-8 byte length of a string, without allocating. */
export function utf8ByteLength(value: string): number {
  if (typeof value !== 'string') throw guardErrors.invalidArgument('value', 'must be a string');
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Cuts `value` to at most `maxBytes` UTF-8 bytes without splitting a character.
 */
export function truncateUtf8(value: string, maxBytes: number): string {
  if (typeof value !== 'string') throw guardErrors.invalidArgument('value', 'must be a string');
  if (typeof maxBytes !== 'number' || Number.isNaN(maxBytes)) throw guardErrors.invalidArgument('maxBytes', 'must be a number');
  if (value.length <= maxBytes / 3 || utf8ByteLength(value) <= maxBytes) return value;
  let bytes = 0;
  let end = 0;
  for (const char of value) {
    const size = utf8ByteLength(char);
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return value.slice(0, end);
}

const { invalidTool, invalidToolId } = modelErrors;

/**
 * Checks a tool against the model's rules, in the Go order: name present, name at most 128 bytes,
 * name characters in `[A-Za-z0-9_.-]`, `inputSchema` present; then the optional
 * extensions: `namespace` a string, `version` a semantic version, `tags` an array of strings;
 * then the shape MCP requires of `inputSchema`: a JSON Schema object (or its JSON text, as a
 * string or UTF-8 bytes) whose root `type`, when present, is `'object'`, or a boolean schema.
 *
 * @throws {@link ToolexecError} `INVALID_TOOL` naming the first rule broken.
 */
export function validateTool(tool: Tool): void {
  try {
    check(tool);
  } catch (err) {
    throw asLibraryError(guardErrors, 'tool', err);
  }
}

function check(tool: Tool): void {
  if (tool === null || typeof tool !== 'object') throw invalidTool('tool must be an object');
  const name: unknown = tool.name;
  if (name === undefined || name === null || name === '') throw invalidTool('name is required');
  if (typeof name !== 'string') throw invalidTool('name must be a string');
  if (utf8ByteLength(name) > MAX_TOOL_NAME_LENGTH) {
    throw invalidTool(`name exceeds ${MAX_TOOL_NAME_LENGTH} characters`);
  }
  const bad: string[] = [];
  for (const char of name) {
    if (!NAME_CHAR.test(char) && !bad.includes(char)) bad.push(char);
  }
  if (bad.length > 0) throw invalidTool(`name contains invalid characters: ${bad.join(', ')}`);
  if (tool.inputSchema === undefined || tool.inputSchema === null) {
    throw invalidTool('inputSchema is required');
  }
  const { namespace, version, tags } = tool as { namespace?: unknown; version?: unknown; tags?: unknown };
  if (namespace !== undefined && typeof namespace !== 'string') throw invalidTool('namespace must be a string');
  if (version !== undefined) {
    if (typeof version !== 'string') throw invalidTool('version must be a string');
    if (version !== '' && semver.valid(version) === null) {
      throw invalidTool(`version "${version}" is not a semantic version (expected 1.2.3 or v1.2.3)`);
    }
  }
  if (tags !== undefined && (!Array.isArray(tags) || !allStrings(tags))) {
    throw invalidTool('tags must be an array of strings');
  }
  checkInputSchema(tool.inputSchema, idOf(tool));
}

/**
 * The shape MCP requires of an input schema: a JSON Schema object (or JSON text of one) whose root
 * `type`, when present, is `'object'` (a list of types must include it). A boolean schema (or its
 * JSON text) is taken as it is. Only the root is looked at: the validator checks the rest when the
 * tool is first called.
 */
function checkInputSchema(inputSchema: unknown, id: string): void {
  const refuse = (problem: string, cause?: unknown): never => {
    throw invalidTool(`inputSchema of tool "${id}" ${problem}`, { cause, details: { toolId: id } });
  };
  let schema = inputSchema;
  if (typeof schema === 'string' || schema instanceof Uint8Array) {
    try {
      schema = parseSchemaText(schema);
    } catch (err) {
      refuse(`is not valid JSON text (${err instanceof SchemaProblem ? err.reason : String(err)})`, err);
    }
  }
  if (typeof schema === 'boolean') return;
  if (!isPlainObject(schema)) return refuse(`must be a JSON Schema object with type "object", got ${describeType(schema)}`);
  const dialectProblem = unsupportedOfficialDialect(schema.$schema);
  if (dialectProblem !== undefined) refuse(`cannot be evaluated: ${dialectProblem}`);
  const type = schema.type;
  if (type === undefined || type === 'object' || (Array.isArray(type) && type.includes('object'))) return;
  refuse(`must describe an object (type "object"), got type ${safeJson(type)}`);
}

/**
 * The canonical ID of a tool: `namespace:name:version` when both are set, `namespace:name` with a
 * namespace only, otherwise `name` (a version without a namespace is not part of the ID).
 * Nothing is escaped or validated beyond the types.
 *
 * @throws {@link ToolexecError} `INVALID_TOOL` when the tool is not an object or `name`,
 * `namespace` or `version` is not a string.
 */
export function toolId(tool: Pick<Tool, 'name' | 'namespace' | 'version'>): string {
  try {
    return idOf(tool);
  } catch (err) {
    throw asLibraryError(guardErrors, 'tool', err);
  }
}

function idOf(tool: Pick<Tool, 'name' | 'namespace' | 'version'>): string {
  if (tool === null || typeof tool !== 'object') throw invalidTool('tool must be an object');
  const { name, namespace, version } = tool as { name?: unknown; namespace?: unknown; version?: unknown };
  if (typeof name !== 'string') throw invalidTool('name must be a string');
  if (namespace === undefined || namespace === null || namespace === '') return name;
  if (typeof namespace !== 'string') throw invalidTool('namespace must be a string');
  if (version === undefined || version === null || version === '') return `${namespace}:${name}`;
  if (typeof version !== 'string') throw invalidTool('version must be a string');
  return `${namespace}:${name}:${version}`;
}

/**
 * Splits a tool ID into namespace, name and version.
 *
 * @remarks
 * Up to two `:` are allowed. With a `:`, namespace and name must be non-empty, and with two the
 * version must be non-empty too. Nothing is trimmed: `" "` is a valid name.
 *
 * @throws {@link ToolexecError} `INVALID_TOOL_ID`.
 */
export function parseToolId(id: string): ParsedToolId {
  if (typeof id !== 'string') throw invalidToolId(id, 'tool ID must be a string');
  if (id === '') throw invalidToolId(id, 'tool ID is empty');
  const parts = id.split(':');
  if (parts.length > 3) throw invalidToolId(id, `"${id}" has more than two ':'`);
  if (parts.length === 1) return { name: id };
  const [namespace = '', name = '', version] = parts;
  if (namespace === '') throw invalidToolId(id, `"${id}" has an empty namespace`);
  if (name === '') throw invalidToolId(id, `"${id}" has an empty name`);
  if (version === undefined) return { namespace, name };
  if (version === '') throw invalidToolId(id, `"${id}" has an empty version`);
  return { namespace, name, version };
}

/** A semantic version, as {@link parsedVersion} reads it (plain data: no library's class). */
export interface ParsedVersion {
  /** The version in canonical form (`v2.0.0` reads `2.0.0`). */
  readonly version: string;
  /** The major version. */
  readonly major: number;
  /** The minor version. */
  readonly minor: number;
  /** The patch version. */
  readonly patch: number;
  /** The pre-release identifiers (`1.0.0-alpha.1` → `['alpha', 1]`); empty for a release. */
  readonly prerelease: readonly (string | number)[];
  /** The build metadata identifiers (`1.0.0+sha.5` → `['sha', '5']`). */
  readonly build: readonly string[];
}

/**
 * The parsed semantic version of a tool.
 *
 * @throws {@link ToolexecError} `INVALID_TOOL` when the tool has no version or it is not semver.
 */
export function parsedVersion(tool: Pick<Tool, 'version'>): ParsedVersion {
  return guardCall(guardErrors, 'tool', () => parse(tool));
}

function parse(tool: Pick<Tool, 'version'>): ParsedVersion {
  if (tool === null || typeof tool !== 'object') throw invalidTool('tool must be an object');
  if (!tool.version) throw invalidTool('tool has no version');
  if (typeof tool.version !== 'string') throw invalidTool('version must be a string');
  const parsed = semver.parse(tool.version);
  if (parsed === null) throw invalidTool(`version "${tool.version}" is not a semantic version`);
  const { version, major, minor, patch, prerelease, build } = parsed;
  return Object.freeze({ version, major, minor, patch, prerelease: Object.freeze([...prerelease]), build: Object.freeze([...build]) });
}

/**
 * Returns a validated copy of `tool` with its tags normalized.
 *
 * @throws {@link ToolexecError} `INVALID_TOOL`.
 */
export function defineTool<T extends Tool>(tool: T): T {
  validateTool(tool);
  return guardCall(guardErrors, 'tool', () => {
    const copy = { ...tool };
    if (tool.tags !== undefined) copy.tags = normalizeTags(tool.tags);
    return copy;
  });
}

/** A deep copy of a tool (schemas, annotations, `_meta`, icons and tags included). */
export function cloneTool<T extends Tool>(tool: T): T {
  return guardCall(guardErrors, 'tool', () => structuredClone(tool));
}

/** The MCP wire form of a tool: the tool without `namespace`, `version` and `tags`. */
export function toMcpTool(tool: Tool): McpTool {
  return guardCall(guardErrors, 'tool', () => {
    // Never spread a string (5 MB would become 5 million properties): only an object is a tool.
    if (tool === null || typeof tool !== 'object' || Array.isArray(tool)) throw invalidTool('tool must be an object');
    const { namespace: _namespace, version: _version, tags: _tags, ...mcp } = tool;
    return mcp;
  });
}

/** Whether every index of `items` holds a string: a hole is not one (`some` would skip it), so a sparse array stops at its first hole. */
function allStrings(items: readonly unknown[]): boolean {
  for (let i = 0; i < items.length; i++) if (typeof items[i] !== 'string') return false;
  return true;
}
