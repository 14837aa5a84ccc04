import { ParallelApp } from './parallel-app.ts';
import { addLines, emptyParallelModel, type ParallelInput, reduceParallel } from './parallel-model.ts';
import { openScreen } from './screen.ts';
import type { TuiLimits } from './tui-layout.ts';

export interface ParallelTuiOptions {
  /** The shared limits of the run (all workers together). */
  limits: TuiLimits;
  stdout: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  /** q and Ctrl-C (the terminal is in raw mode, so no SIGINT arrives): the CLI's stop. */
  onInterrupt: () => void;
  /** At most this many frames per second (the ceiling is 10). */
  fps?: number;
}

export interface ParallelTuiHandle {
  /** A sink of the coordinator's event stream. */
  event: (event: ParallelInput) => void;
  /** Console lines for the events pane: the plain mode's lines, or Ralph's own notices. */
  line: (text: string, level?: 'info' | 'warn') => void;
  /** Restores the terminal (alternate screen off, cursor on). */
  stop: () => void;
}

/**
 * Starts the parallel run's terminal UI (loaded only when used). A sink of the coordinator's events
 * and of the console lines; it writes nothing but the screen.
 */
export async function startParallelTui(o: ParallelTuiOptions): Promise<ParallelTuiHandle> {
  const model = emptyParallelModel();
  const screen = await openScreen(ParallelApp, { model, limits: o.limits, interrupt: o.onInterrupt }, o);
  return {
    event: (event) => {
      reduceParallel(model, event, Date.now());
      screen.bump();
    },
    line: (text, level = 'info') => {
      addLines(model, text, level);
      screen.bump();
    },
    stop: screen.stop,
  };
}
