/**
 * The names every provider adapter shares: the formats, the warnings, the options.
 */

/** The provider tool formats `toProviderTool` / `fromProviderTool` speak. */
export type ProviderFormat = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'mcp';

/** Every {@link ProviderFormat}, in a fixed order. */
export const PROVIDER_FORMATS: readonly ProviderFormat[] = Object.freeze(['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mcp']);

/** A feature of a tool that a conversion could not carry over. */
export interface AdapterWarning {
  /** The format converted to (`toProviderTool`) or from (`fromProviderTool`). */
  format: ProviderFormat;
  /**
   * What was lost: a JSON Schema keyword (`pattern`, `oneOf`...), a tool field (`outputSchema`,
   * `annotations`), or `strict`; or what was changed so the provider takes the tool: `items`
   * (added to an array without), `type` (an object root added for MCP), `property name` (a key
   * the provider refuses, renamed).
   */
  feature: string;
  /**
   * Where, as a JSON pointer (RFC 6901) into the tool that was converted: `/inputSchema/properties/path/pattern`,
   * `/outputSchema`; into the provider's object for `fromProviderTool` (`/cache_control`).
   */
  pointer: string;
  /** One sentence: `feature "pattern" lost converting to gemini at /inputSchema/properties/path/pattern`, plus why when it helps. */
  message: string;
}

/** Options of `toProviderTool`. */
export interface ToProviderToolOptions {
  /**
   * OpenAI and Anthropic strict mode: the model's arguments always fit the schema. The schema is
   * rewritten to the provider's strict subset (every object closed, every property required,
   * optional ones made nullable, unsupported keywords dropped, each with a warning); a schema that
   * cannot be made strict (an open object, a recursive schema for Anthropic...) is sent without
   * strict mode, with a `strict` warning saying why. Ignored by Gemini and MCP. @defaultValue false
   */
  strict?: boolean;
  /**
   * The provider tool name; it must be one the format takes (OpenAI and Anthropic
   * `^[a-zA-Z0-9_-]{1,64}$`, Gemini a letter or `_` then up to 127 of `[a-zA-Z0-9_.:-]`, MCP
   * `[A-Za-z0-9_.-]` up to 128), else `INVALID_ARGUMENT`. @defaultValue `encodeToolName(toolId(tool))`
   */
  name?: string;
  /**
   * Mark the tool `defer_loading: true` (OpenAI Responses and Anthropic: the tool's definition is
   * loaded only when the provider's tool search finds it; send a tool-search tool along). Other
   * formats have no deferred tools: a `defer_loading` warning. @defaultValue false
   */
  deferLoading?: boolean;
  /** Inline every `$ref` (and drop `$defs`) even where the provider resolves references. @defaultValue false */
  inlineRefs?: boolean;
  /**
   * Gemini only: `'json-schema'` sends `parametersJsonSchema` (JSON Schema, recommended);
   * `'openapi'` sends `parameters`, the OpenAPI 3.0 subset of the SDK's `Schema` (types in
   * capitals, `nullable`, references inlined). @defaultValue 'json-schema'
   */
  geminiSchema?: 'json-schema' | 'openapi';
}

/** Options of `fromProviderTool`. */
export interface FromProviderToolOptions {
  /**
   * Whether to read the provider name as one `encodeToolName` made, giving the tool the ID it
   * stands for (`fs--read_text_file` → namespace `fs`, name `read_text_file`;
   * `math--add--1-d0-d0` → version `1.0.0`). A name that does not decode to a valid tool ID (or a
   * shortened one) is kept as it is either way.
   * - not given: only names holding `--` (the namespace separator of the encoding) are decoded,
   *   so a tool toolexec converted comes back with its ID while an ordinary name (`get-weather`,
   *   `search-docs`, which would read `search.ocs`) stays what it says;
   * - `true`: every name that decodes is decoded (a tool without a namespace too);
   * - `false`: every name is kept as it is (`my_tool--v2` too).
   */
  decodeName?: boolean;
}

/** What a conversion returns: the converted tool and every feature it lost. */
export interface ProviderToolConversion<T = unknown> {
  /** The converted tool. */
  tool: T;
  /** Every feature lost, in schema order. */
  warnings: AdapterWarning[];
}

/** OpenAI Chat Completions: a `ChatCompletionFunctionTool` (openai 6, `resources/chat/completions`). */
export interface OpenAIChatTool {
  /** Always `function`. */
  type: 'function';
  /** The function definition (`shared.FunctionDefinition`). */
  function: {
    /** The tool name, `^[a-zA-Z0-9_-]{1,64}$`. */
    name: string;
    /** What the tool does. */
    description?: string;
    /** The JSON Schema of the arguments. */
    parameters?: Record<string, unknown>;
    /** Strict mode. */
    strict?: boolean | null;
  };
}

/** OpenAI Responses: a `FunctionTool` (openai 6, `resources/responses`). */
export interface OpenAIResponsesTool {
  /** Always `function`. */
  type: 'function';
  /** The tool name, `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  /** What the tool does. */
  description?: string | null;
  /** The JSON Schema of the arguments. */
  parameters: Record<string, unknown> | null;
  /** Strict mode. */
  strict: boolean | null;
  /** Loaded only when the `tool_search` tool finds it. */
  defer_loading?: boolean;
  /** The JSON Schema of the JSON value the tool's string output encodes. */
  output_schema?: Record<string, unknown> | null;
}

/** Anthropic Messages: a custom `Tool` (`@anthropic-ai/sdk`, `resources/messages`). */
export interface AnthropicTool {
  /** The tool name, `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  /** What the tool does. */
  description?: string;
  /** The JSON Schema of the input; `type: 'object'` at the root. */
  input_schema: {
    /** Always `object`. */
    type: 'object';
    /** The arguments' schemas by name. */
    properties?: unknown;
    /** The required arguments. */
    required?: string[] | null;
    [key: string]: unknown;
  };
  /** Strict tool use. */
  strict?: boolean;
  /** Loaded only when a tool-search tool returns a reference to it. */
  defer_loading?: boolean;
}

/** Gemini: a `FunctionDeclaration` (`@google/genai`). */
export interface GeminiFunctionDeclaration {
  /** The function name: a letter or `_` first, then up to 128 of `[a-zA-Z0-9_.:-]`. */
  name: string;
  /** What the function does. */
  description?: string;
  /** The arguments as JSON Schema (exclusive with `parameters`). */
  parametersJsonSchema?: unknown;
  /** The arguments as the OpenAPI subset of the SDK's `Schema` (exclusive with `parametersJsonSchema`). */
  parameters?: Record<string, unknown>;
  /** The result as JSON Schema (exclusive with `response`). */
  responseJsonSchema?: unknown;
  /** The result as the OpenAPI subset of the SDK's `Schema` (exclusive with `responseJsonSchema`). */
  response?: Record<string, unknown>;
}
