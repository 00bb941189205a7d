/**
 * Locates and reads the Python prelude (`prelude.py`): the file every Python sandbox (the Pyodide
 * child process, the Docker guest) evaluates before it runs snippets. tsup copies it into
 * `dist/assets/python-prelude.py`; run from source (tests, benchmarks), this module reads it beside
 * itself, so no build is needed.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The prelude's file name in `dist/assets/`. */
export const PYTHON_PRELUDE_ASSET = 'python-prelude.py';

/** Its URL relative to this module: beside it in the sources, `assets/` from a built chunk (every chunk sits flat in `dist/`). */
const PRELUDE_URL = /\.ts$/.test(import.meta.url) ? './prelude.py' : `./assets/${PYTHON_PRELUDE_ASSET}`;

let cached: string | undefined;

/** The absolute path of the prelude. */
export function pythonPreludePath(): string {
  return fileURLToPath(new URL(PRELUDE_URL, import.meta.url));
}

/** The prelude's source text (read once). */
export function readPythonPrelude(): string {
  cached ??= readFileSync(pythonPreludePath(), 'utf8');
  return cached;
}
