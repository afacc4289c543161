// Bounded waits for tests: poll until a condition holds, or fail saying what was awaited. One
// helper for every test file (issue 26): a wait never sleeps a fixed time and then hopes.
//
//   const row = await waitFor('the outbox row of send 7', async () => (await rowOf(7)) ?? undefined, 10_000);

/** What a probe gives while the condition does not hold yet. */
export type NotYet = undefined | false;

/**
 * Calls `probe` every `everyMs` until it gives a value other than `undefined` or `false`, and
 * returns that value. A probe that throws counts as "not yet" (a server still starting, a row not
 * there); its last error is in the failure, which names `what` and the time waited.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | NotYet | Promise<T | NotYet>,
  timeoutMs = 30_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const why = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
