/**
 * Tool calls a snippet left pending: what its guest reported when the snippet returned (a missing
 * `await`), as warnings on the result or, in strict mode, as the run's failure.
 */
import { GATEWAY_METHODS, GATEWAY_REQUEST_TYPES, type GatewayRequestType } from '../gateway/codec.js';
import type { RunFailure } from './failure.js';
import type { SnippetWarning } from './types.js';

/** The most pending calls a result names (a snippet may leave thousands). */
const MAX_PENDING_REPORTED = 100;
/** The longest tool ID a warning quotes. */
const MAX_TOOL_ID_CHARS = 200;

const REQUEST_TYPES: ReadonlySet<unknown> = new Set(GATEWAY_REQUEST_TYPES);

/** One pending call as a warning. */
function warningOf(type: GatewayRequestType, toolId: string | undefined): SnippetWarning {
  const method = GATEWAY_METHODS[type];
  const call = `tools.${method}(${toolId === undefined ? '' : `'${toolId}'`})`;
  return {
    code: 'PENDING_TOOL_CALL',
    message: `${call} was still pending when the snippet returned: a missing await?`,
    method,
    ...(toolId === undefined ? {} : { toolId }),
  };
}

/**
 * The warnings for the calls a guest reported pending (`GuestResultMessage.pending`), read
 * defensively: anything malformed is skipped, at most {@link MAX_PENDING_REPORTED} are kept.
 */
export function pendingCallWarnings(reported: unknown): SnippetWarning[] {
  if (!Array.isArray(reported)) return [];
  const warnings: SnippetWarning[] = [];
  for (const item of reported as unknown[]) {
    if (warnings.length >= MAX_PENDING_REPORTED) break;
    if (item === null || typeof item !== 'object') continue;
    const { type, toolId } = item as { type?: unknown; toolId?: unknown };
    if (!REQUEST_TYPES.has(type)) continue;
    const id = typeof toolId === 'string' && toolId !== '' ? toolId.slice(0, MAX_TOOL_ID_CHARS) : undefined;
    warnings.push(warningOf(type as GatewayRequestType, id));
  }
  return warnings;
}

const TYPE_OF_METHOD: ReadonlyMap<unknown, GatewayRequestType> = new Map(
  (Object.entries(GATEWAY_METHODS) as [GatewayRequestType, string][]).map(([type, method]) => [method, type]),
);

/**
 * Warnings read back from their JSON form (a remote server's result): each rebuilt from its
 * `method` and `toolId`, anything else skipped.
 */
export function readSnippetWarnings(value: unknown): SnippetWarning[] {
  if (!Array.isArray(value)) return [];
  const calls = (value as unknown[]).map((item) => {
    const { code, method, toolId } = (item !== null && typeof item === 'object' ? item : {}) as Record<string, unknown>;
    return code === 'PENDING_TOOL_CALL' ? { type: TYPE_OF_METHOD.get(method), toolId } : undefined;
  });
  return pendingCallWarnings(calls);
}

/** The strict mode's failure for pending calls: `CODE_EXECUTION` naming the first (and how many more). */
export function pendingCallFailure(warnings: readonly SnippetWarning[]): RunFailure {
  const first = warnings[0] as SnippetWarning;
  const more = warnings.length > 1 ? ` (and ${warnings.length - 1} more pending call${warnings.length > 2 ? 's' : ''})` : '';
  return {
    code: 'CODE_EXECUTION',
    message: `code execution error: ${first.message}${more}`,
    details: {
      reason: 'pending_tool_call',
      pendingCalls: warnings.map((w) => ({ method: w.method, ...(w.toolId === undefined ? {} : { toolId: w.toolId }) })),
    },
  };
}
