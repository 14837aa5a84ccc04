import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ForgeProject, onScriptedGithub, WRITE_TOKEN } from '../helpers/forge-workspace.ts';
import { git } from '../helpers/git-workspace.ts';
import { addTasks, makeParallelWorkspace, parallelState } from '../helpers/parallel-workspace.ts';
import { runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

let github: ForgeProject['github'] | undefined;
afterEach(async () => {
  await github?.close();
  github = undefined;
});

/** A fake-agent turn: when the prompt names TITLE, write FILE and finish. */
const writes = (title: string, file: string) =>
  `  - when: { prompt: "\\\\*\\\\*${title}\\\\*\\\\*" }\n    do:\n      - sleep: 0.2\n      - write: { path: ${file}, content: "${title}\\n" }\n      - print: LOOP_COMPLETE\n`;

/** A parallel project on the scripted GitHub whose tasks land through pull requests. */
async function prProject(script: string) {
  const dir = makeParallelWorkspace(script, 'merge:\n  via: pull_request\n');
  const forge = await onScriptedGithub(dir);
  github = forge.github;
  return { dir, ...forge };
}

const taskPr = (dir: string, id: string) =>
  existsSync(join(dir, '.ralph', 'parallel', 'state.json')) ? parallelState(dir).tasks[id]?.pr : undefined;
const openPrs = (p: { github: ForgeProject['github'] }) =>
  p.github.state.pulls.filter((x) => x.state === 'open');

describe('ralph run --parallel with merge.via: pull_request', { timeout: 120_000 }, () => {
  it('two tasks land through PRs the test merges; the dependent task starts only after its blocker merged', async () => {
    const p = await prProject(`turns:\n${writes('Alpha', 'alpha.txt')}${writes('Beta', 'beta.txt')}`);
    const [alpha] = await addTasks(p.dir, ['Alpha']);
    const add = await runRalph(['tools', 'task', 'add', 'Beta', '--blocked-by', alpha as string], p.dir);
    const beta = /task-[0-9a-f]{8}/.exec(add.stdout)?.[0] as string;
    const run = startRalph(['run', '--parallel', '2', '--no-tui'], p.dir, p.env);

    await waitFor(() => taskPr(p.dir, alpha as string)?.status === 'open', 60_000, 'PR #1 open');
    const pr1 = p.github.state.pulls[0];
    expect(pr1).toMatchObject({
      number: 1,
      title: 'Alpha',
      head: `ralph/${alpha}`,
      base: 'main',
      draft: false,
    });
    expect(pr1?.body).toContain('Task **Alpha**');
    expect(pr1?.body).toContain('### Gates');
    expect(pr1?.body).toMatch(/Cost: \$\d/);
    // The branch was pushed: the bare repository has it at the task's commit.
    expect(git(p.bare, 'rev-parse', `ralph/${alpha}`).trim()).toBe(
      git(join(p.dir, '.ralph', 'worktrees', alpha as string), 'rev-parse', 'HEAD').trim(),
    );
    const status = await runRalph(['status'], p.dir);
    expect(status.stdout).toContain('PR #1 waiting to be merged (https://github.com/acme/widgets/pull/1)');
    // Waiting for the merge: several polls, Alpha not on main, Beta (blocked by Alpha) not started.
    await waitFor(
      () => p.github.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/pulls/1')).length > 2,
      20_000,
      'polls of PR #1',
    );
    expect(git(p.dir, 'log', '--format=%s', 'main')).not.toContain('Alpha');
    expect(parallelState(p.dir).tasks[beta]).toBeUndefined();

    p.github.state.merge(1);
    await waitFor(() => taskPr(p.dir, beta)?.status === 'open', 60_000, 'PR #2 open');
    expect(p.github.state.pulls[1]).toMatchObject({
      number: 2,
      title: 'Beta',
      head: `ralph/${beta}`,
      base: 'main',
    });
    p.github.state.merge(2);

    const r = await run.done;
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('parallel run completed — 2/2 task(s) merged');
    expect(r.stderr).toContain(
      `merge ${alpha} "Alpha": opened PR #1 (https://github.com/acme/widgets/pull/1)`,
    );
    expect(r.stderr).toContain('PR #2 merged');
    // The local target followed the remote's: both tasks' files, main equal to the merged PRs.
    expect(readFileSync(join(p.dir, 'alpha.txt'), 'utf8')).toBe('Alpha\n');
    expect(readFileSync(join(p.dir, 'beta.txt'), 'utf8')).toBe('Beta\n');
    expect(git(p.dir, 'rev-parse', 'main').trim()).toBe(git(p.bare, 'rev-parse', 'main').trim());
    const state = parallelState(p.dir);
    expect(state.tasks[alpha as string]).toMatchObject({
      state: 'merged',
      pr: { number: 1, status: 'merged' },
    });
    expect(state.tasks[beta]).toMatchObject({ state: 'merged', pr: { number: 2, status: 'merged' } });
    expect(openPrs(p)).toHaveLength(0);
    expect(r.stdout + r.stderr).not.toContain(WRITE_TOKEN);
  });

  it("a PR closed unmerged fails its task with the reason (seen at once on `ralph resume`); its branch is kept; an issue task's PR says Fixes #N", async () => {
    const p = await prProject(`turns:\n${writes('Gamma', 'gamma.txt')}`);
    // Gamma comes from a GitHub issue: its PR says `Fixes acme/widgets#7`, so a merge would close it.
    p.github.state.addIssue('acme/widgets', { title: 'Gamma', number: 7 });
    const imported = await runRalph(['tools', 'task', 'import', '--from', 'github'], p.dir, p.env);
    expect(imported.code, imported.stderr).toBe(0);
    const gamma = /task-[0-9a-f]{8}/.exec((await runRalph(['tools', 'task', 'list'], p.dir)).stdout)?.[0];
    expect(gamma).toBeDefined();
    // The next poll is 600 s away: only the wake-up by `ralph resume` explains a prompt end.
    const run = startRalph(['run', '--parallel', '1', '--no-tui'], p.dir, {
      ...p.env,
      RALPH_FORGE_POLL_SECONDS: '600',
    });
    await waitFor(
      () => p.github.requests.some((x) => x.method === 'GET' && x.path.endsWith('/pulls/1')),
      60_000,
      'the first poll of PR #1',
    );
    expect(p.github.state.pulls[0]?.body).toContain('Fixes acme/widgets#7');
    p.github.state.close(1);
    const resume = await runRalph(['resume'], p.dir);
    expect(resume.code, resume.stderr).toBe(0);
    const r = await run.done;
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.stdout).toContain('0/1 task(s) merged');
    expect(r.stdout).toContain(
      'PR #1 was closed without being merged (https://github.com/acme/widgets/pull/1)',
    );
    expect(parallelState(p.dir).tasks[gamma as string]).toMatchObject({
      state: 'failed',
      pr: { number: 1, status: 'closed' },
    });
    expect(git(p.dir, 'branch', '--list', `ralph/${gamma}`).trim()).not.toBe('');
    const list = await runRalph(['tools', 'task', 'list'], p.dir);
    expect(list.stdout).toContain('failed');
  });

  it('a token that cannot push stops the run before any task is claimed', async () => {
    const p = await prProject(`turns:\n${writes('Delta', 'delta.txt')}`);
    await addTasks(p.dir, ['Delta']);
    p.github.state.addToken('ghp_readonly', { repos: ['acme/widgets'], push: false });
    const r = await runRalph(['run', '--parallel', '1', '--no-tui'], p.dir, {
      ...p.env,
      GITHUB_TOKEN: 'ghp_readonly',
    });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('the token cannot push to acme/widgets');
    expect(p.github.state.pulls).toHaveLength(0);
  });
});
