import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { usesLoopSettings } from '../../backends/backend-settings.ts';
import { installHint, resolveBackend } from '../../backends/registry.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { readGitHead } from '../../git/head.ts';
import { hasRemote } from '../../git/push.ts';
import { describeRefusal, isGitRepo, repoState } from '../../git/repo-state.ts';
import { telegramSettings } from '../../human/telegram/settings.ts';
import { findExecutable } from '../../process/find-executable.ts';
import { resolveSkillDir } from '../../skills/skill-dirs.ts';
import { dirtyTreeMessage, gitEnabled, requireClean } from '../commit/workspace-git.ts';
import { hookProblems } from '../hooks/check-hooks.ts';
import { gateChecks } from './gate-programs.ts';
import { runHealthChecks } from './health.ts';
import { type HealthResult, resolveAgentCommand } from './health-checks.ts';
import { repoStatusChecks, reposPreflight, reposRefusals } from './repo-set.ts';
import { rollbackRefusal, rollbackSetting } from './rollback-readiness.ts';

/** The prompt file the config names exists (`-p`/`-P` on the command line are checked by `run`). */
function promptChecks(workspace: string, config: RalphConfig): HealthResult[] {
  const file = config.event_loop.prompt === undefined ? config.event_loop.prompt_file : undefined;
  if (file === undefined || existsSync(resolve(workspace, file))) return [];
  return [
    {
      check: 'prompt',
      level: 'fatal',
      message: `event_loop.prompt_file ${file} does not exist: create it, or point prompt_file at your prompt`,
    },
  ];
}

/** The run's own Telegram check (telegramSettings): what `ralph run` refuses, `RObot.enabled` without a token. */
function telegramChecks(config: RalphConfig, env: NodeJS.ProcessEnv): HealthResult[] {
  try {
    telegramSettings(config, env);
    return [];
  } catch (error) {
    return [{ check: 'telegram', level: 'fatal', message: (error as Error).message }];
  }
}

/** What git would refuse when the loop starts or pushes: not a repository, a rebase, a dirty tree, no remote. */
async function gitChecks(workspace: string, config: RalphConfig): Promise<HealthResult[]> {
  // repos: the parent need not be a repository; each repository is checked instead.
  if (config.repos) {
    const refusals = reposRefusals(config, {});
    if (refusals.length > 0) return refusals.map((message) => ({ check: 'git', level: 'fatal', message }));
    await reposPreflight(workspace, config);
    return repoStatusChecks(workspace, config);
  }
  if (rollbackSetting(config)) {
    const inRepo = await isGitRepo(workspace);
    const refusal = rollbackRefusal(config, inRepo, inRepo ? (readGitHead(workspace).commit ?? null) : null);
    if (refusal) return [{ check: 'git', level: 'fatal', message: refusal }];
  }
  if (!gitEnabled(config)) return [];
  if (!(await isGitRepo(workspace)))
    return [
      {
        check: 'git',
        level: 'fatal',
        message: `${workspace} is not a git repository but git.commit/git.push is on: run \`git init\`, or turn them off`,
      },
    ];
  const out: HealthResult[] = [];
  const refusal = describeRefusal(await repoState(workspace));
  if (refusal) out.push({ check: 'git', level: 'fatal', message: refusal });
  if (requireClean(config)) {
    const dirty = await dirtyTreeMessage(workspace);
    if (dirty) out.push({ check: 'git', level: 'fatal', message: `git.require_clean: ${dirty}` });
  }
  out.push(...(await pushRemoteCheck(workspace, config, true)));
  return out;
}

/** git.push needs the remote to exist; otherwise the first push fails after a whole iteration. */
async function pushRemoteCheck(
  workspace: string,
  config: RalphConfig,
  inRepo?: boolean,
): Promise<HealthResult[]> {
  if (
    !config.git.push ||
    !(inRepo ?? (await isGitRepo(workspace))) ||
    (await hasRemote(workspace, config.git.remote))
  )
    return [];
  return [
    {
      check: 'git',
      level: 'fatal',
      message: `git.push is on but the repository has no remote "${config.git.remote}": \`git remote add ${config.git.remote} <url>\`, or set git.remote / git.push: false`,
    },
  ];
}

/** The backend can build its command at all (e.g. `custom` needs cli.command; `auto` needs an agent CLI). */
function backendChecks(workspace: string, config: RalphConfig, env: NodeJS.ProcessEnv): HealthResult[] {
  const agent = resolveAgentCommand(config, workspace, env);
  return agent.ok ? [] : [{ check: 'backend', level: 'fatal', message: agent.error }];
}

/**
 * The executable of every hat on a backend or command of its own (the loop's agent is a health
 * check): a missing one would stop the run only when that hat first runs.
 */
function hatAgentChecks(workspace: string, config: RalphConfig, env: NodeJS.ProcessEnv): HealthResult[] {
  const path = { ...env, ...config.cli.env }.PATH;
  return Object.entries(config.hats).flatMap(([id, hat]): HealthResult[] => {
    const name = hat.backend ?? config.cli.backend;
    if (hat.command === undefined && (hat.backend === undefined || usesLoopSettings(name, config))) return [];
    const keys = `hats.${id}.command / hats.${id}.backend`;
    let command: string;
    try {
      command = resolveBackend(name, config, hat.command).buildInvocation({
        prompt: 'ralph health check',
        config,
        workspace,
        extraArgs: [],
      }).command;
    } catch (error) {
      return [{ check: 'agent', level: 'fatal', message: `hat ${id}: ${(error as Error).message}` }];
    }
    const found = findExecutable(command, path, workspace);
    if (found.found) return [];
    const message = `hat ${id} runs ${command}, which is not there (${found.detail}): install it (${installHint(command)}) or fix ${keys}`;
    return [{ check: 'agent', level: 'fatal', message }];
  });
}

/**
 * hooks: a hook that cannot run fails at its phase by its on_error; said before the run, not fatal
 * (a `warn` hook's missing program must not stop it).
 */
function hookChecks(workspace: string, config: RalphConfig, env: NodeJS.ProcessEnv): HealthResult[] {
  if (!config.hooks.enabled) return [];
  return hookProblems(config, workspace, env).map((p) => ({
    check: 'hooks',
    level: 'warn',
    message: `hooks.events.${p.phaseEvent}: hook ${p.hook}: ${p.message} (\`ralph hooks validate\` checks them all)`,
  }));
}

/** skills.dirs: a directory that is not there lists no skills; said, not fatal (ralph-orchestrator warns too). */
function skillChecks(workspace: string, config: RalphConfig): HealthResult[] {
  if (!config.skills?.enabled) return [];
  return config.skills.dirs
    .filter((dir) => !isDirectory(resolveSkillDir(workspace, dir)))
    .map((dir) => ({
      check: 'skills',
      level: 'warn',
      message: `skills.dirs: ${dir} is not a directory (in the workspace or a parent): it adds no skills`,
    }));
}

const isDirectory = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/**
 * One preflight for `ralph config validate`, `ralph doctor` and `ralph run`: everything a run would
 * fail on a minute later — the health checks (disk, agent binary, specs), the backend, the prompt
 * file, the gate commands, and git (repository state, a dirty tree with require_clean, a push remote).
 */
export async function preflight(
  workspace: string,
  config: RalphConfig,
  env: NodeJS.ProcessEnv,
): Promise<HealthResult[]> {
  return [
    ...backendChecks(workspace, config, env),
    ...runHealthChecks({ workspace, config, env }),
    ...hatAgentChecks(workspace, config, env),
    ...promptChecks(workspace, config),
    ...telegramChecks(config, env),
    ...gateChecks(workspace, config, env),
    ...hookChecks(workspace, config, env),
    ...skillChecks(workspace, config),
    ...(await gitChecks(workspace, config).catch((error: Error): HealthResult[] => [
      { check: 'git', level: 'fatal', message: error.message },
    ])),
  ];
}

/**
 * The checks `ralph run` makes before its first iteration: the health checks, and what would fail
 * only after it (a hat's agent, gate programs, a push remote). Git refusals it reports itself, and
 * a backend that cannot build its command fails the run with its own message.
 */
export async function startChecks(
  workspace: string,
  config: RalphConfig,
  env: NodeJS.ProcessEnv,
  /** Whether the workspace is in a git repository, when the caller knows (saves a git call). */
  inRepo?: boolean,
): Promise<HealthResult[]> {
  // The remote is asked (a git process) while the other checks run.
  const push = pushRemoteCheck(workspace, config, inRepo).catch((error: Error): HealthResult[] => [
    { check: 'git', level: 'fatal', message: error.message },
  ]);
  return [
    ...runHealthChecks({ workspace, config, env }),
    ...hatAgentChecks(workspace, config, env),
    ...gateChecks(workspace, config, env),
    ...hookChecks(workspace, config, env),
    ...skillChecks(workspace, config),
    ...(await push),
    // repos: multiRepoPreflight refused what is wrong; each repository gets its line.
    ...(config.repos ? await repoStatusChecks(workspace, config) : []),
  ];
}
