import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { killLeftovers, markedProcesses, processesRunning } from '../helpers/marked-processes.ts';
import { readRecords, readState, runRalph, startRalph, stopWhenDone, waitFor } from '../helpers/workspace.ts';

// Ralph's supervision through the bubblewrap wrapper (issue 34): kill -9 of Ralph mid-iteration
// leaves nothing of the sandboxed agent running (not even a setsid daemon), and `--resume` re-runs
// exactly the interrupted iteration. The timeout's kill is in sandbox-run.test.ts.

const used: string[] = [];
afterEach(() => killLeftovers(used.splice(0)));

describe('sandbox: on under kill -9 and --resume', () => {
  it('kill -9 of Ralph mid-iteration takes the sandboxed agent and its daemon down; --resume re-runs that iteration once', async () => {
    const agent = [
      'echo "$RALPH_ITERATION" >> ran.txt',
      'if [ "$RALPH_ITERATION" = 2 ] && [ ! -f resume.flag ]; then',
      // A daemon out of the agent's process group and session, and a child: the test finds them
      // by command lines nothing else on the machine has ($! inside the PID namespace is not the host's).
      '  setsid nohup sleep 302.7131 < /dev/null > /dev/null 2>&1 &',
      '  sleep 303.7131 &',
      '  touch hanging',
      '  sleep 300',
      'fi',
      'if [ "$RALPH_ITERATION" = 2 ]; then echo LOOP_COMPLETE; fi',
    ];
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
      'agent.sh': `#!/bin/sh\n${agent.join('\n')}\n`,
      'ralph.yml':
        'event_loop:\n  max_iterations: 4\n  kill_grace_seconds: 0.5\ncli:\n  backend: custom\n  command: ./agent.sh\nsandbox: on\n',
    });
    chmodSync(join(dir, 'agent.sh'), 0o755);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'agent');
    used.push(dir);

    const first = stopWhenDone(startRalph(['run', '--no-tui'], dir));
    await waitFor(
      () => existsSync(join(dir, 'hanging')) && readState(dir).current?.agent_pid > 0,
      20_000,
      'iteration 2 hanging inside the sandbox',
    );
    await waitFor(() => processesRunning('sleep\u0000302.7131').length > 0, 10_000, 'the daemon started');
    const before = readState(dir);
    expect(before).toMatchObject({ iterations: 1, current: { number: 2 } });
    first.child.kill('SIGKILL');
    await first.done;

    // bwrap dies with Ralph (--die-with-parent), and the PID namespace with it: no orphan survives.
    await waitFor(
      () =>
        processesRunning('sleep\u0000302.7131').length === 0 &&
        processesRunning('sleep\u0000303.7131').length === 0 &&
        markedProcesses(dir).length === 0,
      10_000,
      'every process of the sandboxed iteration gone after kill -9 of Ralph',
    );
    expect(readState(dir)).toMatchObject({ run_id: before.run_id, status: 'running' });

    writeFileSync(join(dir, 'resume.flag'), '');
    const resumed = await runRalph(['run', '--resume', '--no-tui'], dir);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(readState(dir)).toMatchObject({ run_id: before.run_id, iterations: 2, stop_reason: 'completed' });
    // Iteration 2 ran twice (cut, then re-run), iteration 1 once: exactly once more, nothing skipped.
    expect(readFileSync(join(dir, 'ran.txt'), 'utf8')).toBe('1\n2\n2\n');
    const records = readRecords(dir);
    expect(records.map((r) => r.iteration)).toEqual([1, 2]);
    expect(records.every((r) => r.sandbox?.mode === 'on')).toBe(true);
    expect(markedProcesses(dir)).toEqual([]);
  });
});
