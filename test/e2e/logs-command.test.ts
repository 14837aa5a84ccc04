import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeConfig, makeWorkspace, readState, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

const workspace = (script: string) =>
  makeWorkspace({
    'ralph.yml': fakeConfig({ max_iterations: 2 }),
    'PROMPT.md': 'go\n',
    'fake-agent.yml': script,
  });

describe('ralph logs', () => {
  it('prints the last run, a run by id prefix or file name, and says what to do when there is none', async () => {
    const dir = workspace('turns:\n  - do:\n      - print: "agent says {{iteration}}"\n');
    const none = await runRalph(['logs'], dir);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no run log');
    expect(none.stderr).toContain('ralph run');

    expect((await runRalph(['run', '-q'], dir)).code).toBe(2);
    const first = readState(dir);
    expect((await runRalph(['run', '-q', '--fresh'], dir)).code).toBe(2);
    const second = readState(dir);

    const last = await runRalph(['logs'], dir);
    expect(last.code).toBe(0);
    expect(last.stdout).toBe(readFileSync(join(dir, second.log_file), 'utf8'));
    expect(last.stdout).toContain(`# ralph run ${second.run_id}`);
    expect(last.stdout).toContain('agent says 2');

    const byId = await runRalph(['logs', first.run_id.slice(0, 18)], dir);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toContain(`# ralph run ${first.run_id}`);
    expect(byId.stdout).not.toContain(second.run_id);

    const name =
      first.log_file
        .split('/')
        .pop()
        ?.replace(/\.log$/, '') ?? '';
    expect((await runRalph(['logs', name], dir)).stdout).toContain(`# ralph run ${first.run_id}`);

    const unknown = await runRalph(['logs', 'nope'], dir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no run "nope"');
    expect(unknown.stderr).toContain(first.run_id);
  });

  it('-f follows a running loop and ends by itself when the loop ends', async () => {
    const dir = workspace(
      'turns:\n  - do:\n      - print: "slow {{iteration}}"\n      - sleep: 0.6\n      - print: "after sleep {{iteration}}"\n',
    );
    const run = startRalph(['run', '-q'], dir);
    await waitFor(
      () => {
        try {
          return readFileSync(join(dir, readState(dir).log_file), 'utf8').includes('slow 1');
        } catch {
          return false;
        }
      },
      10_000,
      'the first agent output in the log',
    );
    const follow = startRalph(['logs', '-f'], dir);
    const [loop, followed] = await Promise.all([run.done, follow.done]);
    expect(loop.code).toBe(2);
    expect(followed.code).toBe(0);
    // Lines written after `logs -f` started arrived through the follow.
    expect(followed.stdout).toContain('after sleep 2');
    expect(followed.stdout).toBe(readFileSync(join(dir, readState(dir).log_file), 'utf8'));
  });
});
