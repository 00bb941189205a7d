/**
 * The entry every part of the agent layer hands to a model (see `selectTools`).
 */
import type { Tool } from '../model/index.js';
import type { RunOptions } from '../run/index.js';
import type { Result } from '../exec/index.js';

/** A tool handed to a model, with the function that runs it through the facade. */
export interface SelectedTool {
  /** The ID the tool runs under (`namespace:name[:version]`; a meta-tool's bare name). */
  id: string;
  /** The tool's definition: name, description, input and output schemas, annotations. */
  tool: Tool;
  /**
   * Runs the tool: `exec.runTool(id, args, options)` for an ordinary tool, the matching facade
   * method for a meta-tool. Rejects with the facade's `ToolexecError` (`VALIDATION` with the
   * violations, `TOOL_NOT_FOUND`, `EXECUTION`, `TIMEOUT`...).
   */
  run(args: Record<string, unknown>, options?: RunOptions): Promise<Result>;
}
