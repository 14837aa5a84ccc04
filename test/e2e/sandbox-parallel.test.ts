import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { killLeftovers } from '../helpers/marked-processes.ts';
import { addTasks } from '../helpers/parallel-workspace.ts';
import { attemptLines, attemptPrelude, expectRefused } from '../helpers/sandbox-attack-log.ts';
import { runRalph, startRalph, stopWhenDone, waitFor } from '../helpers/workspace.ts';

// `--parallel 2` under `sandbox: on` (issue 34): each worker's agent is sandboxed in its own
// worktree; a write to the main workspace's files or to the other worker's worktree fails at the
// operating system. (One worker's sandbox against git's hooks is in sandbox-run.test.ts.)

const used: string[] = [];
afterEach(() => killLeftovers(used.splice(0)));

/** The worker agent: marks itself started, waits for the test's `go`, then attacks the others. */
const AGENT = [
  '#!/bin/sh',
  attemptPrelude('"result-$name.txt"'),
  'me=$(pwd)',
  'name=$(basename "$me")',
  'touch started',
  'while [ ! -f go ]; do sleep 0.05; done',
  'main=$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")',
  'other=$(git worktree list --porcelain | sed -n "s/^worktree //p" | grep -v -x -e "$main" -e "$me" | head -1)',
  'printf "%s\\n%s\\n" "$main" "$other" > "seen-$name.txt"',
  'export main other',
  attemptLines([
    ['main_edit', 'echo x >> "$main/src/app.txt"'],
    ['main_config', 'echo "sandbox: off" >> "$main/ralph.yml"'],
    ['main_new', 'echo x > "$main/src/planted.txt"'],
    ['other_edit', 'echo x >> "$other/src/app.txt"'],
    ['other_new', 'echo x > "$other/src/planted.txt"'],
  ]),
  'echo LOOP_COMPLETE',
].join('\n');

describe('sandbox: on with --parallel 2', () => {
  it("each worker's agent writes only its own worktree: the main workspace and the other worktree fail at the OS", async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'Do the task you are given.\n',
      '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
      'src/app.txt': 'old\n',
      'agent.sh': `${AGENT}\n`,
      'ralph.yml':
        'event_loop:\n  max_iterations: 1\ncli:\n  backend: custom\n  command: ./agent.sh\ngit:\n  commit: true\nsandbox: on\n',
    });
    chmodSync(join(dir, 'agent.sh'), 0o755);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'agent');
    used.push(dir);
    await addTasks(dir, ['one', 'two']);
    const yml = readFileSync(join(dir, 'ralph.yml'), 'utf8');

    const loop = stopWhenDone(startRalph(['run', '--parallel', '2', '--no-tui'], dir));
    const root = join(dir, '.ralph', 'worktrees');
    const started = () =>
      existsSync(root) ? readdirSync(root).filter((w) => existsSync(join(root, w, 'started'))) : [];
    // Both agents run at once, so each has the other's worktree to attack.
    await waitFor(() => started().length === 2, 60_000, 'both workers’ agents started');
    const worktrees = started();
    for (const w of worktrees) writeFileSync(join(root, w, 'go'), '');
    const r = await loop.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);

    // Each worker's log was committed in its worktree and merged onto main.
    for (const w of worktrees) {
      const [main, other] = readFileSync(join(dir, `seen-${w}.txt`), 'utf8').split('\n');
      expect(main).toBe(dir);
      expect(worktrees.map((x) => join(root, x))).toContain(other);
      expect(other).not.toBe(join(root, w));
      expectRefused(
        dir,
        ['main_edit', 'main_config', 'main_new', 'other_edit', 'other_new'],
        `result-${w}.txt`,
      );
    }
    expect(readFileSync(join(dir, 'src', 'app.txt'), 'utf8')).toBe('old\n');
    expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toBe(yml);
    expect(existsSync(join(dir, 'src', 'planted.txt'))).toBe(false);
    // No commit on any branch carries a write into another tree.
    expect(
      git(dir, 'log', '--all', '--format=%H', '--', 'src/app.txt', 'src/planted.txt').trim().split('\n'),
    ).toHaveLength(1);
    const tasks = await runRalph(['tools', 'task', 'list', '--all'], dir);
    expect(tasks.stdout).not.toMatch(/\bopen\b/);
  });
});
