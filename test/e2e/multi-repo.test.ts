import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, subjects } from '../helpers/git-workspace.ts';
import { API_THEN_WEB, BOTH_TO_V2, multiRepoProject } from '../helpers/multi-repo-workspace.ts';
import { makeWorkspace, readRecords, readState, runRalph, traceRunWrites } from '../helpers/workspace.ts';

/**
 * A parent directory (not a repository) holding ralph.yml and three repositories: api, web and docs.
 * Each repository's tests check a file the agent writes; the agent changes api and web only.
 */
function project(o: {
  gates?: string;
  turns: string[];
  maxIterations?: number;
  repos?: string;
  git?: string;
}): string {
  return multiRepoProject({
    ...o,
    repos: o.repos ?? REPOS,
    dirs: ['api', 'web', 'docs'],
    files: { 'docs/check.sh': 'true\n', 'docs/index.md': 'docs\n' },
  });
}

/** The repositories as ralph.yml lists them (`repos:` entries). */
const REPOS = '  - path: api\n  - path: web\n    name: frontend\n  - path: docs\n';

const bothChanged = ['  - do:', '      - save_prompt: .ralph/p1.md', ...BOTH_TO_V2];

describe('repos: one loop over several repositories', () => {
  it('commits each changed repository on its own, leaves an unchanged one alone, and records both', async () => {
    // docs has a gate of its own that would fail: it does not run, as docs does not change.
    const dir = project({
      turns: bothChanged,
      repos: `${REPOS}    gates:\n      tests:\n        command: exit 9\n`,
      git: '  push: true\n',
    });
    const remotes = makeWorkspace();
    for (const repo of ['api', 'web', 'docs']) {
      git(remotes, 'init', '-q', '--bare', `${repo}.git`);
      git(join(dir, repo), 'remote', 'add', 'origin', join(remotes, `${repo}.git`));
    }
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // Each changed repository pushed its own branch; docs pushed nothing.
    for (const repo of ['api', 'web'])
      expect(git(join(remotes, `${repo}.git`), 'rev-parse', 'main')).toBe(
        git(join(dir, repo), 'rev-parse', 'HEAD'),
      );
    expect(git(join(remotes, 'docs.git'), 'for-each-ref')).toBe('');
    // The agent ran in the parent and was told which repositories there are.
    const p1 = readFileSync(join(dir, '.ralph', 'p1.md'), 'utf8');
    expect(p1).toContain('## Repositories');
    expect(p1).toContain('- api: api\n- frontend: web\n- docs: docs');
    // One commit each in api and web, with the single-repository message convention; none in docs.
    for (const repo of ['api', 'web']) {
      expect(subjects(join(dir, repo))).toEqual(['ralph: Move the API and the client to v2', 'initial']);
      expect(git(join(dir, repo), 'status', '--porcelain')).toBe('');
      expect(git(join(dir, repo), 'log', '-1', '--format=%B')).toContain('- Tests: passing');
    }
    expect(subjects(join(dir, 'docs'))).toEqual(['initial']);
    const [record] = readRecords(dir);
    expect(record).toMatchObject({ verdict: 'complete', commit: null });
    expect(record?.repos).toEqual([
      {
        name: 'api',
        path: 'api',
        files: ['v2.txt'],
        commit: git(join(dir, 'api'), 'rev-parse', 'HEAD').trim(),
        gates: { tests: expect.objectContaining({ command: 'sh check.sh', passed: true, exit_code: 0 }) },
      },
      {
        name: 'frontend',
        path: 'web',
        files: ['client.txt'],
        commit: git(join(dir, 'web'), 'rev-parse', 'HEAD').trim(),
        gates: { tests: expect.objectContaining({ passed: true }) },
      },
    ]);
    expect(r.stdout + r.stderr).toMatch(/frontend: committed [0-9a-f]{7} ralph: Move the API/);
    const status = await runRalph(['status', '--json'], dir);
    const json = JSON.parse(status.stdout) as { state: { last_record: { repos: { name: string }[] } } };
    expect(json.state.last_record.repos.map((x) => x.name)).toEqual(['api', 'frontend']);
  });

  it("refuses completion while one repository's gate fails, naming it; with rollback both changes are set aside", async () => {
    const turns = [
      '  - when: { iteration: 1 }',
      '    do:',
      '      - write: { path: api/v2.txt, content: "v2\\n" }',
      '      - write: { path: web/client.txt, content: "still v1\\n" }',
      '      - print: LOOP_COMPLETE',
      '  - do:',
      '      - save_prompt: .ralph/p2.md',
      '      - write: { path: api/v2.txt, content: "v2\\n" }',
      '      - write: { path: web/client.txt, content: "v2\\n" }',
      '      - print: LOOP_COMPLETE',
    ];
    const kept = project({ turns, maxIterations: 1 });
    const blocked = await runRalph(['run'], kept);
    expect(blocked.code).not.toBe(0);
    expect(blocked.stdout + blocked.stderr).toContain(
      'repository frontend: the tests gate is failing (sh check.sh, exit 5)',
    );
    expect(readState(kept).status).not.toBe('completed');
    const [first] = readRecords(kept);
    expect(first?.verdict).not.toBe('complete');
    expect(
      first?.repos.map((x: { name: string; gates: { tests: { passed: boolean } } }) => [
        x.name,
        x.gates.tests.passed,
      ]),
    ).toEqual([
      ['api', true],
      ['frontend', false],
    ]);

    const dir = project({ turns, gates: '  on_failure: rollback\n' });
    // A runtime file of Ralph's own in a repository, not ignored there: the rollback's clean leaves it.
    mkdirSync(join(dir, 'api', '.ralph', 'logs'), { recursive: true });
    writeFileSync(join(dir, 'api', '.ralph', 'logs', 'own.log'), 'kept\n');
    const start = {
      api: git(join(dir, 'api'), 'rev-parse', 'HEAD').trim(),
      web: git(join(dir, 'web'), 'rev-parse', 'HEAD').trim(),
    };
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const ref = `refs/ralph/rescue/${readState(dir).run_id}/1`;
    const [rolled, done] = readRecords(dir);
    expect(rolled).toMatchObject({ verdict: 'failure' });
    expect(rolled?.repos).toEqual([
      expect.objectContaining({ name: 'api', commit: null, rollback: { ref, to: start.api } }),
      expect.objectContaining({ name: 'frontend', commit: null, rollback: { ref, to: start.web } }),
    ]);
    expect(done).toMatchObject({ verdict: 'complete' });
    // Each repository keeps its own rescue ref; only the green iteration is on the branches.
    expect(git(join(dir, 'web'), 'show', `${ref}:client.txt`)).toBe('still v1\n');
    expect(git(join(dir, 'api'), 'show', `${ref}:v2.txt`)).toBe('v2\n');
    expect(readFileSync(join(dir, 'api', '.ralph', 'logs', 'own.log'), 'utf8')).toBe('kept\n');
    expect(subjects(join(dir, 'web'))).toHaveLength(2);
    const p2 = readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8');
    expect(p2).toContain('Iteration 1 was rolled back in every repository it changed');
    expect(p2).toContain('web: the client is not on v2');
    // The rescue commands work in the repository that holds the part.
    expect(git(join(dir, 'web'), 'status', '--porcelain')).toBe('');
    git(join(dir, 'web'), 'reset', '-q', '--hard', 'HEAD~1');
    const applied = await runRalph(['rescue', 'apply', '1'], join(dir, 'web'));
    expect(applied.code, applied.stderr).toBe(0);
    expect(readFileSync(join(dir, 'web', 'client.txt'), 'utf8')).toBe('still v1\n');
  });

  it("resumes after a kill -9 from each repository's last commit: none is committed twice, none it did not touch", async () => {
    const turns = API_THEN_WEB;
    const writes = await traceRunWrites(project({ turns }));
    // Killed right after the first iteration's record: its commit in api is made and saved.
    const append = writes.find((w) => w.kind === 'durable' && w.path.endsWith('iterations.jsonl'))!;
    const dir = project({ turns });
    const killed = await runRalph(['run'], dir, { RALPH_FAULT_KILL_AFTER_WRITE: String(append.n) });
    expect(killed.signal).toBe('SIGKILL');
    const apiHead = git(join(dir, 'api'), 'rev-parse', 'HEAD').trim();
    expect(readState(dir).repo_heads).toMatchObject({ api: apiHead });
    const resumed = await runRalph(['run', '--resume'], dir);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(subjects(join(dir, 'api'))).toEqual(['ralph: The API on v2', 'initial']);
    expect(subjects(join(dir, 'web'))).toEqual(['ralph: The client on v2', 'initial']);
    expect(subjects(join(dir, 'docs'))).toEqual(['initial']);
    const records = readRecords(dir);
    expect(records.map((r) => r.repos.map((x: { name: string }) => x.name))).toEqual([['api'], ['frontend']]);
    expect(readState(dir).repo_heads).toEqual({
      api: apiHead,
      frontend: git(join(dir, 'web'), 'rev-parse', 'HEAD').trim(),
      docs: git(join(dir, 'docs'), 'rev-parse', 'HEAD').trim(),
    });
  });

  it('refuses to start on a missing or non-git path, or with --parallel or --worktree, naming ralph.yml and the key', async () => {
    const dir = project({ turns: bothChanged, repos: `${REPOS}  - path: missing\n` });
    const missing = await runRalph(['run'], dir);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('ralph.yml: repos[3].path (missing)');
    expect(missing.stderr).toContain('does not exist');
    expect(subjects(join(dir, 'api'))).toEqual(['initial']);
    const validate = await runRalph(['config', 'validate'], dir);
    expect(validate.code).not.toBe(0);
    expect(validate.stdout + validate.stderr).toContain('✗ git: ralph.yml: repos[3].path (missing)');

    const plain = project({ turns: bothChanged, repos: '  - path: api\n  - path: web\n  - path: notes\n' });
    mkdirSync(join(plain, 'notes'));
    const notGit = await runRalph(['run'], plain);
    expect(notGit.code).not.toBe(0);
    expect(notGit.stderr).toContain('ralph.yml: repos[2].path (notes)');
    expect(notGit.stderr).toContain('is not a git repository');

    const parallel = await runRalph(['run', '--parallel', '2'], project({ turns: bothChanged }));
    expect(parallel.code).not.toBe(0);
    expect(parallel.stderr).toContain('repos and --parallel');
    const worktree = await runRalph(['run', '--worktree', 'x'], dir);
    expect(worktree.code).not.toBe(0);
    expect(worktree.stderr).toContain('repos and --worktree do not work together yet');

    const twice = project({ turns: bothChanged, repos: '  - path: api\n  - path: web\n    name: api\n' });
    const dup = await runRalph(['run'], twice);
    expect(dup.code).not.toBe(0);
    expect(dup.stderr).toContain('the name "api" is taken by repos[0]');
  });
});
