/**
 * Runs every example one after another (`npm run examples`) and checks each one's exit code and
 * output: the `✓ <name> example finished` line plus a few key lines per example, so a wrong
 * result fails the run, not just a crash. Prints a summary; exits non-zero on any failure.
 *
 *   npm run examples              all of them
 *   npm run examples -- chain mcp the ones whose name contains a filter
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

interface Example {
  name: string;
  /** Path from the repository root. */
  file: string;
  /** Lines (regular expressions) the output must contain, besides the finish line. */
  expect: RegExp[];
}

const EXAMPLES: Example[] = [
  {
    name: 'main',
    file: 'examples/main.ts',
    expect: [
      /^tools +6 registered: 3 local/m,
      /^search +"convert currency" → fx:convert/m,
      /progress 3\/3 unit 3 of 3/,
      /= 6716 EUR cents/,
      /^code +wasm sandbox/m,
      /value +\{"usdCents":10950,"chfCents":9636\}/,
    ],
  },
  {
    name: 'basic',
    file: 'examples/basic/main.ts',
    expect: [
      /Bonjour, Ada!/,
      /^VALIDATION +op=validate_input/m,
      /InvalidEnumValue +\/language/,
      /^OUTPUT_VALIDATION/m,
      /^TIMEOUT/m,
      /^ABORTED/m,
    ],
  },
  {
    name: 'chain',
    file: 'examples/chain/main.ts',
    expect: [/"amountCents":5767,"currency":"GBP"/, /^stopped +VALIDATION at step 1/m, /skipped/, /^deadline +TIMEOUT at step 1/m],
  },
  {
    name: 'discovery',
    file: 'examples/discovery/main.ts',
    expect: [
      /^namespaces +files, github, math/m,
      /"read" +→ files:read, github:read/,
      /INVALID_CURSOR/,
      /math:add:1\.2\.0 → 42/,
      /BACKEND_DISABLED/,
    ],
  },
  {
    name: 'streaming',
    file: 'examples/streaming/main.ts',
    expect: [/done +\{"line":3,"text":"gamma"\}/, /the handler was told to stop/, /fx:convert_many +done/, /STREAM_NOT_SUPPORTED/],
  },
  {
    name: 'mcp',
    file: 'examples/mcp/main.ts',
    expect: [/^importTools +6 tools; namespaces fx, remote/m, /"amountCents":2717/, /converted 3 of 3/, /^EXECUTION .*exceeds the limit/m],
  },
  {
    name: 'runtime',
    file: 'examples/runtime/main.ts',
    expect: [
      /^wasm +prod +\d+ ms +\d+ ms/m,
      /^unsafe_host +prod +\d+ ms +\d+ ms/m,
      /^remote +beta +\d+ ms +\d+ ms/m,
      /^temporal +stub +skipped +runtime unavailable: temporal backend not implemented/m,
      /^dev +without opt-in → BACKEND_DENIED/m,
      /^memory +RESOURCE_LIMIT/m,
      // CI starts a Docker engine with gVisor and builds the sandbox image: there they must run.
      ...(process.env.CI === 'true' ? [/^docker +prod +\d+ ms +\d+ ms/m, /^gvisor +prod +\d+ ms +\d+ ms/m] : []),
    ],
  },
  {
    name: 'code-mode',
    file: 'examples/code-mode/main.ts',
    expect: [
      /"skus":\["MUG-1","MUG-2"\]/,
      /"totalCents":10900/,
      /most expensive mug: 2450/,
      /^LIMIT_EXCEEDED +an endless loop \(cause TIMEOUT\)/m,
    ],
  },
  {
    name: 'python-snippet',
    file: 'examples/python-snippet.ts',
    expect: [
      /^api +def run_tool\(id: Literal\["shop:quote"\], args: ShopQuoteArgs\) -> ShopQuoteResult:/m,
      /^value +\{"skus":\["MUG-1","TEE-1"\],"totalCents":4900\}/m,
      /^stdout +basket: 49\.00 USD/m,
      /^tool call +shop:quote \{"sku":"MUG-1","quantity":2\} → \{"sku":"MUG-1","totalCents":2500\}/m,
      /^tool call +shop:quote \{"sku":"TEE-1","quantity":1\} → \{"sku":"TEE-1","totalCents":2400\}/m,
      /^backend +wasm beta \(pyodide\)/m,
      /^caught +VALIDATION/m,
    ],
  },
  {
    name: 'component',
    file: 'examples/component/main.ts',
    expect: [
      /^structured +144$/m,
      /^tool calls +math:square \{"n":12\}/m,
      /^backend +wasm beta/m,
      /^cached +value 49, transpiled in 0 ms/m,
    ],
  },
  {
    name: 'full',
    file: 'examples/full/main.ts',
    expect: [/Error VALIDATION: .*'\/to' must be one of/, /"totalEurCents":5365/, /Error LIMIT_EXCEEDED/],
  },
  {
    name: 'agent-openai',
    file: 'examples/agent/openai.ts',
    expect: [
      /^tools +shop--find_products \(strict\), shop--quote \(strict\)/m,
      /Error \(VALIDATION\): .*'\/skus\/0' must match/,
      /Two of each mug cost \$73\.00/,
    ],
  },
  {
    name: 'agent-anthropic',
    file: 'examples/agent/anthropic.ts',
    expect: [
      /^tools +search_tools, list_namespaces, describe_tool, run_tool, run_chain, execute_code/m,
      /"totalCents":5400/,
      /Three logo t-shirts cost \$54\.00/,
    ],
  },
  {
    name: 'agent-ai-sdk',
    file: 'examples/agent/ai-sdk.ts',
    expect: [/^model read +error-text: .*Field '\/city' is required/m, /"value":\[64,68,72\]/, /^answer +Oslo: 64 °F, 68 °F and 72 °F/m],
  },
  {
    name: 'mcp-server-stdio',
    file: 'examples/agent/mcp-server-stdio.ts',
    expect: [
      /^server +\{"name":"shop","version":"1.0.0"\}/m,
      /"totalCents":2400/,
      /^bad call +isError=true Error \(VALIDATION\)/m,
      /unit 2 of 3/,
    ],
  },
  {
    name: 'mcp-server-http',
    file: 'examples/agent/mcp-server-http.ts',
    expect: [/^listening +http:\/\/127\.0\.0\.1:\d+\/mcp/m, /find_products \{"query":"mug"\} → \["MUG-1","MUG-2"\]/],
  },
];

/** Longest an example may take before it is killed (they take seconds). */
const TIMEOUT_MS = 120_000;

interface Outcome {
  name: string;
  ok: boolean;
  durationMs: number;
  problems: string[];
}

function run(example: Example, root: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', example.file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stderr.write(chunk);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const problems: string[] = [];
      if (code !== 0)
        problems.push(
          signal === null ? `exit code ${code}` : `killed by ${signal}${signal === 'SIGKILL' ? ` after ${TIMEOUT_MS} ms` : ''}`,
        );
      if (!output.includes(`✓ ${example.name} example finished`)) problems.push(`no "✓ ${example.name} example finished" line`);
      for (const pattern of example.expect) if (!pattern.test(output)) problems.push(`output lacks ${String(pattern)}`);
      resolve({ name: example.name, ok: problems.length === 0, durationMs: performance.now() - started, problems });
    });
  });
}

const root = join(import.meta.dirname, '..');
const filters = process.argv.slice(2);
const selected = EXAMPLES.filter((e) => filters.length === 0 || filters.some((f) => e.name.includes(f)));
if (selected.length === 0) {
  console.error(`no example matches ${filters.join(', ')}; examples: ${EXAMPLES.map((e) => e.name).join(', ')}`);
  process.exit(1);
}

const outcomes: Outcome[] = [];
for (const example of selected) {
  console.log(`\n=== ${example.name}: node --import tsx ${example.file}\n`);
  outcomes.push(await run(example, root));
}

console.log('\n=== summary');
for (const o of outcomes) {
  console.log(
    `${o.ok ? '✓' : '✗'} ${o.name.padEnd(10)} ${(o.durationMs / 1000).toFixed(1).padStart(5)} s${o.ok ? '' : `  ${o.problems.join('; ')}`}`,
  );
}
const failed = outcomes.filter((o) => !o.ok).length;
console.log(failed === 0 ? `all ${outcomes.length} examples passed` : `${failed} of ${outcomes.length} examples failed`);
process.exitCode = failed === 0 ? 0 : 1;
