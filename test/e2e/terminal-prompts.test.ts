import { describe, expect, it } from 'vitest';
import { oneBoxPerRunChecklist } from '../helpers/checklist-workspace.ts';
import { startRalphPty } from '../helpers/pty.ts';
import { readState, runRalph } from '../helpers/workspace.ts';

/** A checklist project whose first run stopped on its iteration limit: the next run asks. */
async function stoppedChecklistRun(): Promise<string> {
  const dir = oneBoxPerRunChecklist();
  const first = await runRalph(['run', '-q'], dir);
  expect(first.code, first.stderr).toBe(2);
  return dir;
}

describe('interactive prompts in a terminal', () => {
  it.each([
    ['Ctrl-C', '\x03'],
    ['Ctrl-D', '\x04'],
  ])(
    '%s at the checklist resume question exits 130 with one line and changes nothing',
    async (_key, keys) => {
      const dir = await stoppedChecklistRun();
      const before = readState(dir);
      const term = await startRalphPty(['run', '-q'], dir);
      await term.waitFor(/Resume it\? \[Y\]es/);
      term.write(keys);
      const { exitCode } = await term.exited;
      expect(exitCode).toBe(130);
      const after = term.output().split(/Resume it\?[^\n]*/)[1] ?? '';
      expect(after).toContain('ralph: interrupted at the prompt; nothing was changed');
      expect(after).not.toMatch(/\n\s+at /); // no stack trace
      expect(
        after
          .trim()
          .split(/\r?\n/)
          .filter((l) => l.trim() !== '' && l.trim() !== '^C'),
      ).toHaveLength(1);
      expect(readState(dir)).toEqual(before);
    },
  );
});
