/**
 * WebAssembly components of the world `toolexec:sandbox/guest` (`wit/toolexec-sandbox.wit`) on the
 * `wasm` backend.
 *
 * @internal
 */
export { COMPONENT_METADATA_KEY, componentBytes, hasComponent } from './request.js';
export { ComponentRunner, COMPONENT_WORKER_ASSET, type ComponentRunnerOptions } from './runner.js';
export { ComponentCache, HOST_INTERFACE, JCO_PACKAGE, contentHash, loadJco } from './transpile.js';
