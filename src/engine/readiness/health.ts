import {
  closeSync,
  type Dirent,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  type Stats,
  statfsSync,
  statSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { installHint, resolveBackend } from '../../backends/registry.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { findExecutable } from '../../process/find-executable.ts';

/** The outcome of one health check: `warn` is reported and the loop goes on; `fatal` stops it. */
export interface HealthResult {
  check: string;
  level: 'ok' | 'warn' | 'fatal';
  message: string;
}

const MB = 1024 * 1024;

/** Free bytes available to an unprivileged user on the file system holding `path`. */
export function statfsFreeBytes(path: string): number {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}

function errorCode(error: unknown): string {
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
      const st = statSync(join(dir, '.git'));
      if (st.isDirectory() || st.isFile()) return true;
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

interface SpecsProblem {
  path: string;
  code: string;
  what: string;
}

// Bounds the recursive walk so the check stays cheap before every iteration.
const SPECS_ENTRY_BUDGET = 2000;

function readOneByte(path: string): void {
  const fd = openSync(path, 'r');
  try {
    readSync(fd, Buffer.alloc(1), 0, 1, 0);
  } finally {
    closeSync(fd);
  }
}

function symlinkWhat(code: string): string {
  return code === 'ENOENT'
    ? 'is a dangling symlink'
    : code === 'ELOOP'
      ? 'is a symlink loop'
      : 'cannot be read';
}

/** Lists `dir` and opens every regular file under it; symlinked directories are listed, not walked. */
function walkSpecs(dir: string, budget: { left: number; files: number }): SpecsProblem | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    return { path: dir, code: errorCode(error), what: 'cannot be listed' };
  }
  for (const entry of entries) {
    if (budget.left-- <= 0) return undefined;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const problem = walkSpecs(path, budget);
      if (problem) return problem;
      continue;
    }
    try {
      const st = statSync(path);
      if (st.isFile()) {
        readOneByte(path);
        budget.files++;
      } else if (st.isDirectory()) {
        readdirSync(path);
      }
      // FIFOs, sockets and devices are left alone: opening a FIFO would block.
    } catch (error) {
      const code = errorCode(error);
      return { path, code, what: entry.isSymbolicLink() ? symlinkWhat(code) : 'cannot be read' };
    }
  }
  return undefined;
}

function specsProblem(root: string, budget: { left: number; files: number }): SpecsProblem | undefined {
  let st: Stats;
  try {
    st = lstatSync(root);
  } catch (error) {
    const code = errorCode(error);
    return { path: root, code, what: code === 'ENOENT' ? 'is missing' : 'cannot be read' };
  }
  if (st.isSymbolicLink()) {
    try {
      st = statSync(root);
    } catch (error) {
      const code = errorCode(error);
      return { path: root, code, what: symlinkWhat(code) };
    }
  }
  if (!st.isDirectory()) return { path: root, code: 'ENOTDIR', what: 'is not a directory' };
  return walkSpecs(root, budget);
}

/**
 * The specs directory and the files in it can be read. Judged by actually listing and opening
 * (not by permission bits, which root ignores).
 */
export function checkSpecsReadable(dir: string): HealthResult {
  const root = resolve(dir);
  const budget = { left: SPECS_ENTRY_BUDGET, files: 0 };
  const problem = specsProblem(root, budget);
  if (problem) {
    const where = problem.path === root ? '' : ` in ${root}`;
    return {
      check: 'specs',
      level: 'fatal',
      message:
        `cannot read specs: ${problem.path} ${problem.what} (${problem.code})${where}; ` +
        'restore specs/ (or fix its permissions), then run ralph again',
    };
  }
  const n = budget.files;
  return { check: 'specs', level: 'ok', message: `${root} readable (${n} ${n === 1 ? 'file' : 'files'})` };
}

/** The agent executable exists and is executable (a path, or a bare name looked up on env.PATH). */
export function checkAgentAvailable(
  command: string,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): HealthResult {
  const found = findExecutable(command, env.PATH, cwd);
  if (found.found) return { check: 'agent', level: 'ok', message: `${command} → ${found.path}` };
  return {
    check: 'agent',
    level: 'fatal',
    message: `agent binary not found: ${command} (${found.detail}) — install it (${installHint(command)}) or set cli.command`,
  };
}

/** The agent command of the configured backend, or why it cannot be built. */
export type AgentCommand =
  | { ok: true; backend: string; command: string; env: NodeJS.ProcessEnv }
  | { ok: false; backend: string; error: string };

/** Learns the agent command from the backend itself (a dummy prompt), with the env the agent gets. */
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
      env: { ...env, ...config.cli.env, ...invocation.env },
    };
  } catch (error) {
    return { ok: false, backend, error: (error as Error).message };
  }
}

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
  if (agent.ok) results.push(checkAgentAvailable(agent.command, agent.env, workspace));
  return results;
}

/** The first fatal result: the loop must stop before the iteration starts. */
export function healthFatal(results: readonly HealthResult[]): HealthResult | undefined {
  return results.find((r) => r.level === 'fatal');
}
