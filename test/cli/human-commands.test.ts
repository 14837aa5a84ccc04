import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// pause, resume and the rest with a running loop: test/e2e/human-in-the-loop.test.ts.
describe('ralph pause without a loop', () => {
  it('pause and resume need a running loop', async () => {
    const dir = makeWorkspace({});
    const r = await runCliInMemory(['pause'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no Ralph loop is running');
  });
});
