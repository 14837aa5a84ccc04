import { resolveBackend } from '../backends/registry.ts';
import { runLoop } from '../engine/run/loop.ts';
import { createConsoleReporter } from '../observe/console-reporter.ts';
import { readWorkerSpec } from '../parallel/worker-spec.ts';
import type { CliIO } from './io.ts';

/**
 * `ralph parallel-worker SPEC` (internal, started by `ralph run --parallel`): one loop on one task
 * in its worktree, as the spec says. SIGINT/SIGTERM stop it like Ctrl-C stops `ralph run`.
 */
export async function parallelWorkerCommand(specFile: string, io: CliIO): Promise<number> {
  const spec = readWorkerSpec(specFile);
  const controller = new AbortController();
  const onSignal = () => controller.abort('interrupted');
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const s of signals) process.on(s, onSignal);
  try {
    const result = await runLoop({
      workspace: spec.workspace,
      config: spec.config,
      prompt: spec.prompt,
      backend: resolveBackend(spec.backend, spec.config),
      mode: spec.mode,
      extraArgs: spec.extraArgs,
      signal: controller.signal,
      env: { ...io.env, RALPH_PARALLEL_WORKER: spec.worker, RALPH_PARALLEL_TASK: spec.task },
      onEvent: createConsoleReporter({ out: io.out, err: io.err, verbosity: 'normal', color: false }),
    });
    return result.exitCode;
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}
