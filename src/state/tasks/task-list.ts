import { resolve } from 'node:path';
import { type BeadsSource, readBeadsTasks } from './beads-issues.ts';
import { readPrdTasks } from './prd-stories.ts';
import type { Task } from './task.ts';
import { readTasks } from './task-file.ts';

// The one read of "the tasks" for the prompt, completion and `ralph tools task`: the agent's own
// tasks file, plus the user stories of a prd.json (`tasks.source: prd.json`) or the issues of a
// beads tracker (`tasks.source: beads`).

/** Where a workspace's tasks are: the runtime tasks file, and the prd.json or beads export when one is a source. */
export interface TaskFiles {
  tasks: string;
  prd?: string | undefined;
  beads?: BeadsSource | undefined;
}

/** The `tasks` settings that say where the tasks come from (the config's `tasks` block). */
export interface TaskSourceSetting {
  source: string;
  prd?: string | undefined;
  beads?: { file?: string | undefined; epic?: string | undefined } | undefined;
}

/** The prd.json of `tasks.source: prd.json` (default `prd.json` in the workspace), else undefined. */
export function prdFileOf(setting: TaskSourceSetting, root: string): string | undefined {
  return setting.source === 'prd.json' ? resolve(root, setting.prd ?? 'prd.json') : undefined;
}

/** The beads export of `tasks.source: beads` (default `.beads/issues.jsonl`), else undefined. */
export function beadsSourceOf(setting: TaskSourceSetting, root: string): BeadsSource | undefined {
  if (setting.source !== 'beads') return undefined;
  return { file: resolve(root, setting.beads?.file ?? '.beads/issues.jsonl'), epic: setting.beads?.epic };
}

/** Where the tasks of `setting` are read in the workspace at `root`, its tasks file at `tasks`. */
export function taskFilesOf(setting: TaskSourceSetting, root: string, tasks: string): TaskFiles {
  return { tasks, prd: prdFileOf(setting, root), beads: beadsSourceOf(setting, root) };
}

/** The file outside `.ralph/` the tasks come from, if any: its changes are task progress too. */
export function sourceFileOf(files: TaskFiles): string | undefined {
  return files.prd ?? files.beads?.file;
}

/** Every task: the tasks file's in file order, then the prd.json's stories or the beads issues in theirs. */
export function readAllTasks(files: TaskFiles): Task[] {
  const own = readTasks(files.tasks);
  if (files.prd !== undefined) return [...own, ...readPrdTasks(files.prd)];
  if (files.beads !== undefined) return [...own, ...readBeadsTasks(files.beads)];
  return own;
}

/** Whether `id` names a story of the prd.json rather than a task of the tasks file. */
export function isStory(files: TaskFiles, id: string): files is TaskFiles & { prd: string } {
  return files.prd !== undefined && readPrdTasks(files.prd).some((t) => t.id === id);
}

/** Whether `id` names an issue of the beads export rather than a task of the tasks file. */
export function isBeadsIssue(files: TaskFiles, id: string): files is TaskFiles & { beads: BeadsSource } {
  return files.beads !== undefined && readBeadsTasks(files.beads).some((t) => t.id === id);
}
