import { resolveBackend } from '../../backends/registry.ts';
import { runLoop } from '../../engine/run/loop.ts';
import { createConsoleReporter } from '../../observe/reporters/console-reporter.ts';
import { readWorkerSpec, WORKER_SECRETS_ENV } from '../../parallel/worker-spec.ts';
import type { CliIO } from '../io.ts';
import { handleStopSignals } from '../signals.ts';

/**
 * `ralph parallel-worker SPEC` (internal, started by `ralph run --parallel`): one loop on one task
 * in its worktree, as the spec says. SIGINT/SIGTERM stop it like Ctrl-C stops `ralph run`.
 */
export async function parallelWorkerCommand(specFile: string, io: CliIO): Promise<number> {
  const spec = readWorkerSpec(specFile, io.env);
  // The held secrets are back in the config: the loop, its gates and its agent do not get them twice.
  const { [WORKER_SECRETS_ENV]: _held, ...env } = io.env;
  const controller = new AbortController();
  // Every signal stops it gracefully: the coordinator forces by killing its group.
  const signals = handleStopSignals(io, { stop: () => controller.abort('interrupted') });
  try {
    const result = await runLoop({
      workspace: spec.workspace,
      config: spec.config,
      prompt: spec.prompt,
      backend: resolveBackend(spec.backend, spec.config),
      mode: spec.mode,
      extraArgs: spec.extraArgs,
      signal: controller.signal,
      env: { ...env, RALPH_PARALLEL_WORKER: spec.worker, RALPH_PARALLEL_TASK: spec.task },
      reporters: [createConsoleReporter({ out: io.out, err: io.err, verbosity: 'normal', color: false })],
    });
    return result.exitCode;
  } finally {
    signals.dispose();
  }
}
