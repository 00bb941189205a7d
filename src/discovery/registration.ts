/**
 * Registration input made ready for the index: a tool and a backend checked, copied and frozen
 * before anything changes, and the error that names the entry of a batch that was refused.
 */
import {
  backendIdentity,
  errorMessage,
  normalizeTags,
  toolId,
  validateBackend,
  validateTool,
  type BackendKind,
  type Tool,
  type ToolBackend,
} from '../model/index.js';
import { asLibraryError } from '../model/internal.js';
import type { ToolexecError } from '../model/index.js';
import { CopyLimitError, frozenCopy } from './freeze.js';
import { differingMcpFields } from './mcp-equality.js';
import { discoveryErrors as errors, guardErrors } from './errors.js';

/** A checked registration: the frozen tool and backend, the tool's ID, the backend's identity. */
export interface PreparedRegistration {
  readonly id: string;
  /** Deep-frozen copy of the tool (raw tags). */
  readonly tool: Tool;
  /** Frozen copy of the backend with only its kind and identity fields. */
  readonly backend: ToolBackend;
  readonly identity: string;
  readonly tags: readonly string[];
}

/** A frozen copy of a backend with only its kind and identity fields. */
function storedBackend(backend: ToolBackend): ToolBackend {
  switch (backend.kind) {
    case 'mcp':
      return Object.freeze({ kind: 'mcp', mcp: Object.freeze({ serverName: backend.mcp.serverName }) });
    case 'provider':
      return Object.freeze({
        kind: 'provider',
        provider: Object.freeze({ providerId: backend.provider.providerId, toolId: backend.provider.toolId }),
      });
    case 'local':
      return Object.freeze({ kind: 'local', local: Object.freeze({ name: backend.local.name }) });
  }
}

/**
 * The tool's deep-frozen copy, made before the tool is validated so that data past the copy's
 * limits (a sparse array of length 2^32-1 in `_meta` or `tags`) is refused before anything walks
 * it. When the copy fails otherwise, the tool's own validation error comes first, as it would
 * have without the copy.
 *
 * @throws `INVALID_TOOL`: `tool is too large to copy (...)` past the copy's limits, `tool is not
 * plain data (...)` for anything else the copy refuses; the errors of {@link validateTool}.
 */
function checkedTool(tool: Tool): Tool {
  let stored: Tool;
  try {
    stored = frozenCopy(tool);
  } catch (error) {
    if (error instanceof CopyLimitError) {
      throw errors.invalidTool(`tool is too large to copy (${error.message})`, { cause: error });
    }
    validateTool(tool);
    throw errors.invalidTool(`tool is not plain data (${errorMessage(error)})`, { cause: error });
  }
  validateTool(tool);
  return stored;
}

/**
 * Checks a tool and a backend and makes their frozen copies; changes nothing.
 *
 * @throws `INVALID_TOOL`, `INVALID_BACKEND`
 */
export function prepareRegistration(tool: Tool, backend: ToolBackend): PreparedRegistration {
  const stored = checkedTool(tool);
  validateBackend(backend);
  const frozenBackend = storedBackend(backend);
  return {
    id: toolId(tool),
    tool: stored,
    backend: frozenBackend,
    identity: backendIdentity(frozenBackend),
    tags: normalizeTags(stored.tags ?? []),
  };
}

/**
 * Checks that a tool registered again under `id` has the MCP fields of the one registered before.
 *
 * @throws `INVALID_TOOL` when they differ, `details.fields` naming them (`['inputSchema']`); to
 * replace a tool, unregister its backends first.
 */
export function checkSameMcpFields(id: string, before: Tool, after: Tool): void {
  const fields = differingMcpFields(before, after);
  if (fields.length === 0) return;
  throw errors.invalidTool(`tool "${id}" MCP fields differ from existing registration`, {
    details: {
      toolId: id,
      reason: 'MCP fields differ from existing registration',
      fields,
      hint: 'unregister every backend of the tool (unregisterBackend) before registering the changed tool',
    },
  });
}

// Control and format characters, and separators other than the plain space: invisible in a message.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/gu;

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * `text` with what a reader could not see written as code points (`U+200B`): invisible
 * characters, and the spaces of a run of spaces or at the end after the first.
 */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, codePoint).replace(/ {2,}| $/g, (run: string, offset: number, whole: string) => {
    const shown = run.length === 1 ? run : run.slice(1); // the first space of a run separates words
    const atEnd = offset + run.length === whole.length;
    return ` ${[...shown].map(codePoint).join(' ')}${atEnd ? '' : ' '}`;
  });
}

/** A caller's string quoted for a message, its invisible characters as `\uXXXX` escapes. */
function quoted(text: string): string {
  return JSON.stringify(text).replace(INVISIBLE, (char) => `\\u{${(char.codePointAt(0) as number).toString(16)}}`);
}

function readName(entry: unknown): unknown {
  try {
    return (entry as { tool?: { name?: unknown } } | null)?.tool?.name;
  } catch {
    return undefined;
  }
}

function readId(entry: unknown): string | undefined {
  try {
    const tool = (entry as { tool?: Tool } | null)?.tool;
    return tool !== undefined && tool !== null && typeof tool.name === 'string' ? toolId(tool) : undefined;
  } catch {
    return undefined;
  }
}

/** Where a batch failed, and what it left registered. */
export interface BatchPosition {
  /** The failing entry's position (0-based). */
  index: number;
  /** How many entries the batch had. */
  count: number;
  /** How many entries of the batch are registered now. */
  registered: number;
}

/**
 * The error of a batch whose entry at `position.index` was refused: the entry's own error (same
 * code, as `cause`), its message with invisible characters shown as code points, the entry's
 * position, name and ID, and what the batch left registered; `details` adds `index`, `count`,
 * `name`, `toolId` (when the tool has one) and `registered` to the entry's details.
 */
export function batchEntryError(error: unknown, entry: unknown, position: BatchPosition): ToolexecError {
  const base = asLibraryError(guardErrors, `registration ${position.index}`, error);
  const name = readName(entry);
  const id = readId(entry);
  const who = [`registration ${position.index} of ${position.count}`];
  if (typeof name === 'string') who.push(`name ${quoted(name)}`);
  if (id !== undefined && id !== name) who.push(`ID ${quoted(id)}`);
  const state =
    position.registered === 0
      ? 'nothing in the batch was registered'
      : `the ${position.registered} registration${position.registered === 1 ? '' : 's'} before it stay registered`;
  const details: Record<string, unknown> = { ...base.details };
  Object.assign(details, { index: position.index, count: position.count, registered: position.registered });
  if (typeof name === 'string') details.name = name;
  if (id !== undefined) details.toolId = id;
  return errors.batchEntry(base, `${visibleText(base.message)} (${who.join(', ')}; ${state})`, details);
}

/**
 * The identity of the backend `unregisterBackend` names (`backendId`: the server name, the local
 * name, or `providerId:toolId`); `undefined` for an unknown kind.
 *
 * @throws `INVALID_BACKEND` when `backendId` is not a string, or not `providerId:toolId` for a provider.
 */
export function identityOf(kind: BackendKind, backendId: string): string | undefined {
  if (typeof backendId !== 'string') throw errors.invalidBackend('backendID must be a string');
  if (kind === 'provider') {
    const colon = backendId.indexOf(':');
    if (colon < 0) throw errors.invalidBackend("provider backendID must be in format 'providerID:toolID'", { backendId });
    const providerId = backendId.slice(0, colon);
    const providerToolId = backendId.slice(colon + 1);
    if (providerId === '' || providerToolId === '') {
      throw errors.invalidBackend('provider backendID must have non-empty providerID and toolID', { backendId });
    }
    return backendIdentity({ kind, provider: { providerId, toolId: providerToolId } });
  }
  if (kind === 'mcp') return backendIdentity({ kind, mcp: { serverName: backendId } });
  if (kind === 'local') return backendIdentity({ kind, local: { name: backendId } });
  return undefined;
}
