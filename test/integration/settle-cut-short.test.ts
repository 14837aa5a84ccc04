import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { makeGitWorkspace } from '../helpers/git-workspace.ts';
import { runLoopIn } from '../helpers/library-loop.ts';
import { fakeConfig, readRecords, readState } from '../helpers/workspace.ts';

// Issue 32, H6: an error while an iteration settles (after the agent's turn, before its record)
// must leave that iteration to be judged again by --resume, from the start it saved — never a
// counted iteration without a record whose changes the next one absorbs.

describe('an iteration whose settlement an error cut short', () => {
  it('is judged again on --resume from its saved start: the denied .env change is a rule_violation', async () => {
    const dir = makeGitWorkspace({
      '.gitignore': '.env*\ndist/\n',
      '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
      'ralph.yml': `${fakeConfig({ max_iterations: 3 })}rules:\n  deny: [".env*"]\ngates:\n  tests:\n    command: "true"\ngit:\n  commit: true\n`,
      'fake-agent.yml': [
        'turns:',
        '  - when: { file_missing: dist/tried }',
        '    do: [{ run: "mkdir -p dist; touch dist/tried; echo LEAKED=1 >> .env" }, { print: LOOP_COMPLETE }]',
        '  - do: [{ write: { path: src.txt, content: "ok\\n" } }, { print: LOOP_COMPLETE }]',
      ].join('\n'),
    });
    writeFileSync(join(dir, '.env'), 'API_KEY=original\n');
    let calls = 0;
    // The sweep after the gates (the second call) fails: the iteration is settled but not recorded.
    await expect(
      runLoopIn(dir, {
        sweep: async () => {
          calls += 1;
          if (calls === 2) throw new Error('sweep failed');
          return [];
        },
      }),
    ).rejects.toThrow('sweep failed');
    expect(readRecords(dir)).toHaveLength(0);
    expect(readState(dir).iterations).toBe(0);
    expect(readState(dir).current?.number).toBe(1);

    await runLoopIn(dir, { mode: 'resume', sweep: async () => [] });
    const [first] = readRecords(dir);
    expect(first).toMatchObject({ iteration: 1, verdict: 'rule_violation', commit: null });
    expect(first?.reason).toContain('.env (inside rules.deny)');
    expect(readRecords(dir).some((r) => r.verdict === 'complete')).toBe(false);
    expect(readState(dir).status).not.toBe('completed');
  });
});
