/**
 * Small helpers the examples share: aligned output, self-checks, and the run-and-report wrapper
 * that prints `✓ <name> example finished` (what `npm run examples` looks for) or fails loudly.
 */

/** Prints `label` padded to `width` columns, then `text`. */
export function show(label: string, text: string, width = 12): void {
  console.log(`${label.padEnd(width)} ${text}`);
}

/** Compact JSON for one-line output. */
export function json(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** Throws when a result is not what the example expects. */
export function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new Error(`unexpected result: ${what}`);
}

/** Resolves to the error a promise rejects with; throws if it resolves. */
export async function failure(promise: Promise<unknown>, what: string): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error(`unexpected result: ${what} should have failed`);
}

/**
 * Runs an example's body, then its cleanup. Prints `✓ <name> example finished` on success; on
 * failure prints the error and sets a non-zero exit code.
 */
export async function runExample(name: string, body: () => Promise<void>, cleanup?: () => Promise<void>): Promise<void> {
  console.log(`toolexec: ${name} example\n`);
  try {
    await body();
    console.log(`\n✓ ${name} example finished`);
  } catch (err) {
    console.error(`\n✗ ${name} example failed:`, err);
    process.exitCode = 1;
  } finally {
    await cleanup?.();
  }
}
