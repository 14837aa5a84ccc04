import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { fakeConfig, makeWorkspace } from '../helpers/workspace.ts';

describe('notifications', () => {
  it('rejects a webhook that is not an http(s) URL, with its line', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig()}notify:\n  webhook: ftp://example/x\n`,
    });
    const r = await runCliInMemory(['config', 'validate'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ralph\.yml:7:\d+.*http:\/\/ or https:\/\//);
  });
});

describe('review points (gates.approval)', () => {
  it('before_commit without git.commit is a config error naming the fix', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig()}gates:\n  approval: [before_commit]\n`,
    });
    const r = await runCliInMemory(['config', 'validate'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('before_commit needs git.commit: true');
  });
});
