import { layerErrors, modelErrors } from './error-factory.js';
import { describeValue, guardCall } from './options-reader.js';

const guardErrors = layerErrors('model');

/** Where a tool can be executed. */
export type BackendKind = 'local' | 'provider' | 'mcp';

/** The backend kinds, in the default selection priority. */
export const BACKEND_KINDS: readonly BackendKind[] = ['local', 'provider', 'mcp'];

/** A binding of a tool to one place that executes it. */
export type ToolBackend =
  | {
      /** A handler registered in-process. */
      kind: 'local';
      /** The local handler's binding. */
      local: {
        /** The name the handler is registered under. */
        name: string;
      };
    }
  | {
      /** A tool served by a registered provider executor. */
      kind: 'provider';
      /** The provider's binding. */
      provider: {
        /** The provider's ID. */
        providerId: string;
        /** The tool's ID within that provider. */
        toolId: string;
      };
    }
  | {
      /** A tool served by an MCP server. */
      kind: 'mcp';
      /** The MCP server's binding. */
      mcp: {
        /** The name of the configured MCP server. */
        serverName: string;
      };
    };

/** A backend bound to a local handler registered under `name`. */
export function localBackend(name: string): ToolBackend {
  return { kind: 'local', local: { name } };
}

/** A backend bound to the tool `toolId` of the provider `providerId`. */
export function providerBackend(providerId: string, toolId: string): ToolBackend {
  return { kind: 'provider', provider: { providerId, toolId } };
}

/** A backend bound to the MCP server named `serverName`. */
export function mcpBackend(serverName: string): ToolBackend {
  return { kind: 'mcp', mcp: { serverName } };
}

const { invalidBackend } = modelErrors;

/**
 * Checks that a backend has the sub-object its kind needs, with non-empty identity fields.
 *
 * @throws {@link ToolexecError} `INVALID_BACKEND` with the Go message
 * (`MCP backend requires ServerName`, `unknown backend kind "x"`, ...).
 */
export function validateBackend(backend: ToolBackend): void {
  guardCall(guardErrors, 'backend', () => check(backend));
}

function check(backend: ToolBackend): void {
  if (backend === null || typeof backend !== 'object') throw invalidBackend('backend must be an object');
  const b = backend as {
    kind?: unknown;
    mcp?: { serverName?: unknown };
    provider?: { providerId?: unknown; toolId?: unknown };
    local?: { name?: unknown };
  };
  switch (b.kind) {
    case 'mcp':
      if (!isNonEmpty(b.mcp?.serverName)) throw invalidBackend('MCP backend requires ServerName');
      return;
    case 'provider':
      if (b.provider === null || typeof b.provider !== 'object') throw invalidBackend('Provider backend requires Provider details');
      if (!isNonEmpty(b.provider.providerId)) throw invalidBackend('Provider backend requires ProviderID');
      if (!isNonEmpty(b.provider.toolId)) throw invalidBackend('Provider backend requires ToolID');
      return;
    case 'local':
      if (!isNonEmpty(b.local?.name)) throw invalidBackend('Local backend requires Name');
      return;
    default:
      throw invalidBackend(`unknown backend kind ${JSON.stringify(typeof b.kind === 'string' ? b.kind : kindText(b.kind))}`);
  }
}

/** Any non-string kind as text, for the message; never throws (null-prototype objects, symbols). */
function kindText(kind: unknown): string {
  switch (typeof kind) {
    case 'undefined':
      return '';
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(kind);
    case 'symbol':
      return kind.toString();
    default:
      return kind === null ? '' : Object.prototype.toString.call(kind);
  }
}

function isNonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * The identity of a backend within one tool: its kind plus identity fields, length-prefixed so
 * that provider `("a:b","c")` and `("a","b:c")` never collide.
 */
export function backendIdentity(backend: ToolBackend): string {
  return guardCall(guardErrors, 'backend', () => identityOf(backend));
}

function identityOf(backend: ToolBackend): string {
  const part = (s: string) => `${s.length}:${s}`;
  switch (backend.kind) {
    case 'mcp':
      return `${part('mcp')}|${part(backend.mcp.serverName)}`;
    case 'provider':
      return `${part('provider')}|${part(backend.provider.providerId)}|${part(backend.provider.toolId)}`;
    case 'local':
      return `${part('local')}|${part(backend.local.name)}`;
    default:
      return part(String((backend as { kind?: unknown }).kind));
  }
}

/** A short human label for a backend: `local:echo`, `provider:p/t`, `mcp:server`. */
export function describeBackend(backend: ToolBackend): string {
  return guardCall(guardErrors, 'backend', () => labelOf(backend));
}

function labelOf(backend: ToolBackend): string {
  switch (backend.kind) {
    case 'mcp':
      return `mcp:${backend.mcp?.serverName ?? ''}`;
    case 'provider':
      return `provider:${backend.provider?.providerId ?? ''}/${backend.provider?.toolId ?? ''}`;
    case 'local':
      return `local:${backend.local?.name ?? ''}`;
    default:
      return describeValue((backend as { kind?: unknown }).kind);
  }
}
