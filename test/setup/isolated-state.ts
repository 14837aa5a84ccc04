import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every ralph the tests start records its runs in a registry of this temp directory, not in the
 * registry of the person running the tests (`$XDG_STATE_HOME/ralph/runs.jsonl`), and reads the
 * user's memories (`$XDG_DATA_HOME/ralph/memories.md`) from there too, not theirs, and keeps
 * `ralph run`'s config cache (`$XDG_CACHE_HOME/ralph/config/`) there.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-test-state-'));
  process.env.XDG_STATE_HOME = dir;
  process.env.XDG_DATA_HOME = join(dir, 'data');
  process.env.XDG_CACHE_HOME = join(dir, 'cache');
  return () => rmSync(dir, { recursive: true, force: true });
}
