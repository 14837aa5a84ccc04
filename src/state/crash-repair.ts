import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { appendLine } from './append-line.ts';
import type { LoopState } from './loop-state.ts';
import type { RalphPaths } from './paths.ts';

/** The iteration numbers recorded in a run's iterations.jsonl (torn lines skipped). */
function recordedIterations(file: string): Set<number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return new Set();
  }
  const out = new Set<number>();
  for (const line of text.split('\n')) {
    try {
      const n = (JSON.parse(line) as { iteration?: unknown }).iteration;
      if (typeof n === 'number') out.add(n);
    } catch {
      // A torn line from a crash: not a record.
    }
  }
  return out;
}

/**
 * Finishes what a crash interrupted between the state write that committed an iteration and the
 * append of its record: the record is appended now, once. True when it had to be.
 */
export function repairLastRecord(paths: RalphPaths, state: LoopState): boolean {
  const record = state.last_record;
  if (!record) return false;
  const file = join(paths.runs, state.run_id, 'iterations.jsonl');
  if (recordedIterations(file).has(record.iteration)) return false;
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
