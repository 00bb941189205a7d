/**
 * What the MCP executor scrubs out of the client spans of its requests (`tools/call`,
 * `tools/list`) when one fails, for calls made directly on the executor as for calls through a
 * runner (which scrubs its own redacted values too, see `withSpanSecrets` in run/spans.ts).
 *
 * The executor has no redaction configuration of its own, so it applies what the library applies
 * without one: the default credential paths (`DEFAULT_REDACT_PATHS`) plus the paths a tool declares
 * in `_meta['toolexec/redact']` when the server listed it, to the call's arguments; and the
 * credentials of the server's own config (the values of headers and environment variables whose
 * names say they are credentials), which a server's stderr or error text may quote.
 *
 * @internal
 * @module
 */
import type { McpTool } from '../model/index.js';
import { Redactor } from '../model/internal.js';
import type { ResolvedServerConfig } from './options.js';

const DEFAULT_REDACTOR = new Redactor();

/** A header or environment variable whose name says it holds a credential. */
const CREDENTIAL_NAME = /token|secret|passw(?:or)?d|api[-_]?key|private[-_]?key|credential|auth|cookie/i;

/** Shortest value scrubbed out of texts (as the redactor's own bound). */
const MIN_SECRET_LENGTH = 4;

/** The redaction of one executor's request spans. */
export class SpanRedaction {
  /** The credentials of each server's config. */
  readonly #configSecrets = new Map<string, string[]>();
  /** The redactor of each listed tool that declares its own paths, by server and tool name. */
  readonly #toolRedactors = new Map<string, Map<string, Redactor>>();

  constructor(servers: ReadonlyMap<string, ResolvedServerConfig>) {
    for (const [name, config] of servers) {
      const secrets = configSecrets(config);
      if (secrets.length > 0) this.#configSecrets.set(name, secrets);
    }
  }

  /** Remembers the paths the tools of a complete listing of `serverName` declare (replacing the last listing's). */
  remember(serverName: string, tools: readonly McpTool[]): void {
    const declaring = new Map<string, Redactor>();
    for (const tool of tools) {
      const redactor = DEFAULT_REDACTOR.forTool(tool);
      if (redactor !== DEFAULT_REDACTOR) declaring.set(tool.name, redactor);
    }
    if (declaring.size > 0) this.#toolRedactors.set(serverName, declaring);
    else this.#toolRedactors.delete(serverName);
  }

  /**
   * The values to scrub out of a failed request's span: the server's config credentials and, for
   * a `tools/call`, the values of `args` at the redacted paths. Throws when `args` cannot be read
   * (the caller then withholds the message).
   */
  secrets(serverName: string, tool?: string, args?: Record<string, unknown>): string[] {
    const config = this.#configSecrets.get(serverName) ?? [];
    if (args === undefined) return config;
    const redactor = (tool === undefined ? undefined : this.#toolRedactors.get(serverName)?.get(tool)) ?? DEFAULT_REDACTOR;
    const { secrets } = redactor.redact(args);
    return config.length === 0 ? secrets : [...config, ...secrets];
  }
}

function configSecrets(config: ResolvedServerConfig): string[] {
  const out: string[] = [];
  const add = (entries: Record<string, string> | undefined): void => {
    for (const [name, value] of Object.entries(entries ?? {})) {
      if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH || !CREDENTIAL_NAME.test(name)) continue;
      out.push(value);
      // `Bearer <token>`, `Basic <credentials>`: the credential alone may be quoted too.
      const space = value.indexOf(' ');
      if (space > 0 && value.length - space - 1 >= MIN_SECRET_LENGTH) out.push(value.slice(space + 1));
    }
  };
  if (config.kind === 'stdio') add(config.env);
  else if (config.kind !== 'custom') add(config.headers);
  return out;
}
