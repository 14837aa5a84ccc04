import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// Issue 36: run from a subdirectory, `ralph status` said "no Ralph run" and `ralph run` "no prompt".

/** A project: ralph.yml at the top of a repository, a subdirectory `src/deep`. */
function project(): { root: string; sub: string } {
  const root = makeWorkspace({
    'ralph.yml': 'event_loop:\n  prompt_file: PROMPT.md\ncli:\n  backend: custom\n  command: /bin/true\n',
    'PROMPT.md': 'the project prompt\n',
  });
  mkdirSync(join(root, '.git'));
  const sub = join(root, 'src', 'deep');
  mkdirSync(sub, { recursive: true });
  return { root, sub };
}

describe('commands run from a subdirectory act on the project above', () => {
  it('ralph run --dry-run finds ralph.yml and its prompt above, and says where it is', async () => {
    const { root, sub } = project();
    const r = await runCliInMemory(['run', '--dry-run'], { cwd: sub });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('the project prompt');
    expect(r.stderr).toContain(`ralph: in the project at ${root} (found above ${sub})`);
  });

  it('a relative -P file is still the one next to the user', async () => {
    const { sub } = project();
    writeFileSync(join(sub, 'TASK.md'), 'the local task\n');
    const r = await runCliInMemory(['run', '--dry-run', '-P', 'TASK.md'], { cwd: sub });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('the local task');
  });

  it('ralph status and config show read the project, not the subdirectory', async () => {
    const { root, sub } = project();
    const status = await runCliInMemory(['status'], { cwd: sub });
    expect(status.stderr).toContain(`in the project at ${root}`);
    const show = await runCliInMemory(['config', 'show'], { cwd: sub });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('prompt_file: PROMPT.md');
  });

  it('stops at the repository top, and leaves init and -c alone', async () => {
    const { root, sub } = project();
    // A repository inside the project: its own top is as high as the search goes.
    const inner = join(root, 'vendor', 'lib');
    mkdirSync(join(inner, '.git'), { recursive: true });
    const r = await runCliInMemory(['config', 'show'], { cwd: inner });
    expect(r.stderr).not.toContain('in the project at');
    const init = await runCliInMemory(['init'], { cwd: sub });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).not.toContain('in the project at');
    expect(init.stdout + init.stderr).toContain('ralph.yml');
  });
});
