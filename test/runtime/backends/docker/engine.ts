/**
 * Shared set-up of the docker and gvisor tests: is an engine there (with runsc), and the sandbox
 * image built. Tests skip only outside CI (`CI !== 'true'`) when no engine answers; under CI they
 * run and fail loudly.
 */
import { Agent } from 'node:http';
import Docker from 'dockerode';
import { buildSandboxImage, SANDBOX_LABEL, type SandboxImageInfo } from '../../../../src/runtime/backends/docker/index.js';

/** What the machine offers. */
export interface EngineProbe {
  docker: boolean;
  gvisor: boolean;
  /** Why a kind cannot run here. */
  reason?: string;
}

/** A dockerode client for the tests' own inspections (same engine as the backends' default). */
export const docker = new Docker({ agent: new Agent({ keepAlive: false }) } as Docker.DockerOptions);

async function probe(): Promise<EngineProbe> {
  try {
    await docker.ping();
    const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
    const gvisor = info.Runtimes !== undefined && Object.hasOwn(info.Runtimes, 'runsc');
    return { docker: true, gvisor, ...(gvisor ? {} : { reason: 'the Docker engine has no "runsc" runtime registered' }) };
  } catch (err) {
    return { docker: false, gvisor: false, reason: `no Docker engine answers (${err instanceof Error ? err.message : String(err)})` };
  }
}

/** The probe, once per test file. */
export const engine: EngineProbe = await probe();

const inCi = process.env.CI === 'true';

/** True when the docker tests must be skipped here (never under CI). */
export const skipDocker = !inCi && !engine.docker;
/** True when the gvisor tests must be skipped here (never under CI). */
export const skipGvisor = !inCi && !engine.gvisor;

if (skipDocker) console.warn(`[docker tests skipped: ${engine.reason ?? 'no engine'}; they run under CI=true]`);
else if (skipGvisor) console.warn(`[gvisor tests skipped: ${engine.reason ?? 'no runsc'}; they run under CI=true]`);

let image: Promise<SandboxImageInfo> | undefined;

/** Builds the default sandbox image if it is missing (idempotent). */
export function ensureImage(): Promise<SandboxImageInfo> {
  image ??= buildSandboxImage();
  return image;
}

/** The containers of one backend instance (by its label value), running or not. */
export async function containersOf(owner: string): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=${owner}`] } });
  return list.map((container) => container.Id);
}
