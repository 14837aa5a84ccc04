import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareWorktree, RalphError, readStatus, resolveRun, runLoop } from '../../src/index.ts';
import { git, makeGitWorkspace, subjects, worktreeProject } from '../helpers/git-workspace.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// `ralph run --worktree NAME` from a program: prepareWorktree, then the loop in its workspace.

describe('prepareWorktree (library API)', () => {
  it('makes .ralph/worktrees/NAME on ralph/NAME once, reuses it after, and the loop runs there', async () => {
    const dir = makeGitWorkspace(worktreeProject);
    const wt = await prepareWorktree(dir, 'lib');
    const path = join(dir, '.ralph', 'worktrees', 'lib');
    expect(wt).toEqual({ workspace: path, path, branch: 'ralph/lib', created: true });

    const summary = await runLoop({ workspace: wt.workspace, ...resolveRun({ cwd: wt.workspace }) });
    expect(summary).toMatchObject({ exitCode: 0, stopReason: 'completed', workspace: path });
    expect(readFileSync(join(path, 'feature.txt'), 'utf8')).toBe('from the worktree\n');
    // The main checkout, its branch and its .ralph/ are untouched; the work is on ralph/lib.
    expect(existsSync(join(dir, 'feature.txt'))).toBe(false);
    expect(subjects(dir)).toEqual(['initial']);
    expect(git(dir, 'log', '--format=%s', 'ralph/lib').trim().split('\n')).toHaveLength(2);
    expect(readStatus(dir).state).toBeUndefined();
    expect(readStatus(path).state?.status).toBe('completed');

    expect(await prepareWorktree(dir, 'lib')).toEqual({ ...wt, created: false });
    expect((await prepareWorktree(dir)).branch).toBe('ralph/loop');
  });

  it('refuses a run file the worktree lacks (not committed), a bad name, and a directory outside git', async () => {
    const dir = makeGitWorkspace({ 'README.md': 'x\n' });
    writeFileSync(join(dir, 'ralph.yml'), worktreeProject['ralph.yml']);
    await expect(prepareWorktree(dir, 'wip')).rejects.toMatchObject({
      code: 'worktree_missing_file',
      message: expect.stringContaining('commit ralph.yml first'),
    });
    await expect(prepareWorktree(dir, '../x')).rejects.toMatchObject({ code: 'usage' });
    const outside = await prepareWorktree(makeWorkspace()).catch((error: unknown) => error);
    expect(outside).toBeInstanceOf(RalphError);
    expect(outside).toMatchObject({ code: 'not_a_git_repo' });
  });
});
