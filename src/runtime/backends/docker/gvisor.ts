/**
 * The `gvisor` backend: the docker backend with gVisor's `runsc` as the container runtime, so the
 * snippet's system calls reach gVisor's user-space kernel instead of the host kernel.
 */
import { ContainerSandboxBackend } from './docker-backend.js';
import type { DockerBackendOptions } from './options.js';

/** The runtime name gVisor is usually registered under in the engine's `daemon.json`. */
export const DEFAULT_GVISOR_RUNTIME = 'runsc';

/** Options of {@link createGvisorBackend}: those of the docker backend, with the runtime defaulting to `runsc`. */
export interface GvisorBackendOptions extends Omit<DockerBackendOptions, 'runtime'> {
  /** The engine's name for the gVisor runtime. @defaultValue 'runsc' */
  runtime?: string;
}

/**
 * Runs snippets in Docker containers under gVisor (kind `gvisor`), with the same hardening,
 * limits and one-container-per-run lifecycle as {@link DockerBackend}.
 *
 * @remarks
 * The engine needs `runsc` registered as a runtime (`/etc/docker/daemon.json`:
 * `{"runtimes":{"runsc":{"path":"/usr/bin/runsc","runtimeArgs":["--platform=ptrace","--network=none"]}}}`);
 * otherwise every run fails with `RUNTIME_UNAVAILABLE` naming the runtimes the engine has.
 * A run costs about 0.4–0.6 s on the ptrace platform (twice Docker's).
 *
 * Under gVisor the pids limit counts the sandbox's own host threads too (keep `pidsMax` ≥ 64),
 * and a snippet that exhausts it ends the whole sandbox (the run fails with `CODE_EXECUTION`,
 * the sandbox's exit status in `details`) instead of seeing `EAGAIN`.
 */
export class GvisorBackend extends ContainerSandboxBackend {
  readonly kind = 'gvisor' as const;

  constructor(options: GvisorBackendOptions = {}) {
    super(options, options.runtime ?? DEFAULT_GVISOR_RUNTIME, 'prod');
  }
}

/** Creates a {@link GvisorBackend}. */
export function createGvisorBackend(options: GvisorBackendOptions = {}): GvisorBackend {
  return new GvisorBackend(options);
}
