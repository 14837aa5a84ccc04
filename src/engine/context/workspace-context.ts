import { isAbsolute, relative, resolve } from 'node:path';
import type { HatConfig, RalphConfig } from '../../config/schema.ts';
import type { PromptTask } from '../../routing/assemble-prompt.ts';
import { readOptionalCached } from '../../state/io/stat-cache.ts';
import { readMemories } from '../../state/memories/memories-file.ts';
import { type MemoryEntry, normalizeTags } from '../../state/memories/memory.ts';
import { newestFirst, renderMemoriesForPrompt } from '../../state/memories/memory-prompt.ts';
import type { RalphPaths } from '../../state/paths.ts';
import { compareTasks, openTasks, readyTasks } from '../../state/tasks/task.ts';
import { readAllTasks, taskFilesOf } from '../../state/tasks/task-list.ts';

/** What an iteration's prompt and completion check read from disk, fresh every iteration. */
export interface WorkspaceContext {
  scratchpad: string | null;
  /** The scratchpad's path relative to the workspace, as the prompt names it. */
  scratchpadLabel: string;
  /** Ralph's own scratchpad (under `.ralph/`): a new run starts it empty. Any other is the user's. */
  scratchpadOwned: boolean;
  memories: string;
  readyTasks: PromptTask[];
  openTasks: number;
  /** The task being worked on: the first in progress, else the first ready one (a model ladder's scope). */
  focusTask?: string | null;
}

type ScratchpadSetting = RalphConfig['core']['scratchpad'];

/** The setting that applies: the active hat's `scratchpad` when it has one, else `core.scratchpad`. */
function scratchpadSetting(config: RalphConfig, hat: HatConfig | null | undefined): ScratchpadSetting {
  return hat?.scratchpad ?? config.core.scratchpad;
}

function settingPath(setting: ScratchpadSetting, paths: RalphPaths): string {
  const rel = typeof setting === 'string' ? setting : setting?.path;
  return rel ? resolve(paths.root, rel) : paths.scratchpad;
}

/**
 * The scratchpad file: the active hat's `scratchpad` (string or {path}), else `core.scratchpad`,
 * else `.ralph/agent/scratchpad.md`.
 */
export function scratchpadPath(config: RalphConfig, paths: RalphPaths, hat?: HatConfig | null): string {
  return settingPath(scratchpadSetting(config, hat), paths);
}

/** True for a file under the workspace's `.ralph/`: Ralph's to clear. Anywhere else it is the user's. */
export function ownedByRalph(file: string, paths: RalphPaths): boolean {
  const rel = relative(paths.dir, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * The scratchpad files a new run clears: those of the loop and each hat that live under `.ralph/`.
 * A scratchpad configured elsewhere (`notes/builder.md`) holds the user's notes and is never cleared.
 */
export function ralphScratchpadPaths(config: RalphConfig, paths: RalphPaths): string[] {
  const hats = Object.values(config.hats).filter((h) => h.scratchpad !== undefined);
  const all = [scratchpadPath(config, paths), ...hats.map((h) => scratchpadPath(config, paths, h))];
  return [...new Set(all.filter((file) => ownedByRalph(file, paths)))];
}

/** Which memories the prompt gets: `memories.filter` types, tags (any of), and the `recent` newest. */
export function filterMemories(
  entries: readonly MemoryEntry[],
  filter: RalphConfig['memories']['filter'],
): MemoryEntry[] {
  if (!filter) return [...entries];
  const tags = normalizeTags(filter.tags);
  const kept = newestFirst(entries).filter(
    (e) =>
      (filter.types.length === 0 || filter.types.includes(e.type)) &&
      (tags.length === 0 || tags.some((t) => e.tags.includes(t))),
  );
  return filter.recent > 0 ? kept.slice(0, filter.recent) : kept;
}

/** The file's text, or null when it is missing or unreadable (read again only once it changed). */
function readOptional(path: string): string | null {
  return readOptionalCached(path, 'absent') ?? null;
}

/**
 * What the prompt reads from disk; `hat` is the active hat (its own scratchpad, if it has one),
 * `userMemories` the user's memories file (`scope: user`, userMemoriesFile).
 */
export function readWorkspaceContext(
  config: RalphConfig,
  paths: RalphPaths,
  userMemories: string,
  hat?: HatConfig | null,
): WorkspaceContext {
  const setting = scratchpadSetting(config, hat);
  const scratchpadEnabled = typeof setting !== 'object' || setting.enabled;
  const file = settingPath(setting, paths);
  const memories =
    config.memories.enabled && config.memories.inject === 'auto'
      ? renderMemoriesForPrompt(
          filterMemories(readMemories(paths.memories), config.memories.filter),
          config.memories.budget,
          filterMemories(readMemories(userMemories), config.memories.filter),
        )
      : '';
  const tasks = config.tasks.enabled ? readAllTasks(taskFiles(config, paths)) : [];
  return {
    scratchpad: scratchpadEnabled ? readOptional(file) : null,
    scratchpadLabel: relative(paths.root, file),
    scratchpadOwned: ownedByRalph(file, paths),
    memories,
    readyTasks: readyTasks(tasks).map((t) => ({ id: t.id, title: t.title, priority: t.priority })),
    openTasks: openTasks(tasks).length,
    focusTask:
      (tasks.filter((t) => t.status === 'in_progress').sort(compareTasks)[0] ?? readyTasks(tasks)[0])?.id ??
      null,
  };
}

/** Open or in-progress tasks right now (0 when tasks are disabled). */
export function countOpenTasks(config: RalphConfig, paths: RalphPaths): number {
  return config.tasks.enabled ? openTasks(readAllTasks(taskFiles(config, paths))).length : 0;
}

/** The files a workspace's tasks are read from: the tasks file, and a prd.json or beads export when one is a source. */
export function taskFiles(config: RalphConfig, paths: RalphPaths) {
  return taskFilesOf(config.tasks, paths.root, paths.tasks);
}
