import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { BACKEND_NAMES, type BackendName, configSchema, type RalphConfig } from '../config/schema.ts';
import type { StartMode } from '../engine/context/run-options.ts';
import { RalphError } from '../errors.ts';
import { type HeldSecrets, restoreSecrets, withoutSecrets } from '../observe/config-secrets.ts';
import { createRedactor } from '../observe/redact.ts';
import { writeJsonAtomicSync } from '../state/io/atomic-write.ts';

/**
 * The variable that carries a spec's secret-bearing config values (the bot token, `cli.env` …) to
 * its worker process: the spec file in `.ralph/parallel/` holds `***` in their place.
 */
export const WORKER_SECRETS_ENV = 'RALPH_WORKER_SECRETS';

/** What one worker process is told to do: written by the coordinator, read by `ralph parallel-worker`. */
export interface WorkerSpec {
  /** The worktree the worker's loop runs in (its own `.ralph/`). */
  workspace: string;
  config: RalphConfig;
  prompt: string;
  backend: BackendName;
  extraArgs: string[];
  mode: StartMode;
  worker: string;
  task: string;
}

/** What the agent is asked to do in a worker run. */
export type Assignment =
  | { kind: 'task'; title: string; body: string; feedback: string | null }
  | { kind: 'resolve'; title: string; conflict: string };

export interface AssignmentContext {
  worker: string;
  workers: number;
  target: string;
  /** The file the task list lives in: the worker must leave it to Ralph. */
  sourceFile: string;
  promise: string;
}

/** The section put before the user's prompt: this worker's one task, and the rules of a parallel run. */
export function assignmentPrompt(a: Assignment, ctx: AssignmentContext): string {
  if (a.kind === 'resolve')
    return [
      `## Resolve a merge conflict (parallel run, worker ${ctx.worker})`,
      '',
      `This worktree's branch holds the task "${a.title}". It no longer applies cleanly on \`${ctx.target}\`, which other workers changed.`,
      `Run \`git merge ${ctx.target}\`, resolve every conflict so both changes keep working (remove all conflict markers), and commit the merge. Do nothing else.`,
      '',
      a.conflict,
      '',
      `When the merge is committed, output ${ctx.promise} on a line of its own.`,
    ].join('\n');
  return [
    `## Your task (parallel run: worker ${ctx.worker} of ${ctx.workers})`,
    '',
    'Several agents work at the same time, each in its own git worktree on its own branch. Work ONLY on this task:',
    '',
    `**${a.title}**`,
    ...(a.body ? ['', a.body] : []),
    ...(a.feedback ? ['', '### Fix this first', '', a.feedback] : []),
    '',
    '- Commit your work on this branch (Ralph also commits what an iteration leaves uncommitted).',
    `- Leave \`${ctx.sourceFile}\` alone and do not mark the task done: Ralph does that once your commits are merged into \`${ctx.target}\`.`,
    `- When this task is done and committed, output ${ctx.promise} on a line of its own.`,
    '',
    '---',
    '',
  ].join('\n');
}

/**
 * The config a worker runs with: the coordinator's, with the limits still left in the shared
 * budget, completion by the promise alone (the task list is the coordinator's), every iteration
 * committed (work not in a commit cannot be merged) and no push (the merge queue owns the target).
 */
export function workerConfig(
  config: RalphConfig,
  root: string,
  left: { costUsd: number | undefined; tokens: number | undefined; runtimeSeconds: number },
  maxIterations = config.event_loop.max_iterations,
): RalphConfig {
  const c = structuredClone(config);
  const l = c.event_loop;
  l.max_iterations = maxIterations;
  l.max_runtime_seconds = Math.max(1, Math.ceil(left.runtimeSeconds));
  if (left.costUsd !== undefined) l.max_cost_usd = Math.max(0.000001, left.costUsd);
  if (left.tokens !== undefined) l.max_tokens = Math.max(1, Math.floor(left.tokens));
  c.completion = {
    ...c.completion,
    checklist: undefined,
    marker: undefined,
    condition: undefined,
    promise: c.completion.promise ?? c.event_loop.completion_promise,
  };
  // The worktree is the task's own: what a killed worker left uncommitted is the task's work, which
  // the retry goes on with (and commits), never a stranger's changes.
  c.git = { ...c.git, commit: true, push: false, require_clean: false };
  // The agent's script and prompt file are found from the coordinator's workspace, not the worktree.
  if (c.cli.fake_script && !isAbsolute(c.cli.fake_script))
    c.cli.fake_script = resolve(root, c.cli.fake_script);
  return c;
}

/**
 * Writes the spec for a worker (its secret-bearing config values masked) and returns its file and
 * the worker's environment: `env` with those values in WORKER_SECRETS_ENV.
 */
export function writeWorkerSpec(
  dir: string,
  spec: WorkerSpec,
  env: NodeJS.ProcessEnv,
): { file: string; env: NodeJS.ProcessEnv } {
  const file = join(dir, `${spec.worker}.json`);
  const { config, secrets } = withoutSecrets(spec.config, createRedactor(env));
  writeJsonAtomicSync(file, { ...spec, config });
  return { file, env: { ...env, [WORKER_SECRETS_ENV]: JSON.stringify(secrets) } };
}

/** The values WORKER_SECRETS_ENV carries (none when it is unset or unreadable). */
function heldSecrets(env: NodeJS.ProcessEnv): HeldSecrets {
  try {
    const held = JSON.parse(env[WORKER_SECRETS_ENV] ?? '[]') as unknown;
    return Array.isArray(held) ? (held as HeldSecrets) : [];
  } catch {
    return [];
  }
}

/**
 * Reads a spec back, its secret-bearing values restored from `env` (WORKER_SECRETS_ENV), validating
 * its config as a ralph.yml would be.
 */
export function readWorkerSpec(path: string, env: NodeJS.ProcessEnv): WorkerSpec {
  let spec: WorkerSpec;
  try {
    spec = JSON.parse(readFileSync(path, 'utf8')) as WorkerSpec;
  } catch (error) {
    throw new RalphError('usage', `cannot read the worker spec ${path}: ${(error as Error).message}`);
  }
  if (!(BACKEND_NAMES as readonly string[]).includes(spec.backend))
    throw new RalphError(
      'config_invalid',
      `the worker spec ${path} names an unknown backend ${JSON.stringify(spec.backend)}`,
    );
  const parsed = configSchema.safeParse(restoreSecrets(spec.config, heldSecrets(env)));
  if (!parsed.success)
    throw new RalphError(
      'config_invalid',
      `the worker spec ${path} holds an invalid config: ${parsed.error.message}`,
    );
  return { ...spec, config: parsed.data };
}
