import { expect } from 'vitest';
import { ToolexecError, type ErrorCode, type Tool, type ToolBackend } from '../../src/model/index.js';

/** The schema the Go cases call `S`. */
export const S = { type: 'object' } as const;

/** A valid tool: `name` plus whatever the case needs. */
export function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, inputSchema: { ...S }, ...extra };
}

export const mcp = (serverName: string): ToolBackend => ({ kind: 'mcp', mcp: { serverName } });
export const local = (name: string): ToolBackend => ({ kind: 'local', local: { name } });
export const provider = (providerId: string, toolId: string): ToolBackend => ({
  kind: 'provider',
  provider: { providerId, toolId },
});

/** Runs `fn`, asserts it throws a ToolexecError with `code`, and returns the error. */
export function expectCode(fn: () => unknown, code: ErrorCode): ToolexecError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(ToolexecError.isInstance(thrown), `expected a ToolexecError ${code}, got ${String(thrown)}`).toBe(true);
  expect((thrown as ToolexecError).code).toBe(code);
  return thrown as ToolexecError;
}

/** Decodes a page cursor's payload (the format is internal; tests use it to forge cursors). */
export function decodeCursorPayload(cursor: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
}

export function encodeCursorPayload(payload: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}
