import { afterEach, describe, expect, it } from 'vitest';
import { type ForgeProject, forgeProject } from '../helpers/forge-workspace.ts';
import { elapse } from '../helpers/wait.ts';
import { readState, readStatus, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

let project: ForgeProject | undefined;
afterEach(async () => {
  await project?.github.close();
  project = undefined;
});

const polls = (p: ForgeProject) =>
  p.github.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/pulls/1'));

describe('forge: the merge wait wakes on `ralph resume`', () => {
  it('with a 10-minute poll, only `ralph resume` can explain the prompt reaction to the merge', async () => {
    project = await forgeProject();
    const p = project;
    // The next poll is 600 s away: a reaction within seconds is the wake-up, never a poll.
    const run = startRalph(['run'], p.dir, { ...p.env, RALPH_FORGE_POLL_SECONDS: '600' });
    await waitFor(() => readStatus(p.dir) === 'waiting_for_merge', 20_000, 'waiting_for_merge');
    const before = polls(p).length;
    p.github.state.merge(1);
    await elapse(700, 'a quiet window after the merge: nothing may notice it on its own');
    // Merged on the forge, but nobody asked: still waiting, no new poll.
    expect(readStatus(p.dir)).toBe('waiting_for_merge');
    expect(polls(p)).toHaveLength(before);

    const woken = Date.now();
    const resume = await runRalph(['resume'], p.dir);
    expect(resume.code, resume.stderr).toBe(0);
    const r = await run.done;
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(polls(p).length).toBe(before + 1);
    expect((polls(p).at(-1)?.at ?? 0) - woken).toBeLessThan(15_000);
    expect(readState(p.dir)).toMatchObject({ stop_reason: 'completed', iterations: 4 });
    expect(p.github.state.pulls.map((x) => x.head)).toEqual(['ralph/foundation', 'ralph/features']);
  }, 60_000);
});
