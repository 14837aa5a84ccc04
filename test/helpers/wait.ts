/**
 * The one way tests wait. `waitFor`/`waitForValue` poll for the event, file or state a test
 * expects; `elapse` lets time pass only where its passing is the subject (a quiet window that
 * must stay quiet, the gap between two signals). test/unit/test-waits.test.ts finds any other
 * fixed sleep under test/.
 */

const POLL_MS = 25;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it returns a value other than undefined or false, and returns that value;
 * throws naming `what` (a function: called then, e.g. to show the last screen) after `timeoutMs`.
 */
export async function waitForValue<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
  what: string | (() => string) = 'condition',
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= end)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await pause(POLL_MS);
  }
}

/** Polls `check` until it is true; throws naming `what` after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what: string | (() => string) = 'condition',
): Promise<void> {
  await waitForValue(async () => (await check()) || undefined, timeoutMs, what);
}

/**
 * Lets `ms` pass. Only where the passing of time is what the test is about — `why` says which
 * window (it reads as the comment the sleep needs); never to wait for something to happen.
 */
export function elapse(ms: number, why: string): Promise<void> {
  if (why.trim() === '') throw new Error('elapse: say why the passing of time is the subject');
  return pause(ms);
}
