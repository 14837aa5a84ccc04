import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, makeGitWorkspace, subjects, worktreeProject } from '../helpers/git-workspace.ts';
import { runRalph } from '../helpers/workspace.ts';

const files = worktreeProject;

describe('ralph run --worktree', () => {
  it('runs in .ralph/worktrees/NAME on branch ralph/NAME; list shows it; clean never removes unmerged work', async () => {
    const dir = makeGitWorkspace(files);
    const r = await runRalph(['run', '--no-tui', '--worktree', 'feat'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `created worktree ${join(dir, '.ralph', 'worktrees', 'feat')} (branch ralph/feat)`,
    );
    const wt = join(dir, '.ralph', 'worktrees', 'feat');
    // The work is on ralph/feat, in the worktree; the main checkout and its branch are untouched.
    expect(readFileSync(join(wt, 'feature.txt'), 'utf8')).toBe('from the worktree\n');
    expect(existsSync(join(dir, 'feature.txt'))).toBe(false);
    expect(subjects(dir)).toEqual(['initial']);
    expect(git(dir, 'log', '--format=%s', 'ralph/feat').trim().split('\n')).toHaveLength(2);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');

    const status = await runRalph(['status', '--worktree', 'feat'], dir);
    expect(status.stdout).toContain('completed');
    const list = await runRalph(['worktrees', 'list'], dir);
    expect(list.stdout).toContain('feat  ralph/feat  1 ahead, 0 behind  loop: completed');

    // Unmerged: kept.
    let clean = await runRalph(['worktrees', 'clean'], dir);
    expect(clean.stdout).toContain(
      'kept feat: 1 commit(s) on ralph/feat are not on the target; merge them first',
    );
    expect(existsSync(wt)).toBe(true);

    // Merged: removed, branch and all.
    git(dir, 'merge', '--ff-only', 'ralph/feat');
    clean = await runRalph(['worktrees', 'clean'], dir);
    expect(clean.stdout).toContain('removed feat (its branch was merged)');
    expect(existsSync(wt)).toBe(false);
    expect(git(dir, 'branch', '--list', 'ralph/feat').trim()).toBe('');
  });

  it('refuses a ralph.yml that is not committed (the worktree would not have it), and a bad name', async () => {
    const dir = makeGitWorkspace({ 'README.md': 'x\n' });
    const { writeFileSync } = await import('node:fs');
    for (const [p, c] of Object.entries(files))
      writeFileSync(join(dir, p.replace('.ralph/.gitignore', 'x.tmp')), c);
    const r = await runRalph(['run', '--no-tui', '--worktree', 'wip'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not in the worktree');
    expect(r.stderr).toContain('commit ralph.yml first');
    const bad = await runRalph(['run', '--worktree', '../x'], dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('is not usable');
  });
});
