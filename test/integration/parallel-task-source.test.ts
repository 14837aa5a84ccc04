import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.ts';
import { markDone, markStarted, readyFromSource, taskSourceOf } from '../../src/parallel/task-source.ts';
import { git, makeGitWorkspace, subjects } from '../helpers/git-workspace.ts';

describe('a merged checklist task is marked done', () => {
  it('on its own line only: an item whose text contains the title is another task', async () => {
    const design = '# D\n\n- [ ] Add login form\n- [ ] Add login\n- [ ] Other\n';
    const dir = makeGitWorkspace({ 'DESIGN.md': design });
    const config = configSchema.parse({ completion: { checklist: 'DESIGN.md' } });
    const login = readyFromSource(dir, config, 'checklist').find((t) => t.title === 'Add login');
    expect(login).toBeDefined();
    const commit = await markDone(
      dir,
      config,
      'checklist',
      login as { id: string; title: string },
      'a'.repeat(40),
    );
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    expect(readFileSync(join(dir, 'DESIGN.md'), 'utf8')).toBe(
      '# D\n\n- [ ] Add login form\n- [x] Add login\n- [ ] Other\n',
    );
    expect(subjects(dir)[0]).toBe('ralph: done — Add login');
    // Only that file is in the commit; done again, nothing changes.
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('DESIGN.md');
    expect(
      await markDone(dir, config, 'checklist', login as { id: string; title: string }, 'a'.repeat(40)),
    ).toBeNull();
  });
});

describe('a parallel run over prd.json stories and beads issues', () => {
  const issue = (id: string, title: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ id, title, status: 'open', priority: 2, issue_type: 'task', ...extra });

  it('hands out the ready issues, marks one in progress, closes a merged one in a commit of the export', async () => {
    const exported = `${[
      issue('b-1', 'Parser', { priority: 0 }),
      issue('b-2', 'Printer', { dependencies: [{ issue_id: 'b-2', depends_on_id: 'b-1', type: 'blocks' }] }),
    ].join('\n')}\n`;
    const dir = makeGitWorkspace({ '.beads/issues.jsonl': exported });
    const config = configSchema.parse({ tasks: { source: 'beads' } });
    const kind = taskSourceOf(dir, config);
    expect(kind).toBe('tasks');
    expect(readyFromSource(dir, config, kind).map((t) => t.id)).toEqual(['b-1']);
    markStarted(dir, config, kind, 'b-1');
    expect(
      JSON.parse(readFileSync(join(dir, '.beads/issues.jsonl'), 'utf8').split('\n')[0] as string).status,
    ).toBe('in_progress');
    const commit = await markDone(dir, config, kind, { id: 'b-1', title: 'Parser' }, 'b'.repeat(40));
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('.beads/issues.jsonl');
    expect(subjects(dir)[0]).toBe('ralph: done — Parser');
    expect(readyFromSource(dir, config, kind).map((t) => t.id)).toEqual(['b-2']);
    // Done again: nothing to commit.
    expect(await markDone(dir, config, kind, { id: 'b-1', title: 'Parser' }, 'b'.repeat(40))).toBeNull();
  });

  it('a merged story gets passes: true in a commit of prd.json alone', async () => {
    const prd = `${JSON.stringify({ userStories: [{ id: 'US-1', title: 'Cart', passes: false, priority: 1 }] }, null, 2)}\n`;
    const dir = makeGitWorkspace({ 'prd.json': prd });
    const config = configSchema.parse({ tasks: { source: 'prd.json' } });
    expect(readyFromSource(dir, config, 'tasks').map((t) => t.id)).toEqual(['US-1']);
    markStarted(dir, config, 'tasks', 'US-1');
    expect(readFileSync(join(dir, 'prd.json'), 'utf8')).toBe(prd);
    await markDone(dir, config, 'tasks', { id: 'US-1', title: 'Cart' }, 'c'.repeat(40));
    expect(JSON.parse(readFileSync(join(dir, 'prd.json'), 'utf8')).userStories[0].passes).toBe(true);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('prd.json');
    expect(readyFromSource(dir, config, 'tasks')).toEqual([]);
  });
});
