import type { BackendName } from '../config/schema.ts';
import type { StartMode } from '../engine/context/run-context.ts';
import type { ParallelEvent } from '../parallel/parallel-events.ts';
import { killGroupNow } from '../process/kill-group.ts';
import type { CliIO } from './io.ts';
import { formatParallelEvent } from './parallel-lines.ts';
import type { ResolvedRun } from './resolve-run.ts';

/** `ralph run --parallel N` (or `parallel: N`): the coordinator, with plain lines on the console. */
export async function parallelCommand(
  resolved: ResolvedRun,
  workers: number,
  mode: StartMode,
  extraArgs: string[],
  io: CliIO,
  quiet: boolean,
): Promise<number> {
  const { runParallel } = await import('../parallel/coordinator.ts');
  const controller = new AbortController();
  const pids = new Set<number>();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts === 1) {
      io.err(
        `\nralph: stopping${signal === 'SIGINT' ? '' : ` (${signal})`} — each worker kills its agent, records its iteration and saves its state (Ctrl-C again to force)\n`,
      );
      controller.abort('interrupted');
      return;
    }
    for (const pid of pids) killGroupNow(pid);
    io.err(
      'ralph: forced stop — the workers were killed; `ralph run --parallel N --resume` goes on from the claims and queue as saved\n',
    );
    process.exit(130);
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const s of signals) process.on(s, onSignal);
  try {
    const result = await runParallel({
      workspace: io.cwd,
      config: resolved.config,
      prompt: resolved.prompt,
      backend: resolved.backend.name as BackendName,
      extraArgs,
      workers,
      mode,
      signal: controller.signal,
      env: io.env,
      onEvent: (e: ParallelEvent) => {
        if (e.type === 'worker.started') pids.add(e.pid);
        if (quiet && e.type !== 'parallel.finished') return;
        const line = formatParallelEvent(e, io.color);
        if (line) (e.type === 'parallel.finished' ? io.out : io.err)(`${line}\n`);
      },
    });
    return result.exitCode;
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}
