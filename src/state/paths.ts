import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The `.ralph/` layout of a workspace (DESIGN.md §1 "Files"). */
/** Ralph's directory in a workspace; every path under it comes from `ralphPaths`. */
export const RALPH_DIR = '.ralph';

/** The prompt of `ralph plan` (workspace-relative). */
export const DEFAULT_PLAN_PROMPT = '.ralph/prompts/PROMPT_plan.md';

/** Where each file of a workspace's `.ralph/` is (docs/reference/files.md). */
export interface RalphPaths {
  root: string;
  dir: string;
  /** `.ralph/.gitignore`: keeps the runtime files below out of git (see runtime-ignore.ts). */
  gitignore: string;
  diagnostics: string;
  /** The TDD loop's runtime copies (last good state, gathered reports). */
  tdd: string;
  /** The default validate hook. */
  validateScript: string;
  state: string;
  lock: string;
  stopRequest: string;
  /** `.ralph/control/`: the one control channel (DESIGN.md §5). */
  control: string;
  /** Copies of the protected files as they were at run start (gates run from these), and of the git config files (put back when an iteration adds a program to them). */
  protectedStore: string;
  /** Commands to the loop (stop, pause, guidance, answers …), appended by CLI, TUI and dashboard. */
  inbox: string;
  /** Open and answered questions and approvals (append-only; the newest line per id wins). */
  questions: string;
  /** The agent's progress notes to the human (`ralph tools interact progress`), append-only. */
  progressNotes: string;
  currentEvents: string;
  logs: string;
  runs: string;
  agentDir: string;
  scratchpad: string;
  tasks: string;
  memories: string;
  /** The metric loop's attempts, one JSON line each (docs/guide/optimize.md). */
  metricAttempts: string;
}

/** The last workspace's paths: a run asks for the same ~40 joined paths several times an iteration. */
let lastPaths: Readonly<RalphPaths> | undefined;

/** The files and directories of a workspace's `.ralph/` (one frozen object per root, reused). */
export function ralphPaths(workspaceRoot: string): Readonly<RalphPaths> {
  if (lastPaths?.root === workspaceRoot) return lastPaths;
  lastPaths = Object.freeze(pathsOf(workspaceRoot));
  return lastPaths;
}

function pathsOf(workspaceRoot: string): RalphPaths {
  const dir = join(workspaceRoot, RALPH_DIR);
  return {
    root: workspaceRoot,
    dir,
    gitignore: join(dir, '.gitignore'),
    diagnostics: join(dir, 'diagnostics'),
    tdd: join(dir, 'tdd'),
    validateScript: join(dir, 'validate.sh'),
    state: join(dir, 'state.json'),
    lock: join(dir, 'loop.lock'),
    stopRequest: join(dir, 'stop-requested'),
    control: join(dir, 'control'),
    protectedStore: join(dir, 'protected'),
    inbox: join(dir, 'control', 'inbox.jsonl'),
    questions: join(dir, 'control', 'questions.jsonl'),
    progressNotes: join(dir, 'control', 'progress.jsonl'),
    currentEvents: join(dir, 'current-events'),
    logs: join(dir, 'logs'),
    runs: join(dir, 'runs'),
    agentDir: join(dir, 'agent'),
    scratchpad: join(dir, 'agent', 'scratchpad.md'),
    tasks: join(dir, 'agent', 'tasks.jsonl'),
    memories: join(dir, 'agent', 'memories.md'),
    metricAttempts: join(dir, 'metric', 'attempts.jsonl'),
  };
}

/**
 * Ralph's runtime files (workspace-relative prefixes): never committed, never counted as a dirty
 * tree. Prompts, validate.sh and memories under .ralph/ are the user's and stay tracked. A trailing
 * `*` matches any name starting with the part before it.
 */
export const RUNTIME_PATHS = [
  // Atomic writes leave `state.json.<n>` temp files behind when killed mid-write.
  '.ralph/state.json*',
  '.ralph/loop.lock*',
  '.ralph/logs/',
  '.ralph/runs/',
  '.ralph/events-*',
  '.ralph/current-events',
  '.ralph/diagnostics/',
  '.ralph/stop-requested',
  '.ralph/control/',
  '.ralph/protected/',
  '.ralph/worktrees/',
  '.ralph/parallel/',
  '.ralph/agent/scratchpad.md',
  '.ralph/agent/tasks.jsonl*',
  '.ralph/tdd/',
  '.ralph/gemini/',
  '.ralph/metric/',
  // Nested repositories a rollback moved aside whole (rollBackTree).
  '.ralph/rescue-files/',
  // Where the config cache was before it moved to the user's cache directory: a leftover stays ignored.
  '.ralph/cache/',
] as const;

/**
 * The Ralph project `dir` belongs to, as git finds its repository: `dir` itself when it has a
 * `ralph.yml` or a `.ralph/`, else the nearest parent that has one inside the same git repository
 * (looking no higher than its top, the first directory with a `.git`); undefined when there is
 * none. Outside a repository nothing above `dir` counts (a stray `~/.ralph` claims nothing).
 */
export function projectRootOf(
  dir: string,
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  const isProject = (at: string) => exists(join(at, 'ralph.yml')) || exists(join(at, RALPH_DIR));
  const start = resolve(dir);
  if (isProject(start)) return start;
  let nearest: string | undefined;
  for (let at = start; ; at = dirname(at)) {
    nearest ??= isProject(at) ? at : undefined;
    if (exists(join(at, '.git'))) return nearest;
    if (dirname(at) === at) return undefined;
  }
}
