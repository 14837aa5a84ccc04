import { resolve } from 'node:path';
import { readPrdTasks } from './prd-stories.ts';
import type { Task } from './task.ts';
import { readTasks } from './task-file.ts';

// The one read of "the tasks" for the prompt, completion and `ralph tools task`: the agent's own
// tasks file, plus the user stories of a prd.json when `tasks.source: prd.json`.

/** Where a workspace's tasks are: the runtime tasks file, and the prd.json when it is a source. */
export interface TaskFiles {
  tasks: string;
  prd?: string | undefined;
}

/** The `tasks` settings that say where the tasks come from (the config's `tasks` block). */
export interface TaskSourceSetting {
  source: string;
  prd?: string | undefined;
}

/** The prd.json of `tasks.source: prd.json` (default `prd.json` in the workspace), else undefined. */
export function prdFileOf(setting: TaskSourceSetting, root: string): string | undefined {
  return setting.source === 'prd.json' ? resolve(root, setting.prd ?? 'prd.json') : undefined;
}

/** Every task: the tasks file's in file order, then the prd.json's stories in their order. */
export function readAllTasks(files: TaskFiles): Task[] {
  const own = readTasks(files.tasks);
  return files.prd === undefined ? own : [...own, ...readPrdTasks(files.prd)];
}

/** Whether `id` names a story of the prd.json rather than a task of the tasks file. */
export function isStory(files: TaskFiles, id: string): files is TaskFiles & { prd: string } {
  return files.prd !== undefined && readPrdTasks(files.prd).some((t) => t.id === id);
}
