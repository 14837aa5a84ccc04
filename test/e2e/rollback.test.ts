import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import {
  fakeConfig,
  makeWorkspace,
  readRecords,
  readState,
  runRalph,
  type TracedWrite,
  traceRunWrites,
} from '../helpers/workspace.ts';

/**
 * gates.on_failure: rollback (docs/concepts/rollback-and-rules.md): iteration 1 adds idea.txt and
 * edits notes.txt but the tests fail (no fixed.txt); iteration 2 fixes it and completes.
 */
function project(extra: Record<string, string> = {}): string {
  return makeGitWorkspace({
    'PROMPT.md': 'make the check pass\n',
    'notes.txt': 'original\n',
    'check.sh': 'test -f fixed.txt || { echo "fixed.txt is missing"; exit 3; }\n',
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'ralph.yml': `${fakeConfig({ max_iterations: 3 })}gates:\n  tests:\n    command: sh check.sh\n  on_failure: rollback\ngit:\n  commit: true\n`,
    'fake-agent.yml': [
      'turns:',
      '  - when: { iteration: 1 }',
      '    do:',
      '      - write: { path: idea.txt, content: "an idea\\n" }',
      '      - write: { path: notes.txt, content: "changed\\n" }',
      '      - print: LOOP_COMPLETE',
      '  - do:',
      '      - save_prompt: .ralph/p2.md',
      '      - write: { path: fixed.txt, content: "ok\\n" }',
      '      - print: LOOP_COMPLETE',
    ].join('\n'),
    ...extra,
  });
}

describe('gates.on_failure: rollback', () => {
  it('sets a failing iteration aside in a rescue ref, tells the next prompt, and `ralph rescue apply` brings it back', async () => {
    const dir = project();
    const start = git(dir, 'rev-parse', 'HEAD').trim();
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const runId = readState(dir).run_id;
    const ref = `refs/ralph/rescue/${runId}/1`;
    const [first, second] = readRecords(dir);
    expect(first).toMatchObject({ verdict: 'failure', commit: null, rollback: { ref, to: start } });
    expect(first?.reason).toContain('the tests gate failed');
    expect(second).toMatchObject({ verdict: 'complete' });
    // The tree went back: the failed iteration's files are only in the ref.
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('original\n');
    expect(existsSync(join(dir, 'idea.txt'))).toBe(false);
    expect(git(dir, 'show', `${ref}:idea.txt`)).toBe('an idea\n');
    expect(git(dir, 'log', '-1', '--format=%P', ref).trim()).toBe(start);
    const p2 = readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8');
    expect(p2).toContain('Iteration 1 was rolled back: the tests gate failed: `sh check.sh` exited with 3');
    expect(p2).toContain(ref);
    expect(p2).toContain('fixed.txt is missing');
    // Only the green iteration is on the branch.
    expect(git(dir, 'log', '--format=%s').trim().split('\n')).toHaveLength(2);

    const list = await runRalph(['rescue', 'list'], dir);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${runId}/1`);
    const show = await runRalph(['rescue', 'show', '1'], dir);
    expect(show.stdout).toContain('rescue of iteration 1');
    expect(show.stdout).toContain('idea.txt');

    writeFileSync(join(dir, 'wip.txt'), 'mine\n');
    const refused = await runRalph(['rescue', 'apply', '1'], dir);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('uncommitted changes (wip.txt)');
    rmSync(join(dir, 'wip.txt'));
    const applied = await runRalph(['rescue', 'apply', '1'], dir);
    expect(applied.code, applied.stderr).toBe(0);
    expect(readFileSync(join(dir, 'idea.txt'), 'utf8')).toBe('an idea\n');
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('changed\n');
  });

  it('a kill -9 before the rescue ref, or between it and the reset, loses nothing; --resume finishes the rollback', async () => {
    // The first record appended (the rollback is saved with it), then the state saying the ref is
    // written: the trace stops there, iteration 2 adds no write point this test needs.
    const appended = (w: TracedWrite) => w.kind === 'durable' && w.path.endsWith('iterations.jsonl');
    const rescuedAfter = (append: TracedWrite) => (w: TracedWrite) =>
      w.kind === 'durable' && w.n > append.n && w.path.endsWith('state.json');
    const writes = await traceRunWrites(project(), (ws) => {
      const append = ws.find(appended);
      return append !== undefined && ws.some(rescuedAfter(append));
    });
    const append = writes.find(appended)!;
    const rescued = writes.find(rescuedAfter(append))!;

    // The two kill points are independent workspaces: checked side by side.
    const killPoints = [
      [append.n, false],
      [rescued.n, true],
    ] as const;
    await Promise.all(
      killPoints.map(async ([at, refWritten]) => {
        const dir = project();
        const killed = await runRalph(['run'], dir, { RALPH_FAULT_KILL_AFTER_WRITE: String(at) });
        expect(killed.signal).toBe('SIGKILL');
        const state = readState(dir);
        expect(state.rollback).toMatchObject({ iteration: 1, trees: [{ repo: null, rescued: refWritten }] });
        const ref = state.rollback.ref as string;
        expect(git(dir, 'for-each-ref', ref).includes(ref)).toBe(refWritten);
        // Still in the tree (and, once rescued, in the ref too).
        expect(readFileSync(join(dir, 'idea.txt'), 'utf8')).toBe('an idea\n');

        const resumed = await runRalph(['run', '--resume'], dir);
        expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
        expect(git(dir, 'show', `${ref}:idea.txt`)).toBe('an idea\n');
        expect(existsSync(join(dir, 'idea.txt'))).toBe(false);
        expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('original\n');
        expect(readState(dir).rollback).toBeNull();
        expect(readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8')).toContain('Iteration 1 was rolled back');
      }),
    );
  });

  it('--resume finishes a rollback an older Ralph saved in its own form (`rollback`: { to, why, rescued })', async () => {
    const writes = await traceRunWrites(project());
    const append = writes.find((w) => w.kind === 'durable' && w.path.endsWith('iterations.jsonl'))!;
    const dir = project();
    const killed = await runRalph(['run'], dir, { RALPH_FAULT_KILL_AFTER_WRITE: String(append.n) });
    expect(killed.signal).toBe('SIGKILL');
    // state.json as the older Ralph wrote it: the workspace's rollback, flat.
    const state = readState(dir);
    const [tree] = state.rollback.trees;
    const { ref, iteration } = state.rollback;
    const old = { ...state, rollback: { iteration, ref, to: tree.to, why: tree.why, rescued: false } };
    writeFileSync(join(dir, '.ralph', 'state.json'), JSON.stringify(old));

    const resumed = await runRalph(['run', '--resume'], dir);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(git(dir, 'show', `${ref}:idea.txt`)).toBe('an idea\n');
    expect(existsSync(join(dir, 'idea.txt'))).toBe(false);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('original\n');
    expect(readState(dir).rollback).toBeNull();
    expect(readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8')).toContain('Iteration 1 was rolled back');
  });

  it('works in a worktree (--worktree): its run keeps its own rescue refs, listed from the main checkout', async () => {
    const dir = project();
    const r = await runRalph(['run', '--worktree', 'w1'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const tree = join(dir, '.ralph', 'worktrees', 'w1');
    const runId = readState(tree).run_id;
    expect(existsSync(join(tree, 'idea.txt'))).toBe(false);
    expect(git(dir, 'show', `refs/ralph/rescue/${runId}/1:idea.txt`)).toBe('an idea\n');
    const list = await runRalph(['rescue', 'list'], dir);
    expect(list.stdout).toContain(`${runId}/1`);
  });

  it('is refused outside git with what to do, by `ralph run` and `ralph config validate`', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}gates:\n  tests:\n    command: "true"\n  on_failure: rollback\n`,
      'fake-agent.yml': 'turns:\n  - do: [{ print: LOOP_COMPLETE }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('gates.on_failure: rollback needs a git repository');
    // Before any run: the config check says it too.
    const validate = await runRalph(['config', 'validate'], dir);
    expect(validate.code).not.toBe(0);
    expect(validate.stdout + validate.stderr).toContain('gates.on_failure: rollback needs a git repository');
  });
});
