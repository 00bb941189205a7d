/**
 * The connection to a Docker engine: dockerode loaded lazily (it is an optional peer dependency),
 * an injected instance or connection options, and engine failures mapped to RUNTIME_UNAVAILABLE.
 */
import { Agent } from 'node:http';
import type Dockerode from 'dockerode';
import { ToolexecError } from '../../../model/index.js';
import { Deadline, defaultExport, missingPeerMessage, optionalPeer } from '../../../model/internal.js';
import { runtimeError } from '../../core/errors.js';

/**
 * A dockerode instance, as the public types name it: dockerode is an optional peer dependency, so
 * they do not reference its types (an app without it still type-checks). Any `new Dockerode(...)`
 * fits.
 */
export interface DockerodeInstance {
  /** dockerode's `ping`. */
  ping(...args: never[]): unknown;
  /** dockerode's `createContainer`. */
  createContainer(...args: never[]): unknown;
  /** dockerode's `getContainer`. */
  getContainer(...args: never[]): unknown;
  /** dockerode's `getImage`. */
  getImage(...args: never[]): unknown;
}

/** A TLS client key with its passphrase (dockerode's `KeyObject`). */
export interface DockerodeKey {
  /** The key, PEM-encoded. */
  pem: string | Buffer;
  /** The passphrase that decrypts it. */
  passphrase?: string | undefined;
}

/** dockerode's connection options (its `DockerOptions`, written out so the public types need no dockerode). */
export interface DockerodeOptions {
  /** The engine's unix socket (`/var/run/docker.sock`). */
  socketPath?: string | undefined;
  /** The engine's host, for TCP or ssh. */
  host?: string | undefined;
  /** The engine's port, for TCP. */
  port?: number | string | undefined;
  /** The user, for ssh. */
  username?: string | undefined;
  /** Headers sent with every request. */
  headers?: { [name: string]: string };
  /** TLS: the CA certificate(s). */
  ca?: string | string[] | Buffer | Buffer[] | undefined;
  /** TLS: the client certificate(s). */
  cert?: string | string[] | Buffer | Buffer[] | undefined;
  /** TLS: the client key(s). */
  key?: string | string[] | Buffer | Buffer[] | DockerodeKey[] | undefined;
  /** `http`, `https` or `ssh`. */
  protocol?: 'https' | 'http' | 'ssh' | undefined;
  /** Request timeout in milliseconds. */
  timeout?: number | undefined;
  /** The engine API version (`v1.43`). */
  version?: string | undefined;
  /** ssh: the agent socket. */
  sshAuthAgent?: string | undefined;
  /** ssh: options of the ssh2 client. */
  sshOptions?: object | undefined;
  /** The Promise implementation dockerode uses. */
  Promise?: typeof Promise | undefined;
}

/** How a Docker backend or the image builder reaches the engine. */
export interface DockerConnectionOptions {
  /**
   * A ready dockerode instance (its own agent, TLS, ssh, ...). When set, `dockerOptions` is
   * ignored and the instance is never closed by the library.
   */
  docker?: DockerodeInstance;
  /**
   * dockerode connection options (`socketPath`, `host`/`port`/`protocol`, TLS files, `version`).
   * @defaultValue dockerode's defaults: `DOCKER_HOST`, else `/var/run/docker.sock`
   */
  dockerOptions?: DockerodeOptions;
}

type DockerodeConstructor = new (options?: Dockerode.DockerOptions) => Dockerode;

/** Loads dockerode on first use. @throws `RUNTIME_UNAVAILABLE` when it is not installed. */
export const loadDockerode: () => Promise<DockerodeConstructor> = optionalPeer(
  'dockerode',
  (mod) => defaultExport(mod) as DockerodeConstructor,
  (err) =>
    runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${missingPeerMessage('the docker backend', 'dockerode')}`, {
      cause: err,
      details: { missing: 'dockerode' },
    }),
);

/**
 * The dockerode instance for `options`: the injected one, or a new one on the connection options.
 * A new instance gets an agent without keep-alive, so no idle socket to the engine outlives a call.
 */
export async function connectDocker(options: DockerConnectionOptions): Promise<Dockerode> {
  if (options.docker !== undefined) return options.docker as unknown as Dockerode;
  const Docker = await loadDockerode();
  const agent = new Agent({ keepAlive: false });
  return new Docker({ agent, ...options.dockerOptions } as Dockerode.DockerOptions);
}

/** A short description of where `docker` connects, for messages. */
export function describeEngine(docker: Dockerode): string {
  const modem = (docker as unknown as { modem?: { socketPath?: unknown; host?: unknown; port?: unknown; protocol?: unknown } }).modem;
  if (modem === undefined) return 'the Docker engine';
  if (typeof modem.host === 'string' && modem.host !== '') {
    const protocol = typeof modem.protocol === 'string' ? modem.protocol : 'http';
    const port = typeof modem.port === 'string' || typeof modem.port === 'number' ? `:${modem.port}` : '';
    return `the Docker engine at ${protocol}://${modem.host}${port}`;
  }
  if (typeof modem.socketPath === 'string') return `the Docker engine at unix://${modem.socketPath}`;
  return 'the Docker engine';
}

/** The HTTP status of a dockerode error, if it has one. */
export function dockerStatus(err: unknown): number | undefined {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The engine's own message from a dockerode error (`json.message`), else the error's message. */
export function dockerMessage(err: unknown): string {
  const json = (err as { json?: unknown } | null)?.json;
  if (json !== null && typeof json === 'object' && typeof (json as { message?: unknown }).message === 'string') {
    return (json as { message: string }).message;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

/** `RUNTIME_UNAVAILABLE` for an engine that cannot be used, with the reason. */
export function engineUnavailable(what: string, err: unknown, details: Record<string, unknown> = {}): ToolexecError {
  if (ToolexecError.isInstance(err) && err.code === 'RUNTIME_UNAVAILABLE') return err;
  return runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${what}: ${dockerMessage(err)}`, { cause: err, details });
}

/**
 * Pings the engine. @throws `RUNTIME_UNAVAILABLE` with the reason (no socket, refused, timeout,
 * not a Docker engine).
 */
export async function pingEngine(docker: Dockerode, timeoutMs = 10_000): Promise<void> {
  const deadline = new Deadline(undefined, timeoutMs);
  try {
    // dockerode's ping takes an abort signal; its type does not say so
    await (docker as unknown as { ping(options: { abortSignal: AbortSignal }): Promise<unknown> }).ping({ abortSignal: deadline.signal });
  } catch (err) {
    const reason = deadline.timedOut ? new Error(`no answer within ${timeoutMs}ms`) : err;
    throw engineUnavailable(`${describeEngine(docker)} does not answer`, reason, { engine: describeEngine(docker) });
  } finally {
    deadline.dispose();
  }
}
