import type { CliIO } from './io.ts';

/** What stops a run: Ctrl-C, SIGTERM, and a closed terminal (SIGHUP, the agent would go on otherwise). */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface StopHandlers {
  /** The first signal: stop gracefully (the run records its iteration and saves its state). */
  stop(signal: NodeJS.Signals): void;
  /**
   * Another signal: stop now, without grace (kill what runs, say so); the process then ends with
   * 130. Without it every signal is `stop` again.
   */
  force?: (() => void) | undefined;
}

export interface StopSignals {
  /** Handles `signal` as if it had arrived (the TUI's `q` is a Ctrl-C). */
  trigger(signal: NodeJS.Signals): void;
  dispose(): void;
}

/**
 * "Ctrl-C once stops, twice forces", the same for every command that runs something: the first of
 * `signals` calls `stop`, the next calls `force` and ends the process with 130 through `io.exit`
 * (bin.ts's; the only exit).
 */
export function handleStopSignals(
  io: CliIO,
  handlers: StopHandlers,
  signals: readonly NodeJS.Signals[] = STOP_SIGNALS,
): StopSignals {
  let received = 0;
  const on = (signal: NodeJS.Signals) => {
    received++;
    if (received === 1 || !handlers.force) {
      handlers.stop(signal);
      return;
    }
    handlers.force();
    if (io.exit) io.exit(130);
    else process.exitCode = 130;
  };
  return { trigger: on, dispose: listen(signals, on).dispose };
}

/** `on` for each of `signals` until disposed (the one place that registers signal handlers). */
function listen(
  signals: readonly NodeJS.Signals[],
  on: (signal: NodeJS.Signals) => void,
): { dispose(): void } {
  for (const s of signals) process.on(s, on);
  return {
    dispose: () => {
      for (const s of signals) process.off(s, on);
    },
  };
}

/**
 * Runs `work` with an AbortSignal that the first of `signals` aborts (a `--follow` or a wait ends
 * cleanly). From then on the signals have their default effect again: another Ctrl-C ends the
 * process.
 */
export async function untilInterrupted<T>(
  work: (signal: AbortSignal) => Promise<T>,
  signals: readonly NodeJS.Signals[] = ['SIGINT'],
): Promise<T> {
  const controller = new AbortController();
  const handle = listen(signals, () => {
    handle.dispose();
    controller.abort('interrupted');
  });
  try {
    return await work(controller.signal);
  } finally {
    handle.dispose();
  }
}
