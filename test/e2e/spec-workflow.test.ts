import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, subjects } from '../helpers/git-workspace.ts';
import { makeWorkspace, ROOT, type RunResult, readRecords, readState } from '../helpers/workspace.ts';

const env = {
  ...process.env,
  NO_COLOR: '1',
  PATH: `${join(ROOT, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
};

/** Runs the project's own ./ralph wrapper, as a user would. */
function wrapper(dir: string, ...args: string[]): RunResult {
  try {
    const stdout = execFileSync('./ralph', args, {
      cwd: dir,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, signal: null, stdout, stderr: '' };
  } catch (error) {
    const e = error as { status: number | null; stdout: string; stderr: string };
    return { code: e.status, signal: null, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `ralph init --preset spec` in a fresh git repository, with the fake agent and one spec. */
function specProject(script: string): string {
  const dir = makeWorkspace({});
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Ralph Test');
  git(dir, 'config', 'user.email', 'ralph@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  execFileSync(
    process.execPath,
    [join(ROOT, 'bin', 'ralph'), 'init', '--preset', 'spec', '--backend', 'fake'],
    { cwd: dir, env },
  );
  writeFileSync(
    join(dir, 'specs', 'user-profiles.md'),
    readFileSync(join(ROOT, 'test', 'fixtures', 'user-profiles', 'user-profiles.md')),
  );
  writeFileSync(join(dir, 'fake-agent.yml'), script);
  mkdirSync(join(dir, 'src', 'lib'), { recursive: true });
  writeFileSync(join(dir, 'src', 'lib', '.keep'), '');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'set up ralph');
  return dir;
}

describe('preset spec (seed 002)', () => {
  it('`./ralph 3` in an initialized project runs three iterations', () => {
    const dir = specProject(
      'turns:\n  - do: [{ append: { path: notes.md, content: "iteration {{iteration}}\\n" } }, { result: { text: "Iteration {{iteration}} work" } }]\n',
    );
    const r = wrapper(dir, '3', '--set', 'cli.fake_script=fake-agent.yml');
    expect(r.code).toBe(2);
    expect(readState(dir)).toMatchObject({ iterations: 3, stop_reason: 'max_iterations' });
    expect(r.stdout).toContain('branch main');
    expect(subjects(dir).slice(0, 3)).toEqual([
      'ralph: Iteration 3 work',
      'ralph: Iteration 2 work',
      'ralph: Iteration 1 work',
    ]);
    // .ralph/validate.sh ran after every iteration and passed (no checks configured in an empty project).
    expect(readRecords(dir).every((x) => x.gates.validate?.passed === true)).toBe(true);
    // Ralph's runtime files are not committed; the prompts and validate.sh are.
    const tracked = git(dir, 'ls-files');
    expect(tracked).toContain('.ralph/prompts/PROMPT_build.md');
    expect(tracked).not.toContain('.ralph/state.json');
  });

  it('exits 0 at once when PROJECT_COMPLETE is already in IMPLEMENTATION_PLAN.md', () => {
    const dir = specProject('turns:\n  - do: [{ write: { path: ran.txt, content: x } }]\n');
    writeFileSync(join(dir, 'IMPLEMENTATION_PLAN.md'), '# Implementation Plan\n\nPROJECT_COMPLETE\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'done');
    const r = wrapper(dir, '--set', 'cli.fake_script=fake-agent.yml');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('IMPLEMENTATION_PLAN.md already contains PROJECT_COMPLETE');
    expect(readState(dir)).toMatchObject({ iterations: 0, stop_reason: 'completed' });
  });

  it("runs the seed's worked example: plan, model, GET, PUT with the database task blocked", () => {
    const dir = specProject(
      readFileSync(join(ROOT, 'test', 'fixtures', 'user-profiles', 'fake-agent.yml'), 'utf8'),
    );
    const r = wrapper(dir, '4', '--set', 'cli.fake_script=fake-agent.yml');
    expect(r.code).toBe(2);
    expect(readState(dir)).toMatchObject({ iterations: 4, stop_reason: 'max_iterations', cost_usd: 0.45 });

    const log = subjects(dir);
    expect(log).toEqual([
      'ralph: add PUT /api/users/:id endpoint, block database task',
      'ralph: Log progress: GET endpoint',
      'ralph: add GET /api/users/:id endpoint (stub implementation)',
      'ralph: Log progress: User model',
      'ralph: implement User model with profile fields',
      'ralph: create implementation plan for user profiles',
      'set up ralph',
    ]);
    const plan = readFileSync(join(dir, 'IMPLEMENTATION_PLAN.md'), 'utf8');
    expect(plan).toContain('1. [BLOCKED] Add database integration for User model');
    expect(plan).toContain('Blocked by: specs/ don');
    expect(plan).not.toContain('PROJECT_COMPLETE');
    const progress = readFileSync(join(dir, 'PROGRESS.md'), 'utf8');
    // Newest first, each entry with the hash of the commit that did the work.
    expect(progress.indexOf('Add GET /api/users/:id endpoint')).toBeLessThan(
      progress.indexOf('Create User model'),
    );
    const modelHash = git(dir, 'log', '--format=%h', '--grep', '^ralph: implement User model').trim();
    expect(progress).toContain(`Commit: ${modelHash}`);
    expect(readFileSync(join(dir, 'src', 'routes', 'users.js'), 'utf8')).toContain("router.put('/:id'");
    // Every iteration is recorded with HEAD before/after and the files it changed.
    const records = readRecords(dir);
    expect(records[1]?.files_changed).toEqual(
      expect.arrayContaining(['IMPLEMENTATION_PLAN.md', 'PROGRESS.md', 'src/lib/models/User.js']),
    );
    expect(records.every((x) => x.head_before !== x.head_after)).toBe(true);
    expect(records[0]?.commit).toBeNull(); // the agent had committed everything itself
  });
});
