import { answer, approve, reject, tell } from '../human/control.ts';
import { sendCommand } from '../human/control-files.ts';
import type { LoopEvent } from '../observe/events.ts';
import { openScreen } from './screen.ts';
import { type TuiActions, TuiApp } from './tui-app.ts';
import type { TuiLimits } from './tui-layout.ts';
import { emptyModel, reduce } from './tui-model.ts';

export interface TuiOptions {
  workspace: string;
  limits: TuiLimits;
  stdout: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  /** Ctrl-C in the TUI (the terminal is in raw mode, so no SIGINT arrives). */
  onInterrupt: () => void;
  /** At most this many frames per second (the ceiling is 10). */
  fps?: number;
}

export interface TuiHandle {
  /** A sink of the engine's event stream. */
  listener: (event: LoopEvent) => void;
  /** A line of Ralph's own (e.g. "stopping…") shown in the events pane instead of the console. */
  notice: (text: string, level?: 'info' | 'warn') => void;
  /** Restores the terminal (alternate screen off, cursor on). */
  stop: () => void;
}

/**
 * Starts the terminal UI (loaded only when used: `ralph run` on a terminal without --no-tui/-q).
 * It is a sink of the event stream plus a writer of the control inbox; it holds no other state.
 */
export async function startTui(o: TuiOptions): Promise<TuiHandle> {
  const model = emptyModel();
  let bump = () => {};
  const notice = (message: string, level: 'info' | 'warn' = 'info') => {
    reduce(model, { type: 'notice', level, message }, Date.now());
    bump();
  };
  // A refused command (an answer not among the options, an approval already settled) is shown, not thrown.
  const safely = (f: () => void) => {
    try {
      f();
    } catch (error) {
      notice((error as Error).message, 'warn');
    }
  };
  const ws = o.workspace;
  const target = { workspace: ws, source: 'tui' as const };
  // Stop, pause and resume go to the inbox even before the loop holds its lock (the TUI opens first).
  const actions: TuiActions = {
    stop: () => safely(() => sendCommand(ws, 'stop', 'tui')),
    stopNow: () => safely(() => sendCommand(ws, 'stop_now', 'tui')),
    pause: () => safely(() => sendCommand(ws, 'pause', 'tui')),
    resume: () => safely(() => sendCommand(ws, 'resume', 'tui')),
    guide: (text) => safely(() => tell(target, text)),
    answer: (id, text) => safely(() => answer(target, text, { id })),
    approve: (id) => safely(() => approve(target, { id })),
    reject: (id, reason) => safely(() => reject(target, reason, { id })),
    interrupt: o.onInterrupt,
  };
  const screen = await openScreen(TuiApp, { model, limits: o.limits, actions }, o);
  bump = screen.bump;
  return {
    listener: (event) => {
      reduce(model, event, Date.now());
      screen.bump();
    },
    notice,
    stop: screen.stop,
  };
}
