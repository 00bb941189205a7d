import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, string | { import: { types: string } }>;
};

/** Each subpath's published declaration file, from package.json `exports`. */
const entries = Object.entries(pkg.exports).flatMap(([subpath, target]) =>
  typeof target === 'string'
    ? []
    : [{ specifier: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, file: join(ROOT, target.import.types) }],
);

/**
 * Every name each subpath exports (values and types, read from the built declarations with the
 * TypeScript compiler), one per line, so that a change to the public surface is a visible diff in
 * review: `public-surface.txt` beside this file. After a deliberate change, run
 * `npx vitest run test/package/public-surface.test.ts -u` and commit the file.
 */
describe('public surface (every subpath of the built package)', () => {
  it('exports exactly the names recorded in public-surface.txt', async () => {
    const program = ts.createProgram(
      entries.map((entry) => entry.file),
      { noEmit: true, skipLibCheck: true },
    );
    const checker = program.getTypeChecker();
    const sections = entries.map(({ specifier, file }) => {
      const source = program.getSourceFile(file);
      const symbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
      expect(symbol, `${file} is built and is a module`).toBeDefined();
      const names = checker
        .getExportsOfModule(symbol!)
        .map((exported) => {
          const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
          return target.flags & ts.SymbolFlags.Value ? exported.name : `type ${exported.name}`;
        })
        .sort((a, b) => a.replace(/^type /, '').localeCompare(b.replace(/^type /, '')));
      return `## ${specifier} (${names.length})\n${names.join('\n')}\n`;
    });
    await expect(sections.join('\n')).toMatchFileSnapshot('./public-surface.txt');
  });
});
