import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { RalphError } from '../errors.ts';
import { appendLine } from './io/append-line.ts';
import { writeJsonAtomicSync } from './io/atomic-write.ts';
import { removeFile, replaceFile, writeSymlink } from './io/file-writes.ts';
import type { LoopState } from './loop-state.ts';
import type { RalphPaths } from './paths.ts';
import { readRecords, recordsFileOf } from './records-file.ts';

/**
 * Finishes what a crash interrupted between the state write that committed an iteration and the
 * append of its record: the record is appended now, once. True when it had to be.
 */
export function repairLastRecord(paths: RalphPaths, state: LoopState): boolean {
  const record = state.last_record;
  if (!record) return false;
  const file = recordsFileOf(paths, state.run_id);
  // The run's directory exists from its start on: gone, the user deleted it (to free space), and a
  // lone record is not put back.
  if (!existsSync(dirname(file))) return false;
  if (readRecords(file).records.some((r) => r.iteration === record.iteration)) return false;
  appendLine(file, JSON.stringify(record));
  return true;
}

/** Files Ralph writes atomically under .ralph/ (their temp copies are `<name>.<number>`). */
const ATOMIC_TARGETS = new Set([
  'state.json',
  'current-events',
  '.gitignore',
  'tasks.jsonl',
  'memories.md',
  'scratchpad.md',
  'state.good.md',
  'reports.md',
]);

/**
 * Removes temp files a crash left behind in .ralph/ (an atomic write's `<name>.<number>`, a lock's
 * `loop.lock.<pid>.<hex>.tmp`). Only called while holding the lock, so no writer is mid-way.
 */
export function removeCrashLeftovers(paths: RalphPaths): string[] {
  const removed: string[] = [];
  for (const dir of [paths.dir, paths.agentDir, paths.tdd]) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const atomic = /^(.+)\.\d+$/.exec(name);
      const lockTmp = /^loop\.lock\.\d+\.[0-9a-f]+\.tmp$/.test(name);
      if ((atomic && ATOMIC_TARGETS.has(atomic[1]!)) || lockTmp) {
        removeFile(join(dir, name));
        removed.push(name);
      }
    }
  }
  return removed;
}

// While gates run, the protected files' content stands in for the agent's versions
// (engine/gates/protect-gate.ts). The agent's versions are written here, durably, before the
// swap: a Ralph killed mid-gate (kill -9, a forced stop) leaves this record, and the next start
// (or the forced stop itself) puts them back, so the agent's work is never lost to the swap.

/**
 * One swapped file: its absolute path and the agent's version — its content (base64), null when it
 * had none; its permission bits; the target's name when it was a symlink.
 */
export interface SwappedFile {
  path: string;
  content: Buffer | null;
  mode?: number | undefined;
  link?: string | undefined;
}

interface SwapJournal {
  files: { path: string; agent_content: string | null; agent_mode?: number; agent_link?: string }[];
}

const hasOnlyKeys = (value: unknown, keys: readonly string[]): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).every((k) => keys.includes(k));

/** The journal's exact shape, no other keys (checked by hand: zod stays off the start path). */
function isSwapJournal(json: unknown): json is SwapJournal {
  return (
    hasOnlyKeys(json, ['files']) &&
    Array.isArray(json.files) &&
    json.files.every(
      (f: unknown) =>
        hasOnlyKeys(f, ['path', 'agent_content', 'agent_mode', 'agent_link']) &&
        typeof f.path === 'string' &&
        (typeof f.agent_content === 'string' || f.agent_content === null) &&
        (f.agent_mode === undefined || Number.isInteger(f.agent_mode)) &&
        (f.agent_link === undefined || typeof f.agent_link === 'string'),
    )
  );
}

/** Ralph only ever swaps files of the work tree: a path elsewhere (or in .git) was not written by it. */
function outsideWorkTree(root: string, path: string): boolean {
  const rel = relative(root, path);
  return (
    !isAbsolute(path) || rel === '' || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep)[0] === '.git'
  );
}

/** Where the record of a swap in progress lives (under `.ralph/protected/`, never committed). */
export const swapJournalFile = (paths: RalphPaths): string => join(paths.protectedStore, 'swap.json');

/** Records the agent's versions of `files` (null content: the file does not exist) before they are swapped. */
export function recordSwap(paths: RalphPaths, files: readonly SwappedFile[]): void {
  const journal: SwapJournal = {
    files: files.map((f) => ({
      path: f.path,
      agent_content: f.content?.toString('base64') ?? null,
      ...(f.mode === undefined ? {} : { agent_mode: f.mode }),
      ...(f.link === undefined ? {} : { agent_link: f.link }),
    })),
  };
  writeJsonAtomicSync(swapJournalFile(paths), journal);
}

/**
 * Puts the agent's versions recorded by `recordSwap` back and drops the record; the paths restored
 * (none without a record). Idempotent: a crash mid-way leaves the record for the next call.
 * A record that cannot be read, or names a file outside the work tree, is left in place and
 * reported by the error thrown. The agent can write this record: a caller that takes a baseline
 * of the protected files takes it before calling this (engine/gates/protect-gate.ts).
 */
export function restoreSwapped(paths: RalphPaths): string[] {
  const file = swapJournalFile(paths);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!isSwapJournal(json))
    throw new RalphError(
      'state_corrupt',
      `${file} is not a record of protected files swapped for a gate (the agent's versions of them, base64): put back what you need from it, then delete it`,
    );
  const foreign = json.files.find((f) => outsideWorkTree(paths.root, f.path));
  if (foreign)
    throw new RalphError(
      'state_corrupt',
      `${file} names ${foreign.path}, which is not a file of the work tree: Ralph did not write this record (the agent may have); nothing was put back — delete it`,
    );
  putBack(
    json.files.map((f) => ({
      path: f.path,
      content: f.agent_content === null ? null : Buffer.from(f.agent_content, 'base64'),
      mode: f.agent_mode,
      link: f.agent_link,
    })),
  );
  removeFile(file);
  return json.files.map((f) => f.path);
}

/** Writes the agent's versions back (null content: the file did not exist, so it is removed). */
export function putBack(files: readonly SwappedFile[]): void {
  for (const f of files) {
    // Replaced, never written through: a symlink in the way is not followed.
    if (f.link !== undefined) writeSymlink(f.link, f.path);
    else if (f.content === null) removeFile(f.path);
    else replaceFile(f.path, f.content, f.mode === undefined ? undefined : f.mode & 0o7777);
  }
}
