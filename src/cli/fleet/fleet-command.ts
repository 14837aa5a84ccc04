import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { findPreset } from '../../config/presets.ts';
import { resolveRun } from '../../engine/run/resolve-run.ts';
import { newRunId } from '../../engine/run/run-setup.ts';
import { UsageError } from '../../errors.ts';
import { safeRedisUrl } from '../../fleet/fleet-errors.ts';
import type { FleetJobSpec } from '../../fleet/job-engine.ts';
import { openFleet } from '../../fleet/open-fleet.ts';
import { runGitRaw } from '../../git/run-git.ts';
import { describeEvent } from '../../observe/describe-event.ts';
import type { LoopEvent } from '../../observe/events.ts';
import { repoRoot } from '../../parallel/worktrees.ts';
import type { CliIO } from '../io.ts';
import { runOptions } from '../run/run-flags.ts';
import { handleStopSignals } from '../signals.ts';
import { defaultWorkdir, fleetSettings } from './fleet-settings.ts';

interface WorkerFlags {
  concurrency: number;
  redis?: string | undefined;
  workdir?: string | undefined;
  id?: string | undefined;
  lockMs: number;
  globalConcurrency?: number | undefined;
  fleetMaxCost?: number | undefined;
}

/** The steps of a run a fleet worker's console shows, one line each, prefixed with the run's id. */
const WORKER_LINES: ReadonlySet<LoopEvent['type']> = new Set([
  'loop.started',
  'iteration.started',
  'iteration.finished',
  'loop.finished',
]);

/** `ralph fleet worker`: runs fleet jobs until drained (SIGTERM, Ctrl-C or `ralph fleet drain`). */
export async function workerCommand(flags: WorkerFlags, io: CliIO): Promise<number> {
  const settings = fleetSettings(flags, io);
  const { concurrency, lockMs: lockDurationMs } = flags;
  const globalConcurrency = flags.globalConcurrency ?? settings.fleet.global_concurrency;
  const fleetMaxCostUsd = flags.fleetMaxCost ?? settings.fleet.max_cost_usd;
  const workdir = resolve(io.cwd, flags.workdir ?? defaultWorkdir(io.env));
  const workerId = flags.id ?? `${hostname()}-${process.pid}`;
  const { runFleetJob } = await import('../../fleet/run-job.ts');
  const engine = await openFleet(settings.redisUrl);
  const say = (text: string) => io.err(`ralph fleet worker ${workerId}: ${text}\n`);
  const handle = await engine.startWorker(
    { workerId, concurrency, lockDurationMs, globalConcurrency, onNotice: say },
    (job) =>
      runFleetJob(job, {
        workdir,
        resolve: (ws, spec) => {
          const r = resolveRun(
            runOptions(
              ws,
              { preset: spec.preset, config: spec.config, maxCost: spec.maxCostUsd },
              io.env,
              [],
            ),
          );
          return { config: r.config, prompt: r.prompt, backend: r.backend };
        },
        fleetMaxCostUsd,
        env: io.env,
        notice: say,
        onEvent: (runId, event) => {
          if (WORKER_LINES.has(event.type)) io.out(`[${runId}] ${describeEvent(event)}\n`);
        },
      }),
  );
  say(`waiting for runs on ${safeRedisUrl(settings.redisUrl)} (workspaces in ${workdir})`);
  const signals = handleStopSignals(
    io,
    {
      stop: () => {
        say('draining — runs are handed over at their next iteration boundary (again to force)');
        void handle.drain();
      },
      force: () => say('forced exit: running runs resume elsewhere once their locks expire'),
    },
    ['SIGINT', 'SIGTERM'],
  );
  try {
    await handle.closed;
  } finally {
    signals.dispose();
    await engine.close();
  }
  say('stopped');
  return 0;
}

interface SubmitFlags {
  repo?: string | undefined;
  branch?: string | undefined;
  preset?: string | undefined;
  config?: string | undefined;
  maxCost?: number | undefined;
  name?: string | undefined;
  redis?: string | undefined;
}

/** The repository and branch of a submit: the flags, else this repository and its branch. */
async function sourceOf(flags: SubmitFlags, cwd: string): Promise<{ repo: string; branch: string }> {
  if (flags.repo !== undefined) {
    // A local path is made absolute: workers run elsewhere.
    const repo = /^[a-z][a-z0-9+.-]*:\/\/|^[^/]+@[^:]+:/i.test(flags.repo)
      ? flags.repo
      : resolve(cwd, flags.repo);
    return { repo, branch: flags.branch ?? 'main' };
  }
  const top = await repoRoot(cwd, {
    needs: 'ralph fleet submit without --repo',
    fix: 'pass --repo URL|PATH, a repository every worker can reach',
  });
  const current = await runGitRaw(cwd, ['symbolic-ref', '-q', '--short', 'HEAD']);
  return { repo: top, branch: flags.branch ?? (current.stdout.trim() || 'main') };
}

/** `ralph fleet submit`: queues one run and prints its id. */
export async function submitCommand(flags: SubmitFlags, io: CliIO): Promise<number> {
  if (flags.preset !== undefined && flags.config !== undefined)
    throw new UsageError('pass either --preset or -c, not both');
  if (flags.preset !== undefined) findPreset(flags.preset);
  const maxCostUsd = flags.maxCost;
  const settings = fleetSettings(flags, io);
  const { repo, branch } = await sourceOf(flags, io.cwd);
  const spec: FleetJobSpec = {
    repo,
    branch,
    preset: flags.preset,
    config: flags.config,
    maxCostUsd,
    name: flags.name,
    submittedAt: new Date().toISOString(),
  };
  const engine = await openFleet(settings.redisUrl);
  try {
    const runId = newRunId(new Date());
    await engine.submit(spec, runId);
    io.out(`${runId}\n`);
    io.err(
      `ralph fleet: queued ${runId} (${repo} @ ${branch}); follow it with \`ralph fleet logs ${runId} -f\`\n`,
    );
  } finally {
    await engine.close();
  }
  return 0;
}
