/**
 * Tool IDs as provider tool names: a reversible, collision-free encoding into names every provider
 * accepts — OpenAI and Anthropic `^[a-zA-Z0-9_-]{1,64}$`, Gemini a letter or `_` first (up to 128
 * of `[a-zA-Z0-9_.:-]`), MCP `[A-Za-z0-9_.-]` up to 128.
 *
 * The encoding (`-` is the only escape character; everything else of `[A-Za-z0-9_]` is itself):
 *
 * | in the ID | in the name |
 * |---|---|
 * | `A-Z a-z 0-9 _` | themselves |
 * | `:` | `--` |
 * | `-` | `-_` |
 * | `.` | `-d` |
 * | `+` | `-p` |
 * | `/` | `-s` |
 * | `@` | `-a` |
 * | `~` | `-t` |
 * | `␠` | `-w` |
 * | other code points below U+0100 | `-x` + 2 hex digits |
 * | other BMP code points | `-u` + 4 hex digits |
 * | code points above U+FFFF | `-U` + 6 hex digits |
 *
 * An ID that does not start with a letter gets a leading `_` (Gemini wants a letter or `_` first).
 * So `fs:read_text_file` → `fs--read_text_file`, `math:add:1.0.0` → `math--add--1-d0-d0`.
 *
 * A name longer than 64 characters is shortened: the first whole escapes of the encoding that fit
 * in 52 characters, then `-z` (never part of a full encoding) and 10 characters of the ID's
 * SHA-256 in base 32. Such a name cannot be decoded by itself: {@link decodeToolName} says so, and
 * the `toolId(name)` of `agentTools`, which knows the names it handed out, maps it back.
 */
import { createHash } from 'node:crypto';
import { describeValue, layerErrors } from '../model/internal.js';

const errors = layerErrors('agent');

/** Longest provider tool name this encoding produces (OpenAI's and Anthropic's limit). */
export const MAX_TOOL_NAME_CHARS = 64;

/** Characters of the hash suffix of a shortened name. */
const HASH_CHARS = 10;
/** The marker of a shortened name, before its hash (`-z` is no escape). */
const SHORTENED = '-z';
const PREFIX_CHARS = MAX_TOOL_NAME_CHARS - SHORTENED.length - HASH_CHARS;

/** A name every provider accepts: OpenAI's and Anthropic's rule, plus Gemini's first character. */
export const PROVIDER_TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/u;

const PLAIN = /^[A-Za-z0-9_]$/u;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { ':': '-', '-': '_', '.': 'd', '+': 'p', '/': 's', '@': 'a', '~': 't', ' ': 'w' };
const SHORT_UNESCAPES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(SHORT_ESCAPES).map(([char, code]) => [code, char]),
);
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function hex(codePoint: number, digits: number): string {
  return codePoint.toString(16).padStart(digits, '0');
}

/** The escapes of one ID, one string per code point. */
function tokens(id: string): string[] {
  const out: string[] = [];
  for (const char of id) {
    if (PLAIN.test(char)) out.push(char);
    else {
      const code = SHORT_ESCAPES[char];
      const point = char.codePointAt(0) as number;
      if (code !== undefined) out.push(`-${code}`);
      else if (point < 0x100) out.push(`-x${hex(point, 2)}`);
      else if (point <= 0xffff) out.push(`-u${hex(point, 4)}`);
      else out.push(`-U${hex(point, 6)}`);
    }
  }
  if (!/^[A-Za-z]/u.test(id)) out.unshift('_');
  return out;
}

/** 10 base-32 characters (50 bits) of the ID's SHA-256. */
function hashOf(id: string): string {
  const digest = createHash('sha256').update(id, 'utf8').digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < HASH_CHARS) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length === HASH_CHARS) break;
    value &= (1 << bits) - 1;
  }
  return out;
}

/**
 * The provider tool name of a tool ID: legal for OpenAI, Anthropic, Gemini and MCP, at most 64
 * characters, readable for common IDs (`fs:read_text_file` → `fs--read_text_file`), and distinct
 * for distinct IDs (but for two long IDs whose shortened names collide in the 50-bit hash, which
 * `agentTools` and `aiSdkTools` refuse). IDs whose encoding is longer than 64 characters are
 * shortened with a stable hash suffix (see the module notes); everything else decodes with
 * {@link decodeToolName}.
 *
 * @throws `INVALID_ARGUMENT` for an empty or non-string ID.
 */
export function encodeToolName(id: string): string {
  if (typeof id !== 'string' || id === '') throw errors.invalidArgument('tool ID', 'must be a non-empty string');
  const parts = tokens(id);
  const full = parts.join('');
  if (full.length <= MAX_TOOL_NAME_CHARS) return full;
  let prefix = '';
  for (const part of parts) {
    if (prefix.length + part.length > PREFIX_CHARS) break;
    prefix += part;
  }
  return `${prefix}${SHORTENED}${hashOf(id)}`;
}

/** Whether a name is a shortened one (an ID too long to encode in full): only `agentTools`' `toolId` maps it back. */
export function isShortenedToolName(name: string): boolean {
  return typeof name === 'string' && scan(name) === SHORTENED_RESULT;
}

const SHORTENED_RESULT = Symbol('shortened');
const INVALID_RESULT = Symbol('invalid');

/** Decodes a name escape by escape; a shortened or malformed name gives a marker instead. */
function scan(name: string): string | typeof SHORTENED_RESULT | typeof INVALID_RESULT {
  // `test` would read `null` as the text "null": anything but a string is not a name.
  if (typeof name !== 'string' || !PROVIDER_TOOL_NAME.test(name)) return INVALID_RESULT;
  let i = 0;
  let out = '';
  if (name.startsWith('_')) i = 1;
  while (i < name.length) {
    const char = name[i] as string;
    if (char !== '-') {
      out += char;
      i += 1;
      continue;
    }
    const code = name[i + 1];
    if (code === undefined) return INVALID_RESULT;
    if (code === 'z') return /^[a-z2-7]{10}$/u.test(name.slice(i + 2)) ? SHORTENED_RESULT : INVALID_RESULT;
    const short = SHORT_UNESCAPES[code];
    if (short !== undefined) {
      out += short;
      i += 2;
      continue;
    }
    const digits = code === 'x' ? 2 : code === 'u' ? 4 : code === 'U' ? 6 : 0;
    const text = name.slice(i + 2, i + 2 + digits);
    if (digits === 0 || !/^[0-9a-f]+$/u.test(text) || text.length !== digits) return INVALID_RESULT;
    const point = Number.parseInt(text, 16);
    if (point > 0x10ffff) return INVALID_RESULT;
    out += String.fromCodePoint(point);
    i += 2 + digits;
  }
  return out;
}

/**
 * The tool ID a name of {@link encodeToolName} stands for.
 *
 * @throws `INVALID_ARGUMENT` for a name that no ID encodes to (illegal characters, an unknown
 * escape, a non-canonical spelling), and for a shortened name (ending in `-z` and a hash), which
 * only the table of the `agentTools` call that made it (`toolId(name)`) can map back.
 */
export function decodeToolName(name: string): string {
  const result = scan(name);
  if (result === SHORTENED_RESULT) {
    throw errors.invalidArgument(
      'tool name',
      `"${name}" is a shortened name (a hash stands for the end of a long ID); map it back with agentTools' toolId(name)`,
      { details: { name } },
    );
  }
  if (result === INVALID_RESULT || result === '' || encodeToolName(result) !== name) {
    const shown = typeof name === 'string' ? `"${name}"` : describeValue(name);
    throw errors.invalidArgument('tool name', `${shown} is not a name encodeToolName makes`, { details: { name } });
  }
  return result;
}

/**
 * The tools by their provider names ({@link encodeToolName} of each `id`), in the order given: the
 * one table behind the names `agentTools` and `aiSdkTools` hand out.
 *
 * @throws `INVALID_ARGUMENT` naming both IDs when two tools get one name (two long IDs whose
 * shortened names share the 52-character prefix and the 50-bit hash), rather than hand out a list
 * where one name stands for two tools.
 */
export function toolsByName<T extends { readonly id: string }>(tools: Iterable<T>): Map<string, T> {
  const byName = new Map<string, T>();
  for (const tool of tools) {
    const name = encodeToolName(tool.id);
    const clash = byName.get(name);
    if (clash !== undefined) {
      throw errors.invalidArgument('tools', `"${clash.id}" and "${tool.id}" have the same provider name "${name}"`, {
        details: { name, toolIds: [clash.id, tool.id] },
      });
    }
    byName.set(name, tool);
  }
  return byName;
}
