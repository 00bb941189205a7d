/**
 * What the MCP layer shares with the layers above it but not with users: imported by other layers
 * as `../mcp/internal.js`, never listed in package.json `exports`.
 *
 * @internal
 * @module
 */
export { readCallParams } from './call-budget.js';
