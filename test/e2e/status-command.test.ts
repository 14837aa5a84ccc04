import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAge, formatSpan } from '../../src/state/io/time-format.ts';
import { elapse } from '../helpers/wait.ts';
import { fakeConfig, makeWorkspace, readState, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

describe('ralph status reads like a person would say it', () => {
  it('while running: elapsed, iteration N/M with its age, the last event; after: how it ended, in words', async () => {
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 3 }),
      'PROMPT.md': 'go\n',
      'fake-agent.yml':
        'turns:\n  - when: { iteration: 1 }\n    do:\n      - run: ralph emit work.started x && touch started\n      - sleep: 2.5\n      - print: LOOP_COMPLETE\n',
    });
    const run = startRalph(['run', '-q'], dir);
    await waitFor(
      () => {
        try {
          return readFileSync(join(dir, 'started'), 'utf8') === '';
        } catch {
          return false;
        }
      },
      10_000,
      'the agent to start',
    );
    await elapse(1100, 'a second into the iteration: its age reads in seconds');
    const live = await runRalph(['status'], dir);
    expect(live.code).toBe(0);
    expect(live.stdout).toMatch(
      /: running (\d+s|\d+m\d\ds), iteration 1\/3 \(for \d+s\), last event (\d+s ago|just now)/,
    );
    expect(live.stdout).not.toMatch(/\b\d+ms\b/);
    expect(live.stdout).not.toMatch(ISO);

    expect((await run.done).code).toBe(0);
    const done = await runRalph(['status'], dir);
    expect(done.stdout).toMatch(/: completed (just now|\d+s ago) after 1 iteration in \d+s — completed:/);
    expect(done.stdout).not.toMatch(ISO);
    // --json keeps the machine fields.
    const json = JSON.parse((await runRalph(['status', '--json'], dir)).stdout);
    expect(json.state.elapsed_ms).toBe(readState(dir).elapsed_ms);
    expect(json.state.updated_at).toMatch(ISO);
  });

  it('property: spans and ages never print milliseconds or a zero duration', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 10 * 86_400_000 }), (ms) => {
        for (const text of [formatSpan(ms), formatAge(ms)]) {
          expect(text).not.toMatch(/ms\b/);
          expect(text).not.toMatch(/^0s/);
        }
      }),
    );
  });
});
