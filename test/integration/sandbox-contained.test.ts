import { realpathSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { supervise } from '../../src/process/supervisor.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { sandboxPolicy } from '../../src/sandbox/sandbox-policy.ts';
import { wrapCommand } from '../../src/sandbox/wrap-command.ts';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { sandboxInput } from '../helpers/sandbox-input.ts';
import { waitFor } from '../helpers/wait.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// Under bubblewrap every process the agent starts is in a PID namespace that the kernel empties
// when the wrapper exits, so the supervisor skips its /proc scan for leftovers (it found only the
// wrapper's zombies, and cost tens of ms per iteration on a busy machine): the daemon still dies.

const used: string[] = [];
afterEach(() => killLeftovers(used.splice(0)));

describe('a contained (bwrap) agent that exits leaving a daemon', () => {
  it('the daemon dies with the sandbox, with no scan by the supervisor', async (t) => {
    const probe = await probeSandbox();
    if (!probe.ok) t.skip();
    const ws = realpathSync(makeWorkspace({ 'ralph.yml': 'cli:\n  backend: custom\n' }));
    used.push(ws);
    const home = realpathSync(makeWorkspace());
    const policy = sandboxPolicy(
      sandboxInput(ws, home, {
        gitDir: undefined,
        gitCommonDir: undefined,
        configFiles: [],
        promptFiles: [],
      }),
    );
    // The daemon leaves the agent's group and session: only the namespace takes it down.
    const script = "setsid sh -c 'sleep 300; true' < /dev/null > /dev/null 2>&1 & sleep 0.2; echo started";
    const wrapped = wrapCommand(policy, { command: 'sh', args: ['-c', script] }, 'linux', {
      bwrap: probe.ok ? probe.path : undefined,
    });
    expect(wrapped.contained).toBe(true);
    const result = await supervise({
      command: wrapped.command,
      args: wrapped.args,
      contained: wrapped.contained,
      env: { ...process.env, HOME: home, RALPH_ITERATION_MARK: 'sbx-contained', RALPH_WORKSPACE_ROOT: ws },
      stdin: null,
      killGraceMs: 1000,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdoutTail).toContain('started');
    // No scan: nothing reported killed by the supervisor…
    expect(result.killed).toEqual([]);
    // …and nothing of the agent's left running all the same.
    await waitFor(() => markedProcesses(ws).length === 0, 5_000, 'the sandboxed daemon to be gone');
  });

  it('sandbox-exec (macOS) has no PID namespace: its command is not contained', () => {
    const policy = sandboxPolicy(sandboxInput());
    expect(wrapCommand(policy, { command: 'true', args: [] }, 'darwin').contained).toBeUndefined();
  });
});
