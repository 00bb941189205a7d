/**
 * toolexec: the execution layer for AI-agent tools.
 *
 * @module toolexec
 */
export {};
