import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { definitionOf } from '../../backends/registry.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { readWorkTreeLayout, type WorkTreeLayout } from '../../git/work-tree-layout.ts';
import { RALPH_BIN_DIR } from '../../paths-package.ts';
import { findExecutable } from '../../process/find-executable.ts';
import { isWithinOrEqual } from '../../sandbox/sandbox-paths.ts';
import { describePolicy, sandboxPolicy } from '../../sandbox/sandbox-policy.ts';
import type { SandboxPolicy, SandboxPolicyInput } from '../../sandbox/sandbox-types.ts';
import { sandboxSettings } from '../../sandbox/sandbox-types.ts';
import { skillDirs } from '../../skills/skill-dirs.ts';
import { waveDirOf } from '../../state/events-log.ts';
import { appendText } from '../../state/io/file-writes.ts';
import { type RalphPaths, ralphPaths } from '../../state/paths.ts';
import type { RunSandbox } from '../context/run-context.ts';
import type { RunLoopOptions } from '../context/run-options.ts';
import { matchProtected, protectedGlobs } from '../gates/checks/protected-files.ts';
import { repoEntries } from './repo-set.ts';
import {
  gateCommandWords,
  gitControlFiles,
  nodePrefix,
  pathEntries,
  protectedDirs,
  runtimeUnderHome,
} from './sandbox-input-paths.ts';
import { runBackends } from './sandbox-readiness.ts';

export interface SandboxGatherOptions {
  workspace: string;
  config: RalphConfig;
  env: NodeJS.ProcessEnv;
  /** The run's events file (RALPH_EVENTS_FILE): the agent appends to it through `ralph emit`. */
  eventsFile: string;
  configFiles?: readonly string[] | undefined;
  /** The layout the run's pre-flight read (saves a git call); asked of git when undefined. */
  layout?: WorkTreeLayout | undefined;
  home?: string | undefined;
  /** false: make nothing (`ralph run --dry-run` shows the policy and writes nothing). */
  create?: boolean | undefined;
}

/** The files the agent writes under `.ralph/`, made now: a bind mount needs its path to exist. */
function agentWritable(paths: RalphPaths, eventsFile: string, create: boolean, waves: boolean): string[] {
  // An agent wave's members publish into their own files there (iteration/wave/); `ralph tools
  // interact progress` appends its notes to the progress file (progress-watch.ts).
  const own = [
    paths.agentDir,
    eventsFile,
    ...(waves ? [waveDirOf(eventsFile)] : []),
    paths.questions,
    paths.progressNotes,
  ];
  if (!create) return own;
  mkdirSync(paths.agentDir, { recursive: true });
  if (waves) mkdirSync(waveDirOf(eventsFile), { recursive: true });
  mkdirSync(paths.control, { recursive: true });
  // `ralph ask` appends its question here; the loop trusts an answer only with its inbox command
  // (the inbox stays read-only), so a line the agent forges answers nothing (human-wait.ts).
  for (const file of [eventsFile, paths.questions, paths.progressNotes])
    if (!existsSync(file)) appendText(file, '');
  return own;
}

/**
 * The agent CLI's own directories, made when missing: a bind mount needs its path, and without one
 * the CLI's sessions and login would go to the sandbox's throwaway home. One that cannot be made
 * stays out of the sandbox (its rule is optional).
 */
function makeBackendDirs(entries: readonly string[], files: readonly string[]): void {
  for (const dir of entries.filter((e) => !files.includes(e) && !existsSync(e))) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      // not ours to fix here: the CLI runs with that location hidden, as before
    }
  }
}

/** Every protected path that exists: the files the protect gate selects and the trees it names whole. */
function protectedPaths(workspace: string, config: RalphConfig): string[] {
  const globs = protectedGlobs(config, workspace);
  const files = matchProtected(workspace, globs).map((rel) => join(workspace, rel));
  return [...files, ...protectedDirs(workspace, globs).filter((d) => existsSync(d))];
}

/** The validate hook and the gate commands' own files that exist in the workspace. */
function gateFiles(workspace: string, paths: RalphPaths, config: RalphConfig): string[] {
  const words = gateCommandWords(config).map((w) => resolve(workspace, w));
  return [paths.validateScript, ...words].filter((f) => isWithinOrEqual(f, workspace) && existsSync(f));
}

/** The package directory of an executable's real file (the nearest parent with a package.json). */
function packageDirOf(command: string, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const found = findExecutable(command, env.PATH, cwd);
  if (!found.found) return undefined;
  let dir = dirname(realpathSync(found.path));
  for (let up = 0; up < 6; up++, dir = dirname(dir)) if (existsSync(join(dir, 'package.json'))) return dir;
  return dirname(realpathSync(found.path));
}

/** Each repository of `repos:`: its git control files stay read-only like the workspace's own. */
function reposControlFiles(workspace: string, config: RalphConfig): string[] {
  if (!config.repos) return [];
  return repoEntries(workspace, config).flatMap((repo) => {
    const dotGit = join(repo.root, '.git');
    return existsSync(dotGit) && statSync(dotGit).isDirectory() ? gitControlFiles(dotGit) : [];
  });
}

/**
 * Gathers once per run what `sandbox: on` needs to know (git's directories, the config layers, the
 * protected and gate files, the agent's own files) and returns the policy of each backend's agents.
 */
export async function gatherRunSandbox(o: SandboxGatherOptions): Promise<RunSandbox> {
  const { workspace, config, env } = o;
  const paths = ralphPaths(workspace);
  const layout = o.layout ?? (config.repos ? undefined : await readWorkTreeLayout(workspace));
  const home = o.home ?? homedir();
  const base: Omit<SandboxPolicyInput, 'backendHome' | 'runtimeReadOnly'> = {
    workspace,
    gitDir: layout?.gitDir,
    gitCommonDir: layout?.commonDir,
    home,
    // The workspace's own ralph.yml too: a parallel worker or a fleet job is given no layer list.
    configFiles: [
      ...new Set([...(o.configFiles ?? []), ...['ralph.yml', 'ralph.yaml'].map((f) => join(workspace, f))]),
    ].filter((f) => existsSync(f)),
    promptFiles: [config.event_loop.prompt_file, 'PROMPT.md']
      .flatMap((f) => (f === undefined ? [] : [resolve(workspace, f)]))
      .filter((f) => existsSync(f)),
    protectedPaths: [...protectedPaths(workspace, config), ...reposControlFiles(workspace, config)],
    gateFiles: gateFiles(workspace, paths, config),
    agentWritable: agentWritable(
      paths,
      o.eventsFile,
      o.create ?? true,
      Object.values(config.hats).some((h) => (h.concurrency ?? 1) > 1),
    ),
    settings: sandboxSettings(config),
    skillDirs: skillDirs(config.skills, workspace),
  };
  const runtime = [nodePrefix(process.execPath), dirname(RALPH_BIN_DIR), ...pathEntries(env.PATH)];
  const policies = new Map<string, SandboxPolicy>();
  return {
    policyFor(backend, command) {
      const key = `${backend}\0${command}`;
      let policy = policies.get(key);
      if (!policy) {
        const agentPackage = packageDirOf(command, env, workspace);
        const definition = definitionOf(backend);
        const backendHome = definition.sandboxHome?.(env, home) ?? [];
        if (o.create ?? true) makeBackendDirs(backendHome, definition.sandboxHomeFiles?.(env, home) ?? []);
        policy = sandboxPolicy({
          ...base,
          backendHome,
          runtimeReadOnly: runtimeUnderHome(home, [...runtime, ...(agentPackage ? [agentPackage] : [])]),
        });
        policies.set(key, policy);
      }
      return policy;
    },
  };
}

/** The run's sandbox when `sandbox: on` (undefined otherwise: `off`, or `native`, where the backend's flags do it). */
export async function runSandboxOf(
  options: RunLoopOptions,
  env: NodeJS.ProcessEnv,
  eventsFile: string,
  layout: WorkTreeLayout | undefined,
): Promise<RunSandbox | undefined> {
  if (sandboxSettings(options.config).mode !== 'on') return undefined;
  return gatherRunSandbox({
    workspace: options.workspace,
    config: options.config,
    env,
    eventsFile,
    configFiles: options.configFiles,
    layout,
  });
}

/** The sandbox of a run, writing nothing: `on` with the loop backend's policy, `native` per backend, or `off`. */
export type RunSandboxFacts =
  | { mode: 'off' }
  | { mode: 'native'; backends: { backend: string; covers: string | null; misses: string | null }[] }
  | { mode: 'on'; policy: SandboxPolicy };

/** What {@link runSandboxFacts} and {@link describeRunSandbox} read. */
export interface RunSandboxQuery {
  workspace: string;
  config: RalphConfig;
  env: NodeJS.ProcessEnv;
  command: string;
  configFiles?: readonly string[] | undefined;
}

/** The run's sandbox as data (`ralph run --dry-run --json`): the facts {@link describeRunSandbox} words. */
export async function runSandboxFacts(o: RunSandboxQuery): Promise<RunSandboxFacts> {
  const settings = sandboxSettings(o.config);
  if (settings.mode === 'off') return { mode: 'off' };
  if (settings.mode === 'native')
    return {
      mode: 'native',
      backends: runBackends(o.config).map((backend) => {
        const native = definitionOf(backend).nativeSandbox;
        return { backend, covers: native?.covers ?? null, misses: native?.misses ?? null };
      }),
    };
  const sandbox = await gatherRunSandbox({
    ...o,
    eventsFile: join(ralphPaths(o.workspace).dir, 'events-<run>.jsonl'),
    create: false,
  });
  return { mode: 'on', policy: sandbox.policyFor(o.config.cli.backend, o.command) };
}

/**
 * The sandbox of a run as `ralph run --dry-run` shows it (writing nothing): its mode, and for `on`
 * the policy of the loop's backend, rule by rule; for `native`, what each backend's own covers.
 */
export async function describeRunSandbox(o: RunSandboxQuery): Promise<string[]> {
  const facts = await runSandboxFacts(o);
  if (facts.mode === 'off')
    return ['off: the agent runs as you (sandbox: on confines it; docs/guide/sandbox.md)'];
  if (facts.mode === 'native')
    return facts.backends.map(({ backend, covers, misses }) =>
      covers === null
        ? `native (${backend}): none`
        : `native (${backend}): covers ${covers}; misses ${misses}`,
    );
  return ['on:', ...describePolicy(facts.policy).map((l) => `  ${l}`)];
}
