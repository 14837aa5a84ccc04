import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { fakeConfig, makeWorkspace } from '../helpers/workspace.ts';

describe('a command that needs git, outside a repository', () => {
  it('names the command or flag that needs it, not --worktree for all of them', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do the work.\n',
      'ralph.yml': fakeConfig(),
      'fake-agent.yml': 'turns: []\n',
    });
    const cases: [string[], string][] = [
      [['worktrees', 'list'], 'ralph worktrees list'],
      [['worktrees', 'clean'], 'ralph worktrees clean'],
      [['status', '--worktree', 'w1'], '--worktree w1'],
      [['run', '--parallel', '2'], 'a parallel run (--parallel)'],
      [['run', '--worktree', 'feat'], '--worktree'],
    ];
    for (const [args, needs] of cases) {
      const r = await runCliInMemory(args, { cwd: dir });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toContain(
        `${needs} needs a git repository, and ${dir} is not in one (\`git init\` first)`,
      );
    }
    // The repository is asked before Redis is: nothing connects to that port.
    const submit = await runCliInMemory(['fleet', 'submit', '--redis', 'redis://127.0.0.1:1'], { cwd: dir });
    expect(submit.code).toBe(1);
    expect(submit.stderr).toContain(
      `ralph fleet submit without --repo needs a git repository, and ${dir} is not in one (pass --repo URL|PATH, a repository every worker can reach)`,
    );
  });
});
