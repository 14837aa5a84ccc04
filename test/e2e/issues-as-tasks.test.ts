import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../../src/state/tasks/task.ts';
import { readTasks } from '../../src/state/tasks/task-file.ts';
import { REMOTE_URL, WRITE_TOKEN } from '../helpers/forge-workspace.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { fakeConfig, runRalph } from '../helpers/workspace.ts';
import { type GithubServer, startGithubServer } from '../support/github-server/server.ts';

let github: GithubServer | undefined;
afterEach(async () => {
  await github?.close();
  github = undefined;
});

/** Closes the first ready task, as an agent does when it finished it. */
const CLOSE_FIRST = `turns:
  - do:
      - run: |
          id=$(ralph tools task ready --format json | grep -o '"id": "task-[0-9a-f]*"' | head -1 | cut -d'"' -f4)
          echo "done $id" >> JOURNAL.md
          ralph tools task close "$id"
`;

/** A git project whose origin is acme/widgets on GitHub, and the scripted API with its issues. */
async function issuesProject(ralphYml = '') {
  github = await startGithubServer();
  github.state.addRepo('acme/widgets');
  github.state.addToken(WRITE_TOKEN, { repos: ['acme/widgets'], push: true });
  const dir = makeGitWorkspace({
    'PROMPT.md': 'Do the next task.\n',
    'JOURNAL.md': '# Journal\n',
    'ralph.yml': `${fakeConfig({ max_iterations: 1 })}git:\n  commit: true\n  push: false\n${ralphYml}`,
    'fake-agent.yml': CLOSE_FIRST,
  });
  git(dir, 'remote', 'add', 'origin', REMOTE_URL);
  const env = { GITHUB_API_URL: github.url, GITHUB_TOKEN: WRITE_TOKEN, GH_TOKEN: '' };
  return { dir, github, env, tasks: (): Task[] => readTasks(`${dir}/.ralph/agent/tasks.jsonl`) };
}

const IMPORT = ['tools', 'task', 'import', '--from', 'github'];

describe('issues as tasks (ralph tools task import --from github)', () => {
  it('imports open issues (not pull requests, not closed ones) once, with labels and blockers, across pages', async () => {
    const p = await issuesProject();
    const s = p.github.state;
    s.addIssue('acme/widgets', { title: 'Parse arguments', body: 'Use commander.', labels: ['cli'] });
    s.addIssue('acme/widgets', {
      title: 'Print help',
      body: 'Needs the parser.\nBlocked by #1',
      labels: ['cli', 'docs'],
    });
    s.addIssue('acme/widgets', { title: 'A pull request', pull: true });
    s.addIssue('acme/widgets', { title: 'Old', state: 'closed' });
    s.addIssue('acme/widgets', { title: 'Man page', body: 'depends on #2 and #1' });
    // 120 more: the list comes in two pages of 100.
    for (let i = 0; i < 120; i++) s.addIssue('acme/widgets', { title: `Chore ${i}` });

    const first = await runRalph(IMPORT, p.dir, p.env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('123 open issues of acme/widgets: 123 new, 0 updated, 0 unchanged');
    const tasks = p.tasks();
    expect(tasks).toHaveLength(123);
    expect(tasks.map((t) => t.title)).not.toContain('A pull request');
    expect(tasks.map((t) => t.title)).not.toContain('Old');
    const [parse, help, man] = tasks;
    expect(parse).toMatchObject({
      title: 'Parse arguments',
      description: 'Use commander.',
      labels: ['cli'],
      status: 'open',
      issue: { repo: 'acme/widgets', number: 1, url: 'https://github.com/acme/widgets/issues/1' },
    });
    expect(help?.blocked_by).toEqual([parse?.id]);
    expect(man?.blocked_by).toEqual([help?.id, parse?.id]);
    const pages = p.github.requests.filter((r) => r.path === '/repos/acme/widgets/issues');
    expect(pages.map((r) => r.query.page ?? '1')).toEqual(['1', '2']);

    // Twice: nothing added; a renamed issue updates its task.
    s.issue('acme/widgets', 1)!.title = 'Parse the arguments';
    const second = await runRalph(IMPORT, p.dir, p.env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('0 new, 1 updated, 122 unchanged');
    expect(p.tasks().map((t) => t.id)).toEqual(tasks.map((t) => t.id));
    expect(p.tasks()[0]?.title).toBe('Parse the arguments');
    const ready = await runRalph(['tools', 'task', 'ready', '--format', 'json'], p.dir, p.env);
    expect((JSON.parse(ready.stdout) as Task[]).map((t) => t.issue?.number)).not.toContain(2);
  }, 30_000);

  it('--label and --milestone (title or number) filter the issues', async () => {
    const p = await issuesProject();
    const s = p.github.state;
    const v1 = { number: 7, title: 'v1.0' };
    s.addIssue('acme/widgets', { title: 'Bug in v1', labels: ['bug'], milestone: v1 });
    s.addIssue('acme/widgets', { title: 'Feature in v1', labels: ['feature'], milestone: v1 });
    s.addIssue('acme/widgets', { title: 'Bug later', labels: ['bug'] });

    await runRalph([...IMPORT, '--label', 'bug', '--milestone', 'v1.0'], p.dir, p.env);
    expect(p.tasks().map((t) => t.title)).toEqual(['Bug in v1']);
    await runRalph([...IMPORT, '--milestone', '7'], p.dir, p.env);
    expect(p.tasks().map((t) => t.title)).toEqual(['Bug in v1', 'Feature in v1']);
    await runRalph([...IMPORT, '--label', 'bug'], p.dir, p.env);
    expect(p.tasks().map((t) => t.title)).toEqual(['Bug in v1', 'Feature in v1', 'Bug later']);
    const missing = await runRalph([...IMPORT, '--milestone', 'v9'], p.dir, p.env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('has no milestone "v9" (it has: v1.0)');
  }, 30_000);

  it('clear errors: no token, a token that cannot see the repository, not a GitHub remote', async () => {
    const p = await issuesProject();
    const noToken = await runRalph(IMPORT, p.dir, { ...p.env, GITHUB_TOKEN: '', PATH: '/usr/bin:/bin' });
    expect(noToken.code).not.toBe(0);
    expect(noToken.stderr).toContain('no GitHub token for github.com');
    p.github.state.addToken('ghp_other', { repos: ['acme/other'], push: true });
    const hidden = await runRalph(IMPORT, p.dir, { ...p.env, GITHUB_TOKEN: 'ghp_other' });
    expect(hidden.stderr).toContain('the token cannot see acme/widgets');
    git(p.dir, 'remote', 'set-url', 'origin', 'https://gitlab.com/acme/widgets.git');
    const gitlab = await runRalph(IMPORT, p.dir, p.env);
    expect(gitlab.stderr).toContain('importing GitHub issues as tasks needs a GitHub remote');
    expect(noToken.stderr + hidden.stderr + gitlab.stderr).not.toContain(WRITE_TOKEN);
  }, 30_000);

  it('tasks.source: github: imported at run start; a task done → its commit in a comment and the issue closed', async () => {
    const p = await issuesProject('tasks:\n  source: github\n  github:\n    label: ralph\n');
    const s = p.github.state;
    s.addIssue('acme/widgets', { title: 'Add a README', labels: ['ralph'] });
    s.addIssue('acme/widgets', { title: 'Not for Ralph' });
    s.addIssue('acme/widgets', { title: 'Second for Ralph', labels: ['ralph'] });

    const r = await runRalph(['run', '--no-tui'], p.dir, p.env);
    expect(r.stdout).toContain('✓ Issues: 2 open issues of acme/widgets: 2 new');
    const done = p.tasks().find((t) => t.issue?.number === 1);
    expect(done?.status).toBe('closed');
    expect(done?.issue?.closed_at).toBeDefined();
    const head = git(p.dir, 'rev-parse', 'HEAD').trim();
    const issue1 = s.issue('acme/widgets', 1);
    expect(issue1?.state).toBe('closed');
    expect(issue1?.comments).toEqual([
      `Done by Ralph (task ${done?.id}) in commit https://github.com/acme/widgets/commit/${head}.`,
    ]);
    // Not done, and not imported: untouched.
    expect(s.issue('acme/widgets', 3)).toMatchObject({ state: 'open', comments: [] });
    expect(s.issue('acme/widgets', 2)).toMatchObject({ state: 'open', comments: [] });

    // A second run closes nothing twice.
    await runRalph(['run', '--no-tui'], p.dir, p.env);
    expect(s.issue('acme/widgets', 1)?.comments).toHaveLength(1);
    expect(s.issue('acme/widgets', 3)?.state).toBe('closed');
    expect(p.github.requests.filter((q) => q.method === 'PATCH').map((q) => q.path)).toEqual([
      '/repos/acme/widgets/issues/1',
      '/repos/acme/widgets/issues/3',
    ]);
  }, 60_000);
});
