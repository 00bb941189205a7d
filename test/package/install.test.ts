import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
const TYPESCRIPT_5 = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
  .devDependencies.typescript!;
/** The esbuild the repo builds with (through tsup), for the bundling check. */
const ESBUILD = (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'esbuild', 'package.json'), 'utf8')) as { version: string }).version;

/** A service bundled into one file: local tools, a direct call and a snippet in the default sandbox. */
const BUNDLED_APP = `
import { createExec, defineTool } from 'toolexec';
const add = defineTool({ name: 'add', namespace: 'math', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } });
const exec = createExec({ tools: [{ tool: add, handler: ({ a, b }) => a + b }] });
try {
  console.log((await exec.runTool('math:add', { a: 2, b: 3 })).value);
  try {
    const run = await exec.executeCode({ code: "const r = await tools.runTool('math:add', { a: 20, b: 22 }); return r.structured;" });
    console.log('snippet', run.value);
  } catch (err) {
    console.log('snippet failed', err.code, err.message);
  }
} finally {
  await exec.close();
}
`;

/** Every public subpath as a consumer writes it. */
const SPECIFIERS = Object.keys(pkg.exports)
  .filter((subpath) => subpath !== './package.json')
  .map((subpath) => (subpath === '.' ? 'toolexec' : `toolexec/${subpath.slice(2)}`));
/** `toolexec/testing` imports vitest and is ESM only. */
const DUAL = SPECIFIERS.filter((specifier) => specifier !== 'toolexec/testing');

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}${e.message}`, { cause: error });
  }
}

/** The README's quick start, as a user copies it. */
function quickStart(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  expect(block, 'the README has a quick start').not.toBeNull();
  return block![1]!;
}

/**
 * The package as a user gets it: packed, installed from the tarball into a fresh app next to the
 * TypeScript versions users have, type-checked strictly without `skipLibCheck` (ESM and CommonJS
 * under `nodenext`, and `bundler`), and the README's quick start run there.
 */
describe('installed from its tarball into a fresh app', () => {
  let app: string;

  beforeAll(() => {
    app = mkdtempSync(join(tmpdir(), 'toolexec-app-'));
    run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', app], ROOT);
    const tarball = readdirSync(app).find((file) => file.endsWith('.tgz'))!;
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        `./${tarball}`,
        `typescript@${TYPESCRIPT_5}`,
        'typescript-7@npm:typescript@7',
        '@types/node@20',
        `esbuild@${ESBUILD}`,
      ],
      app,
    );
    const uses = (specifiers: readonly string[]) =>
      specifiers
        .map((specifier, i) => `import * as m${i} from '${specifier}';\nexport const k${i}: number = Object.keys(m${i}).length;`)
        .join('\n');
    writeFileSync(join(app, 'esm.mts'), uses(SPECIFIERS));
    writeFileSync(join(app, 'cjs.cts'), uses(DUAL));
    writeFileSync(join(app, 'bundler.ts'), uses(SPECIFIERS));
    writeFileSync(join(app, 'quick-start.mts'), quickStart());
    const strict = { strict: true, target: 'es2022', types: ['node'], skipLibCheck: false };
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { ...strict, module: 'nodenext', moduleResolution: 'nodenext', outDir: 'out' },
        files: ['esm.mts', 'cjs.cts', 'quick-start.mts'],
      }),
    );
    writeFileSync(
      join(app, 'tsconfig.bundler.json'),
      JSON.stringify({
        compilerOptions: { ...strict, module: 'esnext', moduleResolution: 'bundler', noEmit: true },
        files: ['bundler.ts'],
      }),
    );
  }, 300_000);

  afterAll(() => {
    if (app !== undefined) rmSync(app, { recursive: true, force: true });
  });

  for (const [label, bin] of [
    ['TypeScript 5', 'typescript'],
    ['TypeScript 7', 'typescript-7'],
  ] as const) {
    it(`type-checks strictly with ${label} (nodenext ESM and CJS, bundler), no skipLibCheck`, () => {
      const tsc = join(app, 'node_modules', bin, 'bin', 'tsc');
      run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], app);
      run(process.execPath, [tsc, '-p', 'tsconfig.bundler.json'], app);
    }, 240_000);
  }

  it('bundles with esbuild without the optional peers installed, and runs once the sandbox files sit beside the bundle', () => {
    writeFileSync(join(app, 'service.mjs'), BUNDLED_APP);
    const esbuild = join(app, 'node_modules', 'esbuild', 'bin', 'esbuild');
    // no --external: dockerode, ai, typescript, ... are not installed, and the build must not need them
    run(esbuild, ['service.mjs', '--bundle', '--platform=node', '--format=esm', '--outfile=bundle/service.mjs', '--log-level=error'], app);
    const missing = run(process.execPath, ['bundle/service.mjs'], app);
    expect(missing).toContain('5\n');
    expect(missing).toMatch(
      /snippet failed RUNTIME_UNAVAILABLE runtime unavailable: the sandbox file wasm-worker\.mjs is not at .*bundle\/assets\/wasm-worker\.mjs/,
    );
    expect(missing).toContain('docs/bundling.md');
    cpSync(join(app, 'node_modules', 'toolexec', 'dist', 'assets'), join(app, 'bundle', 'assets'), { recursive: true });
    expect(run(process.execPath, ['bundle/service.mjs'], app)).toBe('5\nsnippet 42\n');
  }, 120_000);

  it('imports toolexec/testing only with vitest installed: a clear module-not-found naming it', () => {
    writeFileSync(
      join(app, 'doubles.mjs'),
      "import { createFakeMcpExecutor } from 'toolexec/testing';\nconsole.log(typeof createFakeMcpExecutor);\n",
    );
    expect(() => run(process.execPath, ['doubles.mjs'], app)).toThrow(/Cannot find package 'vitest'/);
  });

  it("runs the README's quick start as written", () => {
    run(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app);
    const out = run(process.execPath, [join('out', 'quick-start.mjs')], app);
    expect(out.split('\n').slice(0, 2)).toEqual(['math:add', '5']);
    expect(out).toMatch(/amountCents: 1380, currency: 'EUR', rate: 0\.92 \} wasm 2/);
  }, 120_000);
});
