import { afterAll, describe, expect, it } from 'vitest';
import { cleanupWorkspaces, makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

afterAll(cleanupWorkspaces);

/** What the console printed, without colours. */
const plain = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr;

const CHECKLIST_YML = [
  'event_loop:',
  '  prompt_file: PROMPT.md',
  'cli:',
  '  backend: fake',
  '  fake_script: fake-agent.yml',
  'completion:',
  '  checklist: DESIGN.md',
].join('\n');

/** Checks off the first unchecked task of DESIGN.md. */
const CHECK_ONE =
  'turns:\n  - do:\n      - run: |\n          n=$(grep -n -m1 -- \'- \\[ \\]\' DESIGN.md | cut -d: -f1)\n          sed -i "${n}s/- \\[ \\]/- [x]/" DESIGN.md\n';

describe('the console says what happened', () => {
  it('an iteration whose validate hook failed is shown and recorded as failed, not ✓ success', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do it.\n',
      'ralph.yml':
        'event_loop:\n  prompt_file: PROMPT.md\ncli:\n  backend: fake\n  fake_script: fake-agent.yml\ngates:\n  validate: "echo broken; exit 3"\n',
      'fake-agent.yml': 'turns:\n  - do: [{ print: "all good\\nLOOP_COMPLETE" }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(plain(r)).not.toMatch(/✓ iteration 1/);
    expect(plain(r)).toMatch(
      /✗ iteration 1 failure — validation failed: `echo broken; exit 3` exited with 3/,
    );
    const [record] = readRecords(dir);
    expect(record).toMatchObject({
      verdict: 'failure',
      reason: 'validation failed: `echo broken; exit 3` exited with 3',
    });
    expect(readState(dir).stop_reason).toBe('validation_failed');
  });

  it('a design document with no tasks says so instead of "all milestones done · tasks 0/0"', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do it.\n',
      'DESIGN.md': '# Design\n\nNothing planned yet.\n',
      'ralph.yml': CHECKLIST_YML,
      'fake-agent.yml': 'turns:\n  - do: [{ print: "thinking" }]\n',
    });
    const r = await runRalph(['run', '--max-iterations', '1'], dir);
    expect(plain(r)).not.toContain('all milestones done');
    expect(plain(r)).toContain('no `- [ ]` tasks in the design document yet');
  });

  it('after --resume the summary counts the tasks of the whole run, like its iterations', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do the next task.\n',
      'DESIGN.md': '# Design\n\n## Milestone 1: All\n\n- [ ] one\n- [ ] two\n- [ ] three\n',
      'ralph.yml': CHECKLIST_YML,
      'fake-agent.yml': CHECK_ONE,
    });
    const first = await runRalph(['run', '--max-iterations', '1'], dir);
    expect(first.code).toBe(2);
    expect(plain(first)).toContain('tasks completed 1 (1/3 done)');
    const second = await runRalph(['run', '--resume', '--max-iterations', '2'], dir);
    expect(second.code).toBe(2);
    expect(plain(second)).toMatch(/iterations 2 · /);
    expect(plain(second)).toContain('tasks completed 2 (2/3 done)');
  });
});
