/**
 * JSON Schema → Python type stubs (`.pyi` text): `TypedDict` classes for objects, `Literal[...]`
 * for enums and constants, `list[...]`, `dict[str, ...]` and unions for the rest, `NotRequired`
 * for optional keys, local `$ref`s resolved (recursion included) and what cannot be expressed
 * degraded to `Any` with a comment saying why. No npm package converts JSON Schema to Python
 * `TypedDict`s (quicktype makes dataclasses with converters; @json-schema-tools/transpiler makes
 * `NewType`s of unions), hence this small generator.
 */

/** Python's keywords: never a class name, nor a key of a `TypedDict` written as a class. */
const KEYWORDS: ReadonlySet<string> = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** Names a generated type never takes: the keywords, the typing names the stub imports, and the stub's fixed types. */
export const PYTHON_RESERVED_NAMES: ReadonlySet<string> = new Set([
  ...KEYWORDS,
  ...'Any Generic Literal NotRequired TypedDict TypeVar overload R'.split(' '),
  ...'RunResult ToolDefinition ToolBackend McpResult ToolSummary ToolExample ToolDoc ChainStep StepError StepResult ChainResult ToolError'.split(
    ' ',
  ),
]);

/** Deepest nesting converted; below it a schema is `Any`. */
const MAX_DEPTH = 32;

type Schema = Record<string, unknown>;

/** The type names of one stub: each name given once. */
export class PythonNames {
  readonly #taken = new Set<string>();

  /** A valid, unused Python class name made from `parts` (`['math:add', 'args']` → `MathAddArgs`). */
  take(...parts: string[]): string {
    const words = parts.flatMap((part) => part.split(/[^A-Za-z0-9]+/)).filter((word) => word !== '');
    // `math:add:1.0.0` → MathAdd_1_0_0: a digit word after the first keeps an underscore before it
    let base = words.map((word, i) => (i > 0 && /^\d/.test(word) ? `_${word}` : word.charAt(0).toUpperCase() + word.slice(1))).join('');
    if (base === '' || /^\d/.test(base)) base = `T${base}`;
    let name = base;
    for (let n = 2; this.#taken.has(name) || PYTHON_RESERVED_NAMES.has(name); n++) name = `${base}${n}`;
    this.#taken.add(name);
    return name;
  }
}

/** A Python string literal (JSON's escapes are Python's too). */
export function pyString(text: string): string {
  return JSON.stringify(text);
}

/** Lines of `# comment` at `pad`, from a description. */
function commentLines(text: unknown, pad: string): string[] {
  if (typeof text !== 'string' || text.trim() === '') return [];
  return text
    .trim()
    .split(/\r?\n/)
    .map((line) => `${pad}# ${line.trim()}`.trimEnd());
}

/** A docstring body: backslashes and quotes escaped, so any text stays inside it. */
function docstring(text: string, pad: string): string {
  const body = text.trim().replaceAll('\\', '\\\\').replaceAll('"', '\\"');
  return `${pad}"""${body.split(/\r?\n/).join(`\n${pad}`)}"""`;
}

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isIdentifier(key: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !KEYWORDS.has(key);
}

/** A value `Literal[...]` can hold, as Python source; `undefined` for others (floats, objects). */
function literal(value: unknown): string | undefined {
  if (typeof value === 'string') return pyString(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null) return 'None';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('Any')) return 'Any';
  // None last reads best: `str | None`
  const ordered = [...unique.filter((t) => t !== 'None'), ...unique.filter((t) => t === 'None')];
  return ordered.length === 0 ? 'Any' : ordered.join(' | ');
}

const SIMPLE: Readonly<Record<string, string>> = { string: 'str', integer: 'int', number: 'float', boolean: 'bool', null: 'None' };

/**
 * Converts the schemas of one tool: {@link PythonTypes.typeOfRoot} returns a type expression and
 * collects the classes and aliases it needed in {@link PythonTypes.blocks}, in the order a reader
 * meets them (a class before the classes of its properties).
 */
export class PythonTypes {
  /** The class and alias definitions made so far. */
  readonly blocks: string[] = [];
  readonly #names: PythonNames;
  readonly #prefix: string;
  /** `$ref` pointer → the name of its type, set before the target is converted (so recursion ends). */
  readonly #refs = new Map<string, string>();
  #root: Schema = {};
  /** Comments for the field being converted (a `$ref` not resolved, an `allOf` not merged, ...). */
  #notes: string[] = [];

  constructor(names: PythonNames, prefix: string) {
    this.#names = names;
    this.#prefix = prefix;
  }

  /**
   * The type of the document `schema` (its own `$defs` / `definitions` resolve its `$ref`s):
   * `name` when it is an object with properties (the class is in {@link blocks}), else a type
   * expression to alias. `role` (`Args`, `Output`) names the classes of nested objects
   * (`MathAddArgsAddress`). `notes` says what was degraded outside any property.
   */
  typeOfRoot(schema: unknown, name: string, role: string, description?: string): { type: string; notes: string[] } {
    this.#root = isSchema(schema) ? schema : {};
    this.#refs.clear();
    this.#notes = [];
    const type = this.#named(schema, [role], 0, name, description);
    const notes = this.#notes;
    this.#notes = [];
    return { type, notes };
  }

  /** `schema` as the class `name` when it is an object with properties (or an `allOf` of them), else its type. */
  #named(schema: unknown, path: string[], depth: number, name: string, description?: string): string {
    if (isSchema(schema) && !('const' in schema) && schema.enum === undefined && schema.anyOf === undefined && schema.oneOf === undefined) {
      const plainObject = schema.$ref === undefined && schema.nullable !== true && (schema.type === 'object' || schema.type === undefined);
      if (plainObject && Array.isArray(schema.allOf)) {
        const merged = this.#mergedAllOf(schema);
        if (merged !== undefined) return this.#object(merged, path, depth, description, name);
      } else if (plainObject && isSchema(schema.properties) && Object.keys(schema.properties).length > 0) {
        return this.#object(schema, path, depth, description, name);
      }
    }
    return this.#convert(schema, path, depth, description);
  }

  #convert(schema: unknown, path: string[], depth: number, description?: string): string {
    if (schema === true || schema === undefined) return 'Any';
    if (!isSchema(schema)) return this.#note('Any', 'a schema that allows nothing');
    if (depth > MAX_DEPTH) return this.#note('Any', 'nested too deeply');
    if (typeof schema.$ref === 'string') return this.#ref(schema.$ref, depth);
    let type = this.#convertPlain(schema, path, depth, description);
    if (schema.nullable === true) type = union([type, 'None']);
    return type;
  }

  #convertPlain(schema: Schema, path: string[], depth: number, description?: string): string {
    if ('const' in schema) return literal(schema.const) === undefined ? 'Any' : `Literal[${literal(schema.const)}]`;
    if (Array.isArray(schema.enum)) {
      // the values Literal can hold in one Literal[...]; a float beside them widens to float, anything else to Any
      const values = [...new Set(schema.enum.map(literal).filter((v) => v !== undefined))];
      const others = schema.enum.filter((v) => literal(v) === undefined).map((v) => (typeof v === 'number' ? 'float' : 'Any'));
      return union([...(values.length > 0 ? [`Literal[${values.join(', ')}]`] : []), ...others]);
    }
    const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    if (alternatives !== undefined) {
      return union(alternatives.map((alt, i) => this.#convert(alt, [...path, `${i + 1}`], depth + 1)));
    }
    if (Array.isArray(schema.allOf)) {
      const merged = this.#mergedAllOf(schema);
      if (merged !== undefined) return this.#object(merged, path, depth, description);
      if (schema.allOf.length === 1) return this.#convert(schema.allOf[0], path, depth + 1, description);
      return this.#note('Any', 'allOf of schemas that are not all objects');
    }
    const types = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : undefined;
    if (types !== undefined) {
      return union(types.map((t) => (typeof t === 'string' ? this.#ofType(t, schema, path, depth, description) : 'Any')));
    }
    if (isSchema(schema.properties) || schema.additionalProperties !== undefined) return this.#object(schema, path, depth, description);
    if (schema.items !== undefined || schema.prefixItems !== undefined) return this.#ofType('array', schema, path, depth);
    return 'Any';
  }

  #ofType(type: string, schema: Schema, path: string[], depth: number, description?: string): string {
    if (type === 'object') return this.#object(schema, path, depth, description);
    if (type === 'array') {
      if (Array.isArray(schema.prefixItems)) {
        const items = schema.prefixItems.map((item, i) => this.#convert(item, [...path, `${i + 1}`], depth + 1));
        if (isSchema(schema.items) || schema.items === true) items.push(this.#convert(schema.items, [...path, 'item'], depth + 1));
        return `list[${union(items)}]`;
      }
      return `list[${this.#convert(schema.items, [...path, 'item'], depth + 1)}]`;
    }
    return SIMPLE[type] ?? 'Any';
  }

  /** A `TypedDict` class (named `exactName`, else after `path`), or `dict[str, ...]` for an object without properties. */
  #object(schema: Schema, path: string[], depth: number, description?: string, exactName?: string): string {
    const properties = isSchema(schema.properties) ? schema.properties : {};
    const keys = Object.keys(properties);
    if (keys.length === 0) {
      const extra = schema.additionalProperties;
      const patterns = isSchema(schema.patternProperties) ? Object.values(schema.patternProperties) : [];
      const values = [
        ...(isSchema(extra) || extra === true || extra === undefined ? [this.#convert(extra, [...path, 'value'], depth + 1)] : []),
        ...patterns.map((p, i) => this.#convert(p, [...path, `value${i + 1}`], depth + 1)),
      ];
      return `dict[str, ${union(values)}]`;
    }
    const name = exactName ?? this.#names.take(this.#prefix, ...path);
    const slot = this.blocks.push('') - 1;
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === 'string') : []);
    const fields = keys.map((key) => {
      const saved = this.#notes;
      this.#notes = [];
      const sub = properties[key];
      let type = this.#convert(sub, [...path, key], depth + 1);
      if (!required.has(key)) type = `NotRequired[${type}]`;
      const about = [isSchema(sub) ? sub.description : undefined, ...this.#notes].filter((t) => typeof t === 'string' && t.trim() !== '');
      this.#notes = saved;
      return { key, type, about: about.join('\n') };
    });
    const doc = description ?? (typeof schema.description === 'string' ? schema.description : undefined);
    this.blocks[slot] = fields.every((f) => isIdentifier(f.key))
      ? [
          `class ${name}(TypedDict):`,
          ...(doc !== undefined && doc.trim() !== '' ? [docstring(doc, '    ')] : []),
          ...fields.flatMap((f) => [...commentLines(f.about, '    '), `    ${f.key}: ${f.type}`]),
        ].join('\n')
      : // keys that are not identifiers (`first-name`, `class`) need the functional form
        [
          ...commentLines(doc, ''),
          `${name} = TypedDict(${pyString(name)}, {`,
          ...fields.flatMap((f) => [...commentLines(f.about, '    '), `    ${pyString(f.key)}: ${f.type},`]),
          '})',
        ].join('\n');
    return name;
  }

  /** `allOf` of objects as one object schema (every member's properties, required where any member requires them); else `undefined`. */
  #mergedAllOf(schema: Schema): Schema | undefined {
    const members = (schema.allOf as unknown[]).map((member) => this.#resolved(member));
    if (
      !members.every(
        (m) => m !== undefined && (m.type === undefined || m.type === 'object') && m.anyOf === undefined && m.oneOf === undefined,
      )
    )
      return undefined;
    const { allOf: _allOf, ...own } = schema;
    const properties: Schema = {};
    const required: unknown[] = [];
    for (const member of [own, ...(members as Schema[])]) {
      Object.assign(properties, isSchema(member.properties) ? member.properties : {});
      if (Array.isArray(member.required)) required.push(...member.required);
    }
    return { ...own, type: 'object', properties, required };
  }

  /** A member of `allOf` with its `$ref` followed, or `undefined` when it cannot be read. */
  #resolved(member: unknown): Schema | undefined {
    let current = member;
    for (let hops = 0; hops < 8 && isSchema(current) && typeof current.$ref === 'string'; hops++) current = this.#target(current.$ref);
    return isSchema(current) && typeof current.$ref !== 'string' ? current : undefined;
  }

  #ref(pointer: string, depth: number): string {
    const known = this.#refs.get(pointer);
    if (known !== undefined) return known;
    const target = this.#target(pointer);
    if (target === undefined) return this.#note('Any', `$ref ${pointer} is not resolved`);
    const segments = pointer.split('/').filter((s) => s !== '' && s !== '#');
    const name = this.#names.take(this.#prefix, segments.at(-1) ?? 'Ref');
    this.#refs.set(pointer, name);
    const slot = this.blocks.push('') - 1;
    const type = this.#named(target, [segments.at(-1) ?? 'Ref'], depth + 1, name);
    // an object became the class `name` itself; anything else becomes an alias of that name
    this.blocks[slot] = type === name ? '' : `${name} = ${type}`;
    return name;
  }

  /** The schema a local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any JSON pointer) points at. */
  #target(pointer: string): unknown {
    if (pointer === '#') return this.#root;
    if (!pointer.startsWith('#/')) return undefined;
    let node: unknown = this.#root;
    for (const raw of pointer.slice(2).split('/')) {
      const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      if (!isSchema(node) && !Array.isArray(node)) return undefined;
      node = (node as Record<string, unknown>)[key];
      if (node === undefined) return undefined;
    }
    return node;
  }

  #note(type: string, why: string): string {
    this.#notes.push(`Any: ${why}`);
    return type;
  }
}
