/**
 * The facade's defaults and the one place they are resolved and checked.
 */
import { DEFAULT_TIMEOUT_MS, guardCall, layerErrors } from '../model/internal.js';
import type { LocalHandler } from '../run/index.js';
import { DEFAULT_SECURITY_PROFILE, type SecurityProfile } from '../runtime/index.js';
import { SNIPPET_LANGUAGES, isSecurityProfile, isSnippetLanguage } from '../runtime/internal.js';
import { DEFAULT_RECONNECT, type ReconnectPolicy } from './backoff.js';
import type { ExecOptions, LocalToolDefinition } from './types.js';

const errors = layerErrors('exec');

export { DEFAULT_TIMEOUT_MS };

/** Most tool calls one snippet may make: 100. */
export const DEFAULT_MAX_TOOL_CALLS = 100;

/** Most steps of one chain inside a snippet: 0 (unlimited). */
export const DEFAULT_MAX_CHAIN_STEPS = 0;

/** Language of snippets: JavaScript. */
export const DEFAULT_LANGUAGE = 'javascript';

/** Default `limit` of `searchTools`. */
export const DEFAULT_SEARCH_LIMIT = 10;

/** {@link ExecOptions} with every default applied. */
export interface ResolvedExecOptions {
  /** The caller's index; `undefined` means the facade creates its own. */
  index: ExecOptions['index'];
  /** The caller's doc store; `undefined` means the facade creates one over its index. */
  docs: ExecOptions['docs'];
  /** The local tools to register (`[]` when none). */
  tools: readonly LocalToolDefinition[];
  /** Extra local handlers by backend name (`{}` when none). */
  localHandlers: Readonly<Record<string, LocalHandler>>;
  /** The MCP servers to connect to, by name (`{}` when none). */
  mcpServers: NonNullable<ExecOptions['mcpServers']>;
  /** Called on every change of an MCP server's status. */
  onServerStatus: ExecOptions['onServerStatus'];
  /** When a failed MCP server is tried again. */
  mcpReconnect: Required<ReconnectPolicy>;
  /** Options of the executor made for `mcpServers` (without `servers`). */
  mcpOptions: NonNullable<ExecOptions['mcpOptions']>;
  /** Elicitation, sampling, roots and the logger of the executor made for `mcpServers` (only those given). */
  mcpClientFeatures: Pick<ExecOptions, 'onElicitation' | 'onSampling' | 'roots' | 'logger'>;
  /** The caller's MCP executor, for servers not in `mcpServers`; may be undefined. */
  mcp: ExecOptions['mcp'];
  /** The provider executor; may be undefined. */
  provider: ExecOptions['provider'];
  /** Whether arguments are checked against input schemas. @defaultValue true */
  validateInput: boolean;
  /** Output-schema checking: fatal (`true`), `'warn'`, or off. @defaultValue true */
  validateOutput: boolean | 'warn';
  /** `undefined` when the default deadline is off (`Infinity`). */
  defaultTimeoutMs: number | undefined;
  /** Profile of snippets that name none. @defaultValue 'standard' */
  securityProfile: SecurityProfile;
  /** The caller's runtime; `undefined` means the facade creates (and closes) its own. */
  runtime: ExecOptions['runtime'];
  /** Most tool calls per snippet (0: unlimited). @defaultValue 100 */
  maxToolCalls: number;
  /** Most steps per chain inside a snippet (0: unlimited). @defaultValue 0 */
  maxChainSteps: number;
  /** Language of snippets that name none. @defaultValue 'javascript' */
  defaultLanguage: string;
  /** Languages whose sandboxes `connect()` warms (lower case, `py` read as `python`); `[]`: none. */
  warmLanguages: readonly string[];
  /** Memory cap of snippets that name none, in bytes; `undefined`: the sandbox's. */
  memoryBytes: number | undefined;
  /** Longest wait of a snippet for a free sandbox, in milliseconds; `undefined`: 30 s. */
  queueTimeoutMs: number | undefined;
  /** Worker pool size of the runtime the facade creates; `undefined`: the available cores. */
  poolSize: number | undefined;
  /** Redaction paths added to the defaults (`[]` when none). */
  redact: readonly string[];
  /** Receives every event. */
  onEvent: ExecOptions['onEvent'];
  /** Gets every event as a log line; `undefined`: silent. */
  logger: ExecOptions['logger'];
  /** The runner's retry policy (checked by the runner); `undefined`: its default. */
  retry: ExecOptions['retry'];
  /** The runner's attempt listener. */
  onAttempt: ExecOptions['onAttempt'];
  /** The runner's warning listener. */
  onWarning: ExecOptions['onWarning'];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

/** What is wrong with an `mcpServers` option, if anything: not a record by name, or a config that is not an object. */
function mcpServersProblem(servers: unknown): string | undefined {
  if (!isObject(servers) || Array.isArray(servers)) return 'must be a record of server configs by name';
  for (const [name, config] of Object.entries(servers)) {
    if (!isObject(config) || Array.isArray(config)) {
      const got = config === null ? 'null' : Array.isArray(config) ? 'an array' : typeof config;
      return `server "${name}": the config must be an object like { command, args } or { url }, got ${got}`;
    }
  }
  return undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** A language name as the runtime routes it: lower case, `py` read as `python`. */
function languageName(language: string): string {
  const name = language.trim().toLowerCase();
  return name === 'py' ? 'python' : name;
}

/** The languages `connect()` warms: the given ones, else Python when it is the default language (never a Python sandbox for others). */
function warmLanguagesOf(given: readonly string[] | undefined, defaultLanguage: string | undefined): readonly string[] {
  if (given !== undefined) return [...new Set(given.map(languageName))];
  return defaultLanguage !== undefined && languageName(defaultLanguage) === 'python' ? ['python'] : [];
}

function hasMethod(value: unknown, name: string): boolean {
  return isObject(value) && typeof value[name] === 'function';
}

/**
 * Checks `options` and applies the defaults: validation on (input and output), a 30 s deadline
 * for every call, 100 tool calls per snippet, the `standard` profile, JavaScript.
 *
 * @throws `CONFIGURATION`, one message naming every invalid field.
 */
export function resolveExecOptions(options: ExecOptions = {}): ResolvedExecOptions {
  // A caller's object that throws (a getter, a revoked proxy) is a bad option, not a crash.
  return guardCall(errors, 'exec options', () => resolve(options), true);
}

function resolve(options: ExecOptions): ResolvedExecOptions {
  if (!isObject(options)) throw errors.configuration('exec options', 'must be an object');
  const o: ExecOptions = options;
  const invalid: string[] = [];
  const reasons: string[] = [];
  const check = (field: keyof ExecOptions, ok: boolean, why?: string): void => {
    if (o[field] === undefined || ok) return;
    invalid.push(field);
    reasons.push(why === undefined ? field : `${field} (${why})`);
  };
  check('index', hasMethod(o.index, 'search') && hasMethod(o.index, 'getTool'));
  check('docs', hasMethod(o.docs, 'describeTool'));
  check(
    'tools',
    Array.isArray(o.tools) && o.tools.every((def: unknown) => isObject(def) && isObject(def.tool) && typeof def.handler === 'function'),
  );
  check('localHandlers', isObject(o.localHandlers) && Object.values(o.localHandlers as object).every((h) => typeof h === 'function'));
  const serversProblem = mcpServersProblem(o.mcpServers);
  check('mcpServers', serversProblem === undefined, serversProblem);
  check('onServerStatus', typeof o.onServerStatus === 'function');
  check('retry', o.retry === false || isObject(o.retry));
  check('onAttempt', typeof o.onAttempt === 'function');
  check('onWarning', typeof o.onWarning === 'function');
  check(
    'mcpReconnect',
    isObject(o.mcpReconnect) &&
      [o.mcpReconnect.initialDelayMs, o.mcpReconnect.maxDelayMs].every(
        (v) => v === undefined || (typeof v === 'number' && v > 0 && Number.isFinite(v)),
      ) &&
      (o.mcpReconnect.initialDelayMs ?? 0) <= (o.mcpReconnect.maxDelayMs ?? Infinity),
  );
  check('mcpOptions', isObject(o.mcpOptions) && !('servers' in (o.mcpOptions as object)));
  check('onElicitation', typeof o.onElicitation === 'function');
  check('onSampling', typeof o.onSampling === 'function');
  check('roots', Array.isArray(o.roots));
  check('mcp', hasMethod(o.mcp, 'callTool'));
  check('provider', hasMethod(o.provider, 'callTool'));
  check('validateInput', typeof o.validateInput === 'boolean');
  check('validateOutput', typeof o.validateOutput === 'boolean' || o.validateOutput === 'warn');
  check('defaultTimeoutMs', typeof o.defaultTimeoutMs === 'number' && o.defaultTimeoutMs > 0);
  check('securityProfile', isSecurityProfile(o.securityProfile));
  check('runtime', hasMethod(o.runtime, 'execute'));
  check('maxToolCalls', isCount(o.maxToolCalls));
  check('maxChainSteps', isCount(o.maxChainSteps));
  check('defaultLanguage', typeof o.defaultLanguage === 'string' && o.defaultLanguage !== '');
  // the facade's own runtime runs the library's languages only (a runtime of the caller's may run more)
  if (o.runtime === undefined && typeof o.defaultLanguage === 'string' && o.defaultLanguage !== '') {
    check('defaultLanguage', isSnippetLanguage(o.defaultLanguage), `no runtime runs it; available: ${SNIPPET_LANGUAGES.join(', ')}`);
  }
  check('warmLanguages', Array.isArray(o.warmLanguages) && o.warmLanguages.every((l: unknown) => typeof l === 'string' && l.trim() !== ''));
  check('memoryBytes', isCount(o.memoryBytes) && o.memoryBytes > 0);
  check('queueTimeoutMs', typeof o.queueTimeoutMs === 'number' && o.queueTimeoutMs > 0 && Number.isFinite(o.queueTimeoutMs));
  // the pool belongs to the runtime the facade creates: not with a runtime of the caller's
  check('poolSize', isCount(o.poolSize) && o.poolSize > 0 && o.poolSize <= 64 && o.runtime === undefined);
  check('redact', Array.isArray(o.redact) && o.redact.every((path: unknown) => typeof path === 'string' && path !== ''));
  check('onEvent', typeof o.onEvent === 'function');
  check(
    'logger',
    ['debug', 'info', 'warn', 'error'].every((level) => hasMethod(o.logger, level)),
  );
  if (invalid.length > 0) {
    throw errors('CONFIGURATION', `invalid exec options: ${reasons.join(', ')}`, {
      details: { invalid },
    });
  }
  const timeout = o.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    index: o.index,
    docs: o.docs,
    tools: o.tools ?? [],
    localHandlers: o.localHandlers ?? {},
    mcpServers: o.mcpServers ?? {},
    onServerStatus: o.onServerStatus,
    mcpReconnect: reconnectPolicy(o.mcpReconnect),
    mcpOptions: o.mcpOptions ?? {},
    mcpClientFeatures: {
      ...(o.onElicitation === undefined ? {} : { onElicitation: o.onElicitation }),
      ...(o.onSampling === undefined ? {} : { onSampling: o.onSampling }),
      ...(o.roots === undefined ? {} : { roots: o.roots }),
      ...(o.logger === undefined ? {} : { logger: o.logger }),
    },
    mcp: o.mcp,
    provider: o.provider,
    validateInput: o.validateInput ?? true,
    validateOutput: o.validateOutput ?? true,
    defaultTimeoutMs: Number.isFinite(timeout) ? timeout : undefined,
    securityProfile: o.securityProfile ?? DEFAULT_SECURITY_PROFILE,
    runtime: o.runtime,
    maxToolCalls: o.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS,
    maxChainSteps: o.maxChainSteps ?? DEFAULT_MAX_CHAIN_STEPS,
    defaultLanguage: o.defaultLanguage ?? DEFAULT_LANGUAGE,
    warmLanguages: warmLanguagesOf(o.warmLanguages, o.defaultLanguage),
    memoryBytes: o.memoryBytes,
    queueTimeoutMs: o.queueTimeoutMs,
    poolSize: o.poolSize,
    redact: o.redact ?? [],
    onEvent: o.onEvent,
    logger: o.logger,
    retry: o.retry,
    onAttempt: o.onAttempt,
    onWarning: o.onWarning,
  };
}

/** The reconnect policy: the defaults for what is not given; an `initialDelayMs` above the default cap raises the cap to it. */
function reconnectPolicy(given: ReconnectPolicy | undefined): Required<ReconnectPolicy> {
  const initialDelayMs = given?.initialDelayMs ?? DEFAULT_RECONNECT.initialDelayMs;
  return { initialDelayMs, maxDelayMs: given?.maxDelayMs ?? Math.max(DEFAULT_RECONNECT.maxDelayMs, initialDelayMs) };
}
