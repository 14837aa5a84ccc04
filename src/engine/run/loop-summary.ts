import type { ExitCodeValue } from '../../errors.ts';
import type { StopReason } from '../../observe/events.ts';
import type { TokenTotals } from '../../state/iteration-record-shape.ts';
import type { LoopState } from '../../state/loop-state.ts';
import type { Stop } from '../decide/limits.ts';

/**
 * What `runLoop` resolves to: how the run ended and what it spent. A stable contract for
 * embedding programs, unlike `.ralph/state.json`'s internal shape; the totals count the whole run
 * (across `--resume`), as the console's end summary does.
 */
export interface LoopSummary {
  /** The run's id: `RALPH_RUN_ID`, `.ralph/runs/<runId>/`. */
  runId: string;
  /** The workspace the loop ran in. */
  workspace: string;
  /** Why it stopped, as `stop_reason` in state.json: `completed`, `max_iterations`, `cancelled`, … */
  stopReason: StopReason;
  /** The stop in words (secrets redacted). */
  message: string;
  /** The `ralph` exit code of this stop: 0 completed or cancelled, 1 failure, 2 a limit, 130 interrupted. */
  exitCode: ExitCodeValue;
  /** True when the run is unfinished: `runLoop({ mode: 'resume' })` (`ralph run --resume`) continues it. */
  resumable: boolean;
  /** Iterations run. */
  iterations: number;
  /** Tokens the agents used (the shape of `loop.finished`'s `tokens`). */
  tokens: TokenTotals;
  /** What the agents cost in USD (reported by the CLIs, or estimated from tokens and list prices). */
  costUsd: number;
  /** With a model ladder (`cli.models`, `hats.<hat>.models`): what the agents cost per model, in USD. */
  costByModel?: Record<string, number>;
  /** Wall time of the run in milliseconds. */
  durationMs: number;
  /** The run's human log (`.ralph/logs/…`). */
  logFile: string;
}

/** The run's end as {@link LoopSummary} says it, from the saved state. */
export function summaryOf(state: LoopState, end: Stop, workspace: string, logFile: string): LoopSummary {
  return {
    runId: state.run_id,
    workspace,
    stopReason: end.reason,
    message: state.stop_message ?? end.message,
    exitCode: end.exitCode,
    resumable: state.status === 'interrupted',
    iterations: state.iterations,
    tokens: { ...state.tokens },
    costUsd: state.cost_usd,
    ...(laddered(state) ? { costByModel: { ...state.cost_by_model } } : {}),
    durationMs: state.elapsed_ms,
    logFile,
  };
}

/** The run climbed a model ladder: its summary shows the spend per model. */
export function laddered(state: Pick<LoopState, 'ladder'>): boolean {
  return Object.keys(state.ladder ?? {}).length > 0;
}
