import { resolve } from 'node:path';
import type { RalphConfig } from '../../config/schema.ts';
import {
  checkAgentAvailable,
  checkDiskSpace,
  checkGitRepo,
  type HealthResult,
  MB,
  resolveAgentCommand,
  statfsFreeBytes,
} from './health-checks.ts';
import { checkSpecsReadable } from './specs-check.ts';

export interface HealthCheckOptions {
  workspace: string;
  config: RalphConfig;
  env: NodeJS.ProcessEnv;
  probes?: Partial<{ diskFree: (path: string) => number; isGitRepo: (root: string) => boolean }>;
}

/**
 * Failure drills (seed 002, failure mode 7) inject the free space here: a numeric
 * `RALPH_HEALTH_DISK_FREE_BYTES` replaces the statfs measurement (`0` → disk full).
 */
function diskProbe(opts: HealthCheckOptions): (path: string) => number {
  if (opts.probes?.diskFree) return opts.probes.diskFree;
  const injected = opts.env.RALPH_HEALTH_DISK_FREE_BYTES;
  if (injected !== undefined && injected.trim() !== '') {
    const bytes = Number(injected);
    if (Number.isFinite(bytes) && bytes >= 0) return () => bytes;
  }
  return statfsFreeBytes;
}

/**
 * The checks that apply to this config, in the seed's order: disk (always), git (when
 * `health.require_git`, default `git.commit`), specs (when `health.specs_dir`), agent (when the
 * backend resolves; a backend that does not fails the run with its own message). None when
 * `health.enabled` is false.
 */
export function runHealthChecks(opts: HealthCheckOptions): HealthResult[] {
  const { workspace, config, env } = opts;
  const health = config.health;
  if (!health.enabled) return [];
  const results = [checkDiskSpace(workspace, health.min_free_disk_mb * MB, diskProbe(opts))];
  // With repos the parent need not be a repository: each of them is checked instead.
  if (health.require_git ?? (config.git.commit && !config.repos))
    results.push(checkGitRepo(workspace, opts.probes?.isGitRepo));
  if (health.specs_dir !== undefined) results.push(checkSpecsReadable(resolve(workspace, health.specs_dir)));
  const agent = resolveAgentCommand(config, workspace, env);
  if (agent.ok) results.push(checkAgentAvailable(agent.command, { PATH: agent.path }, workspace));
  return results;
}

/** The first fatal result: the loop must stop before the iteration starts. */
export function healthFatal(results: readonly HealthResult[]): HealthResult | undefined {
  return results.find((r) => r.level === 'fatal');
}
