import { createElement } from 'react';
import { ParallelApp } from './parallel-app.ts';
import { addLines, emptyParallelModel, type ParallelInput, reduceParallel } from './parallel-model.ts';
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

const ALT_SCREEN_ON = '\u001b[?1049h\u001b[?25l';
const ALT_SCREEN_OFF = '\u001b[?25h\u001b[?1049l';

/**
 * Starts the parallel run's terminal UI (loaded only when used). A sink of the coordinator's events
 * and of the console lines; it writes nothing but the screen.
 */
export async function startParallelTui(o: ParallelTuiOptions): Promise<ParallelTuiHandle> {
  const { render } = await import('ink');
  const model = emptyParallelModel();
  let version = 0;
  o.stdout.write(ALT_SCREEN_ON);
  const instance = render(
    createElement(ParallelApp, {
      model,
      limits: o.limits,
      interrupt: o.onInterrupt,
      version: () => version,
      frameMs: Math.round(1000 / (o.fps ?? 10)),
      now: Date.now,
    }),
    { stdout: o.stdout, stdin: o.stdin, exitOnCtrlC: false, patchConsole: false, maxFps: o.fps ?? 10 },
  );
  let stopped = false;
  return {
    event: (event) => {
      reduceParallel(model, event, Date.now());
      version++;
    },
    line: (text, level = 'info') => {
      addLines(model, text, level);
      version++;
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      instance.unmount();
      instance.cleanup();
      o.stdout.write(ALT_SCREEN_OFF);
    },
  };
}
