/**
 * Redaction (seed 004, "Redaction rules"): the one place that decides which parts of a tool call's
 * arguments never leave the library — in span attributes, events, log lines, error messages and
 * details, code-mode traces and chain records — and lists what it removed as JSON pointers.
 *
 * A path is either
 * - dotted (`password`, `headers.authorization`, `items.*.token`): matched at any depth against the
 *   end of a value's key path, case-insensitively, array indices skipped (`items.token` matches
 *   `/items/0/token`), `*` matching any one key; or
 * - a JSON pointer (`/headers/authorization`): matched from the root only, case-insensitively,
 *   `*` matching any one key or index.
 *
 * The values sent to a tool are never touched: redaction works on copies, made only along the
 * paths that lost something.
 *
 * It fails closed. A value nested deeper than {@link MAX_DEPTH} is not inspected: it is replaced
 * whole, listed, and every string in it counts as a secret, so a message quoting a value from down
 * there is scrubbed too. And a secret is scrubbed out of free text in every form a message quotes
 * values in (see {@link scrubText}): as it is, JSON-escaped, and cut short with `…`.
 *
 * @internal
 * @module
 */
import type { Tool } from './tool.js';
import { CIRCULAR } from './json-safe.js';

/** What replaces a redacted value. */
export const REDACTED = '[REDACTED]';

/**
 * The key names redacted everywhere (at any depth, case-insensitively) unless a caller adds more:
 * the usual names of credentials in tool arguments and HTTP headers.
 */
export const DEFAULT_REDACT_PATHS: readonly string[] = Object.freeze([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'password',
  'passwd',
  'token',
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
  'id_token',
  'idToken',
  'apiKey',
  'api_key',
  'x-api-key',
  'secret',
  'client_secret',
  'clientSecret',
  'private_key',
  'privateKey',
]);

/**
 * With the defaults, a key is also redacted when, in lower case and without `-`, `_`, `.` and
 * spaces, it ends with one of these words: `db_password`, `newPassword`, `client-secret`,
 * `X-Auth-Token`, `aws_secret_access_key`, `api-key` and `session_cookie` are credentials however
 * they are spelled. `max_tokens` and `tokenCount` are not (they do not end with a word).
 */
export const DEFAULT_SECRET_WORDS: readonly string[] = Object.freeze([
  'password',
  'passwd',
  'passphrase',
  'secret',
  'secrets',
  'token',
  'apikey',
  'accesskey',
  'privatekey',
  'authorization',
  'cookie',
  'cookies',
  'credential',
  'credentials',
]);

/** Whether a lower-cased key name ends with one of {@link DEFAULT_SECRET_WORDS} once separators are removed. */
function isSecretName(key: string): boolean {
  const name = key.replace(/[-_.\s]/gu, '');
  return DEFAULT_SECRET_WORDS.some((word) => name.endsWith(word));
}

/**
 * The key of a tool's `_meta` that declares its own redaction paths (an array of paths), on top of
 * the defaults and the facade's `redact` option: `_meta: { 'toolexec/redact': ['card.number'] }`.
 * An MCP server can declare it on the tools it lists.
 */
export const TOOL_REDACT_META_KEY = 'toolexec/redact';

/**
 * Shortest string value that is also scrubbed out of free text (messages, stack traces), and
 * shortest start of one that is scrubbed where a text cuts it (`abcd…`): shorter ones would scrub
 * ordinary words. A secret is thus never shown in full, but its first 3 characters may be.
 */
const MIN_SECRET_LENGTH = 4;

/**
 * Deepest level a walk descends to. A container nested deeper is not inspected but replaced whole
 * by {@link REDACTED} (and listed), its strings counted as secrets.
 */
const MAX_DEPTH = 64;

/** What the helpers that shorten a quoted value end the cut with (`show`, `scalar`, `capText`). */
const ELLIPSIS = '…';

/** One compiled path. */
interface Rule {
  /** Lower-cased segments; `*` matches any one. */
  segments: string[];
  /** Anchored at the root (a JSON pointer) instead of matching at any depth. */
  anchored: boolean;
}

/** A value with what redaction removed from it. */
export interface Redacted<T> {
  /** The value with every matched part replaced by {@link REDACTED}; the input itself when nothing matched. */
  value: T;
  /** JSON pointers of the parts removed, in document order; empty when nothing was. */
  redactions: string[];
  /** The string forms of the removed values (leaves), to scrub out of free text quoting them. */
  secrets: string[];
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function compile(path: string): Rule | undefined {
  if (typeof path !== 'string' || path.trim() === '') return undefined;
  const anchored = path.startsWith('/');
  const parts = anchored
    ? path
        .slice(1)
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    : path.split('.');
  const segments = parts.map((part) => part.toLowerCase());
  if (segments.some((segment) => segment === '')) return undefined;
  return { segments, anchored };
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return value !== null && typeof value === 'object';
}

/**
 * The string leaves of a removed value (what may be quoted elsewhere), however deep: walked with a
 * stack of its own, not recursion, so no depth limit lets one through.
 */
function collectSecrets(value: unknown, out: string[]): void {
  const seen = new Set<unknown>();
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (item.length >= MIN_SECRET_LENGTH && item !== REDACTED) out.push(item);
    } else if (typeof item === 'number' || typeof item === 'bigint') {
      const text = String(item);
      if (text.length >= MIN_SECRET_LENGTH) out.push(text);
    } else if (isContainer(item) && !seen.has(item)) {
      seen.add(item);
      // in order, without copying or reordering the caller's array, however long
      const children: readonly unknown[] = Array.isArray(item) ? item : Object.values(item);
      for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
    }
  }
}

/**
 * Redacts values by a fixed set of paths. Immutable and safe to share; {@link Redactor.forTool}
 * gives (and remembers) the redactor of one tool, with the tool's own paths added.
 */
export class Redactor {
  readonly #rules: Rule[];
  /** Key names matched at any depth. */
  readonly #names: ReadonlySet<string>;
  /** The other rules: dotted paths, wildcards, pointers. */
  readonly #pathRules: Rule[];
  readonly #paths: readonly string[];
  /** Whether key names ending with a {@link DEFAULT_SECRET_WORDS} word are redacted too. */
  readonly #secretWords: boolean;
  readonly #byTool = new WeakMap<object, Redactor>();

  /**
   * `paths` come on top of {@link DEFAULT_REDACT_PATHS} and {@link DEFAULT_SECRET_WORDS} unless
   * `withDefaults` is false (`secretWords` says whether the words apply, when the default paths are
   * already among `paths`).
   */
  constructor(paths: readonly string[] = [], withDefaults = true, secretWords = withDefaults) {
    this.#secretWords = secretWords;
    const all = withDefaults ? [...DEFAULT_REDACT_PATHS, ...paths] : [...paths];
    this.#paths = Object.freeze([...new Set(all)]);
    this.#rules = this.#paths.map(compile).filter((rule): rule is Rule => rule !== undefined);
    // one key name at any depth (the defaults' kind) is a set lookup; the rest are walked
    const isName = (rule: Rule): boolean => !rule.anchored && rule.segments.length === 1 && rule.segments[0] !== '*';
    this.#names = new Set(this.#rules.filter(isName).map((rule) => rule.segments[0] as string));
    this.#pathRules = this.#rules.filter((rule) => !isName(rule));
  }

  /** Every path this redactor applies. */
  get paths(): readonly string[] {
    return this.#paths;
  }

  /** This redactor plus the paths `tool._meta['toolexec/redact']` declares (itself when there are none). */
  forTool(tool: Tool | undefined): Redactor {
    if (tool === undefined || tool === null || typeof tool !== 'object') return this;
    const cached = this.#byTool.get(tool);
    if (cached !== undefined) return cached;
    const declared = toolRedactPaths(tool);
    const redactor = declared.length === 0 ? this : new Redactor([...this.#paths, ...declared], false, this.#secretWords);
    this.#byTool.set(tool, redactor);
    return redactor;
  }

  /** A copy of `value` with every matched part replaced; `value` itself when nothing matched. */
  redact<T>(value: T): Redacted<T> {
    const redactions: string[] = [];
    const secrets: string[] = [];
    if (!isContainer(value) || (this.#rules.length === 0 && !this.#secretWords)) return { value, redactions, secrets };
    const out = this.#walk(value, [], [], '', { redactions, secrets, seen: new Set() }, 0) as T;
    return { value: out, redactions, secrets };
  }

  /** Whether a property (or, for anchored rules only, an array element) is redacted. */
  #matches(key: string, named: readonly string[], full: readonly string[], element: boolean): boolean {
    if (!element && (this.#names.has(key) || (this.#secretWords && isSecretName(key)))) return true;
    for (const { segments, anchored } of this.#pathRules) {
      if (anchored) {
        if (segments.length === full.length && segments.every((segment, i) => segment === '*' || segment === full[i])) return true;
        continue;
      }
      // any depth: the property's named keys (array indices skipped) end with the rule's segments
      if (element || segments.length > named.length) continue;
      const offset = named.length - segments.length;
      if (segments.every((segment, i) => segment === '*' || segment === named[offset + i])) return true;
    }
    return false;
  }

  /**
   * Walks `value`; `named` and `full` are the key path so far (array indices skipped / kept), used
   * as stacks (pushed and popped in place). Copies a container only when something in it changed.
   * A container at {@link MAX_DEPTH} is redacted whole, as if its key matched.
   */
  #walk(
    value: Record<string, unknown> | unknown[],
    named: string[],
    full: string[],
    pointer: string,
    out: { redactions: string[]; secrets: string[]; seen: Set<unknown> },
    depth: number,
  ): unknown {
    // A reference back to an ancestor: the copy must not lead back into the original (and its secrets).
    if (out.seen.has(value)) return CIRCULAR;
    out.seen.add(value);
    const element = Array.isArray(value);
    let copy: Record<string, unknown> | unknown[] | undefined;
    const keys = element ? undefined : Object.keys(value);
    const count = element ? value.length : (keys as string[]).length;
    for (let i = 0; i < count; i++) {
      const key = element ? String(i) : (keys as string[])[i]!;
      const item = (value as Record<string, unknown>)[key];
      const lower = key.toLowerCase();
      if (!element) named.push(lower);
      full.push(lower);
      let next = item;
      const tooDeep = isContainer(item) && depth + 1 >= MAX_DEPTH;
      if (item !== undefined && (tooDeep || this.#matches(lower, named, full, element))) {
        out.redactions.push(`${pointer}/${escapePointer(key)}`);
        collectSecrets(item, out.secrets);
        next = REDACTED;
      } else if (isContainer(item)) {
        next = this.#walk(item, named, full, `${pointer}/${escapePointer(key)}`, out, depth + 1);
      }
      if (!element) named.pop();
      full.pop();
      if (next !== item) {
        copy ??= element ? value.slice() : { ...value };
        (copy as Record<string, unknown>)[key] = next;
      }
    }
    out.seen.delete(value);
    return copy ?? value;
  }
}

/** The redaction paths a tool declares in `_meta['toolexec/redact']` (strings only). */
export function toolRedactPaths(tool: Tool): string[] {
  const meta = (tool as { _meta?: unknown })._meta;
  if (meta === null || typeof meta !== 'object') return [];
  const declared = (meta as Record<string, unknown>)[TOOL_REDACT_META_KEY];
  if (!Array.isArray(declared)) return [];
  return declared.filter((path): path is string => typeof path === 'string' && path !== '');
}

/**
 * `text` with every secret replaced by {@link REDACTED} (longest first, so one secret inside another
 * goes whole), in each of its {@link quotedForms}: whole, then cut — a start of at least
 * {@link MIN_SECRET_LENGTH} characters followed by `…`, which goes with its ellipsis (see {@link scrubCut}).
 */
export function scrubText(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0 || text === '') return text;
  const forms = [...secrets].sort((a, b) => b.length - a.length).flatMap(quotedForms);
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  if (!out.includes(ELLIPSIS)) return out;
  for (const form of forms) out = scrubCut(out, form);
  return out;
}

/**
 * The forms a message may quote `secret` in: as it is, and JSON-escaped (how `JSON.stringify`
 * writes it inside a string, which messages showing values as JSON do) when that differs.
 */
function quotedForms(secret: string): string[] {
  if (secret === '') return [];
  const escaped = JSON.stringify(secret).slice(1, -1);
  return escaped === secret ? [secret] : [secret, escaped];
}

/**
 * `text` with every cut quote of `form` — a start of it, at least {@link MIN_SECRET_LENGTH} long,
 * followed by {@link ELLIPSIS} — replaced by {@link REDACTED}, ellipsis included. One pass of
 * Knuth–Morris–Pratt: at each ellipsis, the longest start of `form` that ends there.
 */
function scrubCut(text: string, form: string): string {
  if (form.length <= MIN_SECRET_LENGTH) return text;
  const border = borders(form);
  let out = '';
  let from = 0;
  let matched = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === ELLIPSIS && matched >= MIN_SECRET_LENGTH) {
      out += `${text.slice(from, i - matched)}${REDACTED}`;
      from = i + 1;
      matched = 0;
      continue;
    }
    if (matched === form.length) matched = border[matched]!;
    while (matched > 0 && char !== form[matched]) matched = border[matched]!;
    if (char === form[matched]) matched++;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** `border[k]`: the length of the longest proper start of `form.slice(0, k)` that also ends it. */
function borders(form: string): number[] {
  const border = new Array<number>(form.length + 1).fill(0);
  for (let i = 1, k = 0; i < form.length; i++) {
    while (k > 0 && form[i] !== form[k]) k = border[k]!;
    if (form[i] === form[k]) k++;
    border[i + 1] = k;
  }
  return border;
}

/**
 * A copy of `value` with every secret scrubbed out of its strings (keys too); `value` itself when
 * none occurs. An array or plain object nested deeper than {@link MAX_DEPTH} is replaced whole by
 * {@link REDACTED} (it cannot be scrubbed, so it is not let through), and a reference back to an
 * ancestor by `[Circular]` (a copy that led back into the original would show its secrets).
 */
export function scrubValue<T>(value: T, secrets: readonly string[], depth = 0, seen: Set<unknown> = new Set()): T {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return scrubText(value, secrets) as T;
  if (!isContainer(value)) return value;
  // a reference back to an ancestor: the copy must not lead back into the original (and its secrets)
  if (seen.has(value)) return CIRCULAR as T;
  if (depth >= MAX_DEPTH) return (isWalked(value) ? REDACTED : value) as T;
  seen.add(value);
  let copy: Record<string, unknown> | unknown[] | undefined;
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    items.forEach((item, i) => {
      const next = scrubValue(item, secrets, depth + 1, seen);
      if (next !== item) ((copy as unknown[] | undefined) ?? (copy = items.slice()))[i] = next;
    });
  } else if (isWalked(value)) {
    for (const [key, item] of Object.entries(value)) {
      const next = scrubValue(item, secrets, depth + 1, seen);
      const nextKey = scrubText(key, secrets);
      if (next !== item || nextKey !== key) {
        copy ??= { ...value };
        if (nextKey !== key) delete (copy as Record<string, unknown>)[key];
        (copy as Record<string, unknown>)[nextKey] = next;
      }
    }
  }
  seen.delete(value);
  return (copy ?? value) as T;
}

/** Whether {@link scrubValue} walks a container: arrays and plain objects. */
function isWalked(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return Array.isArray(value) || proto === Object.prototype || proto === null;
}

/**
 * Scrubs `secrets` out of an error in place — its message, stack, details and `reason` (a
 * ToolError's), and those of every error on its `cause` chain — and returns whether anything
 * changed. The error objects stay the same objects (codes, classes and `instanceof` unchanged).
 */
export function scrubError(err: unknown, secrets: readonly string[]): boolean {
  if (secrets.length === 0) return false;
  let changed = false;
  const seen = new Set<unknown>();
  for (let current = err; current !== null && typeof current === 'object' && !seen.has(current);) {
    seen.add(current);
    const target = current as {
      message?: unknown;
      stack?: unknown;
      details?: unknown;
      reason?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    // `reason`: a ToolError's message without its prefix (what a chain or a retry rebuilds a message from)
    for (const field of ['message', 'stack', 'details', 'reason'] as const) {
      const before = target[field];
      if (before === undefined) continue;
      const after = scrubValue(before, secrets);
      if (after !== before) {
        changed = true;
        setField(target, field, after);
      }
    }
    if (Array.isArray(target.errors)) for (const inner of target.errors) changed = scrubError(inner, secrets) || changed;
    current = target.cause;
  }
  return changed;
}

/**
 * Redacts the `details` of an error and of every error on its cause chain (and inside an
 * AggregateError's `errors`) by `redactor`'s paths, in place: a handler that puts a token in its
 * own error's details does not see it logged. Returns the removed values (to scrub from texts)
 * and their pointers in the error's JSON shape (`/details/token`, `/cause/details/password`).
 * Details that cannot be read are left as they are.
 */
export function redactErrorDetails(err: unknown, redactor: Redactor): { secrets: string[]; redactions: string[] } {
  const secrets: string[] = [];
  const redactions: string[] = [];
  const seen = new Set<unknown>();
  const visit = (current: unknown, pointer: string, depth: number): void => {
    if (current === null || typeof current !== 'object' || seen.has(current) || depth > MAX_DEPTH) return;
    seen.add(current);
    try {
      const target = current as { details?: unknown; cause?: unknown; errors?: unknown };
      const details = target.details;
      if (isContainer(details)) {
        const redacted = redactor.redact(details);
        if (redacted.redactions.length > 0) {
          setField(target, 'details', redacted.value);
          secrets.push(...redacted.secrets);
          redactions.push(...redacted.redactions.map((inner) => `${pointer}/details${inner}`));
        }
      }
      if (Array.isArray(target.errors)) target.errors.forEach((inner, i) => visit(inner, `${pointer}/errors/${i}`, depth + 1));
      visit(target.cause, `${pointer}/cause`, depth + 1);
    } catch {
      // a revoked proxy or a throwing getter: what cannot be read is not logged either
    }
  };
  visit(err, '', 0);
  return { secrets, redactions };
}

function setField(target: object, field: string, value: unknown): void {
  try {
    Object.defineProperty(target, field, {
      value,
      writable: true,
      configurable: true,
      enumerable: field === 'details' || field === 'reason',
    });
  } catch {
    // a frozen error keeps its text: nothing else can be done
  }
}
