import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

describe('ralph tell outside a project', () => {
  it('refuses a directory with no ralph.yml and no .ralph/, creating nothing (issue 36)', async () => {
    const dir = makeWorkspace({});
    const r = await runCliInMemory(['tell', 'hi'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no Ralph project in');
    expect(existsSync(join(dir, '.ralph'))).toBe(false);
    // With a ralph.yml it is kept for the next run.
    writeFileSync(join(dir, 'ralph.yml'), 'event_loop:\n  prompt: go\n');
    const kept = await runCliInMemory(['tell', 'hi'], { cwd: dir });
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain('the next `ralph run` carries it');
  });
});
