/**
 * The `python` backend: Python snippets in Pyodide, in pre-warmed child processes under Node's
 * permission model inside bubblewrap (see docs/guests.md, "Python on Pyodide").
 *
 * @module toolexec/runtime/python
 */
export { PythonBackend, createPythonBackend } from './backend.js';
export { isPythonLanguage, PYTHON_LANGUAGES } from '../../core/snippet.js';
export {
  DEFAULT_BUBBLEWRAP_PATH,
  DEFAULT_PYTHON_MAX_MEMORY_BYTES,
  DEFAULT_PYTHON_MEMORY_BYTES,
  type PythonBackendOptions,
} from './options.js';
export type { PythonPoolStats } from './pool.js';
