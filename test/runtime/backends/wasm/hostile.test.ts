import { hostileCodeSuite } from '../../../../src/testing/hostile-code.js';
import { createWasmBackend } from '../../../../src/runtime/backends/wasm/index.js';

hostileCodeSuite('wasm', () => createWasmBackend(), {
  // QuickJS has no builtin path to the host at all: every probing snippet runs to completion
  // (each attempt fails inside the VM) and the strict defaults apply.
});
