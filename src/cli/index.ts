/**
 * The `toolexec` command (package.json `bin`, built to `dist/cli.js`): MCP servers from a config
 * file in the shape MCP clients use, local tool modules, and the commands `servers`, `tools`,
 * `search`, `describe`, `run` and `exec` over the facade. Not a subpath of the package: a
 * program, documented in docs/cli.md.
 *
 * @module
 */
export { runCli, createProgram } from './program.js';
export { EXIT_CLASS_OF_CODE, EXIT_CODES, exitClassOf, exitCodeOf, type ExitClass } from './exit-codes.js';
export { DEFAULT_CONFIG_FILE, loadConfig, type CliConfig, type LoadConfigOptions } from './config.js';
export type { CliIO, CliOutput } from './io.js';
export type { GlobalOptions } from './session.js';
