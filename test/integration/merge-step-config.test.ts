import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Coordination } from '../../src/parallel/coordination.ts';
import { configBeforeMerge, parallelConfigMark } from '../../src/parallel/merge-step.ts';
import { parallelPaths } from '../../src/state/parallel-files.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';

/** The parts of a coordinator the check before a merge reads. */
async function coordinator(dir: string): Promise<Coordination> {
  const gitConfig = await parallelConfigMark(dir);
  return {
    o: { workspace: dir },
    setup: { paths: parallelPaths(dir) },
    gitConfig,
  } as unknown as Coordination;
}

// --parallel: every worktree shares the repository's config, so a worker's agent can add a program
// to it while another task merges. The merge queue checks it before its git calls.
describe('the git config before a parallel merge', () => {
  it('puts back a filter an agent added since the start, and stops the run naming it', async () => {
    const dir = makeGitWorkspace({ 'a.txt': 'a\n' });
    const c = await coordinator(dir);
    const before = readFileSync(join(dir, '.git', 'config'), 'utf8');
    git(dir, 'config', 'filter.evil.clean', 'touch planted; cat');
    const stop = await configBeforeMerge(c);
    expect(stop).toMatchObject({ reason: 'gate_tampered', exitCode: 1 });
    expect(stop?.message).toContain('filter.evil.clean');
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).toBe(before);
    const kept = readdirSync(join(dir, '.ralph', 'parallel')).filter((d) =>
      d.startsWith('git-config-refused-'),
    );
    expect(kept).toHaveLength(1);
    // Put back: the next merge finds nothing to refuse.
    expect(await configBeforeMerge(c)).toBeUndefined();
    expect(existsSync(join(dir, 'planted'))).toBe(false);
  });

  it('lets a setting that runs nothing through, and takes its bytes as the new reference', async () => {
    const dir = makeGitWorkspace({ 'a.txt': 'a\n' });
    const c = await coordinator(dir);
    git(dir, 'config', 'branch.main.description', 'wip');
    expect(await configBeforeMerge(c)).toBeUndefined();
    expect(git(dir, 'config', 'branch.main.description').trim()).toBe('wip');
    git(dir, 'config', 'merge.evil.driver', 'touch planted');
    expect((await configBeforeMerge(c))?.message).toContain('merge.evil.driver');
    // The accepted description stays; only the driver went.
    expect(git(dir, 'config', 'branch.main.description').trim()).toBe('wip');
  });

  it('counts a config git cannot read as changed, and puts the readable one back', async () => {
    const dir = makeGitWorkspace({ 'a.txt': 'a\n' });
    const c = await coordinator(dir);
    const before = readFileSync(join(dir, '.git', 'config'), 'utf8');
    writeFileSync(join(dir, '.git', 'config'), `${before}[broken\n`);
    expect((await configBeforeMerge(c))?.message).toContain('a config git cannot read');
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).toBe(before);
  });
});
