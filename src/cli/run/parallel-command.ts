import type { BackendName } from '../../config/schema/backend-names.ts';
import type { StartMode } from '../../engine/context/run-options.ts';
import type { ResolvedRun } from '../../engine/run/run-inputs.ts';
import type { ParallelReporter } from '../../observe/parallel-events.ts';
import type { ParallelTuiHandle } from '../../tui/start-parallel-tui.ts';
import type { CliIO } from '../io.ts';
import { handleStopSignals } from '../signals.ts';
import { createParallelLines } from './parallel-lines.ts';

export interface ParallelDisplay {
  /** -q: only the summary line. */
  quiet: boolean;
  /** The terminal UI (the caller decided: a terminal, not -q/--no-tui/TERM=dumb/CI). */
  tui: boolean;
}

/** `ralph run --parallel N` (or `parallel: N`): the coordinator, with the TUI or plain lines. */
export async function parallelCommand(
  resolved: ResolvedRun,
  workers: number,
  mode: StartMode,
  extraArgs: string[],
  io: CliIO,
  display: ParallelDisplay,
): Promise<number> {
  const { runParallel } = await import('../../parallel/coordinator.ts');
  const controller = new AbortController();
  const forceController = new AbortController();
  let tui: ParallelTuiHandle | undefined;
  const lines = createParallelLines();
  // Ralph's own lines go to the TUI's events pane while it owns the screen.
  const say = (text: string) => (tui ? tui.line(text.trim(), 'warn') : io.err(text));
  const signals = handleStopSignals(io, {
    stop: (signal) => {
      say(
        `\nralph: stopping${signal === 'SIGINT' ? '' : ` (${signal})`} — each worker kills its agent, records its iteration and saves its state (Ctrl-C again to force)\n`,
      );
      controller.abort('interrupted');
    },
    force: () => {
      // The coordinator kills every worker's group before abort() returns: the exit may follow.
      forceController.abort('forced');
      tui?.stop();
      io.err(
        'ralph: forced stop — the workers were killed; `ralph run --parallel N --resume` goes on from the claims and queue as saved\n',
      );
    },
  });
  // The console lines, or the TUI with the same lines in its events pane.
  const reporter: ParallelReporter = {
    onEvent: (e) => {
      if (tui) {
        tui.event(e);
        // The events pane shows the plain mode's lines; the summary goes to the normal screen.
        const line = lines.format(e, false);
        if (line && e.type !== 'parallel.finished') tui.line(line);
        if (e.type !== 'parallel.finished') return;
        tui.stop();
      }
      if (display.quiet && e.type !== 'parallel.finished') return;
      const line = lines.format(e, io.color);
      if (line) (e.type === 'parallel.finished' ? io.out : io.err)(`${line}\n`);
    },
  };
  try {
    if (display.tui && io.terminal) {
      const { startParallelTui } = await import('../../tui/start-parallel-tui.ts');
      const { tuiLimits } = await import('../../tui/tui-layout.ts');
      tui = await startParallelTui({
        limits: tuiLimits(resolved.config.event_loop),
        stdout: io.terminal.stdout,
        stdin: io.terminal.stdin,
        onInterrupt: () => signals.trigger('SIGINT'),
      });
    }
    const result = await runParallel({
      workspace: io.cwd,
      config: resolved.config,
      prompt: resolved.prompt,
      backend: resolved.backend.name as BackendName,
      extraArgs,
      workers,
      mode,
      signal: controller.signal,
      forceSignal: forceController.signal,
      env: io.env,
      reporters: [reporter],
    });
    return result.exitCode;
  } finally {
    tui?.stop();
    signals.dispose();
  }
}
