import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, normalize, relative, sep } from 'node:path';
import { writeFileAtomicSync, writeJsonAtomicSync } from '../state/io/atomic-write.ts';
import { forgetAgent } from '../state/loop-state/in-flight.ts';
import { type LoopState, parseLoopState } from '../state/loop-state.ts';
import { RALPH_DIR, ralphPaths } from '../state/paths.ts';

/** The loop state in a run's checkpoint files (undefined before its first checkpoint), schema-checked. */
export function checkpointState(files: Record<string, Buffer>, runId: string): LoopState | undefined {
  const bytes = files['.ralph/state.json'];
  return bytes && bytes.length > 0
    ? parseLoopState(bytes.toString('utf8'), `the last checkpoint of fleet run ${runId} (.ralph/state.json)`)
    : undefined;
}

/** What is never checkpointed: the workspace lock, parallel worktrees, diagnostics, temp files. */
const SKIPPED = [
  /^\.ralph\/loop\.lock/,
  /^\.ralph\/worktrees\//,
  /^\.ralph\/diagnostics\//,
  // Atomic writes' temp files (`state.json.<n>`) left by a crash.
  /\.jsonl?\.[^/]+$/,
];
/** A file past this size is left out of checkpoints (they travel through Redis), and said so. */
export const MAX_CHECKPOINT_FILE_BYTES = 8 * 1024 * 1024;

/** A file a checkpoint left out for its size: its path and size (bytes). */
export interface SkippedFile {
  path: string;
  bytes: number;
}

function walk(root: string, dir: string, out: Map<string, Buffer>, skipped: SkippedFile[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const abs = join(dir, entry.name);
    const rel = relative(root, abs).split(sep).join('/');
    if (SKIPPED.some((re) => re.test(rel))) continue;
    if (entry.isDirectory()) walk(root, abs, out, skipped);
    else if (!entry.isFile()) continue;
    else {
      const bytes = statSync(abs).size;
      if (bytes <= MAX_CHECKPOINT_FILE_BYTES) out.set(rel, readFileSync(abs));
      else skipped.push({ path: rel, bytes });
    }
  }
}

/** The run's `.ralph/` files of a workspace (workspace-relative path → bytes), and those too big to send. */
function readRalphFiles(ws: string): { files: Map<string, Buffer>; skipped: SkippedFile[] } {
  const files = new Map<string, Buffer>();
  const skipped: SkippedFile[] = [];
  const dir = join(ws, RALPH_DIR);
  if (existsSync(dir)) walk(ws, dir, files, skipped);
  return { files, skipped };
}

/** Only paths under `.ralph/`, never out of it: a checkpoint is data from the network. */
function safePath(ws: string, rel: string): string | undefined {
  const norm = normalize(rel);
  if (!norm.startsWith(`${RALPH_DIR}${sep}`) || norm.split(sep).includes('..')) return undefined;
  return join(ws, norm);
}

/** Writes a checkpoint's files into the workspace; returns the paths it refused. */
export function restoreRalphFiles(ws: string, files: Record<string, Buffer>): string[] {
  const refused: string[] = [];
  for (const [rel, content] of Object.entries(files)) {
    const abs = safePath(ws, rel);
    if (!abs) {
      refused.push(rel);
      continue;
    }
    writeFileAtomicSync(abs, content);
  }
  return refused;
}

/** Sends only what changed since the last checkpoint this worker wrote (or restored). */
export function createCheckpointTracker(ws: string, restored: Record<string, Buffer>) {
  let last = new Map(Object.entries(restored));
  return {
    /**
     * Changed and new files, and `null` for the ones gone since; `skipped`: the files too big to
     * send (a checkpoint keeps the last version it had of one that grew past the limit).
     */
    changes(): {
      files: Record<string, Buffer | null>;
      current: Map<string, Buffer>;
      skipped: SkippedFile[];
    } {
      const { files: current, skipped } = readRalphFiles(ws);
      for (const s of skipped) {
        const kept = last.get(s.path);
        if (kept !== undefined) current.set(s.path, kept);
      }
      const files: Record<string, Buffer | null> = {};
      for (const [path, content] of current) if (!last.get(path)?.equals(content)) files[path] = content;
      for (const path of last.keys()) if (!current.has(path)) files[path] = null;
      return { files, current, skipped };
    },
    /** After a successful write: this is what the checkpoint holds now. */
    written(current: Map<string, Buffer>): void {
      last = current;
    },
  };
}

/**
 * A restored state names the agent pid of another machine (or a dead worker): it means nothing
 * here and must not be killed. Returns whether there is a state to resume.
 */
export function forgetForeignAgent(ws: string): boolean {
  const file = ralphPaths(ws).state;
  let state: LoopState;
  try {
    state = JSON.parse(readFileSync(file, 'utf8')) as LoopState;
  } catch {
    return false;
  }
  if (state.current) {
    forgetAgent(state);
    writeJsonAtomicSync(file, state);
  }
  return true;
}
