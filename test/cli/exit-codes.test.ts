import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CLASS_OF_CODE, EXIT_CODES, exitClassOf, exitCodeOf, type ExitClass } from '../../src/cli/index.js';
import { ERROR_CODES, ToolexecError } from '../../src/model/index.js';
import { ROOT } from './helpers.js';

/** The rows of the exit-code table in docs/cli.md: exit, class, the error codes of that class. */
function documentedTable(): { exit: number; name: string; codes: string[] }[] {
  const doc = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Exit codes'));
  return [...section.matchAll(/^\| (\d+) \| `(\w+)` \| ([^|]*) \|/gm)].map((match) => ({
    exit: Number(match[1]),
    name: match[2]!,
    codes: [...match[3]!.matchAll(/`(\w+)`/g)].map((code) => code[1]!),
  }));
}

describe('exit codes (src/cli/exit-codes.ts and docs/cli.md)', () => {
  it('docs/cli.md documents exactly EXIT_CODES', () => {
    const table = documentedTable();
    expect(Object.fromEntries(table.map((row) => [row.name, row.exit]))).toEqual(EXIT_CODES);
  });

  it('every error code has one class, and docs/cli.md lists it in that class’s row', () => {
    expect(Object.keys(EXIT_CLASS_OF_CODE).sort()).toEqual([...ERROR_CODES].sort());
    const documented = new Map<string, string>();
    for (const row of documentedTable()) for (const code of row.codes) documented.set(code, row.name);
    expect(Object.fromEntries(documented)).toEqual(EXIT_CLASS_OF_CODE);
  });

  it('the codes are distinct, 0 is success and 2 is bad usage', () => {
    const values = Object.values(EXIT_CODES);
    expect(new Set(values).size).toBe(values.length);
    expect(EXIT_CODES.OK).toBe(0);
    expect(EXIT_CODES.USAGE).toBe(2);
  });

  it('a snippet stopped by its deadline is a timeout; any other limit is an execution failure; a non-library error is a failure', () => {
    const timeout = new ToolexecError('TIMEOUT', 'runtime: timed out');
    expect(exitClassOf(new ToolexecError('LIMIT_EXCEEDED', 'limit exceeded: timeout', { cause: timeout }))).toBe<ExitClass>('TIMEOUT');
    expect(exitClassOf(new ToolexecError('LIMIT_EXCEEDED', 'limit exceeded: tool calls'))).toBe<ExitClass>('EXECUTION');
    expect(exitCodeOf(new TypeError('x is undefined'))).toBe(EXIT_CODES.FAILURE);
    expect(exitCodeOf('a thrown string')).toBe(EXIT_CODES.FAILURE);
    expect(exitCodeOf(new ToolexecError('ABORTED', 'stopped'))).toBe(EXIT_CODES.INTERRUPTED);
  });
});
