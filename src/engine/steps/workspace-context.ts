import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RalphConfig } from '../../config/schema.ts';
import type { PromptTask } from '../../routing/prompt.ts';
import { readMemories, renderMemoriesForPrompt } from '../../state/memories.ts';
import type { RalphPaths } from '../../state/paths.ts';
import { openTasks, readTasks, readyTasks } from '../../state/tasks.ts';

/** What an iteration's prompt and completion check read from disk, fresh every iteration. */
export interface WorkspaceContext {
  scratchpad: string | null;
  memories: string;
  readyTasks: PromptTask[];
  openTasks: number;
}

/** The scratchpad file: `core.scratchpad` (string or {path}) or `.ralph/agent/scratchpad.md`. */
export function scratchpadPath(config: RalphConfig, paths: RalphPaths): string {
  const s = config.core.scratchpad;
  const rel = typeof s === 'string' ? s : s?.path;
  return rel ? resolve(paths.root, rel) : paths.scratchpad;
}

function readOptional(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

export function readWorkspaceContext(config: RalphConfig, paths: RalphPaths): WorkspaceContext {
  const scratchpadEnabled = typeof config.core.scratchpad !== 'object' || config.core.scratchpad.enabled;
  const memories =
    config.memories.enabled && config.memories.inject === 'auto'
      ? renderMemoriesForPrompt(readMemories(paths.memories), config.memories.budget)
      : '';
  const tasks = config.tasks.enabled ? readTasks(paths.tasks) : [];
  return {
    scratchpad: scratchpadEnabled ? readOptional(scratchpadPath(config, paths)) : null,
    memories,
    readyTasks: readyTasks(tasks).map((t) => ({ id: t.id, title: t.title, priority: t.priority })),
    openTasks: openTasks(tasks).length,
  };
}

/** Open or in-progress tasks right now (0 when tasks are disabled). */
export function countOpenTasks(config: RalphConfig, paths: RalphPaths): number {
  return config.tasks.enabled ? openTasks(readTasks(paths.tasks)).length : 0;
}
