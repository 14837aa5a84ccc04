import { hash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readGitHead } from '../../git/head.ts';
import { statKey } from '../../state/io/stat-cache.ts';
import { RALPH_DIR } from '../../state/paths.ts';
import { sourceFileOf, taskFilesOf } from '../../state/tasks/task-list.ts';
import { uncommittedFiles } from '../commit/workspace-git.ts';
import type { RunContext } from '../context/run-context.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { readChecklist } from '../workflow-steps/checklist-view.ts';

/** Outside git, a workspace with more files than this is not fingerprinted (its changes count as unknown). */
const MAX_FILES = 5000;
/** Directories never fingerprinted outside git: dependencies and VCS/tool state. */
const SKIPPED_DIRS = new Set([RALPH_DIR, '.git', 'node_modules', '.venv', 'target', 'dist', 'build']);

/** What an iteration changed, as the no-progress rule and `completion.require_work` see it. */
export interface IterationProgress {
  /** The work tree changed (null: could not tell, e.g. a huge workspace outside git). */
  files: boolean | null;
  commit: boolean;
  /** Task or checklist progress: tasks.jsonl or the checklist counts changed. */
  tasks: boolean;
  events: boolean;
}

/**
 * Outside git: every file (workspace-relative, `/`-separated) with its statKey, in walk order, or
 * null when there are more than MAX_FILES. Every file is stated on every walk: writing a file
 * changes its own times, not its directory's, so no directory's mtime can stand for its files.
 */
export function workspaceFiles(root: string): Map<string, string> | null {
  const files = new Map<string, string>();
  const walk = (dir: string, rel: string): boolean => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return true;
    }
    // Code-unit order: any fixed order will do, and the first localeCompare of a process loads ICU's
    // collation (23–130 ms measured before the first agent started, outside git).
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (SKIPPED_DIRS.has(e.name)) continue;
        if (!walk(join(dir, e.name), path)) return false;
      } else if (files.size >= MAX_FILES) return false;
      else files.set(path, statKey(join(dir, e.name)));
    }
    return true;
  };
  return walk(root, '') ? files : null;
}

/** Outside git: the fingerprint of workspaceFiles (names, sizes and times), or null when there are too many. */
function walkFingerprint(root: string): string | null {
  const files = workspaceFiles(root);
  if (files === null) return null;
  // One-shot: a Hash object costs more to set up than hashing a few KB (the same digest as before).
  let text = '';
  for (const [path, key] of files) text += `${basename(path)}\0${key}\0`;
  return hash('sha1', text, 'hex');
}

/** Outside git: the files added, changed or deleted between two workspaceFiles walks. */
export function filesDiff(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): { changed: string[]; deleted: string[] } {
  const changed = [...after].filter(([p, key]) => before.get(p) !== key).map(([p]) => p);
  const deleted = [...before.keys()].filter((p) => !after.has(p));
  return { changed: changed.sort(), deleted: deleted.sort() };
}

/**
 * The work tree's state in one string: in git, HEAD plus each uncommitted path with its size and
 * time (so editing an already modified file counts); outside git, a bounded walk.
 */
export async function treeFingerprint(ctx: RunContext): Promise<string | null> {
  const ws = ctx.options.workspace;
  if (!ctx.inRepo) return walkFingerprint(ws);
  const files = await uncommittedFiles(ws, ctx.pendingChanges);
  const head = readGitHead(ws).commit ?? '';
  return `${head}|${files
    .sort()
    .map((f) => `${f}=${statKey(join(ws, f))}`)
    .join('|')}`;
}

/** What the tasks and the checklist stand at (tasks.jsonl's and a prd.json's or beads export's size and time, the checklist counts). */
export function taskFingerprint(ctx: RunContext): string {
  const progress = readChecklist(
    ctx.options.workspace,
    ctx.config,
    ctx.state.start_milestone ?? null,
  )?.progress;
  const source = sourceFileOf(taskFilesOf(ctx.config.tasks, ctx.paths.root, ctx.paths.tasks));
  const stories = source === undefined ? '' : `|${statKey(source)}`;
  return `${statKey(ctx.paths.tasks)}${stories}|${progress ? `${progress.tasksDone}/${progress.tasksTotal}` : ''}`;
}

/**
 * Measures the iteration against the last one (updating the remembered fingerprints): files, commit,
 * tasks, events. Runs once the agent is done, before completion is decided.
 */
export async function measureProgress(
  ctx: RunContext,
  o: { headBefore: string | null; published: number },
): Promise<IterationProgress> {
  const { state } = ctx;
  const tree = await treeFingerprint(ctx);
  const tasks = taskFingerprint(ctx);
  const progress: IterationProgress = {
    files: tree === null || state.progress_marks?.tree == null ? null : tree !== state.progress_marks.tree,
    commit: ctx.inRepo && (readGitHead(ctx.options.workspace).commit ?? null) !== o.headBefore,
    tasks: state.progress_marks !== undefined && tasks !== state.progress_marks.tasks,
    events: o.published > 0,
  };
  state.progress_marks = { tree, tasks };
  if (progress.files === true || progress.commit) state.did_work = true;
  return progress;
}

/** After Ralph's own commit the tree changed again: remember it, so the next iteration starts from here. */
export async function rememberTree(ctx: RunContext): Promise<void> {
  const marks = ctx.state.progress_marks;
  if (marks) marks.tree = await treeFingerprint(ctx);
}

/** The no-progress streak after an iteration (pure): idle iterations leave it as it is. */
export function nextStreak(streak: number, p: IterationProgress, idle: boolean): number {
  if (idle) return streak;
  return madeNoProgress(p) ? streak + 1 : 0;
}

/** Whether the streak ends the run (pure); 0 turns the rule off. */
export function noProgressReached(streak: number, max: number): boolean {
  return max > 0 && streak >= max;
}

/** True when nothing moved: no file, commit, task or event (unknown file changes count as movement). */
export function madeNoProgress(p: IterationProgress): boolean {
  return p.files === false && !p.commit && !p.tasks && !p.events;
}

/** `completion.require_work` (default: git.commit): completion waits until the run changed something. */
export function workBlockers(ctx: RunContext): string[] {
  const required = ctx.config.completion.require_work ?? ctx.config.git.commit;
  if (!required || ctx.state.did_work) return [];
  return [
    'the run has not changed any file or made a commit yet (completion.require_work): do the work first',
  ];
}

/**
 * The generic no-progress stop: `event_loop.max_idle_iterations` finished iterations in a row that
 * moved nothing. Persistent mode's idle iterations are waiting by design and do not count.
 */
export function noProgressStop(ctx: RunContext, p: IterationProgress, idle: boolean): Stop | undefined {
  const { state } = ctx;
  const max = ctx.config.event_loop.max_idle_iterations;
  state.no_progress_streak = nextStreak(state.no_progress_streak ?? 0, p, idle);
  if (idle || !noProgressReached(state.no_progress_streak, max)) return undefined;
  return stop(
    'no_progress',
    `no progress in ${state.no_progress_streak === 1 ? '1 iteration' : `${state.no_progress_streak} iterations in a row`}: no file changed, no commit, no task or checklist item moved, no event published (event_loop.max_idle_iterations: ${max}); check the prompt and the log, then \`ralph run --resume\``,
  );
}

/** Where the no-progress rule measures the first iteration from (kept across --resume: measured once). */
export async function markProgressAtStart(ctx: RunContext): Promise<void> {
  ctx.state.progress_marks ??= { tree: await treeFingerprint(ctx), tasks: taskFingerprint(ctx) };
}

/** Some iteration of this run changed files or committed (completion.require_work). */
export function noteWork(state: RunContext['state']): void {
  state.did_work = true;
}
