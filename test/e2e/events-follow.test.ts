import { describe, expect, it } from 'vitest';
import { fakeConfig, makeWorkspace, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

describe('ralph events -f', () => {
  it('prints the events so far, then each one appended, until Ctrl-C', async () => {
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'PROMPT.md': 'go\n',
      'fake-agent.yml': 'turns:\n  - do:\n      - run: "ralph emit first.topic one"\n',
    });
    expect((await runRalph(['run', '-q'], dir)).code).toBe(2);
    const follow = startRalph(['events', '-f'], dir);
    try {
      await waitFor(() => follow.stdout().includes('first.topic'), 15_000, 'the events so far');
      expect((await runRalph(['emit', 'later.topic', 'two'], dir)).code).toBe(0);
      await waitFor(() => follow.stdout().includes('later.topic'), 15_000, 'the appended event');
      expect(follow.stdout()).toMatch(/later\.topic\s+agent\s+two/);
    } finally {
      follow.child.kill('SIGINT');
    }
    const done = await follow.done;
    expect(done.stdout.match(/first\.topic/g)).toHaveLength(1);
    expect(done.stdout.match(/later\.topic/g)).toHaveLength(1);
  });
});
