import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RalphConfig } from '../../config/schema.ts';
import { createNotifier } from '../../human/notify.ts';
import { telegramSettings } from '../../human/telegram/settings.ts';
import type { LoopEvent } from '../../observe/events.ts';
import { createOutputCap } from '../../observe/output-cap.ts';
import { type Reporter, reportToAll } from '../../observe/reporter.ts';
import { createDiagnosticsSink } from '../../observe/reporters/diagnostics.ts';
import { createStreamFileSink, STREAM_FILE } from '../../observe/reporters/event-stream-file.ts';
import { createRegistryReporter } from '../../observe/reporters/registry-reporter.ts';
import { createRunLogSink } from '../../observe/reporters/run-log.ts';
import { createStreamRedaction } from '../../observe/stream-redaction.ts';
import type { LoopState } from '../../state/loop-state.ts';
import type { RalphPaths } from '../../state/paths.ts';

/** The run's event stream: where `emit` sends events, and the reporters `runLoop` closes at the end. */
export interface RunReporters {
  /** Every reporter sees every event (redacted, agent output bounded), even when one fails. */
  emit(event: LoopEvent): void;
  /** In closing order: the registry, the notifier (its `stopped` delivery), Telegram, the files, the caller's. */
  readonly reporters: readonly Reporter[];
}

/**
 * Opens the reporters every run has — registry, notifications (and Telegram with `RObot`), the run log, the stream file and,
 * with `RALPH_DIAGNOSTICS=1`, diagnostics — and puts the caller's after them. Throws (having closed
 * what it opened) when a file cannot be opened.
 */
export async function openRunReporters(o: {
  workspace: string;
  config: RalphConfig;
  paths: RalphPaths;
  state: LoopState;
  logFile: string;
  env: NodeJS.ProcessEnv;
  now: () => number;
  redact: (text: string) => string;
  extra: readonly Reporter[];
}): Promise<RunReporters> {
  const { state, env, now } = o;
  // RObot on without a token is refused before anything is opened.
  const telegram = telegramSettings(o.config, env);
  // Loaded only with RObot on: a run without it never evaluates the bot's modules.
  const bot = telegram ? await import('../../human/telegram/telegram-reporter.ts') : undefined;
  const files: Reporter[] = [];
  try {
    files.push(createRunLogSink(o.logFile));
    mkdirSync(join(o.paths.runs, state.run_id), { recursive: true });
    files.push(createStreamFileSink(join(o.paths.runs, state.run_id, STREAM_FILE), now));
    if (env.RALPH_DIAGNOSTICS === '1') files.push(createDiagnosticsSink(o.workspace, { now }));
  } catch (error) {
    for (const f of files) f.close?.();
    throw error;
  }
  const registry = createRegistryReporter({
    env,
    entry: () => ({
      workspace: o.workspace,
      run_id: state.run_id,
      pid: process.pid,
      started_at: state.started_at,
      updated_at: new Date(now()).toISOString(),
      status: state.status,
      stop_reason: state.stop_reason,
    }),
    onWait: (message) => emit({ type: 'notice', level: 'info', message }),
  });
  // Notifications are told what the console is told, redacted; a failed delivery is a notice, never a stop.
  const notifier = createNotifier({
    notify: o.config.notify,
    workspace: o.workspace,
    env,
    onProblem: (message) => emit({ type: 'notice', level: 'warn', message }),
  });
  // The human on Telegram hears what the console hears, redacted; it too never stops the loop.
  const chat =
    telegram && bot
      ? [
          bot.createTelegramReporter({
            settings: telegram,
            workspace: o.workspace,
            onProblem: (message) => emit({ type: 'notice', level: 'warn', message }),
          }),
        ]
      : [];
  const reporters = [registry, notifier, ...chat, ...files, ...o.extra];
  // API keys never reach a file Ralph writes or its console: every reporter sees redacted events.
  const redaction = createStreamRedaction(o.redact);
  // A chatty agent's output is kept bounded (head and tail) before anything stores or shows it.
  const cap = createOutputCap(o.config.logs.max_output_mb, 'logs.max_output_mb');
  const emit = (event: LoopEvent) => {
    let failed: { error: unknown } | undefined;
    const kept = cap(event);
    for (let k = 0; k < kept.length; k++)
      for (const safe of redaction(kept[k] as LoopEvent)) {
        const failure = reportToAll(reporters, safe);
        failed ??= failure;
      }
    if (failed) throw failed.error;
  };
  return { emit, reporters };
}

/**
 * A reporter that runs `work` once, a turn after the first agent started: start-up work that can
 * wait (each git process forks Ralph's whole process; deleting old runs is housekeeping) then
 * overlaps the agent instead of delaying it. A failure there (a reporter of a notice it emits)
 * shows again at the run's next event, which fails the run as it would have.
 */
export function afterFirstAgent(work: () => void): Reporter {
  let due = true;
  return {
    onEvent: (e) => {
      if (!due || e.type !== 'agent.spawned') return;
      due = false;
      setImmediate(() => {
        try {
          work();
        } catch {
          // See above: not lost, only reported by the next event.
        }
      });
    },
  };
}
