import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.ts';
import { markDone, readyFromSource } from '../../src/parallel/task-source.ts';
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
