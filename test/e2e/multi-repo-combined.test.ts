import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDashboard } from '../helpers/dashboard.ts';
import { git, subjects } from '../helpers/git-workspace.ts';
import { API_THEN_WEB, BOTH_TO_V2, multiRepoProject } from '../helpers/multi-repo-workspace.ts';
import {
  makeWorkspace,
  readRecords,
  readState,
  readStatus,
  runRalph,
  startRalph,
  stopWhenDone,
  traceRunWrites,
  waitFor,
} from '../helpers/workspace.ts';

/**
 * A parent directory holding ralph.yml and two repositories, api and web (named frontend), whose
 * tests check a file the agent writes (docs/guide/multi-repo.md: what combines with repos).
 */
function project(o: {
  turns: string[];
  extra?: string;
  repos?: string;
  maxIterations?: number;
  git?: string;
}): string {
  return multiRepoProject({ ...o, gates: o.extra, repos: o.repos ?? REPOS, dirs: ['api', 'web'] });
}

const REPOS = '  - path: api\n  - path: web\n    name: frontend\n';

/** Iteration 1 writes `first` (a path under the parent) besides both repositories' v2; later ones only the v2. */
function turns(first: string): string[] {
  return [
    '  - when: { iteration: 1 }',
    '    do:',
    `      - write: { path: ${first}, content: "x\\n" }`,
    ...BOTH_TO_V2,
    '  - do:',
    '      - save_prompt: .ralph/p2.md',
    ...BOTH_TO_V2,
  ];
}

describe('repos combined with rules, affected tests, preflight, explain and a crash mid-rollback', () => {
  it('a denied path (named under the workspace) rolls the iteration back in every repository it changed; pre-flight and explain show each repository', async () => {
    const dir = project({
      turns: turns('api/migrations/001.sql'),
      extra: 'rules:\n  deny: ["api/migrations/**"]\n',
    });
    const start = git(join(dir, 'web'), 'rev-parse', 'HEAD').trim();
    // A registry of its own, for the dashboard below.
    const env = { XDG_STATE_HOME: makeWorkspace() };
    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // One pre-flight line per repository.
    expect(r.stdout).toContain(`✓ repo api: ${join(dir, 'api')} (main, clean)`);
    expect(r.stdout).toContain(`✓ repo frontend: ${join(dir, 'web')} (main, clean)`);
    const ref = `refs/ralph/rescue/${readState(dir).run_id}/1`;
    const [denied, done] = readRecords(dir);
    expect(denied).toMatchObject({ verdict: 'rule_violation', commit: null });
    expect(denied?.reason).toContain('rule_violation: it changed api/migrations/001.sql (inside rules.deny)');
    expect(denied?.repos).toEqual([
      expect.objectContaining({ name: 'api', commit: null, rollback: { ref, to: expect.any(String) } }),
      expect.objectContaining({ name: 'frontend', commit: null, rollback: { ref, to: start } }),
    ]);
    expect(done).toMatchObject({ verdict: 'complete' });
    // Both parts kept in their repositories' rescue refs; the denied file is gone from the tree.
    expect(git(join(dir, 'api'), 'show', `${ref}:migrations/001.sql`)).toBe('x\n');
    expect(git(join(dir, 'web'), 'show', `${ref}:client.txt`)).toBe('v2\n');
    expect(existsSync(join(dir, 'api', 'migrations'))).toBe(false);
    const p2 = readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8');
    expect(p2).toContain('Iteration 1 was rolled back in every repository it changed');
    expect(p2).toContain('api/migrations/001.sql (inside rules.deny)');
    for (const repo of ['api', 'web'])
      expect(subjects(join(dir, repo))).toEqual(['ralph: Move the API and the client to v2', 'initial']);
    // explain: the per-repository commits (the record's top-level commit is null).
    const explained = await runRalph(['explain'], dir);
    expect(explained.code, explained.stderr).toBe(0);
    const apiHead = git(join(dir, 'api'), 'rev-parse', 'HEAD').trim();
    expect(explained.stdout).toContain(
      `  repo api (api): committed ${apiHead.slice(0, 7)} · tests ✓ · 1 file(s)`,
    );
    expect(explained.stdout).toContain(
      `  repo frontend (web): rolled back to ${start.slice(0, 7)}, kept in ${ref}`,
    );
    // The dashboard's iteration table: the same per-repository lines under "commit".
    const dashboard = await openDashboard({ track: stopWhenDone, env });
    const index = await (await dashboard.get('/')).text();
    const path = new RegExp(`<a href="(/run/[0-9a-f]+)">${dir}</a>`).exec(index)?.[1];
    const page = await (await dashboard.get(path as string)).text();
    expect(page).toContain(`<div>api (api): committed ${apiHead.slice(0, 7)} · tests ✓ · 1 file(s)</div>`);
  });

  it('an approve path in one repository waits for `ralph approve`, then each repository commits', async () => {
    const dir = project({
      turns: turns('web/package.json'),
      extra: 'rules:\n  approve: ["*/package.json"]\n',
      maxIterations: 1,
    });
    const loop = stopWhenDone(startRalph(['run'], dir));
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'waiting_for_human');
    expect(readFileSync(join(dir, '.ralph', 'control', 'questions.jsonl'), 'utf8')).toContain(
      'changed files that need a person (rules.approve): web/package.json',
    );
    expect(subjects(join(dir, 'web'))).toEqual(['initial']);
    expect((await runRalph(['approve'], dir)).code).toBe(0);
    const r = await loop.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readRecords(dir)[0]).toMatchObject({ verdict: 'complete' });
    expect(git(join(dir, 'web'), 'show', 'HEAD:package.json')).toBe('x\n');
    expect(subjects(join(dir, 'api'))).toEqual(['ralph: Move the API and the client to v2', 'initial']);
  });

  it('gates.approval before_commit and before_push: one review point lists every repository; held by Ctrl-C, --resume commits each; a rejected push keeps them local', async () => {
    const dir = project({
      turns: ['  - do:', ...BOTH_TO_V2],
      extra: '  approval: [before_commit, before_push]\n',
      git: '  push: true\n',
    });
    const remotes = makeWorkspace();
    for (const repo of ['api', 'web']) {
      git(remotes, 'init', '-q', '--bare', `${repo}.git`);
      git(join(dir, repo), 'remote', 'add', 'origin', join(remotes, `${repo}.git`));
    }
    const loop = stopWhenDone(startRalph(['run'], dir));
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'the before_commit review point');
    const questions = join(dir, '.ralph', 'control', 'questions.jsonl');
    expect(readFileSync(questions, 'utf8')).toContain(
      'Commit the changes of iteration 1 (2 file(s): api/v2.txt, web/client.txt)?',
    );
    loop.child.kill('SIGINT');
    expect((await loop.done).code).toBe(130);
    expect(readState(dir).held_question).toMatchObject({
      point: 'before_commit',
      repos: ['api', 'frontend'],
    });
    for (const repo of ['api', 'web']) expect(subjects(join(dir, repo))).toEqual(['initial']);

    expect((await runRalph(['approve'], dir)).code).toBe(0);
    const resumed = stopWhenDone(startRalph(['run', '--resume'], dir));
    await waitFor(
      () => readFileSync(questions, 'utf8').includes('Push the commits of iteration 1'),
      15_000,
      'the before_push review point',
    );
    // Approved, each repository committed with its own tests line; nothing pushed yet.
    for (const repo of ['api', 'web']) {
      expect(subjects(join(dir, repo))).toEqual(['ralph: Move the API and the client to v2', 'initial']);
      expect(git(join(dir, repo), 'log', '-1', '--format=%B')).toContain('- Tests: passing');
    }
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'waiting for the push');
    expect((await runRalph(['reject', 'not yet'], dir)).code).toBe(0);
    const r = await resumed.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const repo of ['api', 'web']) expect(git(join(remotes, `${repo}.git`), 'for-each-ref')).toBe('');
  });

  it("runs each repository's affected tests on its own changed files, and checks a repository's own test program before the run", async () => {
    const affected = project({
      turns: API_THEN_WEB,
      repos:
        '  - path: api\n  - path: web\n    name: frontend\n    gates:\n      tests:\n        command: sh check.sh\n        affected: sh check.sh {files}\n',
      extra: '    affected: sh check.sh {files}\n',
    });
    const r = await runRalph(['run'], affected);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [first, second] = readRecords(affected);
    expect(first?.repos[0]).toMatchObject({
      name: 'api',
      gates: { tests: { scope: 'affected', files: ['v2.txt'], command: 'sh check.sh v2.txt', passed: true } },
    });
    // The iteration that completes runs the full suite.
    expect(second?.repos[0]).toMatchObject({
      name: 'frontend',
      gates: { tests: { scope: 'full', why: 'completion requested', command: 'sh check.sh' } },
    });

    const missing = project({
      turns: turns('api/x.txt'),
      repos:
        '  - path: api\n  - path: web\n    gates:\n      tests:\n        command: no-such-test-runner --all\n',
    });
    const refused = await runRalph(['run'], missing);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain(
      'repos[1].gates.tests.command runs `no-such-test-runner`, which is not there',
    );
    expect(subjects(join(missing, 'api'))).toEqual(['initial']);
  });

  it('a kill -9 between two repositories of a rollback: --resume finishes the rollback in the other one, nothing lost', async () => {
    const { failing, extra } = failingInApiAndWeb();
    const writes = await traceRunWrites(project({ turns: failing, extra }));
    // The record (the rollback saved with it), then the state saying api is done.
    const append = writes.find((w) => w.kind === 'durable' && w.path.endsWith('iterations.jsonl'))!;
    const apiDone = writes.find(
      (w) => w.kind === 'durable' && w.n > append.n && w.path.endsWith('state.json'),
    )!;
    const dir = project({ turns: failing, extra });
    const killed = await runRalph(['run'], dir, { RALPH_FAULT_KILL_AFTER_WRITE: String(apiDone.n) });
    expect(killed.signal).toBe('SIGKILL');
    const state = readState(dir);
    expect(state.rollback).toMatchObject({ iteration: 1, trees: [{ repo: 'frontend' }] });
    const ref = state.rollback.ref as string;
    // api is set aside; web still holds its part in the tree, and no ref yet.
    expect(existsSync(join(dir, 'api', 'v2.txt'))).toBe(false);
    expect(git(join(dir, 'api'), 'show', `${ref}:v2.txt`)).toBe('v2\n');
    expect(readFileSync(join(dir, 'web', 'client.txt'), 'utf8')).toBe('still v1\n');
    expect(git(join(dir, 'web'), 'for-each-ref', ref)).toBe('');

    const resumed = await runRalph(['run', '--resume'], dir);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(git(join(dir, 'web'), 'show', `${ref}:client.txt`)).toBe('still v1\n');
    expect(readState(dir).rollback).toBeNull();
    expect(readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8')).toContain(
      'Iteration 1 was rolled back in every repository it changed',
    );
    // The resumed iteration 2 is the only commit in each repository.
    for (const repo of ['api', 'web'])
      expect(subjects(join(dir, repo))).toEqual(['ralph: Move the API and the client to v2', 'initial']);
  });

  it('--resume finishes a rollback an older Ralph saved as `repos_rollback` (with `done`)', async () => {
    const { failing, extra } = failingInApiAndWeb();
    const writes = await traceRunWrites(project({ turns: failing, extra }));
    const append = writes.find((w) => w.kind === 'durable' && w.path.endsWith('iterations.jsonl'))!;
    const apiDone = writes.find(
      (w) => w.kind === 'durable' && w.n > append.n && w.path.endsWith('state.json'),
    )!;
    const dir = project({ turns: failing, extra });
    await runRalph(['run'], dir, { RALPH_FAULT_KILL_AFTER_WRITE: String(apiDone.n) });
    // state.json as the older Ralph wrote it: api done, web still to do.
    const saved = readState(dir);
    const { iteration, ref, trees } = saved.rollback;
    const repos = [
      { name: 'api', to: git(join(dir, 'api'), 'rev-parse', 'HEAD').trim() },
      ...trees.map((t: { repo: string; to: string }) => ({ name: t.repo, to: t.to })),
    ];
    const old = {
      ...saved,
      rollback: null,
      repos_rollback: { iteration, ref, why: trees[0].why, repos, done: ['api'] },
    };
    writeFileSync(join(dir, '.ralph', 'state.json'), JSON.stringify(old));

    const resumed = await runRalph(['run', '--resume'], dir);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(git(join(dir, 'web'), 'show', `${ref}:client.txt`)).toBe('still v1\n');
    expect(readState(dir).rollback).toBeNull();
    expect(readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8')).toContain(
      'Iteration 1 was rolled back in every repository it changed',
    );
    for (const repo of ['api', 'web'])
      expect(subjects(join(dir, repo))).toEqual(['ralph: Move the API and the client to v2', 'initial']);
  });
});

/** Iteration 1 changes api and web and fails web's tests (rolled back in both); later ones write both v2s. */
function failingInApiAndWeb(): { failing: string[]; extra: string } {
  const failing = [
    '  - when: { iteration: 1 }',
    '    do:',
    '      - write: { path: api/v2.txt, content: "v2\\n" }',
    '      - write: { path: web/client.txt, content: "still v1\\n" }',
    '      - print: LOOP_COMPLETE',
    ...turns('api/v2.txt').slice(7),
  ];
  return { failing, extra: '  on_failure: rollback\n' };
}
