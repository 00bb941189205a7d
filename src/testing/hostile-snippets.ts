/**
 * The snippets of the hostile-code suite: each tries one way out of the sandbox and reports what
 * it reached.
 */
import { randomBytes } from 'node:crypto';

/** A helper every probing snippet starts with: runs attempts, keeps a short printable outcome of each. */
const ATTEMPTS = `
const attempts = {};
const attempt = async (name, fn) => {
  try {
    const value = await fn();
    let text;
    try { text = typeof value === 'string' ? value : JSON.stringify(value); } catch { text = String(value); }
    attempts[name] = 'value: ' + String(text).slice(0, 300);
  } catch (e) {
    let text;
    try { text = String(e && e.message !== undefined ? e.message : e); } catch { text = 'unprintable'; }
    attempts[name] = 'error: ' + text.slice(0, 300);
  }
};
const pause = (ms) => typeof setTimeout === 'function' ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
`;

/** Runs `body` with a fresh secret in the host's environment under a random key, and removes it afterwards. */
export async function withHostSecret(label: string, body: (key: string, secret: string) => Promise<void>): Promise<void> {
  const key = `TOOLEXEC_HOSTILE_${randomBytes(6).toString('hex').toUpperCase()}`;
  const secret = `${label}-${randomBytes(16).toString('hex')}`;
  process.env[key] = secret;
  try {
    await body(key, secret);
  } finally {
    delete process.env[key];
  }
}

export function readFileSnippet(path: string): string {
  const p = JSON.stringify(path);
  return `${ATTEMPTS}
await attempt('require', () => require('fs').readFileSync(${p}, 'utf8'));
await attempt('import', async () => (await import('node:fs')).readFileSync(${p}, 'utf8'));
await attempt('process.binding', () => process.binding('fs'));
await attempt('getBuiltinModule', () => process.getBuiltinModule('fs').readFileSync(${p}, 'utf8'));
await attempt('constructor', () => tools.constructor.constructor('return process')().mainModule.require('fs').readFileSync(${p}, 'utf8'));
await attempt('fetch', async () => (await fetch('file://' + ${p})).text());
await attempt('quickjs std', () => std.loadFile(${p}));
await attempt('quickjs os', () => os.open(${p}));
await attempt('Deno', () => Deno.readTextFileSync(${p}));
await attempt('Bun', () => Bun.file(${p}).text());
await attempt('WebAssembly', () => typeof WebAssembly);
return attempts;`;
}

export function envSnippet(key: string): string {
  const k = JSON.stringify(key);
  return `${ATTEMPTS}
await attempt('process.env', () => process.env[${k}]);
await attempt('globalThis.process', () => globalThis.process && globalThis.process.env && globalThis.process.env[${k}]);
await attempt('require', () => require('process').env[${k}]);
await attempt('import', async () => (await import('node:process')).env[${k}]);
await attempt('constructor', () => tools.constructor.constructor('return process')().env[${k}]);
await attempt('Function', () => Function('return process')().env[${k}]);
await attempt('quickjs std', () => std.getenv(${k}));
await attempt('Deno', () => Deno.env.get(${k}));
await attempt('dump', () => JSON.stringify(Object.keys(globalThis)));
return attempts;`;
}

export function modulesSnippet(marker: string): string {
  const cmd = JSON.stringify(`touch ${marker}`);
  const m = JSON.stringify(marker);
  return `${ATTEMPTS}
await attempt('require child_process', () => require('child_process').execSync(${cmd}).toString());
await attempt('import child_process', async () => (await import('node:child_process')).execSync(${cmd}).toString());
await attempt('constructor child_process', () => tools.constructor.constructor('return process')().mainModule.require('child_process').execSync(${cmd}));
await attempt('getBuiltinModule', () => process.getBuiltinModule('child_process').execSync(${cmd}));
await attempt('require fs write', () => require('fs').writeFileSync(${m}, 'x'));
await attempt('import fs write', async () => (await import('fs')).writeFileSync(${m}, 'x'));
await attempt('import net', async () => typeof (await import('net')).connect);
await attempt('quickjs os.exec', () => os.exec(['touch', ${m}]));
await attempt('Worker', () => new Worker('data:,'));
return attempts;`;
}

export function tcpSnippet(port: number): string {
  return `${ATTEMPTS}
await attempt('require net', () => { const s = require('net').connect(${port}, '127.0.0.1'); s.on('error', () => {}); return 'socket'; });
await attempt('import net', async () => { const s = (await import('node:net')).connect(${port}, '127.0.0.1'); s.on('error', () => {}); return 'socket'; });
await attempt('fetch', async () => (await fetch('http://127.0.0.1:${port}/')).status);
await attempt('WebSocket', () => new WebSocket('ws://127.0.0.1:${port}/'));
await attempt('XMLHttpRequest', () => { const x = new XMLHttpRequest(); x.open('GET', 'http://127.0.0.1:${port}/'); x.send(); return 'sent'; });
await attempt('constructor', () => tools.constructor.constructor('return process')().mainModule.require('net').connect(${port}, '127.0.0.1'));
await pause(200);
return attempts;`;
}

export function escapeSnippet(key: string): string {
  const k = JSON.stringify(key);
  return `
const facts = {};
const grab = (name, fn) => {
  try {
    const p = fn();
    if (p === undefined || p === null || (typeof p !== 'object' && typeof p !== 'function')) { facts[name] = String(p); return; }
    let secret, pid, type = typeof p;
    try { pid = p.pid; } catch {}
    try { secret = p.env && p.env[${k}]; } catch {}
    facts[name] = { type, pid, secret };
  } catch (e) {
    facts[name] = 'error: ' + String(e && e.message);
  }
};
grab('tools.constructor', () => tools.constructor.constructor('return process')());
grab('tools.runTool.constructor', () => tools.runTool.constructor('return process')());
grab('console.log.constructor', () => console.log.constructor('return process')());
grab('promise.constructor', () => tools.listNamespaces().constructor.constructor('return process')());
grab('this', () => this.constructor.constructor('return process')());
grab('Function', () => Function('return process')());
grab('eval', () => eval('globalThis.process'));
grab('error.constructor', () => { try { null.x; } catch (e) { return e.constructor.constructor('return process')(); } });
grab('globalThis.process', () => globalThis.process);
grab('__proto__ walk', () => Object.getPrototypeOf(Object.getPrototypeOf(tools)).constructor.constructor('return process')());
return facts;`;
}

export const POLLUTION_SNIPPET = `
Object.prototype.polluted = 'yes';
Array.prototype.polluted = 'yes';
Object.defineProperty(Object.prototype, 'isAdmin', { get() { return true; }, configurable: true });
const first = await tools.runTool('hostile:probe', { a: 1, nested: { b: [1, 2] } });
const second = await tools.runTool('hostile:probe', JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}'));
return { first: first.structured, second: second.structured };`;

export const HOSTILE_VALUES_SNIPPET = `${ATTEMPTS}
await attempt('throwing getter', () => tools.runTool('hostile:probe', { get boom() { throw new Error('getter'); } }));
await attempt('throwing toJSON', () => tools.runTool('hostile:probe', { toJSON() { throw new Error('toJSON'); } }));
await attempt('escaping getter', () => tools.runTool('hostile:probe', { get x() { return this.constructor.constructor('return process')(); } }));
await attempt('functions and symbols', () => tools.runTool('hostile:probe', { fn() {}, sym: Symbol('s'), nested: { f: () => 1 } }));
await attempt('proxy', () => tools.runTool('hostile:probe', new Proxy({}, { ownKeys() { throw new Error('trap'); }, get() { return 1; } })));
await attempt('bigint', () => tools.runTool('hostile:probe', { n: 10n }));
await attempt('cycle', () => { const a = {}; a.self = a; return tools.runTool('hostile:probe', a); });
await attempt('hostile id', () => tools.runTool({ toString() { return 'hostile:probe'; } }, { a: 1 }));
await attempt('hostile chain', () => tools.runChain([{ toolId: 'hostile:probe', get args() { return { a: 1 }; } }]));
await attempt('non-finite', () => tools.runTool('hostile:probe', { nan: NaN, inf: Infinity }));
return attempts;`;

export const TAMPERING_SNIPPET = `
const saved = { stringify: JSON.stringify, parse: JSON.parse };
try { Function.prototype.constructor = function () { return () => 'hijacked'; }; } catch {}
try { Object.prototype.hijacked = true; } catch {}
try { JSON.parse = () => ({ hijacked: true }); } catch {}
try { Array.prototype.map = function () { return ['hijacked']; }; } catch {}
try { Map.prototype.get = function () { return undefined; }; } catch {}
try { Reflect.apply = function () { return 'hijacked'; }; } catch {}
try { Object.freeze = function (o) { return o; }; } catch {}
try { Error = function () { return { hijacked: true }; }; } catch {}
try { tools.runTool = () => 'hijacked'; } catch {}
try { Symbol.prototype.toString = () => 'hijacked'; } catch {}
try { Promise.prototype.finally = function () { return this; }; } catch {}
const r = await tools.runTool('hostile:probe', { a: 1 });
JSON.parse = saved.parse;
return { ok: r && r.structured ? r.structured.ok : r };`;
