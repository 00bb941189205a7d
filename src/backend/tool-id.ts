import { parseToolId } from '../model/index.js';
import { errors } from './failures.js';

/** A tool ID split into the backend that serves it and the tool's name in that backend. */
export interface BackendToolId {
  /** The backend name; `''` when the ID has no `:`. */
  backend: string;
  /** The rest: `name`, or `name:version`. */
  tool: string;
}

/**
 * Splits `backend:tool`: `"github:create_issue:1.0.0"` gives backend
 * `github` and tool `create_issue:1.0.0`; `"toolonly"` gives backend `''`.
 *
 * @throws {@link toolexec/model!ToolexecError} `INVALID_TOOL_ID` for `''`, more than two `:`, or an empty part
 * (the model's error is the `cause`).
 */
export function parseBackendToolId(id: string): BackendToolId {
  let parsed: ReturnType<typeof parseToolId>;
  try {
    parsed = parseToolId(id);
  } catch (err) {
    throw errors('INVALID_TOOL_ID', 'invalid tool ID format', { cause: err, details: { id } });
  }
  if (parsed.namespace === undefined) return { backend: '', tool: parsed.name };
  return {
    backend: parsed.namespace,
    tool: parsed.version === undefined ? parsed.name : `${parsed.name}:${parsed.version}`,
  };
}

/** Joins a backend name and a tool name: `tool` alone when `backend` is `''`. */
export function formatBackendToolId(backend: string, tool: string): string {
  if (typeof backend !== 'string' || typeof tool !== 'string') throw errors.invalidArgument('backend and tool', 'must be strings');
  return backend === '' ? tool : `${backend}:${tool}`;
}
