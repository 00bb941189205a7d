/**
 * Runs `body` and returns the `MaxListenersExceededWarning`s Node emitted meanwhile (an
 * AbortSignal or emitter that got more than its limit of listeners). Node emits warnings on a
 * later tick, so this waits one macrotask after `body` before it stops listening.
 */
export async function listenerWarningsDuring(body: () => Promise<void>): Promise<Error[]> {
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => {
    if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning);
  };
  process.on('warning', onWarning);
  try {
    await body();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}
