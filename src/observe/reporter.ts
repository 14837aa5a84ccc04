import type { LoopEvent } from './events.ts';

/**
 * A sink of the loop's event stream: the run log, the stream file, diagnostics, notifications, the
 * registry, the console, the TUI. `runLoop` calls `onEvent` for every event (redacted, agent output
 * bounded) in the order they happen, and `close` once when the run has ended, after `loop.finished`.
 * A reporter that throws does not keep the others from the event; the run then fails with its error.
 * `runParallel` reports its own stream (`ParallelEvent`) to `Reporter<ParallelEvent>`s the same way.
 */
export interface Reporter<E = LoopEvent> {
  onEvent(event: E): void;
  /** Flushes and releases what the reporter holds (files, deliveries in flight). */
  close?(): void | Promise<void>;
}

/**
 * Calls every reporter with the event, even when one throws (a full disk under the log); returns
 * the first failure, for the caller to throw once the event reached everyone.
 */
export function reportToAll<E>(reporters: readonly Reporter<E>[], event: E): { error: unknown } | undefined {
  let failed: { error: unknown } | undefined;
  // Indexed: runs per line of agent output, and bin/ralph's V8 does not optimise iterators away.
  for (let i = 0; i < reporters.length; i++) {
    try {
      (reporters[i] as Reporter<E>).onEvent(event);
    } catch (error) {
      failed ??= { error };
    }
  }
  return failed;
}
