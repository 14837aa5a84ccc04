import { resolve } from 'node:path';
import type { RalphConfig } from '../../config/schema.ts';
import { readOptional } from '../../state/io/read-optional.ts';
import type { RalphPaths } from '../../state/paths.ts';
import { openTasks } from '../../state/tasks/task.ts';
import { readAllTasks, sourceFileOf, taskFilesOf } from '../../state/tasks/task-list.ts';

/** True when the marker file exists and contains the marker text (a missing file is not complete). */
export function markerReached(workspace: string, marker: { file: string; text: string }): boolean {
  return readOptional(resolve(workspace, marker.file), 'absent')?.includes(marker.text) ?? false;
}

/**
 * `completion.condition: all_tasks` over a prd.json or a beads tracker (no checklist): every story
 * passes (every issue is closed), and no task of the tasks file is open. A source without stories
 * is not done: there was nothing to do yet.
 */
export function allStoriesPass(config: RalphConfig, paths: RalphPaths): boolean {
  if (config.completion.condition !== 'all_tasks' || config.completion.checklist !== undefined) return false;
  const files = taskFilesOf(config.tasks, paths.root, paths.tasks);
  if (sourceFileOf(files) === undefined || !config.tasks.enabled) return false;
  const tasks = readAllTasks(files);
  return tasks.length > 0 && openTasks(tasks).length === 0;
}
