import { mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { appendLine } from './append-line.ts';

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

/** Appends a line; the registry is a convenience, so failing to write it never stops a run. */
export function recordInRegistry(env: NodeJS.ProcessEnv, entry: RegistryEntry): void {
  try {
    const file = registryFile(env);
    mkdirSync(dirname(file), { recursive: true });
    appendLine(file, JSON.stringify(entry));
  } catch {
    // A read-only home or a full disk: the dashboard just does not list this run.
  }
}

/** The newest entry per workspace, newest first (torn or foreign lines skipped). */
export function readRegistry(env: NodeJS.ProcessEnv): RegistryEntry[] {
  let text: string;
  try {
    text = readFileSync(registryFile(env), 'utf8');
  } catch {
    return [];
  }
  const byWorkspace = new Map<string, RegistryEntry>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line) as RegistryEntry;
      if (typeof e.workspace === 'string' && typeof e.run_id === 'string') byWorkspace.set(e.workspace, e);
    } catch {}
  }
  return [...byWorkspace.values()].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
}
