/**
 * Runtime: security profiles, and every sandbox backend this machine can run, side by side.
 *
 *   node --import tsx examples/runtime/main.ts
 *
 * The same snippet — it calls a tool through the gateway, prints, and returns a value — runs on
 * each backend with the same limits, twice; the table shows each backend's readiness, how long the
 * first run (cold: pools, engine connection) and the second took, and which limits the backend
 * reports it enforced (`limitsEnforced`). Backends that cannot
 * run here are skipped with the reason they gave: Docker and gVisor need an engine that answers
 * (and `npm run sandbox:image`); containerd, Kata, Firecracker, Kubernetes and Proxmox need a
 * client you inject; Temporal is a stub.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createDocStore, createToolIndex } from 'toolexec/discovery';
import { defineTool, hasErrorCode, localBackend, type ToolexecError } from 'toolexec/model';
import { createRunner } from 'toolexec/run';
import {
  createContainerdBackend,
  createDirectGateway,
  createDockerBackend,
  createFirecrackerBackend,
  createGvisorBackend,
  createKataBackend,
  createKubernetesBackend,
  createProxmoxBackend,
  createRemoteBackend,
  createRuntime,
  createTemporalBackend,
  createUnsafeHostBackend,
  createWasmBackend,
  type ExecuteRequest,
  type Limits,
  type RuntimeBackend,
} from 'toolexec/runtime';
import { createRemoteRuntimeHandler } from 'toolexec/runtime/remote';
import { check, failure, json, runExample, show } from '../shared/report.js';

// One tool, and the gateway a sandbox reaches: discovery and execution of tools, nothing more.
const index = createToolIndex();
index.registerTool(
  defineTool({
    namespace: 'math',
    name: 'square',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  }),
  localBackend('square'),
);
const gateway = () =>
  createDirectGateway({
    index,
    docs: createDocStore({ index }),
    runner: createRunner({ index, local: { square: ({ n }) => (n as number) ** 2 } }),
  });

const SNIPPET = `
  const { structured } = await tools.runTool('math:square', { n: 12 });
  console.log('square of 12 is', structured);
  return structured + 1;
`;
// Asked of every backend; each reports which of them it really enforced.
const LIMITS: Limits = {
  maxToolCalls: 5,
  maxChainSteps: 5,
  memoryBytes: 128 * 1024 * 1024,
  cpuQuotaMs: 1000,
  pidsMax: 64,
  diskBytes: 16 * 1024 * 1024,
};
const LIMIT_NAMES = ['timeout', 'toolCalls', 'chainSteps', 'memory', 'cpu', 'pids', 'disk'] as const;

// A remote runtime service, here in this process on 127.0.0.1 (in production: another machine),
// running snippets on its own WASM backend; the remote backend signs every request with the secret.
const secret = randomBytes(32);
const serviceBackend = createWasmBackend();
const handler = createRemoteRuntimeHandler({ backend: serviceBackend, secret });
const service = createServer(handler).listen(0, '127.0.0.1');
await once(service, 'listening');
const serviceUrl = `http://127.0.0.1:${(service.address() as { port: number }).port}/`;

const backends: [string, () => RuntimeBackend][] = [
  ['wasm', () => createWasmBackend()],
  ['unsafe_host', () => createUnsafeHostBackend()], // the host: the request below opts in explicitly
  ['docker', () => createDockerBackend({ pingTimeoutMs: 3000 })],
  ['gvisor', () => createGvisorBackend({ pingTimeoutMs: 3000 })],
  ['remote', () => createRemoteBackend({ url: serviceUrl, secret })],
  ['containerd', () => createContainerdBackend()],
  ['kata', () => createKataBackend()],
  ['firecracker', () => createFirecrackerBackend()],
  ['kubernetes', () => createKubernetesBackend()],
  ['proxmox_lxc', () => createProxmoxBackend()],
  ['temporal', () => createTemporalBackend({ sandboxBackend: createWasmBackend({ poolSize: 1 }) })],
];
const created: RuntimeBackend[] = [];

await runExample(
  'runtime',
  async () => {
    // 1. Every backend, the same snippet and limits.
    console.log(
      `${'backend'.padEnd(12)} ${'readiness'.padEnd(9)} ${'first'.padStart(8)} ${'again'.padStart(8)}  enforced: ${LIMIT_NAMES.join(' ')}`,
    );
    let ran = 0;
    for (const [name, create] of backends) {
      const backend = create();
      created.push(backend);
      const request = (): ExecuteRequest => ({
        code: SNIPPET,
        gateway: gateway(),
        limits: LIMITS,
        timeoutMs: 20_000,
        profile: 'standard',
        metadata: { unsafeOptIn: true },
      });
      try {
        const first = await backend.execute(request());
        const again = await backend.execute(request());
        for (const result of [first, again]) {
          check(
            result.value === 145 && result.stdout === 'square of 12 is 144\n' && result.toolCalls.length === 1,
            `${name}: value, stdout and trace`,
          );
        }
        const ms = (t: number): string => `${t.toFixed(0)} ms`.padStart(8);
        const enforced = LIMIT_NAMES.map((l) => (again.limitsEnforced[l] ? '✓' : '·').padEnd(l.length)).join(' ');
        console.log(
          `${name.padEnd(12)} ${backend.readiness.padEnd(9)} ${ms(first.durationMs)} ${ms(again.durationMs)}            ${enforced}`,
        );
        ran++;
      } catch (err) {
        // RUNTIME_UNAVAILABLE: the backend cannot run on this machine (no engine, no client, a stub).
        if (!hasErrorCode(err, 'RUNTIME_UNAVAILABLE')) throw err;
        console.log(`${name.padEnd(12)} ${backend.readiness.padEnd(9)} ${'skipped'.padStart(17)}  ${(err as Error).message.slice(0, 100)}`);
      }
    }
    console.log('');
    show('ran', `${ran} of ${backends.length} backends on this machine (✓ enforced, · not enforced)`);
    check(ran >= 3, 'at least wasm, unsafe_host and remote ran');

    // 2. Profiles: createRuntime() maps standard and hardened to WASM, dev to the host.
    const runtime = createRuntime({ denyUnsafeProfiles: ['hardened'] });
    const standard = await runtime.execute({ code: 'return typeof process', gateway: gateway() });
    console.log('');
    show('standard', `runs on ${standard.backend.kind}: typeof process → ${json(standard.value)}`);
    check(standard.backend.kind === 'wasm' && standard.value === 'undefined', 'no host objects in the sandbox');

    const denied = (await failure(
      runtime.execute({ code: 'return 1', gateway: gateway(), profile: 'dev' }),
      'dev without opt-in',
    )) as ToolexecError;
    show('dev', `without opt-in → ${denied.code}: ${denied.message}`);
    check(hasErrorCode(denied, 'BACKEND_DENIED'), 'BACKEND_DENIED');
    const host = await runtime.execute({
      code: 'return typeof process',
      gateway: gateway(),
      profile: 'dev',
      metadata: { unsafeOptIn: true },
    });
    show('', `with metadata.unsafeOptIn → runs on ${host.backend.kind}: typeof process → ${json(host.value)}`);
    check(host.backend.kind === 'unsafe_host' && host.value === 'object', 'the host backend is a real node process');

    // denyUnsafeProfiles: the host is refused for `hardened` even when someone maps it there.
    runtime.registerBackend('hardened', createUnsafeHostBackend({ optIn: true }));
    const refused = (await failure(
      runtime.execute({ code: 'return 1', gateway: gateway(), profile: 'hardened' }),
      'host for hardened',
    )) as ToolexecError;
    show('hardened', `mapped to the host → ${refused.code}: ${refused.message}`);
    check(hasErrorCode(refused, 'BACKEND_DENIED'), 'BACKEND_DENIED by policy');

    // 3. Limits hold: memory and time, on the default sandbox.
    const oom = (await failure(
      runtime.execute({
        code: 'const a = []; for (;;) a.push("x".repeat(1024) + a.length);',
        gateway: gateway(),
        limits: { memoryBytes: 16 << 20 },
      }),
      'a memory hog',
    )) as ToolexecError;
    console.log('');
    show('memory', `${oom.code} ${json(oom.details?.limit)}: ${oom.message}`);
    check(hasErrorCode(oom, 'RESOURCE_LIMIT'), 'RESOURCE_LIMIT');
    const loop = (await failure(
      runtime.execute({ code: 'for (;;) {}', gateway: gateway(), timeoutMs: 150 }),
      'an endless loop',
    )) as ToolexecError;
    show('time', `${loop.code}: ${loop.message}`);
    check(hasErrorCode(loop, 'TIMEOUT'), 'TIMEOUT');
    await runtime.close();
  },
  async () => {
    await Promise.allSettled(created.map(async (b) => b.close?.()));
    await handler.close();
    await serviceBackend.close();
    service.close();
  },
);
