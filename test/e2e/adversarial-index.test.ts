import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { attack, sh } from '../helpers/adversarial-git.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { markedProcesses } from '../helpers/marked-processes.ts';
import { fakeConfig, readRecords, readState, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

// Each test is one attack by a scripted agent on Ralph's own view of the tree, with no rules and
// no gates.protect: it hides an edit from git behind an index flag or .git/info/exclude. Ralph's
// commit, rollback and progress must still see it, the record naming what it did about it.

/** A committed project (git.commit) whose one iteration runs `steps`; `settings` go into ralph.yml. */
function project(steps: string[], settings = '', iterations = 1): string {
  return makeGitWorkspace({
    'PROMPT.md': 'work\n',
    '.gitignore': 'dist/\n',
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'src/app.ts': 'good\n',
    'tests/check.sh': 'grep -q good src/app.ts\n',
    'docs/big.txt': 'a large file a sparse checkout leaves out\n',
    'ralph.yml': `${fakeConfig({ max_iterations: iterations })}${settings}git:\n  commit: true\n`,
    'fake-agent.yml': ['turns:', '  - do:', ...steps.map((s) => `      - ${s}`)].join('\n'),
  });
}

/** The edit is hidden from `git status` when the agent's turn ends (else the test proves nothing). */
const hidden = (path: string) => `test -z "$(git status --porcelain -- ${path})"`;

/** The index's tag for `path` (`git ls-files -v`): H plain, S skip-worktree, lowercase assume-unchanged. */
const tag = (dir: string, path: string) => git(dir, 'ls-files', '-v', '--', path).slice(0, 1);

describe('index flags set by the agent are cleared before Ralph reads the tree', () => {
  for (const flag of ['--skip-worktree', '--assume-unchanged']) {
    it(`a tracked test edited behind ${flag} is in Ralph's commit, the record naming it`, async () => {
      const dir = project([
        sh(`git update-index ${flag} tests/check.sh && echo "exit 0" > tests/check.sh && ${hidden('tests')}`),
        'print: LOOP_COMPLETE',
      ]);
      const record = await attack(dir);
      expect(record).toMatchObject({ verdict: 'complete', index_flags_cleared: ['tests/check.sh'] });
      expect(record.commit).toBe(git(dir, 'rev-parse', 'HEAD').trim());
      expect(git(dir, 'show', 'HEAD:tests/check.sh')).toBe('exit 0\n');
      expect(record.files_changed).toContain('tests/check.sh');
      expect(tag(dir, 'tests/check.sh')).toBe('H');
      expect(git(dir, 'status', '--porcelain')).toBe('');
    });
  }

  it('with gates.on_failure: rollback and a failing tests gate, the hidden edit is rolled back into the rescue ref', async () => {
    const dir = project(
      [
        sh(`git update-index --skip-worktree src/app.ts && echo bad > src/app.ts && ${hidden('src')}`),
        'print: done',
      ],
      'gates:\n  tests:\n    command: sh tests/check.sh\n  on_failure: rollback\n',
    );
    const record = await attack(dir);
    const ref = `refs/ralph/rescue/${readState(dir).run_id}/1`;
    expect(record).toMatchObject({ verdict: 'failure', commit: null, index_flags_cleared: ['src/app.ts'] });
    expect(record.rollback).toMatchObject({ ref });
    expect(readFileSync(join(dir, 'src', 'app.ts'), 'utf8')).toBe('good\n');
    expect(git(dir, 'show', `${ref}:src/app.ts`)).toBe('bad\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a bit set by a gate the agent rewrote (after its turn, before the commit) is cleared too', async () => {
    const dir = project(
      [
        sh(
          'echo better > src/app.ts && echo "git update-index --assume-unchanged src/app.ts" > tests/helper.sh',
        ),
        'print: LOOP_COMPLETE',
      ],
      'gates:\n  tests:\n    command: sh tests/run.sh\n',
    );
    writeFileSync(join(dir, 'tests', 'run.sh'), '. tests/helper.sh\n');
    writeFileSync(join(dir, 'tests', 'helper.sh'), 'true\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'gate');
    const record = await attack(dir);
    expect(record).toMatchObject({ verdict: 'complete', index_flags_cleared: ['src/app.ts'] });
    expect(git(dir, 'show', 'HEAD:src/app.ts')).toBe('better\n');
    expect(tag(dir, 'src/app.ts')).toBe('H');
  });

  it('a skip-worktree bit set before the run (a sparse checkout) stays, and its missing file is not committed as deleted', async () => {
    const dir = project([sh('echo better > src/app.ts'), 'print: LOOP_COMPLETE']);
    git(dir, 'update-index', '--skip-worktree', 'docs/big.txt');
    rmSync(join(dir, 'docs', 'big.txt'));
    const record = await attack(dir);
    expect(record).toMatchObject({ verdict: 'complete' });
    expect(record.index_flags_cleared).toBeUndefined();
    expect(tag(dir, 'docs/big.txt')).toBe('S');
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('src/app.ts');
  });

  it('an honest iteration that touches no index flag records none', async () => {
    const dir = project([sh('echo better > src/app.ts && git add src/app.ts'), 'print: LOOP_COMPLETE']);
    const record = await attack(dir);
    expect(record).toMatchObject({ verdict: 'complete' });
    expect(record.index_flags_cleared).toBeUndefined();
  });
});

describe('.git/info/exclude changed during the run', () => {
  it('a new file hidden by a pattern added to .git/info/exclude is gate_tampered, named in the record', async () => {
    const dir = project([
      sh(`echo sneaky > src/extra.ts && echo src/extra.ts >> .git/info/exclude && ${hidden('src')}`),
      'print: LOOP_COMPLETE',
    ]);
    const head = git(dir, 'rev-parse', 'HEAD');
    const record = await attack(dir);
    expect(record).toMatchObject({ verdict: 'gate_tampered', commit: null, tampered: ['.git/info/exclude'] });
    expect(record.reason).toContain('it changed .git/info/exclude');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('put back as it was, the next iteration commits the file it hid', async () => {
    const dir = project([], '', 2);
    const original = readFileSync(join(dir, '.git', 'info', 'exclude'), 'utf8');
    writeFileSync(
      join(dir, 'fake-agent.yml'),
      [
        'turns:',
        '  - when: { iteration: 1 }',
        `    do: [{ run: ${JSON.stringify('echo new > src/extra.ts && echo src/extra.ts >> .git/info/exclude')} }, { print: LOOP_COMPLETE }]`,
        `  - do: [{ write: { path: .git/info/exclude, content: ${JSON.stringify(original)} } }, { print: LOOP_COMPLETE }]`,
      ].join('\n'),
    );
    git(dir, 'commit', '-qam', 'script');
    const r = await runRalph(['run'], dir);
    expect(markedProcesses(dir)).toEqual([]);
    const [first, second] = readRecords(dir);
    expect(first, r.stdout + r.stderr).toMatchObject({
      verdict: 'gate_tampered',
      tampered: ['.git/info/exclude'],
    });
    expect(second).toMatchObject({ verdict: 'complete' });
    expect(git(dir, 'show', 'HEAD:src/extra.ts')).toBe('new\n');
  });
});

describe('the start survives a kill -9 and --resume', () => {
  it("the killed try's skip-worktree edit is cleared on --resume and committed by the re-run, the record naming it", async () => {
    const dir = project([]);
    writeFileSync(
      join(dir, 'fake-agent.yml'),
      [
        'turns:',
        '  - when: { file_missing: dist/tried }',
        `    do: [{ run: ${JSON.stringify(`mkdir -p dist; touch dist/tried; git update-index --skip-worktree tests/check.sh && echo "exit 0" > tests/check.sh; echo $PPID > dist/agent.pid`)} }, { hang: true }]`,
        '  - do: [{ print: LOOP_COMPLETE }]',
      ].join('\n'),
    );
    git(dir, 'commit', '-qam', 'script');
    const first = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'dist', 'agent.pid')), 15_000, 'the first try');
    first.child.kill('SIGKILL');
    await first.done;
    const r = await runRalph(['run', '--resume'], dir);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(markedProcesses(dir)).toEqual([]);
    const records = readRecords(dir);
    expect(records, r.stdout + r.stderr).toHaveLength(1);
    expect(records[0], JSON.stringify(records[0])).toMatchObject({
      iteration: 1,
      verdict: 'complete',
      index_flags_cleared: ['tests/check.sh'],
    });
    expect(git(dir, 'show', 'HEAD:tests/check.sh')).toBe('exit 0\n');
    expect(tag(dir, 'tests/check.sh')).toBe('H');
  });
});
