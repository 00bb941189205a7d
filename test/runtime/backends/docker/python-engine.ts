/**
 * Shared set-up of the Python tests of the docker and gvisor backends: the Python image (built
 * from this machine's python3 when missing), a request helper, and the Python probes.
 */
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';
import { createDirectGateway, type ExecuteRequest } from '../../../../src/runtime/index.js';
import { buildPythonSandboxImage, type PythonSandboxImageInfo } from '../../../../src/runtime/backends/docker/index.js';

let image: Promise<PythonSandboxImageInfo> | undefined;

/** Builds the default Python sandbox image if it is missing (idempotent). */
export function ensurePythonImage(): Promise<PythonSandboxImageInfo> {
  image ??= buildPythonSandboxImage();
  return image;
}

/** A Python request over the contract fixture's tools (`test:add`, `test:fail`, ...). */
export function pythonRequest(code: string, extra: Partial<ExecuteRequest> = {}): ExecuteRequest {
  return { code, language: 'python', gateway: createDirectGateway(createContractFixture()), timeoutMs: 20_000, ...extra };
}

/** Connects to each host (1.5 s timeout) and reports what happened, plus the interfaces the sandbox has. */
export function pythonNetworkProbe(port: number, hosts: readonly string[]): string {
  return `
import json, socket
results = {}
for host in ${JSON.stringify(hosts)}:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(1.5)
    try:
        s.connect((host, ${port}))
        results[host] = "connected"
    except OSError as e:
        results[host] = type(e).__name__ + ":" + str(e.errno)
    finally:
        s.close()
try:
    resolved = socket.getaddrinfo("example.com", 80)
    dns = "resolved"
except OSError as e:
    dns = type(e).__name__
{"results": results, "dns": dns, "interfaces": [name for _, name in socket.if_nameindex()]}`;
}

/** Lists the root, tries to write in every directory two levels down, and reads the environment. */
export const PYTHON_FILES_PROBE = `
import os, uuid
writable = []
def probe(d):
    path = os.path.join(d, ".probe-" + uuid.uuid4().hex)
    try:
        with open(path, "w") as f:
            f.write("x")
        os.remove(path)
        writable.append(d)
    except OSError:
        pass
dirs = ["/"] + [os.path.join("/", d) for d in os.listdir("/")]
for d in list(dirs):
    if d in ("/proc", "/sys") or not os.path.isdir(d):
        continue
    try:
        dirs += [os.path.join(d, e) for e in os.listdir(d) if os.path.isdir(os.path.join(d, e))]
    except OSError:
        pass
for d in dirs:
    if not d.startswith(("/proc", "/sys")) and os.path.isdir(d):
        probe(d)
{"root": sorted(os.listdir("/")), "writable": sorted(set(writable)), "env": dict(os.environ), "cwd": os.getcwd(),
 "uid": os.getuid(), "probed": len(dirs)}`;
