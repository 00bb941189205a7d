import { runtimeBackendContract } from '../../../../src/testing/runtime-contract.js';
import { createWasmBackend } from '../../../../src/runtime/backends/wasm/index.js';

// The wasm backend always caps memory (64 MiB by default), so `limitsEnforced.memory` is true even
// without `limits.memoryBytes`; the contract's memory check assumes the opposite and stays off here
// (memory is covered in backend.test.ts).
runtimeBackendContract('wasm', () => createWasmBackend(), {
  expectedKind: 'wasm',
  expectedReadiness: 'prod',
});
