/** Pyright (the npm package, a devDependency) over a Python stub and a snippet, for the Python code-mode tests. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const PYRIGHT = require.resolve('pyright/index.js');

interface PyrightDiagnostic {
  file: string;
  severity: string;
  message: string;
  range: { start: { line: number } };
}

/** Pyright (strict, but for unused expressions) over `tools.pyi` and a snippet beside it: every diagnostic, by file name and 1-based line. */
export function pyright(stub: string, snippet: string): { file: string; line: number; severity: string; message: string }[] {
  const dir = mkdtempSync(join(tmpdir(), 'toolexec-pyi-'));
  try {
    writeFileSync(join(dir, 'tools.pyi'), stub);
    writeFileSync(join(dir, 'snippet.py'), snippet);
    writeFileSync(
      join(dir, 'pyrightconfig.json'),
      // the last expression is the snippet's value: not an unused expression
      JSON.stringify({
        pythonVersion: '3.11',
        typeCheckingMode: 'strict',
        reportMissingModuleSource: false,
        reportUnusedExpression: false,
      }),
    );
    let out: string;
    try {
      out = execFileSync(process.execPath, [PYRIGHT, '--outputjson', '-p', dir], { cwd: dir, encoding: 'utf8' });
    } catch (err) {
      out = (err as { stdout: string }).stdout; // exit 1 when there are errors
    }
    return (JSON.parse(out) as { generalDiagnostics: PyrightDiagnostic[] }).generalDiagnostics.map((d) => ({
      file: d.file.slice(dir.length + 1),
      line: d.range.start.line + 1,
      severity: d.severity,
      message: d.message,
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
