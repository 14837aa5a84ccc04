import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initPreset } from '../config/preset-init.ts';
import { presetFile } from '../config/presets.ts';
import { UsageError } from '../errors.ts';
import { copyFile } from '../state/io/file-writes.ts';

/** Overrides the demo runs the board preset with: the scripted agent, no idle polling. */
export const DEMO_OVERRIDES = [
  'cli.backend=fake',
  'cli.fake_script=fake-agent.yml',
  // The board idles forever in persistent mode; the demo ends when the board is empty.
  'event_loop.persistent=false',
  'event_loop.cooldown_delay_seconds=0',
  'event_loop.max_iterations=20',
] as const;

/**
 * Creates the demo workspace: seed 000's board (its ralph.yml verbatim, PROMPT.md, three work items)
 * plus the fake agent's script acting out its hats. Returns its path.
 */
export function createDemoWorkspace(dir?: string, force = false): string {
  // The demo writes a board and runs an agent there: never over somebody's files unless told to.
  if (dir !== undefined && !force && existsSync(dir) && readdirSync(dir).length > 0)
    throw new UsageError(
      `${dir} is not empty: ralph demo would overwrite files there. Pick a new or empty directory, or add --force`,
    );
  const root = dir ?? mkdtempSync(join(tmpdir(), 'ralph-demo-'));
  mkdirSync(root, { recursive: true });
  initPreset(root, 'board', { force: true });
  // The demo runs seed 000's own ralph.yml, verbatim (the preset adds idle_watch to it).
  copyFile(presetFile('board', 'seed-000.yml'), join(root, 'ralph.yml'));
  copyFile(presetFile('board', 'fake-agent.yml'), join(root, 'fake-agent.yml'));
  return root;
}
