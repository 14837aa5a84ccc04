import { statfsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { installHint, resolveBackend } from '../../backends/registry.ts';
import type { RalphConfig } from '../../config/schema.ts';
import {
  type ExecutableLookup,
  executableCandidates,
  findExecutable,
} from '../../process/find-executable.ts';
import { settledStatKey } from '../../state/io/stat-cache.ts';

/** The outcome of one health check: `warn` is reported and the loop goes on; `fatal` stops it. */
export interface HealthResult {
  check: string;
  level: 'ok' | 'warn' | 'fatal';
  message: string;
}

/** One mebibyte: the unit of `health.min_free_disk_mb`. */
export const MB = 1024 * 1024;

/** Free bytes available to an unprivileged user on the file system holding `path`. */
export function statfsFreeBytes(path: string): number {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}

/** The errno code of a failed file-system call (`ENOENT`, `EACCES`, …). */
export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? 'EUNKNOWN';
}

function formatFree(bytes: number): string {
  return bytes < MB ? `${Math.max(0, Math.floor(bytes))} bytes` : `${Math.floor(bytes / MB)} MB`;
}

/** Warns below `minFreeBytes`; fatal below 1 MB (nothing left to write logs, state or commits). */
export function checkDiskSpace(
  path: string,
  minFreeBytes: number,
  probe: (path: string) => number = statfsFreeBytes,
): HealthResult {
  let free: number;
  try {
    free = probe(path);
  } catch (error) {
    return {
      check: 'disk',
      level: 'warn',
      message: `could not measure free disk space in ${path} (${errorCode(error)})`,
    };
  }
  if (free < MB) {
    return {
      check: 'disk',
      level: 'fatal',
      message: `disk full: ${formatFree(free)} free in ${path}; free some space, then run ralph again`,
    };
  }
  if (free < minFreeBytes) {
    return {
      check: 'disk',
      level: 'warn',
      message: `low disk space: ${formatFree(free)} free in ${path}, below health.min_free_disk_mb (${formatFree(minFreeBytes)})`,
    };
  }
  return { check: 'disk', level: 'ok', message: `${formatFree(free)} free in ${path}` };
}

/** True when `root` or a parent holds `.git` (a directory, or a file as in worktrees and submodules). */
export function isInsideGitRepo(root: string): boolean {
  let dir = resolve(root);
  for (;;) {
    try {
      // Missing (the usual answer, up to the root): a stat, not an exception.
      const st = statSync(join(dir, '.git'), { throwIfNoEntry: false });
      if (st?.isDirectory() || st?.isFile()) return true;
    } catch {}
    const parent = dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}

export function checkGitRepo(
  root: string,
  isRepo: (root: string) => boolean = isInsideGitRepo,
): HealthResult {
  if (isRepo(root)) return { check: 'git', level: 'ok', message: `git repository: ${root}` };
  return {
    check: 'git',
    level: 'fatal',
    message: `not a git repository: ${root} (run git init, or set health.require_git: false)`,
  };
}

/** The agent's last successful lookup, and the statKeys of every path it tried up to the one found. */
let lastLookup: { key: string; tried: string[]; stats: string[]; path: string } | undefined;

/**
 * findExecutable, answered again without a lookup (every iteration's health check asks) while the
 * command, PATH and cwd are the same and no path it tried changed: the candidates before the found
 * one are still missing or not executable (creating, renaming or chmodding one changes its
 * statKey) and the found one is the same file. Only a lookup whose paths all settled is kept.
 */
function lookupAgent(command: string, pathEnv: string | undefined, cwd: string): ExecutableLookup {
  const key = JSON.stringify([command, pathEnv ?? null, cwd]);
  const last = lastLookup;
  if (last?.key === key && last.tried.every((p, i) => settledStatKey(p) === last.stats[i]))
    return { found: true, path: last.path };
  lastLookup = undefined;
  const found = findExecutable(command, pathEnv, cwd);
  if (!found.found) return found;
  const candidates = executableCandidates(command, pathEnv, cwd);
  const tried = candidates.slice(0, candidates.indexOf(found.path) + 1);
  const stats = tried.map(settledStatKey);
  if (stats.every((s) => s !== undefined)) lastLookup = { key, tried, stats, path: found.path };
  return found;
}

/** The agent executable exists and is executable (a path, or a bare name looked up on env.PATH). */
export function checkAgentAvailable(
  command: string,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): HealthResult {
  const found = lookupAgent(command, env.PATH, cwd);
  if (found.found) return { check: 'agent', level: 'ok', message: `${command} → ${found.path}` };
  return {
    check: 'agent',
    level: 'fatal',
    message: `agent binary not found: ${command} (${found.detail}) — install it (${installHint(command)}) or set cli.command`,
  };
}

/** The agent command of the configured backend, or why it cannot be built. */
export type AgentCommand =
  | {
      ok: true;
      backend: string;
      command: string;
      /** The PATH the agent gets (the env, then `cli.env`, then the backend's own: later wins). */
      path: string | undefined;
    }
  | { ok: false; backend: string; error: string };

/**
 * PATH as `{ ...envs[0], ...envs[1], … }.PATH` would have it, without copying the environments (every
 * iteration's health check asks, and a copy of `process.env` reads each variable through a getter).
 */
function lastPath(
  envs: readonly (NodeJS.ProcessEnv | Record<string, string> | undefined)[],
): string | undefined {
  let path: string | undefined;
  for (const e of envs) if (e !== undefined && Object.hasOwn(e, 'PATH')) path = e.PATH;
  return path;
}

/** Learns the agent command from the backend itself (a dummy prompt), with the PATH the agent gets. */
export function resolveAgentCommand(
  config: RalphConfig,
  workspace: string,
  env: NodeJS.ProcessEnv,
): AgentCommand {
  const backend = config.cli.backend;
  try {
    const invocation = resolveBackend(backend, config).buildInvocation({
      prompt: 'ralph health check',
      config,
      workspace,
      extraArgs: [],
    });
    return {
      ok: true,
      backend,
      command: invocation.command,
      path: lastPath([env, config.cli.env, invocation.env]),
    };
  } catch (error) {
    return { ok: false, backend, error: (error as Error).message };
  }
}
