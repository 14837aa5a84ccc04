import { existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { isPidAlive } from '../process/pids.ts';
import { appendLine } from './io/append-line.ts';
import { writeFileAtomicSync } from './io/atomic-write.ts';
import { withFileLock } from './io/file-lock.ts';
import { readJsonl, type SkippedLine, skippedLines } from './io/jsonl.ts';
import { checkedLine, looseObject, nullable, number, string, withDefault } from './loop-state/checks.ts';

/** One line of the per-user registry: a loop started or ended in a workspace. */
export interface RegistryEntry {
  workspace: string;
  run_id: string;
  pid: number;
  started_at: string;
  updated_at: string;
  /** The run's status when the line was written (`running` at the start, the end status after). */
  status: string;
  stop_reason: string | null;
}

/** Ralph's per-user state directory: `$XDG_STATE_HOME/ralph` (default `~/.local/state/ralph`). */
export function userStateDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state'), 'ralph');
}

/** `$XDG_STATE_HOME/ralph/runs.jsonl` (default `~/.local/state/ralph/runs.jsonl`). */
export function registryFile(env: NodeJS.ProcessEnv): string {
  return join(userStateDir(env), 'runs.jsonl');
}

// A prune holds the lock for milliseconds; a holder stuck past the lock's stale age (30 s) is taken
// over, so an append waits for that rather than give up and lose its line.
const APPEND_WAIT_MS = 35_000;

/**
 * Appends a line under the registry's lock (a prune rewriting the file meanwhile would otherwise
 * drop it); `onWait` hears when another process holds the lock. The registry is a convenience, so
 * failing to write it never stops a run.
 */
export function recordInRegistry(
  env: NodeJS.ProcessEnv,
  entry: RegistryEntry,
  onWait?: (holderPid: number | undefined) => void,
): void {
  try {
    const file = registryFile(env);
    mkdirSync(dirname(file), { recursive: true });
    withFileLock(file, () => appendLine(file, JSON.stringify(entry)), {
      timeoutMs: APPEND_WAIT_MS,
      onWait: onWait && ((holder) => onWait(holder?.pid)),
    });
  } catch {
    // A read-only home or a full disk: the dashboard just does not list this run.
  }
}

// What every reader of an entry touches (the dashboard sorts by updated_at, probes pid): a line the
// agent or another tool appended with other types is skipped like a torn one.
const entryShape = looseObject({
  workspace: string(),
  run_id: string(),
  pid: number({ int: true }),
  started_at: string(),
  updated_at: string(),
  status: string(),
  stop_reason: withDefault(nullable(string()), () => null),
});

/** A registry line as an entry, or why it is not one. */
export const registryLine = checkedLine<RegistryEntry>(entryShape, 'a run entry');

/** The registry's lines, each with its entry when it is one (torn or foreign lines: undefined). */
function readLines(file: string): { line: string; entry: RegistryEntry | undefined }[] {
  return readJsonl(file, registryLine).items.map((item) => ({
    line: item.line,
    entry: item.ok ? item.value : undefined,
  }));
}

/** Lines of the registry that are not entries (kept in the file, skipped by every reader). */
export function damagedRegistryLines(env: NodeJS.ProcessEnv): SkippedLine[] {
  return skippedLines(readJsonl(registryFile(env), registryLine).items);
}

/** Every entry line in the order written: each run's start and end lines (torn or foreign lines skipped). */
export function readRegistryLines(env: NodeJS.ProcessEnv): RegistryEntry[] {
  return readLines(registryFile(env)).flatMap(({ entry }) => (entry ? [entry] : []));
}

/** The newest entry per workspace, newest first (torn or foreign lines skipped). */
export function readRegistry(env: NodeJS.ProcessEnv): RegistryEntry[] {
  const byWorkspace = new Map<string, RegistryEntry>();
  for (const entry of readRegistryLines(env)) byWorkspace.set(entry.workspace, entry);
  return [...byWorkspace.values()].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
}

/** What `workspaceGone` looks at; injected so the decision is tested without a file system. */
export interface WorkspaceProbe {
  exists: (path: string) => boolean;
  alive: (pid: number) => boolean;
}

/** Only a path that is not there counts as gone: one we may not look into (EACCES) still exists. */
function pathExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
}

const realProbe: WorkspaceProbe = { exists: pathExists, alive: isPidAlive };

/**
 * True when a registered run's workspace directory no longer exists. A run whose newest line says
 * `running` and whose process lives is never gone, even with its directory deleted under it.
 */
export function workspaceGone(entry: RegistryEntry, probe: WorkspaceProbe = realProbe): boolean {
  if (probe.exists(entry.workspace)) return false;
  return !(entry.status === 'running' && probe.alive(entry.pid));
}

/** What `pruneRegistry` did: the runs it forgot, how many it kept, damaged lines dropped. */
export interface PruneResult {
  pruned: RegistryEntry[];
  kept: number;
  damaged: number;
}

/**
 * Forgets the runs whose workspace is gone (every line of such a workspace) and damaged lines, by
 * an atomic rewrite under the registry's lock, so a run appending meanwhile waits and keeps its line.
 */
export function pruneRegistry(
  env: NodeJS.ProcessEnv,
  probe: WorkspaceProbe = realProbe,
  onWait?: (holderPid: number | undefined) => void,
): PruneResult {
  const file = registryFile(env);
  if (!existsSync(file)) return { pruned: [], kept: 0, damaged: 0 };
  return withFileLock(
    file,
    () => {
      const lines = readLines(file);
      const newest = new Map<string, RegistryEntry>();
      for (const { entry } of lines) if (entry) newest.set(entry.workspace, entry);
      const gone = new Set(
        [...newest.values()].filter((e) => workspaceGone(e, probe)).map((e) => e.workspace),
      );
      const keep = lines.filter(({ entry }) => entry && !gone.has(entry.workspace));
      const damaged = lines.filter(({ entry }) => !entry).length;
      if (keep.length < lines.length) writeFileAtomicSync(file, keep.map(({ line }) => `${line}\n`).join(''));
      return {
        pruned: [...newest.values()].filter((e) => gone.has(e.workspace)),
        kept: newest.size - gone.size,
        damaged,
      };
    },
    { timeoutMs: APPEND_WAIT_MS, onWait: onWait && ((holder) => onWait(holder?.pid)) },
  );
}
