import { afterEach, describe, expect, it } from 'vitest';
import { type ForgeProject, forgeProject, WRITE_TOKEN } from '../helpers/forge-workspace.ts';
import { git } from '../helpers/git-workspace.ts';
import { readRecords, readState, readStatus, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

let project: ForgeProject | undefined;
afterEach(async () => {
  await project?.github.close();
  project = undefined;
});

const posts = (p: ForgeProject, path: RegExp) =>
  p.github.requests.filter((r) => r.method === 'POST' && path.test(r.path));

/** `ralph run` on the project until it waits for the merge of PR #1. */
async function runUntilWaiting(p: ForgeProject) {
  const run = startRalph(['run'], p.dir, p.env);
  await waitFor(() => readStatus(p.dir) === 'waiting_for_merge', 20_000, 'waiting_for_merge');
  return run;
}

describe('forge: a pull request per milestone (seed 003)', () => {
  it('merge-gated: draft PR per milestone, ready + comment when done, no agent call until PR 1 is merged', async () => {
    project = await forgeProject();
    const p = project;
    const run = await runUntilWaiting(p);
    expect(run.stdout()).toContain('✓ Platform: github');
    expect(run.stdout()).toContain('✓ Remote: https://github.com/acme/widgets.git');
    expect(run.stdout()).toContain('✓ Created draft PR #1 (Foundation, ralph/foundation → main)');
    const pr1 = p.github.state.pulls[0];
    expect(pr1).toMatchObject({ title: 'Foundation', head: 'ralph/foundation', base: 'main', draft: false });
    expect(pr1?.comments[0]).toContain('Ready for review');
    expect(pr1?.body).toContain('- [x] Add a test runner');
    // Waiting: several polls of the pull request, no agent call.
    const status = await runRalph(['status'], p.dir);
    expect(status.stdout).toContain('waiting for PR #1 to be merged (https://github.com/acme/widgets/pull/1');
    const prPolls = () => p.github.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/pulls/1'));
    await waitFor(() => prPolls().length > 1, 10_000, 'a second poll of PR #1');
    expect(readRecords(p.dir)).toHaveLength(2);
    expect(
      p.github.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/pulls/1')).length,
    ).toBeGreaterThan(1);

    p.github.state.merge(1);
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(readState(p.dir)).toMatchObject({ stop_reason: 'completed', iterations: 4 });
    // Milestone 2 started from the updated main and its PR is based on main.
    const pr2 = p.github.state.pulls[1];
    expect(pr2).toMatchObject({ title: 'Features', head: 'ralph/features', base: 'main', draft: false });
    expect(git(p.dir, 'merge-base', '--is-ancestor', 'refs/remotes/origin/main', 'ralph/features')).toBe('');
    expect(r.stdout).toContain('PRs created: 2 — #1 merged, #2 ready for review');
    expect(r.stdout).toContain('next: review and merge #2');
    expect(readRecords(p.dir).at(-1)?.pull_request).toMatchObject({ number: 2, status: 'ready' });
    // The token went only to the API's Authorization header, never to a file or the console.
    expect(r.stdout + r.stderr).not.toContain(WRITE_TOKEN);
    expect(posts(p, /\/pulls$/)).toHaveLength(2);
  }, 60_000);

  it('multi-PR (wait_for_merge: false): the next milestone at once, its PR stacked on the previous branch', async () => {
    project = await forgeProject('wait_for_merge: false');
    const p = project;
    const r = await runRalph(['run'], p.dir, p.env);
    expect(r.code).toBe(0);
    expect(p.github.state.pulls.map((x) => [x.head, x.base, x.draft])).toEqual([
      ['ralph/foundation', 'main', false],
      ['ralph/features', 'ralph/foundation', false],
    ]);
    expect(r.stdout).toContain('PRs created: 2 — #1 ready for review, #2 ready for review');
    expect(r.stdout).toContain('next: review and merge #1, #2');
    // Nothing waited: the first pull request was never polled.
    expect(p.github.requests.some((x) => x.method === 'GET' && x.path.endsWith('/pulls/1'))).toBe(false);
  }, 60_000);

  it('kill -9 while waiting, then --resume: waits for the same PR, never opens a second one', async () => {
    project = await forgeProject();
    const p = project;
    const first = await runUntilWaiting(p);
    first.child.kill('SIGKILL');
    await first.done;
    p.github.state.merge(1);
    const r = await runRalph(['run', '--resume'], p.dir, p.env);
    expect(r.code).toBe(0);
    expect(readState(p.dir).stop_reason).toBe('completed');
    expect(posts(p, /\/pulls$/)).toHaveLength(2);
    expect(p.github.state.pulls.map((x) => x.head)).toEqual(['ralph/foundation', 'ralph/features']);
  }, 60_000);

  it('a PR closed unmerged stops the run: pr_closed, exit 1', async () => {
    project = await forgeProject();
    const p = project;
    const run = await runUntilWaiting(p);
    p.github.state.close(1);
    const r = await run.done;
    expect(r.code).toBe(1);
    expect(readState(p.dir)).toMatchObject({ stop_reason: 'pr_closed', iterations: 2 });
    expect(r.stdout + r.stderr).toContain('PR #1 (milestone "Foundation") was closed without being merged');
  }, 60_000);

  it('a token without push rights fails the pre-flight before any agent call', async () => {
    project = await forgeProject();
    const p = project;
    p.github.state.addToken('ghp_readonly', { repos: ['acme/widgets'], push: false });
    const r = await runRalph(['run'], p.dir, { ...p.env, GITHUB_TOKEN: 'ghp_readonly' });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✓ Platform: github');
    expect(r.stdout + r.stderr).toContain('the token cannot push to acme/widgets');
    expect(readState(p.dir)).toMatchObject({ iterations: 0, stop_reason: 'health_check' });
    expect(p.github.state.pulls).toHaveLength(0);
  }, 30_000);
});
