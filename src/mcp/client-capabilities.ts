/**
 * What toolexec's MCP client offers servers besides calling tools: elicitation (asking the user),
 * sampling (asking the app's model), roots, and a place for the server's log messages. Each
 * server-initiated request is routed to the app's handler with the name of the server that sent it.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ElicitRequestSchema,
  type ElicitResult,
  ListRootsRequestSchema,
  type LoggingLevel,
  LoggingMessageNotificationSchema,
  type Root,
} from '@modelcontextprotocol/sdk/types.js';
import { errors } from './errors.js';
import type { McpExecutorOptions, McpLogger, ServerRequestInfo } from './types.js';

/** What a server is told when the app has no elicitation handler: the user declined (the spec allows it). */
const DECLINED: ElicitResult = Object.freeze({ action: 'decline' });

/** The MCP log levels by the logger method that receives them (RFC 5424 severities folded into four). */
const LOG_METHOD: Readonly<Record<LoggingLevel, keyof McpLogger>> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};

/**
 * The app's answers to server-initiated requests, shared by every connection of one executor.
 *
 * @remarks
 * - Elicitation is always declared (`{ form: { applyDefaults: true } }`): with no handler every
 *   request is declined; when the app accepts, the SDK fills the fields it left out with the
 *   schema's defaults (SEP-1034).
 * - Sampling is declared only with an `onSampling` handler; roots only with a `roots` list, and then
 *   with `listChanged`, announced to every open connection by {@link ClientFeatures.setRoots}.
 * - Log messages (`notifications/message`) reach the `logger` when there is one.
 *
 * @internal
 */
export class ClientFeatures {
  readonly #onElicitation: McpExecutorOptions['onElicitation'];
  readonly #onSampling: McpExecutorOptions['onSampling'];
  readonly #logger: McpLogger | undefined;
  #roots: Root[] | undefined;
  readonly #capabilities: ClientCapabilities;

  constructor(options: Pick<McpExecutorOptions, 'onElicitation' | 'onSampling' | 'roots' | 'logger'>) {
    this.#onElicitation = options.onElicitation;
    this.#onSampling = options.onSampling;
    this.#logger = options.logger;
    this.#roots = options.roots === undefined ? undefined : copyRoots(options.roots);
    const capabilities: ClientCapabilities = { elicitation: { form: { applyDefaults: true } } };
    if (this.#onSampling !== undefined) capabilities.sampling = {};
    if (this.#roots !== undefined) capabilities.roots = { listChanged: true };
    this.#capabilities = capabilities;
  }

  /** The capabilities declared in `initialize`. */
  get capabilities(): ClientCapabilities {
    return this.#capabilities;
  }

  /** Whether connections announce a change of roots (a `roots` list was configured). */
  get hasRoots(): boolean {
    return this.#roots !== undefined;
  }

  /** The current roots (a copy). */
  get roots(): Root[] {
    return copyRoots(this.#roots ?? []);
  }

  /**
   * Replaces the roots. The caller announces the change (`notifications/roots/list_changed`) on
   * every open connection. `INVALID_ARGUMENT` for a bad list, `CONFIGURATION` when the executor was
   * created without `roots` (its connections did not declare the capability).
   */
  setRoots(roots: readonly Root[]): void {
    if (this.#roots === undefined) {
      throw errors('CONFIGURATION', 'setRoots needs the roots capability: create the executor with a roots list (may be empty)');
    }
    const problem = rootsProblem(roots);
    if (problem !== undefined) throw errors.invalidArgument('roots', problem);
    this.#roots = copyRoots(roots);
  }

  /** Installs the handlers on a new client of `serverName` (before it connects). */
  install(client: Client, serverName: string): void {
    const onElicitation = this.#onElicitation;
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      if (onElicitation === undefined) return DECLINED;
      const result = await onElicitation(request.params, infoOf(serverName, extra.signal));
      // An acceptance without content still gets the schema's defaults.
      return result.action === 'accept' && result.content === undefined ? { ...result, content: {} } : result;
    });
    const onSampling = this.#onSampling;
    if (onSampling !== undefined) {
      client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
        onSampling(request.params, infoOf(serverName, extra.signal)),
      );
    }
    if (this.#roots !== undefined) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: this.roots }));
    const logger = this.#logger;
    if (logger !== undefined) {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        const { level, logger: origin, data } = notification.params;
        const record: Record<string, unknown> = { server: serverName, level, data };
        if (origin !== undefined) record.logger = origin;
        const message = typeof data === 'string' ? data : `MCP server "${serverName}" logged a message`;
        try {
          logger[LOG_METHOD[level] ?? 'info'](record, message);
        } catch {
          // A logger's failure must not break the connection.
        }
      });
    }
  }
}

function infoOf(server: string, signal: AbortSignal): ServerRequestInfo {
  return { server, signal };
}

function copyRoots(roots: readonly Root[]): Root[] {
  return roots.map((root) => ({ ...root }));
}

/** Why `roots` is not a list of roots (`{ uri: 'file://…', name? }`), or undefined. */
export function rootsProblem(roots: unknown): string | undefined {
  if (!Array.isArray(roots)) return 'must be an array of { uri, name? }';
  for (const [i, root] of roots.entries()) {
    const given = root as { uri?: unknown; name?: unknown } | null;
    if (given === null || typeof given !== 'object') return `roots[${i}] must be an object`;
    if (typeof given.uri !== 'string' || !given.uri.startsWith('file://')) return `roots[${i}].uri must be a file:// URI`;
    if (given.name !== undefined && typeof given.name !== 'string') return `roots[${i}].name must be a string`;
  }
  return undefined;
}

/** Why `logger` is not a `{ debug, info, warn, error }` logger, or undefined. */
export function loggerProblem(logger: unknown): string | undefined {
  if (logger === null || typeof logger !== 'object') return 'must be an object with debug, info, warn and error methods';
  const missing = (['debug', 'info', 'warn', 'error'] as const).filter((m) => typeof (logger as Record<string, unknown>)[m] !== 'function');
  return missing.length === 0 ? undefined : `lacks the method(s) ${missing.join(', ')}`;
}

export type { CreateMessageResult, ElicitResult, Root };
