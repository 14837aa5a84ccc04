import { existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { appendLine } from './io/append-line.ts';
import { readRecordLines, recordsFileOf } from './iteration-records.ts';
import type { LoopState } from './loop-state.ts';
import type { RalphPaths } from './paths.ts';

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
  if (readRecordLines(file).some((r) => r.iteration === record.iteration)) return false;
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
        rmSync(join(dir, name), { force: true });
        removed.push(name);
      }
    }
  }
  return removed;
}
