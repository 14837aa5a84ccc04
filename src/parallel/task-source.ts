import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RalphConfig } from '../config/schema.ts';
import { closeDoneIssues } from '../engine/workflow-steps/issue-tasks.ts';
import { RalphError } from '../errors.ts';
import { runGit, runGitRaw } from '../git/run-git.ts';
import { writeFileAtomicSync } from '../state/io/atomic-write.ts';
import type { ParallelState } from '../state/parallel-files.ts';
import { ralphPaths } from '../state/paths.ts';
import { closeExternal, externalFile, startExternal } from '../state/tasks/external-tasks.ts';
import { readyTasks } from '../state/tasks/task.ts';
import { closeTask, failTask, startTask } from '../state/tasks/task-changes.ts';
import { readTasks } from '../state/tasks/task-file.ts';
import { readAllTasks, sourceFileOf, type TaskFiles, taskFilesOf } from '../state/tasks/task-list.ts';
import { parseChecklist } from '../workflows/checklist-parse.ts';

/** Where a parallel run's tasks come from (DESIGN.md §5). */
export type TaskSourceKind = ParallelState['source'];

/** A task a worker can take. */
export interface SourceTask {
  id: string;
  title: string;
  /** More about it (a task's description), or ''. */
  body: string;
}

export const PLAN_FILE = 'IMPLEMENTATION_PLAN.md';
const PROGRESS_FILE = 'PROGRESS.md';

/** The checklist of preset `checklist`, IMPLEMENTATION_PLAN.md of preset `spec`, else `ralph tools task`. */
export function taskSourceOf(root: string, config: RalphConfig): TaskSourceKind {
  if (config.tasks.source === 'github') return 'tasks';
  if (config.completion.checklist) return 'checklist';
  if (config.completion.marker?.file === PLAN_FILE || existsSync(join(root, PLAN_FILE))) return 'plan';
  return 'tasks';
}

/** Where the tasks of kind `tasks` are read: the tasks file, and the prd.json or beads export of `tasks.source`. */
const filesOf = (root: string, config: RalphConfig): TaskFiles =>
  taskFilesOf(config.tasks, root, ralphPaths(root).tasks);

/** The file a file-backed source lives in (workspace-relative), for prompts and errors. */
export function sourceFile(kind: TaskSourceKind, config: RalphConfig): string {
  if (kind === 'checklist') return config.completion.checklist ?? '';
  if (kind === 'plan') return PLAN_FILE;
  const external = sourceFileOf(taskFilesOf(config.tasks, '', ''));
  return external === undefined ? '.ralph/agent/tasks.jsonl' : `.ralph/agent/tasks.jsonl and ${external}`;
}

// Stable across edits of other lines: the text and how many equal texts came before it.
function idOf(prefix: string, text: string, seen: Map<string, number>): string {
  const n = seen.get(text) ?? 0;
  seen.set(text, n + 1);
  return `${prefix}-${createHash('sha1').update(`${text}\0${n}`).digest('hex').slice(0, 8)}`;
}

function readText(root: string, file: string): string {
  try {
    return readFileSync(join(root, file), 'utf8');
  } catch (error) {
    throw new RalphError(
      'parallel_no_tasks',
      `cannot read ${file} for the parallel run's tasks (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
}

const PLAN_ITEM = /^\s*(?:\d{1,9}[.)]|[-*+])\s+(?!\[[xX]\])(?:\[ \]\s+)?(\S.*)$/;

/** The numbered (or bulleted) items under `## Remaining Tasks` of IMPLEMENTATION_PLAN.md. */
function planItems(text: string): { text: string; index: number }[] {
  const lines = text.split(/\r?\n/);
  const out: { text: string; index: number }[] = [];
  let inside = false;
  lines.forEach((line, index) => {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      inside = /^remaining tasks\b/i.test(heading[1] ?? '');
      return;
    }
    const item = inside ? PLAN_ITEM.exec(line) : null;
    if (item?.[1]) out.push({ text: item[1].trim(), index });
  });
  return out;
}

/**
 * The tasks still to do in the source, ready ones first and in the order a single loop would take
 * them: open tasks whose blockers are closed; the unchecked tasks of the current milestone; the
 * plan's remaining tasks.
 */
export function readyFromSource(root: string, config: RalphConfig, kind: TaskSourceKind): SourceTask[] {
  if (kind === 'tasks')
    return readyTasks(readAllTasks(filesOf(root, config))).map((t) => ({
      id: t.id,
      title: t.title,
      body: t.description ?? '',
    }));
  const seen = new Map<string, number>();
  if (kind === 'plan')
    return planItems(readText(root, PLAN_FILE)).map((i) => ({
      id: idOf('p', i.text, seen),
      title: i.text,
      body: '',
    }));
  const checklist = parseChecklist(readText(root, sourceFile(kind, config)));
  const all = checklist.milestones.flatMap((m) =>
    m.tasks.map((t) => ({ milestone: m.title, task: t, id: idOf('c', `${m.title}\0${t.text}`, seen) })),
  );
  // Milestones are in order: the next one's tasks wait until the current one is done.
  const current = all.find((t) => !t.task.done)?.milestone;
  return all
    .filter((t) => !t.task.done && t.milestone === current)
    .map((t) => ({ id: t.id, title: t.task.text, body: `Milestone: ${t.milestone}` }));
}

/** Marks a `ralph tools task` task in progress while a worker has it (other loops then skip it). */
export function markStarted(root: string, config: RalphConfig, kind: TaskSourceKind, id: string): void {
  if (kind !== 'tasks' || startExternal(filesOf(root, config), id)) return;
  const task = readTasks(ralphPaths(root).tasks).find((t) => t.id === id);
  if (task?.status === 'open') startTask(ralphPaths(root).tasks, id);
}

export function markFailed(root: string, kind: TaskSourceKind, id: string, reason: string): void {
  if (kind !== 'tasks') return;
  const task = readTasks(ralphPaths(root).tasks).find((t) => t.id === id);
  if (task && task.status !== 'closed' && task.status !== 'failed')
    failTask(ralphPaths(root).tasks, id, reason);
}

/**
 * Marks a merged task done in its source. Idempotent: a task already done stays as it is. For the
 * checklist and the plan this is a commit on the target of that one file only (never anything
 * else that happens to be uncommitted): the box checked, or the item moved from the plan to
 * PROGRESS.md. Returns the commit, if one was made.
 */
export async function markDone(
  root: string,
  config: RalphConfig,
  kind: TaskSourceKind,
  task: { id: string; title: string },
  mergedCommit: string,
): Promise<string | null> {
  if (kind === 'tasks' && externalFile(filesOf(root, config), root, task.id) !== undefined) {
    // A story of the prd.json or an issue of the beads export: closed in its file, committed as a box is.
    const file = closeExternal(filesOf(root, config), root, task.id);
    if (file === undefined) return null;
    return commitSourceFiles(root, [file], task, mergedCommit);
  }
  if (kind === 'tasks') {
    const t = readTasks(ralphPaths(root).tasks).find((x) => x.id === task.id);
    if (t && t.status !== 'closed') closeTask(ralphPaths(root).tasks, task.id);
    // A task imported from a GitHub issue: the issue gets the merged commit and is closed.
    if (t?.issue && !t.issue.closed_at)
      // A forge failure must not undo the merge: the issue stays open and the next run's first
      // iteration tries it again.
      await closeDoneIssues({ workspace: root, config, env: process.env, commit: mergedCommit }).catch(
        () => [],
      );
    return null;
  }
  const file = sourceFile(kind, config);
  const text = readText(root, file);
  const lines = text.split('\n');
  const files = [file];
  if (kind === 'checklist') {
    // The task's own line, as the parser reads it: an item whose text merely contains the title
    // ("Add login" in "Add login form") is another task.
    const item = parseChecklist(text)
      .milestones.flatMap((m) => m.tasks)
      .find((t) => !t.done && t.text === task.title);
    if (!item) return null;
    lines[item.line - 1] = (lines[item.line - 1] ?? '').replace('[ ]', '[x]');
  } else {
    const item = planItems(text).find((i) => i.text === task.title);
    if (!item) return null;
    lines.splice(item.index, 1);
    // The list's last item gone: no second blank line where it was.
    if (lines[item.index - 1]?.trim() === '' && lines[item.index]?.trim() === '') lines.splice(item.index, 1);
    const progressPath = join(root, PROGRESS_FILE);
    const entry = `- ${task.title} (merged in ${mergedCommit.slice(0, 8)} by a parallel worker)`;
    const progress = existsSync(progressPath) ? readFileSync(progressPath, 'utf8') : '# Progress\n';
    writeFileAtomicSync(progressPath, insertAfterTitle(progress, entry));
    files.push(PROGRESS_FILE);
  }
  writeFileAtomicSync(join(root, file), lines.join('\n'));
  return commitSourceFiles(root, files, task, mergedCommit);
}

/** Commits `files` (workspace-relative) alone on the target: the source's record that `task` is done. */
async function commitSourceFiles(
  root: string,
  files: string[],
  task: { title: string },
  mergedCommit: string,
): Promise<string> {
  await runGit(root, ['add', '--', ...files]);
  const message = `ralph: done — ${task.title}\n\nMerged in ${mergedCommit}; marked done by the parallel run.`;
  await runGit(root, ['commit', '-q', '-F', '-', '--', ...files], { input: message });
  const head = await runGitRaw(root, ['rev-parse', 'HEAD']);
  return head.stdout.trim();
}

// Newest first, under the file's title when it has one.
function insertAfterTitle(text: string, entry: string): string {
  const lines = text.split('\n');
  const title = lines.findIndex((l) => /^#\s/.test(l));
  if (title < 0) return `${entry}\n${text}`;
  const rest = lines.slice(title + 1);
  while (rest[0]?.trim() === '') rest.shift();
  return [...lines.slice(0, title + 1), '', entry, ...rest].join('\n');
}
